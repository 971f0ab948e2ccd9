package mcptest

// The fake MCP server over HTTP: the spec server's conversation
// (spec_run.go) over Streamable HTTP, with what the transport itself
// requires, in the spec's era: Origin validated, sessions (the initialize
// era: an id at initialize, 400 without one, 404 for one unknown or
// deleted), MCP-Protocol-Version checked, notifications accepted with
// 202, GET answered 405; in the modern era the Mcp-* headers checked
// against the body, the status codes of its errors, no sessions. The
// spec's HTTP faults break these one at a time. A test may script any
// exchange itself (HTTPOptions' hooks), for the cases a real server
// rarely shows: streams cut mid-answer, expired sessions, odd statuses,
// the legacy HTTP+SSE transport.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/testkit"
)

// HTTPOptions script an HTTPServer. Every field is optional.
type HTTPOptions struct {
	// Spec is the server's surface and faults; default scriptedSpec's.
	Spec *Spec
	// Post sees every POST before the spec does, once its session is
	// checked, and returns true when it has answered it; false lets the
	// spec answer.
	Post func(x *Exchange) bool
	// Get answers a GET once its session is checked; nil leaves it to
	// the spec (405: no standalone stream), or in Legacy mode serves the
	// legacy event stream.
	Get func(x *Exchange)
	// SSE makes the fake answer the requests it answers itself with an event
	// stream instead of a JSON body.
	SSE bool
	// Stateless makes the fake issue no Mcp-Session-Id and check none
	// (the no-sessions edge).
	Stateless bool

	// Legacy makes the fake a 2024-11-05 HTTP+SSE server: a POST to URL gets
	// LegacyStatus (405 when 0), a GET to URL opens an event stream whose
	// first event names the endpoint, and POSTs to the endpoint are answered
	// 202 with their answers sent on that stream.
	Legacy       bool
	LegacyStatus int
	// Endpoint replaces the endpoint the legacy stream names
	// ("/messages?session=ID").
	Endpoint string

	// Latency, with no Spec, makes the fake a server of one tool: tools/list
	// lists "x", and tools/call is answered (a text block "ok") after the
	// call's latency, the calls numbered in order of arrival.
	Latency Latency
}

// scriptedSpec is the spec of an HTTPServer given none: initialize
// answered with the version the client offered and the tools capability,
// ping with {}, any other request as not found; with a Latency, tool x.
func scriptedSpec(l Latency) *Spec {
	s := &Spec{ServerInfo: json.RawMessage(`{"name":"fake-http","version":"0"}`), Capabilities: json.RawMessage(`{"tools":{}}`),
		Faults: []string{"echo-any-version", "any-version-header"}, MethodNotFound: []string{"tools/list", "tools/call", "skills/list", "skills/get", "resources/directory/read"}}
	if l != (Latency{}) {
		s.MethodNotFound = nil
		s.Tools = []json.RawMessage{json.RawMessage(`{"name":"x","inputSchema":{"type":"object"}}`)}
		s.CallResults = map[string]json.RawMessage{"x": json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)}
		s.lat = &latency{Latency: l}
		if l.Capacity > 0 {
			s.lat.slots = make(chan struct{}, l.Capacity)
		}
	}
	return s
}

// HTTPRequest is a request as the fake received it.
type HTTPRequest struct {
	Method          string          // the HTTP method
	Path            string          // the path and query
	RPCMethod       string          // the JSON-RPC method; "" for a response or no body
	ID              json.RawMessage // the JSON-RPC id; nil for a notification
	SessionID       string          // Mcp-Session-Id
	ProtocolVersion string          // Mcp-Protocol-Version
	LastEventID     string          // Last-Event-ID
	Header          http.Header
	Body            []byte
}

// String is a one-line summary for logs and comparisons:
// "POST tools/list sid=s1 version=2025-11-25 last-event-id=".
func (r HTTPRequest) String() string {
	what := r.RPCMethod
	if what == "" && r.ID != nil {
		what = "response:" + string(r.ID)
	}
	return fmt.Sprintf("%s %s sid=%s version=%s last-event-id=%s", r.Method, what, r.SessionID, r.ProtocolVersion, r.LastEventID)
}

