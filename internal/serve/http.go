package serve

// The Streamable HTTP side
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http):
// one endpoint, /mcp. A client of the initialize era gets a session at
// initialize (Mcp-Session-Id), POSTs each message, and may GET a stream
// for what the server sends unasked; DELETE ends its session. A client of
// the 2026-07-28 era has no session: each of its POSTs is served on a
// downstream session of its own that ends with the answer.
//
// Each downstream session is an mcp.Session over an httpTransport: what a
// POST brings is what the session reads; what the session writes goes to
// the POST it answers or belongs to (a response by its id, progress and
// server requests by the id of the request they come with), else to the
// GET stream, else, for a notification, nowhere. A POST is answered with
// one JSON body when its response is the first thing to go to it, and
// with an event stream otherwise.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// HTTPHandler serves clients at /mcp. With a token, every request must
// carry it as a bearer token; anyOrigin lets a browser page of any origin
// in, under any host name (a server reachable beyond this machine), else
// only loopback origins are, and only requests for a loopback host (a
// defence against DNS rebinding, a MUST of the transport: a page of
// evil.example whose name now points at 127.0.0.1 sends its own Origin,
// or none at all, and Host: evil.example).
func (s *Server) HTTPHandler(token string, anyOrigin bool) *HTTPHandler {
	return &HTTPHandler{srv: s, token: token, anyOrigin: anyOrigin, sessions: map[string]*httpSession{},
		answering: map[*httpSession]bool{},
		Idle:      DefaultIdle, InitIdle: DefaultInitIdle, MaxSessions: DefaultMaxSessions, MaxBody: DefaultMaxBody}
}

// What the endpoint holds for its clients, at most, by default: each
// session holds a downstream session (and with Isolate a server of its
// own), so a flood of initialize requests must not hold them for long,
// nor without end.
const (
	// DefaultIdle is how long a client's session lasts with no request
	// of its own and no stream open: a client that leaves without DELETE
	// is forgotten.
	DefaultIdle = 30 * time.Minute
	// DefaultInitIdle is DefaultIdle for a session that has had no
	// request but its initialize.
	DefaultInitIdle = time.Minute
	// DefaultMaxSessions is how many sessions may be open at once; an
	// initialize beyond is refused (503) until one ends.
	DefaultMaxSessions = 1000
	// DefaultMaxBody is the largest POST body taken (413 beyond).
	DefaultMaxBody = 32 << 20
)

// HTTPHandler is the /mcp endpoint.
type HTTPHandler struct {
	srv       *Server
	token     string
	anyOrigin bool
	// Idle ends a session that long without a request or a stream open;
	// InitIdle, one that has had no request but its initialize.
	Idle, InitIdle time.Duration
	// MaxSessions caps the sessions open at once.
	MaxSessions int
	// MaxBody caps the bytes of a POST body.
	MaxBody int64

	mu       sync.Mutex // guards sessions, closed and answering
	sessions map[string]*httpSession
	closed   bool
	// answering are the sessions of one request each (a modern client's,
	// with no session id) running now; they count against MaxSessions as
	// the others do, and end with the handler.
	answering map[*httpSession]bool
	// asked counts the requests POSTed and not yet answered (or given
	// up).
	asked outstanding
}

type httpSession struct {
	c *client
	t *httpTransport

	mu      sync.Mutex  // guards active and settled
	active  int         // HTTP requests of the session being served
	settled bool        // it has had a message past its handshake, or a stream
	idle    *time.Timer // ends the session when it fires; stopped while active > 0
}

// enter and leave bracket each HTTP request of the session (handshake
// says it is its initialize, or notifications/initialized): the idle
// timer runs only while none is being served, for InitIdle until the
// session has had something past its handshake.
func (s *httpSession) enter(handshake bool) {
	s.mu.Lock()
	s.active++
	s.settled = s.settled || !handshake
	if s.idle != nil {
		s.idle.Stop()
	}
	s.mu.Unlock()
}

func (s *httpSession) leave(h *HTTPHandler) {
	s.mu.Lock()
	s.active--
	if s.active == 0 && s.idle != nil {
		idle := h.Idle
		if !s.settled {
			idle = min(idle, h.InitIdle)
		}
		s.idle.Reset(idle)
	}
	s.mu.Unlock()
}

// Close ends every downstream session: what each client asked that is
// still in flight is cancelled, upstream too, and answered with an error
// where its client still waits.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	h.closed = true
	var all []*httpSession
	for _, s := range h.sessions {
		all = append(all, s)
	}
	for s := range h.answering {
		all = append(all, s)
	}
	h.sessions = map[string]*httpSession{}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(s.c.close) // each waits for its own requests' cancellation
	}
	wg.Wait()
}

