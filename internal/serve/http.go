package serve

// The Streamable HTTP side
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http):
// one endpoint, /mcp unless Path says otherwise. A client of the
// initialize era gets a session at initialize (Mcp-Session-Id), POSTs
// each message, and may GET a stream for what the server sends unasked;
// DELETE ends its session. A client of the 2026-07-28 era has no session:
// each of its POSTs is served on a downstream session of its own that
// ends with the answer. With SSE, clients of the 2024-11-05 HTTP+SSE
// transport are served beside (httpsse.go). Who may reach the endpoint,
// and /healthz, is httpfront.go's.
//
// Each downstream session is an mcp.Session over an httpTransport
// (httptransport.go): what a POST brings is what the session reads, and
// what the session writes goes to the POST it answers or belongs to, else
// to the GET stream, else, for a notification, nowhere. A POST is answered
// with one JSON body when its response is the first thing to go to it, and
// with an event stream otherwise.

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/origin"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// HTTPHandler serves clients at /mcp. With a token, every request must
// carry it as a bearer token; anyHost answers requests for any host name
// (a server reachable beyond this machine), else only those for a
// loopback host (a defence against DNS rebinding, a MUST of the
// transport: a page of evil.example whose name now points at 127.0.0.1
// sends Host: evil.example). A browser page is let in from a loopback
// origin, or one Origins names.
func (s *Server) HTTPHandler(token string, anyHost bool) *HTTPHandler {
	return &HTTPHandler{srv: s, token: token, anyHost: anyHost, sessions: map[string]*httpSession{},
		answering: map[*httpSession]bool{},
		Idle:      DefaultIdle, InitIdle: DefaultInitIdle, MaxSessions: DefaultMaxSessions, MaxBody: DefaultMaxBody}
}

// What the endpoint holds for its clients, at most, by default: a flood
// of initialize requests must not hold sessions (and with Isolate
// servers) for long, nor without end.
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
	// DefaultMaxHeld is how many bytes of POST bodies the endpoint holds
	// at once, across its clients (503 beyond), however many connections
	// send big bodies to sessions that are slow to take them.
	DefaultMaxHeld = 4 * DefaultMaxBody
)

// HTTPHandler is the /mcp endpoint. Its fields are set before it serves.
type HTTPHandler struct {
	srv     *Server
	token   string
	anyHost bool
	// Path is where the endpoint is (DefaultPath when ""); CheckPath
	// says which paths may be.
	Path string
	// Origins are the web origins whose pages may use the endpoint.
	Origins origin.Policy
	// SSE serves clients of the 2024-11-05 HTTP+SSE transport too, at
	// the LegacyPaths beside the endpoint.
	SSE bool
	// NoCard publishes no Server Card or catalog (card.go).
	NoCard bool
	// Stall is how long a client may take nothing written to it before
	// it counts as gone (DefaultStall when 0); Told, how long the stream
	// of a legacy client gone so is kept for it to find its calls'
	// errors, should it read again (Stall when 0).
	Stall, Told time.Duration
	// KeepAlive is how often an event stream that has nothing to say
	// gets a comment (DefaultKeepAlive when 0, none when negative): a
	// proxy that cuts silent connections leaves it be, and a client that
	// went without a word is found out.
	KeepAlive time.Duration
	// Idle ends a session that long without a request or a stream open;
	// InitIdle, one that has had no request but its initialize.
	Idle, InitIdle time.Duration
	// MaxSessions caps the sessions open at once.
	MaxSessions int
	// MaxBody caps the bytes of a POST body.
	MaxBody int64
	// MaxHeld caps the bytes of the POST bodies held at once, until
	// their requests end (DefaultMaxHeld when 0).
	MaxHeld int64
	held    atomic.Int64 // the bytes of POST bodies read by requests under way

	mu       sync.Mutex // guards sessions, closed, draining and answering
	sessions map[string]*httpSession
	closed   bool
	draining bool // Drain: no session opens, /healthz says so
	// answering are the sessions of one request each (a modern client's)
	// running now; they count against MaxSessions.
	answering map[*httpSession]bool
	asked     outstanding // the requests POSTed and not yet answered (or given up)

	// What a layer above sets (a gateway's paths): Admit says whether a
	// view may reach this handler's server (404 otherwise); SSEPaths are
	// the legacy transport's paths in place of LegacyPaths'; Health
	// answers /healthz, told the view of the probe's token (known: one
	// the endpoint takes) and whether the handler is closed.
	Admit    func(*View) bool
	SSEPaths *[2]string
	Health   func(who *View, known, closed bool) (status int, body any)

	clients *Clients // the bearer tokens and their views, in place of token
}

type httpSession struct {
	c      *client
	t      *httpTransport
	legacy bool // a client of the HTTP+SSE transport: its stream's session, with no idle timer

	mu      sync.Mutex  // guards active and settled
	active  int         // HTTP requests of the session being served
	settled bool        // it has had a message past its handshake, or a stream
	idle    *time.Timer // ends the session when it fires; stopped while active > 0
}

