package mcptest

// The HTTP fake's answers: the spec server's
// conversation (spec_run.go) over Streamable HTTP, with what the transport
// itself requires, in the spec's era: Origin validated, sessions (the
// initialize era: an id at initialize, 400 without one, 404 for one
// unknown or deleted), MCP-Protocol-Version checked, notifications
// accepted with 202, GET answered 405; in the modern era the Mcp-* headers
// checked against the body, the status codes of its errors, no sessions.
// The spec's HTTP faults break these one at a time.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// crossing is a ping's stream parked by the crossed-streams fault, until
// the next ping of its session writes both answers, each on the other's
// stream, and closes done.
type crossing struct {
	id   string
	done chan struct{}
	e    *SSEWriter
}

func (s *HTTPServer) specState(sid string) *specState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.states[sid] == nil {
		s.states[sid] = newSpecState()
	}
	return s.states[sid]
}

// serveSpec answers a request as the spec server over Streamable HTTP,
// its Origin and session checked.
func (s *HTTPServer) serveSpec(x *Exchange) {
	spec := s.spec
	modern := spec.Era == "modern"
	switch x.Method {
	case http.MethodGet:
		if x.LastEventID != "" && s.resume(x) {
			return
		}
		if spec.has("get-json") {
			x.Status(http.StatusOK, `{}`, "Content-Type", "application/json")
			return
		}
		if (spec.has("get-stream-response") || spec.has("get-stream")) && !modern {
			e := s.sse(x)
			if spec.has("get-stream-response") && x.LastEventID == "" { // a resumption's Last-Event-ID ignored, as a server that resumes none may
				e.Event(s.eventID(), `{"jsonrpc":"2.0","id":"mcpv-never-asked","result":{}}`)
			}
			x.Hold()
			return
		}
		x.Status(http.StatusMethodNotAllowed, "")
		return
	case http.MethodDelete:
		if modern || spec.edge("delete-405") {
			x.Status(http.StatusMethodNotAllowed, "")
			return
		}
		if !spec.has("delete-ignored") {
			s.Expire(x.SessionID)
		}
		x.Status(http.StatusOK, "")
		return
	case http.MethodPost:
	default:
		x.Status(http.StatusMethodNotAllowed, "")
		return
	}
	m := x.m
	if batch := strings.TrimSpace(string(x.Body)); strings.HasPrefix(batch, "[") && json.Valid(x.Body) && !modern {
		// A batch (2025-03-26's): its session and version checked as a
		// request's, and its answers in one array.
		m.raw, m.batch = x.Body, true
		s.serveInitialize(x, m)
		return
	}
	if !x.decoded {
		if spec.has("malformed-200") {
			x.Status(http.StatusOK, `{"ok":true}`, "Content-Type", "application/json")
			return
		}
		code, message := codeInvalidRequest, "not a JSON-RPC message"
		if !json.Valid(x.Body) {
			code, message = codeParseError, "parse error"
		}
		x.Status(http.StatusBadRequest, spec.errorLine(json.RawMessage("null"), code, message), "Content-Type", "application/json")
		return
	}
	m.raw = x.Body
	if m.Method != "" && m.ID != nil && (slices.Contains(spec.Mute, m.Method) || slices.Contains(spec.Mute, m.Method+" "+param(m.Params, "name"))) {
		x.Hold() // never answered: not even a status, whether muted by method or by tool
		return
	}
	if modern {
		s.serveModern(x, m)
		return
	}
	s.serveInitialize(x, m)
}