// Settle waits, for a bound, until every request POSTed has been
// answered: once the upstream has ended, each gets its error before the
// sessions close.
func (h *HTTPHandler) Settle() { h.asked.wait(settleWait, nil) }

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	if !h.anyOrigin && !loopbackOrigin(r.Header.Get("Origin")) {
		httpError(w, http.StatusForbidden, "origin not allowed")
		return
	}
	if !h.anyOrigin && !loopbackHost(r.Host) {
		httpError(w, http.StatusForbidden, "host not allowed")
		return
	}
	if h.token != "" {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, []byte("Bearer "+h.token)) != 1 {
			// Said in the challenge too, which a client shows: this is
			// no OAuth server, and the token is the one serve printed.
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpv serve", error_description="send the bearer token mcpv serve printed on stderr, or was given (--http-token, MCPV_HTTP_TOKEN), as Authorization: Bearer TOKEN"`)
			httpError(w, http.StatusUnauthorized, "a bearer token is required: the one mcpv serve printed on stderr, or was given (--http-token, MCPV_HTTP_TOKEN), as Authorization: Bearer TOKEN")
			return
		}
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		if s := h.session(w, r); s != nil {
			h.end(r.Header.Get("Mcp-Session-Id"))
			w.WriteHeader(http.StatusOK)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, "method not allowed")
	}
}

// end ends the session sid, if it is still there.
func (h *HTTPHandler) end(sid string) {
	h.mu.Lock()
	s := h.sessions[sid]
	delete(h.sessions, sid)
	h.mu.Unlock()
	if s != nil {
		s.c.close()
	}
}

// loopbackOrigin: no Origin (not a browser), or one on this machine.
func loopbackOrigin(origin string) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	return loopbackName(u.Hostname())
}

// loopbackHost: a Host header (host, or host:port) naming this machine.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return loopbackName(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

func loopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpError answers with a JSON-RPC error without an id, as the transport
// asks for errors outside any request.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": mcp.RPCError{Code: mcp.CodeInvalidRequest, Message: msg}})
	w.Write(b)
}

// session finds the session a request names, or answers that it is
// missing (400) or unknown (404).
func (h *HTTPHandler) session(w http.ResponseWriter, r *http.Request) *httpSession {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		httpError(w, http.StatusBadRequest, "Mcp-Session-Id header required")
		return nil
	}
	h.mu.Lock()
	s := h.sessions[sid]
	h.mu.Unlock()
	if s == nil {
		httpError(w, http.StatusNotFound, "session not found")
	}
	return s
}

// incoming is what the endpoint needs to know of a POSTed message.
type incoming struct {
	id      json.RawMessage
	method  string
	modern  bool
	request bool
}

func readIncoming(body []byte) (incoming, error) {
	if !rawjson.IsObject(body) {
		return incoming{}, errors.New("the body is not one JSON-RPC message")
	}
	e, err := readEnvelope(body)
	if err != nil {
		return incoming{}, err
	}
	in := incoming{method: e.method, request: e.request()}
	if string(e.id) != "null" {
		in.id = e.id
	}
	in.modern = in.method == "server/discover" || rawjson.IsObject(e.params) && hasModernMeta(e.params)
	return in, nil
}

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", tooBig.Limit))
		}
		return
	}
	in, err := readIncoming(body)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	modern := r.Header.Get("Mcp-Session-Id") == "" && (in.modern || modernHeader(r))
	if modern && !rawjson.Valid(body) {
		// What is checked below reads a body known to be JSON. (The
		// initialize era's requests get their parse error from the
		// session.)
		writeRPCError(w, http.StatusBadRequest, nil, &mcp.RPCError{Code: mcp.CodeParseError, Message: "the body is not valid JSON"})
		return
	}
	if modern && in.request {
		if status, rerr := checkModernPost(r, body, in.method); rerr != nil {
			writeRPCError(w, status, in.id, rerr)
			return
		}
	}
	var s *httpSession
	switch {
	case in.request && in.method == "initialize":
		if s, err = h.open(w); err != nil {
			return
		}
	case modern:
		// A modern client has no session: this request has one of its
		// own, which ends with the answer.
		h.mu.Lock()
		refuse := h.refusal()
		if refuse == nil {
			s = h.newSession()
			h.answering[s] = true
		}
		h.mu.Unlock()
		if refuse != nil {
			refuse(w)
			return
		}
		defer func() {
			s.c.close() // what it asked is cancelled if it was not answered
			h.mu.Lock()
			delete(h.answering, s)
			h.mu.Unlock()
		}()
	default:
		if s = h.session(w, r); s == nil {
			return
		}
	}
	if s.idle != nil {
		s.enter(in.method == "initialize" || in.method == "notifications/initialized")
		defer s.leave(h)
	}
	if !in.request {
		select {
		case s.t.in <- body:
			w.WriteHeader(http.StatusAccepted)
		case <-s.t.closed:
			httpError(w, http.StatusNotFound, "session not found")
		}
		return
	}
	st := s.t.expect(in.id, acceptsEvents(r))
	st.header, st.lazy = r.Header, modern
	defer s.t.forget(in.id, st)
	h.asked.add(1)
	defer h.asked.add(-1)
	select {
	case s.t.in <- body:
	case <-s.t.closed:
		httpError(w, http.StatusNotFound, "session not found")
		return
	}
	if !st.answer(w, r, in.id, s.t.closed, st.events) && r.Context().Err() != nil {
		// The client hung up before its answer: the request is cancelled,
		// as if it had said so, and upstream with it.
		s.t.cancel(in.id)
	}
}