// enter and leave bracket each HTTP request of the session (handshake:
// initialize, or notifications/initialized): the idle timer runs only
// while none is served, for InitIdle until it has had more.
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

// Close ends every downstream session: what is still in flight is
// cancelled, upstream too, and answered with an error.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	h.closed = true
	all := append(slices.Collect(maps.Values(h.sessions)), slices.Collect(maps.Keys(h.answering))...)
	h.sessions = map[string]*httpSession{}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(s.c.close) // parallel close or settle: each waits for its own requests' cancellation
	}
	wg.Wait()
}

// DrainGrace is how long a draining endpoint (SIGTERM, Ctrl-C) gives
// the calls in flight to be answered before its sessions close.
const DrainGrace = 5 * time.Second

// Drain readies the handler to stop, as a replica behind a balancer
// must: /healthz answers 503 "draining", no session opens (a modern
// request is still answered), and it waits up to grace for every request
// POSTed to be answered.
func (h *HTTPHandler) Drain(grace time.Duration) {
	h.mu.Lock()
	h.draining = true
	h.mu.Unlock()
	h.asked.wait(grace, nil)
}

// Settle waits, for a bound, until every request POSTed has been
// answered: once the upstream has ended, each gets its error.
func (h *HTTPHandler) Settle() { h.asked.wait(settleWait, nil) }

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

// httpError answers with a JSON-RPC error without an id, as the transport
// asks for errors outside any request.
func httpError(w http.ResponseWriter, status int, msg string) {
	writeRPCError(w, status, nil, &mcp.RPCError{Code: mcp.CodeInvalidRequest, Message: msg})
}

// session finds the session a request names, or answers that it is
// missing (400) or unknown (404).
func (h *HTTPHandler) session(w http.ResponseWriter, r *http.Request) *httpSession {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		httpError(w, http.StatusBadRequest, "Mcp-Session-Id header required")
		return nil
	}
	s := h.lookup(sid, false, whoOf(r))
	if s == nil {
		httpError(w, http.StatusNotFound, "session not found")
		return nil
	}
	// A session is of the initialize era: a version it does not speak is
	// refused (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header).
	for _, v := range r.Header.Values("Mcp-Protocol-Version") {
		if !slices.Contains(mcp.SupportedVersions, v) {
			httpError(w, http.StatusBadRequest, fmt.Sprintf("unsupported MCP-Protocol-Version %q: a session speaks %s", safetext.Clip(safetext.Line(v), 40), strings.Join(mcp.SupportedVersions, ", ")))
			return nil
		}
	}
	return s
}

// lookup is the session sid of who's token, of a legacy client or not as
// asked: the id of one kind names none of the other, nor another token's.
func (h *HTTPHandler) lookup(sid string, legacy bool, who *View) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sessions[sid]; s != nil && s.legacy == legacy && s.c.who == who {
		return s
	}
	return nil
}

// readIncoming reads what the endpoint needs to know of a POSTed message:
// its envelope. A body that is no JSON-RPC message is never passed on: it
// is the error to refuse it with over HTTP (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
func readIncoming(body []byte) (envelope, *mcp.RPCError) {
	e, _ := readEnvelope(body)
	_, err := mcp.DecodeMessages(body)
	switch {
	case !rawjson.IsObject(body):
		err = errors.New("it is not one JSON object")
	case err != nil && !rawjson.Valid(body):
		return e, &mcp.RPCError{Code: mcp.CodeParseError, Message: "the body is not valid JSON"}
	case err == nil && len(e.id) > 0 && validID(e.id) == nil:
		err = errors.New("its id is neither a string nor a number")
	}
	if err != nil {
		return e, &mcp.RPCError{Code: mcp.CodeInvalidRequest, Message: "not one JSON-RPC message: " + err.Error()}
	}
	return e, nil
}

// readBody reads a POST's body, of MaxBody bytes at most (413 beyond),
// counted against MaxHeld (503 beyond) until release, which the caller
// calls when its request ends, whatever readBody answered.
func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) (body []byte, release func(), ok bool) {
	hr := &heldReader{r: http.MaxBytesReader(w, r.Body, h.MaxBody), h: h}
	release = func() { h.held.Add(-hr.n) }
	body, err := io.ReadAll(hr)
	if err != nil {
		if tooBig, ok := errors.AsType[*http.MaxBytesError](err); ok {
			httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", tooBig.Limit))
		} else if errors.Is(err, errHeld) {
			w.Header().Set("Retry-After", "1")
			httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("the endpoint holds %d bytes of request bodies already; try again", h.maxHeld()))
		}
		return nil, release, false
	}
	return body, release, true
}

func (h *HTTPHandler) maxHeld() int64 { return cmp.Or(h.MaxHeld, DefaultMaxHeld) }

// errHeld is a body read past the endpoint's MaxHeld.
var errHeld = errors.New("too many bytes of request bodies held")

