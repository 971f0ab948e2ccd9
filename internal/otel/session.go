package otel

import (
	"cmp"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Session makes a span of each request of one MCP session: from the
// message that asks to the one that answers, as the session sees them
// (Message, the session's trace hook). Its spans are children of parent,
// the command's; kind is KindClient for the requests a client sends,
// KindServer for those a server (mcpv serve) receives.
type Session struct {
	e      *Exporter
	parent Context
	kind   int
	// ours, when set, says whether a request's traceparent is the one
	// mcpv gave it (its span's own); else it is its parent's (a client's
	// request relayed).
	ours func(Context) bool

	mu   sync.Mutex // guards the fields below
	base []Attr     // what every span of the session carries
	open map[string]*Span
}

// Session starts the spans of a session: base are the attributes each
// carries (network.transport, server.address...).
func (e *Exporter) Session(parent Context, kind int, base ...Attr) *Session {
	return &Session{e: e, parent: parent, kind: kind, base: base, open: map[string]*Span{}}
}

// Negotiated adds what the session agreed on to the spans that start
// from now on: the protocol version, the HTTP session's id.
func (s *Session) Negotiated(version, sessionID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if version != "" {
		s.base = append(s.base, String("mcp.protocol.version", version))
	}
	if sessionID != "" {
		s.base = append(s.base, String("mcp.session.id", sessionID))
	}
}

// Message sees a message the session sent (out) or received. A request
// going out (or, for a server, coming in) starts its span, with the
// traceparent its params._meta carries as its own context when there is
// one; the answer ends it.
func (s *Session) Message(out bool, msg []byte) {
	if len(msg) > 0 && msg[0] == '[' {
		rawjson.ScanElements(msg, func(el []byte) { s.Message(out, el) })
		return
	}
	var buf [8]rawjson.Field
	var id, method, params, result, rerr []byte
	for _, f := range rawjson.ScanFields(buf[:0], msg) {
		switch {
		case f.KeyIs("id"):
			id = f.Value
		case f.KeyIs("method"):
			method = f.Value
		case f.KeyIs("params"):
			params = f.Value
		case f.KeyIs("result"):
			result = f.Value
		case f.KeyIs("error"):
			rerr = f.Value
		}
	}
	if id == nil || string(id) == "null" {
		if out && method != nil && string(method) == `"notifications/cancelled"` {
			s.cancelled(params)
		}
		return
	}
	asks := (s.kind == KindClient) == out
	switch {
	case method != nil && asks:
		s.start(string(id), method, params)
	case method == nil && !asks:
		s.end(string(id), result, rerr)
	}
}

// start begins the span of a request.
func (s *Session) start(id string, method, params []byte) {
	name, _ := rawjson.String(method)
	sp := &Span{Name: name, Kind: s.kind, Start: time.Now(), Parent: s.parent.Span}
	sp.Trace, sp.Sampled = s.parent.Trace, true
	attrs := []Attr{String("mcp.method.name", name), String("jsonrpc.request.id", requestID(id))}
	target := ""
	var meta []byte
	for _, f := range rawjson.ScanFields(nil, params) {
		v, _ := rawjson.String(f.Value)
		switch {
		case f.KeyIs("name") && (name == "tools/call" || name == "prompts/get"):
			target = v
			if name == "tools/call" {
				attrs = append(attrs, String("gen_ai.tool.name", v), String("gen_ai.operation.name", "execute_tool"))
			} else {
				attrs = append(attrs, String("gen_ai.prompt.name", v))
			}
		case f.KeyIs("uri"):
			attrs = append(attrs, String("mcp.resource.uri", v))
		case f.KeyIs("_meta"):
			meta = f.Value
		}
	}
	if target != "" {
		sp.Name += " " + target
	}
	if tp := rawjson.Member(meta, "traceparent"); len(tp) > 0 && tp[0] == '"' {
		v, _ := rawjson.String(tp)
		if c, ok := ParseTraceparent(v); ok {
			if s.kind == KindClient && s.ours != nil && s.ours(c) {
				sp.Context = c // the context mcpv sent: the server's span is its child
			} else {
				sp.Parent, sp.Trace = c.Span, c.Trace // a client's, relayed: its span is this one's parent
			}
		}
	}
	if sp.Span.IsZero() {
		sp.Span = NewSpanID()
	}
	s.mu.Lock()
	sp.Attrs = append(attrs, s.base...)
	if old := s.open[id]; old != nil {
		s.finish(old, "", "superseded") // an id used again: the first is over
	}
	s.open[id] = sp
	s.mu.Unlock()
}

// end ends the span of the request answered.
func (s *Session) end(id string, result, rerr []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.open[id]
	if sp == nil {
		return
	}
	delete(s.open, id)
	switch {
	case rerr != nil && s.kind == KindClient && sp.Name == "server/discover" && !modernRefusal(string(rawjson.Member(rerr, "code"))):
		// The era's probe, answered as a server of the initialize era
		// answers it: the answer it asks for, no failure.
		sp.Attrs = append(sp.Attrs, String("rpc.response.status_code", string(rawjson.Member(rerr, "code"))), String("mcp.era", "initialize"))
		s.finish(sp, "", "")
	case rerr != nil:
		code := string(rawjson.Member(rerr, "code"))
		msg, _ := rawjson.String(rawjson.Member(rerr, "message"))
		sp.Attrs = append(sp.Attrs, String("rpc.response.status_code", code))
		s.finish(sp, code, msg)
	case string(rawjson.Member(result, "isError")) == "true":
		s.finish(sp, "tool_error", "the tool reported an error")
	default:
		s.finish(sp, "", "")
	}
}

// modernRefusal reports whether a JSON-RPC error code is one a server of
// the 2026-07-28 era refuses server/discover with (its headers, the
// client's capabilities, the version: mcp's CodeHeaderMismatch,
// CodeMissingRequiredClientCapabilities, CodeUnsupportedProtocolVersion),
// where any other error is an initialize-era server's answer to the
// probe (mcp/probe.go).
func modernRefusal(code string) bool {
	return code == "-32020" || code == "-32021" || code == "-32022"
}

// cancelled ends the span of a request the client gave up on.
func (s *Session) cancelled(params []byte) {
	id := rawjson.Member(params, "requestId")
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp := s.open[string(id)]; sp != nil {
		delete(s.open, string(id))
		s.finish(sp, "cancelled", "cancelled by the client")
	}
}

// Close ends the spans of the requests never answered.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, sp := range s.open {
		delete(s.open, id)
		s.finish(sp, "unanswered", "the session ended before the answer")
	}
}