// HTTPServer is a fake MCP server on 127.0.0.1: its spec's, unless a
// hook answers first. In the initialize era it issues a session id at
// initialize (s1, s2, ... unless Stateless); a request that names a
// session it does not know (or ended) gets 404, a POST other than
// initialize without a session id 400; DELETE ends the session with 200.
type HTTPServer struct {
	// URL is the MCP endpoint to give the client: http://127.0.0.1:PORT/mcp.
	URL string

	opts HTTPOptions
	spec *Spec
	ts   *httptest.Server
	ln   *connsListener
	// ctx ends when the test does, before the server closes, and with
	// it every request's.
	ctx context.Context

	mu       sync.Mutex               // guards the fields below
	reqs     []HTTPRequest            // every request, in order of arrival
	changed  chan struct{}            // closed and replaced when reqs grows
	issued   int                      // session ids issued so far
	live     map[string]bool          // sessions not ended
	channels map[string]chan<- string // legacy streams, by session id
	states   map[string]*specState    // the spec's conversations, by session id; the modern era's, which has none, under ""
	events   int                      // event ids given so far
	// parked is, by session, a ping's stream that waits for another's
	// (the crossed-streams fault).
	parked map[string]*crossing
	// polls are the polled streams (poll), by each of their event
	// ids; lastPoll, by session, the one opened last.
	polls, lastPoll map[string]*pollStream
}

// NewHTTPServer starts a fake that closes when the test ends.
func NewHTTPServer(t testing.TB, opts HTTPOptions) *HTTPServer {
	s := &HTTPServer{opts: opts, spec: cmp.Or(opts.Spec, scriptedSpec(opts.Latency)), changed: make(chan struct{}),
		live: map[string]bool{}, channels: map[string]chan<- string{}, states: map[string]*specState{}, parked: map[string]*crossing{},
		polls: map[string]*pollStream{}, lastPoll: map[string]*pollStream{}}
	var end context.CancelFunc
	s.ctx, end = context.WithCancel(context.Background())
	s.ts = httptest.NewUnstartedServer(testkit.FailOnPanic(t, http.HandlerFunc(s.serve))) // listening on 127.0.0.1
	s.ln = &connsListener{Listener: s.ts.Listener, caseful: s.spec.has("header-case-sensitive")}
	s.ts.Listener = s.ln
	s.ts.Start()
	s.URL = s.ts.URL + "/mcp"
	t.Cleanup(func() {
		end() // hooks holding streams open return ...
		s.ts.CloseClientConnections()
		s.ts.Close() // ... so that this does not wait for them
	})
	return s
}

// Requests returns what the fake received so far, in order of arrival.
func (s *HTTPServer) Requests() []HTTPRequest {
	return locked(&s.mu, func() []HTTPRequest { return append([]HTTPRequest(nil), s.reqs...) })
}

// Wait returns the first request received that match accepts, waiting for
// it until ctx ends or the server closes. match sees each request once, in
// order of arrival, so it may count.
func (s *HTTPServer) Wait(ctx context.Context, match func(HTTPRequest) bool) (HTTPRequest, error) {
	seen := 0
	for {
		s.mu.Lock()
		reqs, changed := s.reqs[seen:], s.changed
		s.mu.Unlock()
		for _, r := range reqs {
			if match(r) {
				return r, nil
			}
		}
		seen += len(reqs)
		select {
		case <-changed:
		case <-ctx.Done():
			return HTTPRequest{}, context.Cause(ctx)
		case <-s.ctx.Done():
			return HTTPRequest{}, errors.New("mcptest: the server closed")
		}
	}
}

// Expire ends a session as an idle timeout would: requests naming it get 404.
func (s *HTTPServer) Expire(sessionID string) { withLock(&s.mu, func() { delete(s.live, sessionID) }) }

// Die ends the server as a crash would: nothing listens on its port any
// more and every connection it accepted is cut. A hook may call it.
func (s *HTTPServer) Die() { s.ln.kill() }

// connsListener keeps every connection it accepts, so that kill can close
// them all: httptest's CloseClientConnections closes only those the server
// has registered, which it does after Accept returns, so a connection
// accepted just before would live on (and answer a request after Die).
type connsListener struct {
	net.Listener
	mu    sync.Mutex // guards conns and dead
	conns []net.Conn
	dead  bool
	// caseful: the header-case-sensitive fault. A header whose name is
	// written in lower case is lost, as to a server that compares names
	// with their case: "mcp-method" reaches the handler as "xcp-method".
	caseful bool
}