// heldReader counts what it reads against its handler's MaxHeld.
type heldReader struct {
	r io.Reader
	h *HTTPHandler
	n int64 // counted, until the request's release
}

func (c *heldReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.n += int64(n)
		if c.h.held.Add(int64(n)) > c.h.maxHeld() {
			return n, errHeld
		}
	}
	return n, err
}

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	body, release, ok := h.readBody(w, r)
	defer release()
	if !ok {
		return
	}
	in, err := readIncoming(body)
	if err != nil {
		writeRPCError(w, http.StatusBadRequest, nil, err)
		return
	}
	// A request without a session whose MCP-Protocol-Version header names
	// no version of the initialize era is taken for a modern one, and
	// checked as one.
	v := r.Header.Get("Mcp-Protocol-Version")
	modern := r.Header.Get("Mcp-Session-Id") == "" && (isModern(in.method, in.params) || v != "" && !slices.Contains(mcp.SupportedVersions, v))
	if modern && in.request() {
		if status, rerr := checkModernPost(r, body, in.method); rerr != nil {
			writeRPCError(w, status, in.id, rerr)
			return
		}
	}
	var s *httpSession
	switch {
	case in.request() && in.method == "initialize":
		if _, s = h.open(w, whoOf(r), false); s == nil {
			return
		}
	case modern:
		// A modern client has no session: this request has one of its
		// own, which ends with the answer.
		if s = h.admit(w, whoOf(r), false, func(s *httpSession) { h.answering[s] = true }); s == nil {
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
	if !in.request() {
		s.t.accept(w, r, body)
		return
	}
	// A client that takes an event stream in answer to a POST gets one,
	// as from the reference servers.
	st := s.t.expect(in.id, strings.Contains(r.Header.Get("Accept"), "text/event-stream"))
	st.header, st.lazy = r.Header, modern
	h.pace(st)
	defer s.t.forget(in.id, st)
	h.asked.add(1)
	defer h.asked.add(-1)
	select {
	case s.t.in <- body:
	case <-s.t.closed:
		httpError(w, http.StatusNotFound, "session not found")
		return
	}
	if !st.answer(w, r, in.id, s.t.closed, st.events) {
		// The client hung up, or stalled: the request is cancelled, as
		// if it had said so.
		s.t.cancel(in.id)
	}
}

// open starts a session: for an initialize, named in the answer's
// headers, or for a legacy client's stream. It answers the refusal and
// returns nil when one may not open now.
func (h *HTTPHandler) open(w http.ResponseWriter, who *View, legacy bool) (string, *httpSession) {
	b := make([]byte, 16)
	rand.Read(b)
	sid := hex.EncodeToString(b)
	return sid, h.admit(w, who, true, func(s *httpSession) {
		s.legacy = legacy
		h.sessions[sid] = s
		if !legacy {
			s.idle = time.AfterFunc(h.InitIdle, func() { h.end(sid) })
			w.Header().Set("Mcp-Session-Id", sid)
		}
	})
}

// admit makes a session for a client of who, which add files (h.mu is
// held), unless one may not open now (lasting: one that outlasts its
// request): then it answers the refusal, and is nil.
func (h *HTTPHandler) admit(w http.ResponseWriter, who *View, lasting bool, add func(*httpSession)) *httpSession {
	h.mu.Lock()
	var why, retry string // the refusal, and its Retry-After
	switch {
	case h.closed:
		why = "shutting down"
	case h.draining && lasting:
		why, retry = "draining: this replica is stopping; open the session again", "1"
	case len(h.sessions)+len(h.answering) >= h.MaxSessions:
		why, retry = fmt.Sprintf("too many sessions: %d are open", h.MaxSessions), "60"
	}
	if why != "" {
		h.mu.Unlock()
		if retry != "" {
			w.Header().Set("Retry-After", retry)
		}
		httpError(w, http.StatusServiceUnavailable, why)
		return nil
	}
	t := &httpTransport{in: make(chan []byte), closed: make(chan struct{}), posts: map[string]*stream{}}
	c := h.srv.serveClientWith(t, nil, t.headers)
	// What its token lets it see: its view, and the view's guard over the
	// Server's names.
	c.who, c.view = who, who.guard(c.srv.NamePrefix)
	s := &httpSession{c: c, t: t}
	add(s)
	h.mu.Unlock()
	return s
}

// get opens the stream for what the server sends unasked; one at a time.
func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	s := h.session(w, r)
	if s == nil {
		return
	}
	s.enter(false)
	defer s.leave(h)
	st := h.pace(newStream())
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

// accept hands a message answered elsewhere (a notification, a response,
// a legacy client's every message) to the session: 202.
func (t *httpTransport) accept(w http.ResponseWriter, r *http.Request, body []byte) {
	select {
	case t.in <- body:
		w.WriteHeader(http.StatusAccepted)
	case <-t.closed:
		httpError(w, http.StatusNotFound, "session not found")
	case <-r.Context().Done():
	}
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