// acceptsEvents: the client takes an event stream in answer to a POST, as
// every client of the transport must; it then gets one, as from the
// reference servers, whatever comes before the response.
func acceptsEvents(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// open starts a session for an initialize and names it in the answer's
// headers.
func (h *HTTPHandler) open(w http.ResponseWriter) (*httpSession, error) {
	b := make([]byte, 16)
	rand.Read(b)
	sid := hex.EncodeToString(b)
	h.mu.Lock()
	if refuse := h.refusal(); refuse != nil {
		h.mu.Unlock()
		refuse(w)
		return nil, errors.New("refused")
	}
	s := h.newSession()
	h.sessions[sid] = s
	s.idle = time.AfterFunc(h.InitIdle, func() { h.end(sid) })
	h.mu.Unlock()
	w.Header().Set("Mcp-Session-Id", sid)
	return s, nil
}

// refusal is how to refuse a new session, when one may not open now (the
// handler is closed, or MaxSessions are open); nil when it may. h.mu is
// held; the refusal is written after it is let go.
func (h *HTTPHandler) refusal() func(http.ResponseWriter) {
	switch {
	case h.closed:
		return func(w http.ResponseWriter) { httpError(w, http.StatusServiceUnavailable, "shutting down") }
	case len(h.sessions)+len(h.answering) >= h.MaxSessions:
		return func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "60")
			httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("too many sessions: %d are open", h.MaxSessions))
		}
	}
	return nil
}

func (h *HTTPHandler) newSession() *httpSession {
	t := &httpTransport{in: make(chan []byte), closed: make(chan struct{}), posts: map[string]*stream{}}
	c := h.srv.serveClientWith(t, nil, t.headers)
	return &httpSession{c: c, t: t}
}

// get opens the stream for what the server sends unasked; one at a time.
func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	s := h.session(w, r)
	if s == nil {
		return
	}
	s.enter(false)
	defer s.leave(h)
	st := newStream()
	s.t.mu.Lock()
	busy := s.t.get != nil
	if !busy {
		s.t.get = st
	}
	s.t.mu.Unlock()
	if busy {
		httpError(w, http.StatusConflict, "a stream is open for this session already")
		return
	}
	defer func() {
		s.t.mu.Lock()
		if s.t.get == st {
			s.t.get = nil
		}
		s.t.mu.Unlock()
		close(st.gone)
	}()
	st.answer(w, r, nil, s.t.closed, true)
}