type casefulConn struct{ net.Conn }

func (c casefulConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	copy(b, bytes.ReplaceAll(b[:n], []byte("\nmcp-"), []byte("\nxcp-")))
	return n, err
}

func (l *connsListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dead {
		c.Close()
		return nil, net.ErrClosed
	}
	l.conns = append(l.conns, c)
	if l.caseful {
		return casefulConn{c}, nil
	}
	return c, nil
}

func (l *connsListener) kill() {
	l.Listener.Close()
	l.mu.Lock()
	l.dead = true
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// Exchange is one request being answered by a hook.
type Exchange struct {
	HTTPRequest
	W       http.ResponseWriter
	R       *http.Request
	s       *HTTPServer
	m       msg // the body, when it decoded as a message (decoded)
	decoded bool
}

// Server is the fake the request came to.
func (x *Exchange) Server() *HTTPServer { return x.s }

// Result is the JSON text of a success response to the request.
func (x *Exchange) Result(result string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, x.ID, result)
}

// Error is the JSON text of an error response to the request.
func (x *Exchange) Error(code int, message string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`,
		x.ID, code, mustString(message))
}

// Reply answers with one message: a JSON body (an event stream when the
// options say SSE), or in legacy mode 202 and an event on the session's
// stream.
func (x *Exchange) Reply(msg string) {
	switch {
	case x.s.opts.Legacy:
		x.W.WriteHeader(http.StatusAccepted)
		x.Send(msg)
	case x.s.opts.SSE:
		x.SSE().Event("", msg)
	default:
		x.Status(http.StatusOK, msg, "Content-Type", "application/json")
	}
}

// Send puts msg on the legacy event stream of the request's session; it
// gives up when that stream has ended.
func (x *Exchange) Send(msg string) {
	ch := locked(&x.s.mu, func() chan<- string { return x.s.channels[x.R.URL.Query().Get("session")] })
	if ch == nil {
		return
	}
	select {
	case ch <- msg:
	case <-x.R.Context().Done():
	}
}

// Status answers with code, the header fields given as name, value pairs,
// and body.
func (x *Exchange) Status(code int, body string, header ...string) {
	for i := 0; i+1 < len(header); i += 2 {
		x.W.Header().Add(header[i], header[i+1])
	}
	x.W.WriteHeader(code)
	io.WriteString(x.W, body)
}

// SSE starts an event-stream answer; its headers are sent at once.
func (x *Exchange) SSE() *SSEWriter {
	x.W.Header().Set("Content-Type", "text/event-stream")
	x.W.WriteHeader(http.StatusOK)
	w := &SSEWriter{w: x.W}
	w.flush()
	return w
}

// Drop breaks the connection the request came on, without an answer or
// with the rest of one begun: a server killed once it has read the
// request. The hook must return nothing after it (it does not return).
func (x *Exchange) Drop() { panic(http.ErrAbortHandler) }

// Hold waits until the client goes away or the test ends: a stream held open.
func (x *Exchange) Hold() { <-x.R.Context().Done() }

// SSEWriter writes an event stream; each call is flushed at once.
type SSEWriter struct{ w http.ResponseWriter }

// Event sends one message event, with an id unless id is "".
func (e *SSEWriter) Event(id, data string) {
	if id != "" {
		fmt.Fprintf(e.w, "id: %s\n", id)
	}
	for line := range strings.SplitSeq(data, "\n") {
		fmt.Fprintf(e.w, "data: %s\n", line)
	}
	io.WriteString(e.w, "\n")
	e.flush()
}

// Raw sends text as it is: a priming event ("id: 1\nretry: 10\ndata:\n\n"),
// a comment, half an event before a cut.
func (e *SSEWriter) Raw(text string) {
	io.WriteString(e.w, text)
	e.flush()
}

func (e *SSEWriter) flush() { e.w.(http.Flusher).Flush() }

func (s *HTTPServer) serve(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithCancel(r.Context()) // the request's, ended by the test's end too
	defer context.AfterFunc(s.ctx, cancel)()
	defer cancel()
	r = r.WithContext(ctx)
	body, _ := io.ReadAll(r.Body)
	var m msg
	decoded := json.Unmarshal(body, &m) == nil // a body that is no message has no method or id
	x := &Exchange{m: m, decoded: decoded, HTTPRequest: HTTPRequest{
		Method: r.Method, Path: r.URL.RequestURI(), RPCMethod: m.Method, ID: m.ID,
		SessionID: r.Header.Get("Mcp-Session-Id"), ProtocolVersion: r.Header.Get("Mcp-Protocol-Version"),
		LastEventID: r.Header.Get("Last-Event-ID"), Header: r.Header.Clone(), Body: body,
	}, W: w, R: r, s: s}
	s.mu.Lock()
	s.reqs = append(s.reqs, x.HTTPRequest)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	switch {
	case s.spec.Card != nil && r.URL.Path == "/mcp/server-card" && r.Method == http.MethodGet: // the card names the server where it answers
		x.Status(http.StatusOK, strings.ReplaceAll(string(s.spec.Card), "{{endpoint}}", "http://"+r.Host+"/mcp"), "Content-Type", "application/mcp-server-card+json")
	case s.opts.Legacy && r.URL.Path == "/mcp":
		s.serveLegacyMain(x)
	case !s.originOK(r) && s.spec.edge("origin-refused-400"):
		x.Status(http.StatusBadRequest, "Bad Request: Origin not allowed")
	case !s.originOK(r):
		x.Status(http.StatusForbidden, s.spec.errorLine(json.RawMessage("null"), codeInvalidRequest, "Forbidden: Origin not allowed"), "Content-Type", "application/json")
	case !s.sessionOK(x):
	case r.Method == http.MethodPost && s.opts.Post != nil && s.opts.Post(x):
	case r.Method == http.MethodGet && s.opts.Get != nil:
		s.opts.Get(x)
	default:
		s.serveSpec(x)
	}
}

// sessions reports whether the server keeps sessions: in the initialize
// era, over Streamable HTTP, unless Stateless or the no-sessions edge.
func (s *HTTPServer) sessions() bool {
	return s.spec.Era != "modern" && !s.opts.Legacy && !s.opts.Stateless && !s.spec.edge("no-sessions")
}

// sessionOK answers a request naming a session that is not live (404,
// or 400 under unknown-session-400), and a POST other than initialize
// that names none (400, 404 under no-session-404, nothing at all under
// mute-early).
func (s *HTTPServer) sessionOK(x *Exchange) bool {
	switch none := x.SessionID == ""; {
	case !s.sessions() || x.Method == http.MethodDelete && (s.spec.edge("delete-405") || s.spec.has("delete-again-200")),
		none && (x.Method != http.MethodPost || x.RPCMethod == "initialize" && x.ID != nil),
		!none && locked(&s.mu, func() bool { return s.live[x.SessionID] }):
		return true
	case none && s.spec.has("mute-early"):
		x.Hold() // nothing answered before initialize
	case none && s.spec.has("no-session-404"):
		x.Status(http.StatusNotFound, "no session")
	case none:
		x.Status(http.StatusBadRequest, "Bad Request: missing Mcp-Session-Id")
	case s.spec.has("unknown-session-400"):
		x.Status(http.StatusBadRequest, "bad session")
	default:
		x.Status(http.StatusNotFound, "session not found")
	}
	return false
}

// NewSession starts a session, as the fake's own initialize does, and
// returns its id, for a Post hook that answers initialize itself.
func (s *HTTPServer) NewSession() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issued++
	sid := fmt.Sprintf("s%d", s.issued)
	switch {
	case s.spec.has("shared-session-id"):
		sid = "shared" // every session this one, with one state
	case s.spec.has("session-id-space"):
		sid = "s " + sid
	}
	s.live[sid] = true
	return sid
}

// serveLegacyMain answers requests to URL in legacy mode: POSTs get
// LegacyStatus, a GET gets the event stream of a new session.
func (s *HTTPServer) serveLegacyMain(x *Exchange) {
	switch {
	case x.Method != http.MethodGet:
		x.Status(cmp.Or(pick(x.Method == http.MethodPost, s.opts.LegacyStatus, 0), http.StatusMethodNotAllowed), "")
		return
	case s.opts.Get != nil:
		s.opts.Get(x)
		return
	}
	sid := s.NewSession()
	ch := make(chan string)
	withLock(&s.mu, func() { s.channels[sid] = ch })
	defer withLock(&s.mu, func() { delete(s.channels, sid) })
	e := x.SSE()
	e.Raw("event: endpoint\ndata: " + cmp.Or(s.opts.Endpoint, "/messages?session="+sid) + "\n\n")
	for {
		select {
		case msg := <-ch:
			e.Event("", msg)
		case <-x.R.Context().Done():
			return
		}
	}
}

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
	modern, get, m := spec.Era == "modern", x.Method == http.MethodGet, x.m
	m.raw = x.Body
	switch batch := strings.TrimSpace(string(x.Body)); {
	case get && x.LastEventID != "" && s.resume(x):
	case get && spec.has("get-json"):
		x.Status(http.StatusOK, `{}`, "Content-Type", "application/json")
	case get && (spec.has("get-stream-response") || spec.has("get-stream")) && !modern:
		e := s.sse(x)
		if spec.has("get-stream-response") && x.LastEventID == "" { // a resumption's Last-Event-ID ignored, as a server that resumes none may
			e.Event(s.eventID(), `{"jsonrpc":"2.0","id":"mcpv-never-asked","result":{}}`)
		}
		x.Hold()
	case x.Method == http.MethodDelete && !modern && !spec.edge("delete-405"):
		if !spec.has("delete-ignored") {
			s.Expire(x.SessionID)
		}
		x.Status(http.StatusOK, "")
	case x.Method != http.MethodPost: // a GET that opens no stream, a DELETE that ends no session, any other method
		x.Status(http.StatusMethodNotAllowed, "")
	case strings.HasPrefix(batch, "[") && json.Valid(x.Body) && !modern:
		// A batch (2025-03-26's): its session and version checked as a
		// request's, and its answers in one array.
		m.batch = true
		s.serveInitialize(x, m)
	case !x.decoded && spec.has("malformed-200"):
		x.Status(http.StatusOK, `{"ok":true}`, "Content-Type", "application/json")
	case !x.decoded:
		code, message := codeInvalidRequest, "not a JSON-RPC message"
		if !json.Valid(x.Body) {
			code, message = codeParseError, "parse error"
		}
		x.Status(http.StatusBadRequest, spec.errorLine(json.RawMessage("null"), code, message), "Content-Type", "application/json")
	case m.Method != "" && m.ID != nil && (slices.Contains(spec.Mute, m.Method) || slices.Contains(spec.Mute, m.Method+" "+param(m.Params, "name"))):
		x.Hold() // never answered: not even a status, whether muted by method or by tool
	case modern:
		s.serveModern(x, m)
	default:
		s.serveInitialize(x, m)
	}
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
	ip := net.ParseIP(u.Hostname())
	return spec.has("origin-matches-host") && u.Host == r.Host ||
		spec.has("origin-prefix") && (strings.HasPrefix(origin, "http://localhost") || strings.HasPrefix(origin, "http://127.0.0.1")) ||
		spec.has("delete-origin-unchecked") && r.Method != http.MethodPost ||
		u.Hostname() == "localhost" || ip != nil && ip.IsLoopback()
}

// serveInitialize serves the initialize era: sessions, the version header.
func (s *HTTPServer) serveInitialize(x *Exchange, m msg) {
	spec := s.spec
	switch v := x.ProtocolVersion; {
	case m.Method == "initialize" && m.ID != nil && s.sessions():
		sid := s.NewSession()
		if !spec.has("session-never-given") {
			x.W.Header().Set("Mcp-Session-Id", sid)
		}
		s.specAnswer(x, m, s.specState(sid))
	case v == "" && spec.has("version-header-required"):
		x.Status(http.StatusBadRequest, "Bad Request: no MCP-Protocol-Version")
	case v != "" && !slices.Contains(spec.versions(), v) && !spec.has("any-version-header") && !spec.edge("version-header-ignored"):
		x.Status(http.StatusBadRequest, "Bad Request: unsupported MCP-Protocol-Version "+v)
	default:
		if spec.edge("session-every-response") {
			x.W.Header().Set("Mcp-Session-Id", x.SessionID)
		}
		s.specAnswer(x, m, s.specState(x.SessionID))
	}
}

// serveModern serves the 2026-07-28 era: the headers that mirror the body
// checked against it, its errors' status codes, no sessions.
func (s *HTTPServer) serveModern(x *Exchange, m msg) {
	spec, request := s.spec, m.Method != "" && m.ID != nil
	if spec.has("mint-session") {
		x.W.Header().Set("Mcp-Session-Id", "minted-1")
	}
	e, why := spec.checkMeta(m.Params), spec.headerMismatch(x.R.Header, m)+spec.paramMismatch(x.R.Header, m)
	switch {
	case request && e != nil:
		x.Status(http.StatusBadRequest, spec.errorLine(m.ID, e.Code, e.Message, e.Data), "Content-Type", "application/json")
	case request && x.R.Header.Get("MCP-Protocol-Version") == "" && spec.edge("missing-version-as-2025-03-26"):
		// Read as 2025-03-26 (streamable-http, "Protocol Version
		// Header"), which has no server/discover.
		x.Status(http.StatusOK, spec.errorLine(m.ID, codeMethodNotFound, "method not found: "+m.Method), "Content-Type", "application/json")
	case request && why != "" && !spec.has("no-header-check"):
		x.Status(http.StatusBadRequest, spec.errorLine(m.ID, -32020, "Header mismatch: "+why), "Content-Type", "application/json")
	default:
		s.specAnswer(x, m, s.specState(""))
	}
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
	for _, f := range []struct {
		on               bool
		name, properties string
	}{
		{s.has("param-header-empty"), "header-empty", `{"value":{"type":"string","x-mcp-header":""}}`},
		{s.has("param-header-token"), "header-token", `{"value":{"type":"string","x-mcp-header":"My Region"}}`},
		{s.has("param-header-control"), "header-control", `{"value":{"type":"string","x-mcp-header":"Region\r\nX-Injected: 1"}}`},
		{s.has("param-header-duplicate"), "header-duplicate", `{"first":{"type":"string","x-mcp-header":"MyField"},"second":{"type":"string","x-mcp-header":"myfield"}}`},
		{s.has("param-header-number"), "header-number", `{"score":{"type":"number","x-mcp-header":"Score"}}`},
		{s.has("param-header-items"), "header-items", `{"tags":{"type":"array","items":{"type":"string","x-mcp-header":"Tag"}}}`},
		{s.has("param-header-secret"), "header-secret", `{"apiKey":{"type":"string","x-mcp-header":"Api-Key"}}`},
		{s.edge("param-headers"), "header-kept", `{"region":{"type":"string","x-mcp-header":"Region"},` +
			`"where":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},` +
			`"count":{"type":["integer","null"],"x-mcp-header":"Count"},"dry":{"type":"boolean","x-mcp-header":"Dry-Run"},` +
			`"dry_run":{"type":"boolean","x-mcp-header":"Dry_Run"},"x-mcp-header":{"type":"number","default":{"x-mcp-header":""}}}`},
	} {
		if f.on && !slices.ContainsFunc(s.Tools, func(t json.RawMessage) bool { return rawjson.Key(t, "name") == f.name }) { // a spec read again has them
			out = append(out, json.RawMessage(`{"name":"`+f.name+`","description":"Mirrors an argument in a header.","inputSchema":{"type":"object","properties":`+f.properties+`}}`))
		}
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
	case m.batch, m.Method == "" || m.ID == nil:
		if answer(collect); !m.batch { // a notification's or a response's answers are not sent
			lines = pick(spec.has("notification-200"), []string{`{"jsonrpc":"2.0","result":{}}`}, nil)
		}
		if len(lines) == 0 {
			x.Status(http.StatusAccepted, "")
		} else {
			x.Status(http.StatusOK, strings.Join(lines, "\n"), "Content-Type", "application/json")
		}
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
	return locked(&s.mu, func() string { s.events++; return fmt.Sprintf("ev-%d", s.events) })
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
	switch {
	case !lone:
		<-me.done // taken by another just now, which writes on this stream
	case x.R.Context().Err() == nil:
		answer(me, me.id)
	}
}

// Polling: the spec server's (the sse-polling edge, initialize era): a
// request answered with an event stream gets a priming event (an id, a
// retry, empty data) and the connection closed (2025-11-25
// basic/transports, "Sending Messages to the Server": the server "MAY
// close the connection (without terminating the SSE stream)"); the
// answer goes on into the stream, and each GET with Last-Event-ID gets
// what came after that id once there is some, closed with a retry until
// the stream ends ("Resumability and Redelivery"). The poll-* faults
// break one rule each. Under the sse-resumable edge the connection is
// kept and the answer written on it as it comes, the stream kept all the
// same for a client that goes away and resumes it.

// pollRetry is the retry the polling server asks: the least a client
// waits (mcp's minRetry), so that a run is not slowed.
const pollRetry = "retry: 100\n"

// pollStream is one request's stream under polling.
type pollStream struct {
	mu     sync.Mutex    // guards the fields below
	ids    []string      // event ids, the priming event's first
	lines  []string      // their data: "" for the priming event
	done   bool          // the answer has ended
	more   chan struct{} // closed and replaced when an event is added or done set
	priors *pollStream   // the session's stream before it (poll-other-stream)
}

// add adds an event (id "": none, the stream's end).
func (p *pollStream) add(id, line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id == "" {
		p.done = true
	} else {
		p.ids, p.lines = append(p.ids, id), append(p.lines, line)
	}
	close(p.more)
	p.more = make(chan struct{})
}

// send writes the events from i on, and says where the next begins and
// whether the stream has ended.
func (p *pollStream) send(e *SSEWriter, i int) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; i < len(p.ids); i++ {
		if p.lines[i] != "" {
			e.Event(p.ids[i], p.lines[i])
		}
	}
	return i, p.done
}

// poll answers m under polling: the priming event, and the connection
// closed; the answer goes on into the stream, for the GETs.
func (s *HTTPServer) poll(x *Exchange, m msg, st *specState) {
	p := &pollStream{more: make(chan struct{})}
	prime := s.pollID(p)
	p.add(prime, "")
	withLock(&s.mu, func() { p.priors, s.lastPoll[x.SessionID] = s.lastPoll[x.SessionID], p })
	go func() { // the polled answer: ends with the answer, or with the test
		defer p.add("", "")
		s.spec.specMessage(st, m.raw, m, specOut{send: func(line string) { p.add(s.pollID(p), line) },
			async: func(f func()) { f() }, http: true, done: s.ctx.Done()})
	}()
	retry := pollRetry
	switch {
	case s.spec.has("poll-no-retry"):
		retry = ""
	case s.spec.has("poll-bad-retry"):
		retry = "retry: 1.5s\n"
	}
	e := x.SSE()
	e.Raw("id: " + prime + "\n" + retry + "data:\n\n")
	for i, done := 1, false; s.spec.edge("sse-resumable") && !done; {
		// The connection kept, the answer written as it comes: a client
		// that goes away resumes it with a GET.
		more := locked(&p.mu, func() chan struct{} { return p.more })
		if i, done = p.send(e, i); done {
			return
		}
		select {
		case <-more:
		case <-x.R.Context().Done():
			if s.spec.has("disconnect-cancels") && s.ctx.Err() == nil {
				st.cancel(string(m.ID))
			}
			return
		}
	}
}

// pollID is a new event id of p's.
func (s *HTTPServer) pollID(p *pollStream) string {
	id := s.eventID()
	withLock(&s.mu, func() { s.polls[id] = p })
	return id
}

// resume answers a GET with Last-Event-ID of a polled stream, and says
// whether it was one.
func (s *HTTPServer) resume(x *Exchange) bool {
	p := locked(&s.mu, func() *pollStream { return s.polls[x.LastEventID] })
	if p == nil {
		return false
	}
	e := x.SSE()
	if s.spec.has("poll-close-forever") {
		e.Raw("id: " + s.pollID(p) + "\n" + pollRetry + "data:\n\n")
		return true
	}
	if q := p.priors; q != nil && s.spec.has("poll-other-stream") {
		q.send(e, 0)
	}
	from := locked(&p.mu, func() int { return slices.Index(p.ids, x.LastEventID) + 1 }) // the first event not had
	start := pick(s.spec.has("poll-replay-start"), 0, from)                             // poll-replay-start: from the stream's start
	for {
		p.mu.Lock()
		ready, more := len(p.ids) > from || p.done, p.more
		p.mu.Unlock()
		if ready {
			if _, done := p.send(e, start); !done {
				e.Raw(pollRetry + "\n")
			}
			return true
		}
		select {
		case <-more:
		case <-x.R.Context().Done():
			return true
		}
	}
}
