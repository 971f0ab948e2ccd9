package mcptest

// The fake MCP server over HTTP: a spec server (http_spec.go) whose
// exchanges a test may script itself, for the cases a real server rarely
// shows: streams cut mid-answer, expired sessions, odd statuses, the
// legacy HTTP+SSE transport.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
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
	done chan struct{} // closed when the test ends, before the server closes

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
	// polls are the polled streams (http_poll.go), by each of their event
	// ids; lastPoll, by session, the one opened last.
	polls, lastPoll map[string]*pollStream
}

// NewHTTPServer starts a fake that closes when the test ends.
func NewHTTPServer(t testing.TB, opts HTTPOptions) *HTTPServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("mcptest: listen: %v", err)
	}
	s := &HTTPServer{opts: opts, spec: cmp.Or(opts.Spec, scriptedSpec(opts.Latency)), done: make(chan struct{}), changed: make(chan struct{}),
		live: map[string]bool{}, channels: map[string]chan<- string{}, states: map[string]*specState{}, parked: map[string]*crossing{},
		polls: map[string]*pollStream{}, lastPoll: map[string]*pollStream{}}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.ts.Listener.Close()
	s.ln = &connsListener{Listener: l, caseful: s.spec.has("header-case-sensitive")}
	s.ts.Listener = s.ln
	s.ts.Start()
	s.URL = s.ts.URL + "/mcp"
	t.Cleanup(func() {
		close(s.done) // hooks holding streams open return ...
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
		case <-s.done:
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
	case <-x.s.done:
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
func (x *Exchange) Hold() {
	select {
	case <-x.R.Context().Done():
	case <-x.s.done:
	}
}

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

	if s.spec.Card != nil && r.URL.Path == "/mcp/server-card" && r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "application/mcp-server-card+json")
		w.Write(bytes.ReplaceAll(s.spec.Card, []byte("{{endpoint}}"), []byte("http://"+r.Host+"/mcp"))) // the card names the server where it answers
		return
	}
	if s.opts.Legacy && r.URL.Path == "/mcp" {
		s.serveLegacyMain(x)
		return
	}
	switch {
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
	if !s.sessions() || x.Method == http.MethodDelete && (s.spec.edge("delete-405") || s.spec.has("delete-again-200")) {
		return true
	}
	if x.SessionID == "" {
		switch {
		case x.Method != http.MethodPost || x.RPCMethod == "initialize" && x.ID != nil:
			return true
		case s.spec.has("mute-early"):
			x.Hold() // nothing answered before initialize
		case s.spec.has("no-session-404"):
			x.Status(http.StatusNotFound, "no session")
		default:
			x.Status(http.StatusBadRequest, "Bad Request: missing Mcp-Session-Id")
		}
		return false
	}
	live := locked(&s.mu, func() bool { return s.live[x.SessionID] })
	switch {
	case live:
	case s.spec.has("unknown-session-400"):
		x.Status(http.StatusBadRequest, "bad session")
	default:
		x.Status(http.StatusNotFound, "session not found")
	}
	return live
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
	if x.Method == http.MethodPost {
		x.Status(cmp.Or(s.opts.LegacyStatus, http.StatusMethodNotAllowed), "")
		return
	}
	if x.Method != http.MethodGet {
		x.Status(http.StatusMethodNotAllowed, "")
		return
	}
	if s.opts.Get != nil {
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
		case <-s.done:
			return
		}
	}
}