// cancel cancels the client's request id in its session, as the
// client's notifications/cancelled would.
func (t *httpTransport) cancel(id json.RawMessage) {
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"the client hung up"}}`, id)
	select {
	case t.in <- msg:
	case <-t.closed:
	}
}

// stream is where a POST's or the GET's messages wait to be written.
type stream struct {
	ch     chan outMsg
	gone   chan struct{} // closed when the HTTP request is over
	events bool          // an event stream; else the response alone, as JSON
	// lazy (a modern client's POST) starts the event stream with its
	// first message, not before: an error that comes first goes as JSON,
	// with the status it calls for (modernStatus).
	lazy   bool
	header http.Header // the POST's headers
}

func newStream() *stream {
	return &stream{ch: make(chan outMsg, 16), gone: make(chan struct{}), events: true}
}

// outMsg is a message for a stream: its parts, written one after the
// other (a large result is never joined to its framing, nor copied), and
// its id when it is a response, read once.
type outMsg struct {
	parts    [][]byte
	id       json.RawMessage
	response bool
}

// answer writes the stream's messages until the response to id (none for
// the GET stream) has gone, the client goes, or the session ends: as an
// event stream, or, for a client that takes none, the response alone as
// one JSON body (what comes before it is dropped). It reports whether the
// response went.
func (st *stream) answer(w http.ResponseWriter, r *http.Request, id json.RawMessage, closed <-chan struct{}, events bool) bool {
	started := false
	if events && !st.lazy {
		startEvents(w)
		started = true
	}
	for {
		select {
		case msg := <-st.ch:
			final := id != nil && msg.response && string(msg.id) == string(id)
			status := http.StatusOK
			if final && !started && st.lazy {
				status = modernStatus(msg.parts)
			}
			if final && !started && (!events || status != http.StatusOK) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				writeParts(w, msg.parts)
				return true
			}
			if !events {
				continue
			}
			if !started {
				startEvents(w)
				started = true
			}
			io.WriteString(w, "event: message\ndata: ")
			writeParts(w, msg.parts)
			io.WriteString(w, "\n\n")
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			if final {
				return true
			}
		case <-r.Context().Done():
			return false
		case <-closed:
			return false
		}
	}
}

func writeParts(w io.Writer, parts [][]byte) {
	for _, p := range parts {
		w.Write(p)
	}
}

func startEvents(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// responseID reads a message's id when it is a response (no method).
func responseID(msg []byte) (json.RawMessage, bool) {
	e, _ := readEnvelope(msg)
	return e.response()
}

// httpTransport is one downstream session's side of the endpoint.
type httpTransport struct {
	in     chan []byte   // POSTed messages, for Read
	closed chan struct{} // closed by Close
	once   sync.Once     // guards closing closed

	mu    sync.Mutex         // guards posts and get
	posts map[string]*stream // the POSTs waiting for their answer, by request id
	get   *stream            // the GET stream, when open
}

func (t *httpTransport) Read() ([]byte, error) {
	select {
	case msg := <-t.in:
		return msg, nil
	case <-t.closed:
		return nil, io.EOF
	}
}

// expect registers the POST of request id before the request is read,
// so that its answer cannot come before the POST is there to take it.
func (t *httpTransport) expect(id json.RawMessage, events bool) *stream {
	st := newStream()
	st.events = events
	t.mu.Lock()
	t.posts[string(id)] = st
	t.mu.Unlock()
	return st
}

// headers are the headers of the POST of request id, while it is served.
func (t *httpTransport) headers(id json.RawMessage) http.Header {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.posts[string(id)]; st != nil {
		return st.header
	}
	return nil
}

func (t *httpTransport) forget(id json.RawMessage, st *stream) {
	t.mu.Lock()
	if t.posts[string(id)] == st {
		delete(t.posts, string(id))
	}
	t.mu.Unlock()
	close(st.gone)
}

// Write sends msg to the POST it answers or belongs to, else to the GET
// stream; a notification with neither is dropped, a request fails.
func (t *httpTransport) Write(ctx context.Context, msg []byte) error {
	id, resp := responseID(msg)
	return t.send(ctx, outMsg{parts: [][]byte{msg}, id: id, response: resp})
}

// WriteParts writes a response given as the session frames one with a
// large result (its head up to "result":, the result, a closing brace),
// without joining them; anything else is joined and written.
func (t *httpTransport) WriteParts(ctx context.Context, parts [][]byte) error {
	if head, ok := headOf(parts); ok {
		if id, resp := responseID(head); resp {
			return t.send(ctx, outMsg{parts: parts, id: id, response: true})
		}
	}
	return t.Write(ctx, bytes.Join(parts, nil))
}

// send hands msg to the POST it answers or belongs to, else to the GET
// stream; a notification with neither is dropped, a request fails.
func (t *httpTransport) send(ctx context.Context, msg outMsg) error {
	key, resp := related(ctx), msg.response
	if resp {
		key = msg.id
	}
	t.mu.Lock()
	st := t.posts[string(key)]
	if st == nil || !st.events && !resp {
		st = t.get // a POST answered as JSON takes its response alone
	}
	t.mu.Unlock()
	if st == nil {
		// Only a response comes in parts, and its first part is not a
		// whole message: read the others, which are one.
		if !resp {
			if _, isRequest := requestID(msg.parts[0]); isRequest {
				return errors.New("the client has no stream open to take a request")
			}
		}
		return nil
	}
	select {
	case st.ch <- msg:
		return nil
	case <-st.gone:
		return errors.New("the client's stream has closed")
	case <-t.closed:
		return io.EOF
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func requestID(msg []byte) (json.RawMessage, bool) {
	in, err := readIncoming(msg)
	return in.id, err == nil && in.request
}

// ConcurrentWrites: each message goes to a stream of its own.
func (t *httpTransport) ConcurrentWrites() bool { return true }

func (t *httpTransport) Close(context.Context) error {
	t.once.Do(func() { close(t.closed) })
	return nil
}