// originOK says whether a request's Origin may reach the server: absent,
// or one of this machine's (transports, "Security Warning").
func (s *HTTPServer) originOK(r *http.Request) bool {
	spec := s.spec
	origin := r.Header.Get("Origin")
	if origin == "" || spec.has("no-origin-check") {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if spec.has("origin-matches-host") && u.Host == r.Host ||
		spec.has("origin-prefix") && (strings.HasPrefix(origin, "http://localhost") || strings.HasPrefix(origin, "http://127.0.0.1")) ||
		spec.has("delete-origin-unchecked") && r.Method != http.MethodPost {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return u.Hostname() == "localhost" || ip != nil && ip.IsLoopback()
}

// serveInitialize serves the initialize era: sessions, the version header.
func (s *HTTPServer) serveInitialize(x *Exchange, m msg) {
	spec := s.spec
	if m.Method == "initialize" && m.ID != nil && s.sessions() {
		sid := s.NewSession()
		if !spec.has("session-never-given") {
			x.W.Header().Set("Mcp-Session-Id", sid)
		}
		s.specAnswer(x, m, s.specState(sid))
		return
	}
	if x.ProtocolVersion == "" && spec.has("version-header-required") {
		x.Status(http.StatusBadRequest, "Bad Request: no MCP-Protocol-Version")
		return
	}
	if v := x.ProtocolVersion; v != "" && !slices.Contains(spec.versions(), v) && !spec.has("any-version-header") && !spec.edge("version-header-ignored") {
		x.Status(http.StatusBadRequest, "Bad Request: unsupported MCP-Protocol-Version "+v)
		return
	}
	if spec.edge("session-every-response") {
		x.W.Header().Set("Mcp-Session-Id", x.SessionID)
	}
	s.specAnswer(x, m, s.specState(x.SessionID))
}

// serveModern serves the 2026-07-28 era: the headers that mirror the body
// checked against it, its errors' status codes, no sessions.
func (s *HTTPServer) serveModern(x *Exchange, m msg) {
	spec := s.spec
	if spec.has("mint-session") {
		x.W.Header().Set("Mcp-Session-Id", "minted-1")
	}
	if m.Method != "" && m.ID != nil {
		if e := spec.checkMeta(m.Params); e != nil {
			x.Status(http.StatusBadRequest, spec.errorLineData(m.ID, e.Code, e.Message, e.Data), "Content-Type", "application/json")
			return
		}
		if x.R.Header.Get("MCP-Protocol-Version") == "" && spec.edge("missing-version-as-2025-03-26") {
			// Read as 2025-03-26 (streamable-http, "Protocol Version
			// Header"), which has no server/discover.
			x.Status(http.StatusOK, spec.errorLine(m.ID, codeMethodNotFound, "method not found: "+m.Method), "Content-Type", "application/json")
			return
		}
		if why := spec.headerMismatch(x.R.Header, m) + spec.paramMismatch(x.R.Header, m); why != "" && !spec.has("no-header-check") {
			x.Status(http.StatusBadRequest, spec.errorLine(m.ID, -32020, "Header mismatch: "+why), "Content-Type", "application/json")
			return
		}
	}
	s.specAnswer(x, m, s.specState(""))
}

// headerMismatch says how a modern request's headers break its body
// (streamable-http, "Server Validation"), or ""; version-header-optional
// passes a request without MCP-Protocol-Version.
func (spec *Spec) headerMismatch(h http.Header, m msg) string {
	version, _ := stringMember(member(m.Params, "_meta"), "io.modelcontextprotocol/protocolVersion")
	if got := h.Get("MCP-Protocol-Version"); got != version && !(got == "" && spec.has("version-header-optional")) {
		return fmt.Sprintf("MCP-Protocol-Version %q, body %q", got, version)
	}
	if got := h.Get("Mcp-Method"); got != m.Method {
		return fmt.Sprintf("Mcp-Method %q, body %q", got, m.Method)
	}
	key := map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri", "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}[m.Method]
	if key == "" {
		return ""
	}
	want, _ := stringMember(m.Params, key)
	got := h.Get("Mcp-Name")
	if b64, ok := strings.CutPrefix(got, "=?base64?"); ok && !spec.has("header-name-raw") {
		b, _ := base64.StdEncoding.DecodeString(strings.TrimSuffix(b64, "?="))
		got = string(b) // decoded before it is compared
	}
	if got != want {
		return fmt.Sprintf("Mcp-Name %q, body %q", h.Get("Mcp-Name"), want)
	}
	return ""
}

// paramMismatch says how a modern tools/call's Mcp-Param-NAME headers
// break its arguments, for the tool's top-level properties annotated
// x-mcp-header (compared as text), or "".
func (spec *Spec) paramMismatch(h http.Header, m msg) string {
	if m.Method != "tools/call" || spec.has("no-param-header-check") {
		return ""
	}
	var tool struct {
		InputSchema struct {
			Properties map[string]struct {
				Header string `json:"x-mcp-header"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	if json.Unmarshal(spec.tool(param(m.Params, "name")), &tool) != nil {
		return "" // a tool not listed annotates no argument
	}
	args := member(m.Params, "arguments")
	for prop, p := range tool.InputSchema.Properties {
		if p.Header == "" {
			continue
		}
		v := member(args, prop)
		want := strings.Trim(string(v), `"`)
		got, present := h[http.CanonicalHeaderKey("Mcp-Param-"+p.Header)]
		switch {
		case v == nil && !present && spec.has("param-header-expected"):
			return fmt.Sprintf("Mcp-Param-%s missing", p.Header)
		case v == nil && !present, !present && spec.has("param-header-optional"):
			continue
		}
		text := strings.Join(got, ", ")
		if b64, ok := strings.CutPrefix(text, "=?base64?"); ok && strings.HasSuffix(b64, "?=") {
			raw, _ := base64.StdEncoding.DecodeString(strings.TrimSuffix(b64, "?="))
			text = string(raw)
		} else if invalid := func(r rune) bool { return r > '~' || r < ' ' && r != '\t' }; spec.has("param-header-chars-dropped") {
			text = strings.Join(strings.FieldsFunc(text, invalid), "")
		} else if strings.ContainsFunc(text, invalid) {
			return fmt.Sprintf("Mcp-Param-%s %q holds what a header carries in Base64 alone", p.Header, text)
		}
		a, aerr := strconv.ParseFloat(text, 64)      // an integer compared as a number, 42.0 as 42
		b, berr := strconv.ParseFloat(string(v), 64) // a JSON number: a string is compared as text
		if !present || len(got) != 1 || text != want && (aerr != nil || berr != nil || a != b || spec.has("param-header-text")) {
			return fmt.Sprintf("Mcp-Param-%s %q, argument %s", p.Header, strings.Join(got, ", "), v)
		}
	}
	return ""
}

// paramHeaderTools are the tools the x-mcp-header faults and edge add to
// a spec's list, after its own: each fault's breaks one constraint the
// 2026-07-28 transport sets on the annotation (streamable-http, "Schema
// Extension"), and the edge's keeps them all.
func paramHeaderTools(s *Spec) []json.RawMessage {
	var out []json.RawMessage
	add := func(name, properties string) {
		if slices.ContainsFunc(s.Tools, func(t json.RawMessage) bool { return rawjson.Key(t, "name") == name }) {
			return // a spec read again: its tools are there
		}
		out = append(out, json.RawMessage(`{"name":"`+name+`","description":"Mirrors an argument in a header.","inputSchema":{"type":"object","properties":`+properties+`}}`))
	}
	for _, f := range []struct{ fault, tool, properties string }{
		{"param-header-empty", "header-empty", `{"value":{"type":"string","x-mcp-header":""}}`},
		{"param-header-token", "header-token", `{"value":{"type":"string","x-mcp-header":"My Region"}}`},
		{"param-header-control", "header-control", `{"value":{"type":"string","x-mcp-header":"Region\r\nX-Injected: 1"}}`},
		{"param-header-duplicate", "header-duplicate", `{"first":{"type":"string","x-mcp-header":"MyField"},"second":{"type":"string","x-mcp-header":"myfield"}}`},
		{"param-header-number", "header-number", `{"score":{"type":"number","x-mcp-header":"Score"}}`},
		{"param-header-items", "header-items", `{"tags":{"type":"array","items":{"type":"string","x-mcp-header":"Tag"}}}`},
		{"param-header-secret", "header-secret", `{"apiKey":{"type":"string","x-mcp-header":"Api-Key"}}`},
	} {
		if s.has(f.fault) {
			add(f.tool, f.properties)
		}
	}
	if s.edge("param-headers") {
		add("header-kept", `{"region":{"type":"string","x-mcp-header":"Region"},`+
			`"where":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},`+
			`"count":{"type":["integer","null"],"x-mcp-header":"Count"},"dry":{"type":"boolean","x-mcp-header":"Dry-Run"},`+
			`"dry_run":{"type":"boolean","x-mcp-header":"Dry_Run"},"x-mcp-header":{"type":"number","default":{"x-mcp-header":""}}}`)
	}
	return out
}

// specAnswer answers one message: 202 for a notification or a response;
// for a request, its answers as one JSON body, or an event stream when
// there is more than one or it is one that streams (the slow tool,
// subscriptions/listen).
func (s *HTTPServer) specAnswer(x *Exchange, m msg, st *specState) {
	spec := s.spec
	var lines []string
	answer := func(send func(string)) {
		spec.specMessage(st, m.raw, m, specOut{send: send, async: func(f func()) { f() }, http: true, done: x.R.Context().Done()})
	}
	collect := func(line string) { lines = append(lines, line) }
	switch {
	case m.batch:
		if answer(collect); len(lines) == 0 {
			x.Status(http.StatusAccepted, "")
			return
		}
		x.Status(http.StatusOK, strings.Join(lines, "\n"), "Content-Type", "application/json")
		return
	case m.Method == "" || m.ID == nil:
		if answer(func(string) {}); spec.has("notification-200") {
			x.Status(http.StatusOK, `{"jsonrpc":"2.0","result":{}}`, "Content-Type", "application/json")
			return
		}
		x.Status(http.StatusAccepted, "")
		return
	case m.Method == "ping" && spec.has("crossed-streams") && x.SessionID != "" && strings.HasPrefix(string(m.ID), `"`):
		s.crossPing(x, m)
		return
	}
	unrelated := spec.has("unrelated-on-stream") && (m.Method == "ping" && spec.Era != "modern" || m.Method == "server/discover" || strings.HasSuffix(m.Method, "/list")) ||
		spec.has("call-news-on-stream") && m.Method == "tools/call"
	plain := spec.has("text-plain") && m.Method != "initialize" && m.Method != "server/discover" || spec.has("text-plain-init")
	streams := s.opts.SSE || spec.has("event-id-reuse") || spec.has("stream-left-open") || m.Method == "subscriptions/listen" || m.Method == "tools/call" && param(m.Params, "name") == slowTool ||
		m.Method == "tasks/result" && spec.Tasks != nil || unrelated || m.Method == "tasks/get" && spec.has("tasks-get-streamed")
	if streams && !plain && !s.opts.Legacy && (spec.edge("sse-polling") || spec.edge("sse-resumable")) && !spec.has("stream-left-open") && spec.Era != "modern" && m.Method != "initialize" {
		s.poll(x, m, st)
		return
	}
	if streams && !plain && !s.opts.Legacy {
		e := s.sse(x)
		if unrelated {
			e.Event(s.eventID(), `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"mem://a"}}`)
		}
		n := 0 // event-id-reuse: each stream's own count
		answer(func(line string) {
			n++
			id := s.eventID()
			if spec.has("event-id-reuse") {
				id = fmt.Sprint(n)
			}
			e.Event(id, line)
		})
		if m.Method == "subscriptions/listen" || spec.has("stream-left-open") {
			x.Hold()
		}
		return
	}
	answer(collect)
	status := http.StatusOK
	if spec.Era == "modern" && len(lines) == 1 && strings.Contains(lines[0], `"code":-32601`) && !spec.has("method-not-found-200") && !(spec.has("removed-methods-200") && slices.Contains(removedMethods, m.Method)) {
		status = http.StatusNotFound
	}
	if spec.Era == "modern" && len(lines) == 1 && strings.Contains(lines[0], `"code":-32021`) && !spec.has("capability-error-200") {
		status = http.StatusBadRequest // basic, "_meta": "On HTTP, the response status MUST be 400 Bad Request"
	}
	switch {
	case s.opts.Legacy:
		x.W.WriteHeader(http.StatusAccepted)
		for _, l := range lines {
			x.Send(l)
		}
	case plain:
		x.Status(status, strings.Join(lines, "\n"), "Content-Type", "text/plain")
	case len(lines) == 1 && spec.has("json-array-answer"):
		x.Status(status, "["+lines[0]+"]", "Content-Type", "application/json")
	case len(lines) == 1 && spec.edge("json-charset"):
		x.Status(status, lines[0], "Content-Type", "application/json; charset=utf-8")
	case len(lines) == 1:
		x.Status(status, lines[0], "Content-Type", "application/json")
	default:
		e := s.sse(x)
		for _, l := range lines {
			e.Event("", l)
		}
	}
}

// sse starts an event stream, primed as 2025-11-25 asks (basic/transports#sending-messages-to-the-server)
// unless under the no-priming fault, and in the 2026-07-28 era under the sse-priming edge.
func (s *HTTPServer) sse(x *Exchange) *SSEWriter {
	if s.spec.Era == "modern" && !s.spec.has("sse-buffered") { // 2026-07-28 streamable-http#receiving-messages
		x.W.Header().Set("X-Accel-Buffering", "no")
	}
	e := x.SSE()
	if s.spec.edge("sse-priming") || s.spec.Era != "modern" && !s.spec.has("no-priming") {
		e.Raw("id: " + s.eventID() + "\nretry: 1000\ndata:\n\n")
	}
	return e
}

// eventID is an event id no other event of the server's had.
func (s *HTTPServer) eventID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events++
	return fmt.Sprintf("ev-%d", s.events)
}

// crossPing answers a ping with a string id under the crossed-streams
// fault: a server that mixes up its streams. A ping waits (up to 5 s) for
// another of its session; when one comes, each is answered on the other's
// stream. A lone ping is answered on its own. (Pings with a number id,
// a client's ordinary ones, are answered at once, on their own stream.)
func (s *HTTPServer) crossPing(x *Exchange, m msg) {
	me := &crossing{id: string(m.ID), done: make(chan struct{}), e: s.sse(x)}
	answer := func(on *crossing, id string) {
		on.e.Event("", fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id))
	}
	s.mu.Lock()
	if other := s.parked[x.SessionID]; other != nil {
		delete(s.parked, x.SessionID)
		s.mu.Unlock()
		answer(other, me.id)
		answer(me, other.id)
		close(other.done)
		return
	}
	s.parked[x.SessionID] = me
	s.mu.Unlock()
	select {
	case <-me.done:
		return
	case <-x.R.Context().Done():
	case <-time.After(5 * time.Second):
	}
	s.mu.Lock()
	lone := s.parked[x.SessionID] == me
	if lone {
		delete(s.parked, x.SessionID)
	}
	s.mu.Unlock()
	if !lone {
		<-me.done // taken by another just now, which writes on this stream
		return
	}
	if x.R.Context().Err() == nil {
		answer(me, me.id)
	}
}
