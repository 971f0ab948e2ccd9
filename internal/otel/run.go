package otel

import (
	"cmp"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// Run is the telemetry of one run of mcpv: its command's span, which
// every session's request spans are children of, and the exporter.
type Run struct {
	Exporter *Exporter
	ctx      Context
	parent   SpanID
	name     string
	start    time.Time
	attrs    []Attr
	// issued are the spans TraceParent gave out whose request has not
	// gone yet: a session takes such a traceparent as its request's own,
	// and any other (a request relayed with its client's) as its parent.
	issued sync.Map // SpanID -> struct{}
}

// Start begins a run's span, named name ("mcpv call"), as a child of the
// context in traceparent when it is one (the TRACEPARENT a CI job or an
// agent that runs mcpv passes down), else at the root of a new trace.
func Start(e *Exporter, name, traceparent string, start time.Time, attrs ...Attr) *Run {
	r := &Run{Exporter: e, name: name, start: start, attrs: attrs}
	if c, ok := ParseTraceparent(traceparent); ok {
		r.ctx.Trace, r.parent = c.Trace, c.Span
	} else {
		r.ctx.Trace = NewTraceID()
	}
	r.ctx.Span, r.ctx.Sampled = NewSpanID(), true
	return r
}

// Context is the run's span's.
func (r *Run) Context() Context { return r.ctx }

// TraceParent is the traceparent of a new span of the run's trace, a
// child of its command's: what a request carries to the server.
func (r *Run) TraceParent() string {
	c := Context{Trace: r.ctx.Trace, Span: NewSpanID(), Sampled: true}
	r.issued.Store(c.Span, struct{}{})
	return c.Traceparent()
}

// ours says whether c is a span TraceParent gave out, and forgets it.
func (r *Run) ours(c Context) bool {
	_, ok := r.issued.LoadAndDelete(c.Span)
	return ok && c.Trace == r.ctx.Trace
}

// Session starts the spans of a session of the run's (see
// Exporter.Session): a client's to the server at target (a URL, or ""
// for a stdio server).
func (r *Run) Session(kind int, target string) *Session {
	s := r.Exporter.Session(r.ctx, kind, Peer(target)...)
	s.ours = r.ours
	return s
}

// Peer are the attributes that say where a session goes: over a pipe
// to a stdio server, or over TCP to a URL's host and port.
func Peer(target string) []Attr {
	u, err := url.Parse(target)
	if target == "" || err != nil || u.Host == "" {
		return []Attr{String("network.transport", "pipe")}
	}
	host, port := u.Hostname(), cmp.Or(u.Port(), map[string]string{"https": "443"}[u.Scheme], "80")
	p, _ := strconv.Atoi(port)
	return []Attr{String("network.transport", "tcp"), String("network.protocol.name", "http"), String("server.address", host), Int("server.port", int64(p))}
}

// End ends the run's span with its exit code (a failure, error.type the
// code, and the line mcpv printed as its status), then sends every span
// held, within the exporter's bound; it returns the first failure to
// export.
func (r *Run) End(code int, errLine string) error {
	s := Span{Context: r.ctx, Parent: r.parent, Name: r.name, Kind: KindInternal, Start: r.start, End: time.Now(),
		Attrs: append(r.attrs, Int("process.exit.code", int64(code)))}
	if code != 0 {
		s.Attrs = append(s.Attrs, String("error.type", strconv.Itoa(code)))
		s.Error = cmp.Or(errLine, "exit "+strconv.Itoa(code))
	}
	r.Exporter.Add(s)
	return r.Exporter.Close()
}
