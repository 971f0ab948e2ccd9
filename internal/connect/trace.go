package connect

import (
	"io"
	"sync"

	"github.com/mcpv/mcpv/internal/otel"
	"github.com/mcpv/mcpv/internal/trace"
	"github.com/mcpv/mcpv/mcp"
)

// traced gives the session about to be opened its part of the run's
// trace (Hooks.Tracer): every message, the transport's events and the
// server's stderr go into it. Without a trace, h is as it was.
// With Telemetry, its requests become spans as they go.
func (h Hooks) traced(s *Settings) Hooks {
	if h.Tracer != nil && h.traceSession == nil {
		h.traceSession = h.Tracer.Session()
		h.Trace = also(h.Trace, h.traceSession.Message)
	}
	if h.Telemetry != nil && h.spans == nil {
		h.spans = h.Telemetry.Session(otel.KindClient, s.URL)
		h.Trace = also(h.Trace, h.spans.Message)
	}
	return h
}

// also is a trace hook that calls first, then then (either may be nil).
func also(first, then func(out bool, msg []byte)) func(out bool, msg []byte) {
	if first == nil {
		return then
	}
	if then == nil {
		return first
	}
	return func(out bool, msg []byte) {
		first(out, msg)
		then(out, msg)
	}
}

// traceParent is what gives each request its span's context (mcp's
// ClientOptions.TraceParent): nil without telemetry.
func (h Hooks) traceParent() func() string {
	if h.Telemetry == nil {
		return nil
	}
	return h.Telemetry.TraceParent
}

// onEvent is the transport's event hook: nil without a trace.
func (h Hooks) onEvent() func(mcp.TransportEvent) {
	if h.traceSession == nil {
		return nil
	}
	return h.traceSession.Event
}

// traceStderr is w (nil: nothing shown) with the server's stderr also
// written into the trace, a line at a time.
func (h Hooks) traceStderr(w io.Writer) io.Writer {
	if h.traceSession == nil {
		return w
	}
	lw := &stderrLines{ts: h.traceSession}
	if w == nil {
		return lw
	}
	return io.MultiWriter(w, lw)
}

// noteEra writes the era the session speaks, once it is open, into the
// trace, and gives its spans the version and session id.
func (c *Conn) noteEra() {
	sid := ""
	if c.http != nil {
		sid = c.http.SessionID()
	}
	if c.hooks.spans != nil {
		c.hooks.spans.Negotiated(c.Client.ProtocolVersion(), sid)
	}
	ts := c.hooks.traceSession
	if ts == nil {
		return
	}
	era := "initialize"
	if c.Client.Modern() {
		era = "modern"
	}
	m := map[string]any{"era": era, "protocolVersion": c.Client.ProtocolVersion(), "probed": c.probed}
	if sid != "" {
		m["sessionId"] = sid
	}
	ts.Note("session", m)
}

// stderrLines writes what a server writes on stderr into its trace, a
// line at a time; a line longer than trace.MaxLine is written in pieces.
type stderrLines struct {
	ts  *trace.Session
	mu  sync.Mutex // guards buf
	buf []byte
}

func (l *stderrLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := 0
		for i < len(p) && p[i] != '\n' {
			i++
		}
		l.buf = append(l.buf, p[:i]...)
		if i < len(p) || len(l.buf) >= trace.MaxLine {
			l.ts.Stderr(l.buf)
			l.buf = l.buf[:0]
			if i < len(p) {
				i++
			}
		}
		p = p[i:]
	}
	return n, nil
}