// finish ends sp with errType (none: it succeeded) and hands it on.
func (s *Session) finish(sp *Span, errType, msg string) {
	sp.End = time.Now()
	if errType != "" {
		sp.Attrs = append(sp.Attrs, String("error.type", errType))
		sp.Error = cmp.Or(msg, errType)
	}
	s.e.Add(*sp)
}

// Served makes the span of a request a server (mcpv serve, mcpv mock)
// answered: a child of the client's span whose context its
// params._meta.traceparent carries, else of the run's; errCode is the
// JSON-RPC error's code ("" when it succeeded), errMsg its message.
func (r *Run) Served(method string, id, params, result []byte, errCode, errMsg string, start time.Time, took time.Duration) {
	s := r.Exporter.Session(r.ctx, KindServer, String("network.transport", "pipe"))
	s.start(string(id), []byte(strconv.Quote(method)), params)
	s.mu.Lock()
	sp := s.open[string(id)]
	delete(s.open, string(id))
	s.mu.Unlock()
	if sp == nil {
		return
	}
	sp.Start = start
	sp.End = start.Add(took)
	switch {
	case errCode != "":
		sp.Attrs = append(sp.Attrs, String("rpc.response.status_code", errCode), String("error.type", errCode))
		sp.Error = errMsg
	case string(rawjson.Member(result, "isError")) == "true":
		sp.Attrs = append(sp.Attrs, String("error.type", "tool_error"))
		sp.Error = "the tool reported an error"
	}
	r.Exporter.Add(*sp)
}

// requestID is a request's id as jsonrpc.request.id writes it: a
// string's text, a number's digits.
func requestID(raw string) string {
	var s string
	if json.Unmarshal([]byte(raw), &s) == nil {
		return s
	}
	return raw
}
