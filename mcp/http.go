package mcp

// The Streamable HTTP transport
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http),
// with the legacy HTTP+SSE
// transport of 2024-11-05 as a fallback.
//
// Design:
//   - Every outgoing message is one POST. A request's POST runs on its own
//     goroutine, so slow calls never hold up other messages: its answer (a JSON
//     body or an SSE stream) is read there and each message goes to the
//     session through the incoming queue. A failure that belongs to one request
//     (a stream lost for good, an HTTP error) reaches the session as a
//     *RequestError for that id; 401/403 end the transport (*AuthError).
//   - Notifications and responses are POSTed synchronously (they get a quick
//     202), which keeps them in order: notifications/initialized reaches the
//     server before any later request.
//   - After notifications/initialized the standalone GET stream is opened;
//     each later request but a list waits for its headers (the server has
//     the stream once it sent them), so that server requests sent there are
//     not lost; behind a proxy that holds the headers back until a first
//     event, for a tenth of a second after the GET was sent at most. A list
//     goes at once: the tools/list before a call overlaps the stream's
//     opening.
//   - A stream that ends before the response is resumed with GET and
//     Last-Event-ID after the server's retry delay, a bounded number of
//     times, in the initialize era; an answer lost for good is asked for
//     again only for a request that changes nothing (resend.go).
//   - A 404 to a POST that carried a session id means the session expired: the
//     transport replays the initialize it saw, once, and repeats the POST.
//   - Close DELETEs the session (bounded), then ends every stream.
//
// Here: the transport, its queue and its end. The POST path is in
// http_post.go, what a failed exchange says in http_status.go, a POST's
// stream followed and resumed in http_stream.go, the standalone GET and
// legacy streams in http_get.go.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// HTTP transport modes.
const (
	ModeAuto       = "auto"            // Streamable HTTP, falling back to legacy SSE
	ModeStreamable = "streamable-http" // Streamable HTTP only
	ModeSSE        = "sse"             // legacy HTTP+SSE only
)

// HTTPOptions describe an HTTP server.
type HTTPOptions struct {
	URL string
	// Client sends every request; an authorization layer may wrap its
	// Transport. nil means a client with no timeout of its own that follows
	// redirects within the server's origin only, over connections of its
	// own that Close lets go.
	Client *http.Client
	// Header is added to every request (-H).
	Header http.Header
	// Mode is ModeAuto (""), ModeStreamable or ModeSSE.
	Mode string
	// Log receives notices (a session started again); nil discards them.
	Log *slog.Logger
	// Trace, when set, sees one line per HTTP exchange, secrets masked.
	Trace func(line string)
	// OnEvent, when set, is told of every HTTP exchange (EventHTTP).
	OnEvent func(TransportEvent)
	// MaxResumes bounds reconnections of one stream; 0 means DefaultMaxResumes.
	MaxResumes int
	// SessionID resumes a session an earlier run opened and kept (Keep),
	// at the ProtocolVersion it negotiated: nothing is initialized again.
	SessionID, ProtocolVersion string
	// UserAgent, when set, is the User-Agent of each request that Header
	// gives none.
	UserAgent string
	// MaxMessage, when positive, bounds each message the server sends:
	// a longer one fails its request with a *MessageSizeError, read no
	// further. 0 reads messages of any size.
	MaxMessage int64
}

// DefaultMaxResumes is how many times a broken stream is resumed in a row.
const DefaultMaxResumes = 5

const (
	deleteTimeout = 2 * time.Second
	getStreamWait = time.Second
	// getHeadersGrace is how long a request waits for the GET stream's
	// headers once the GET has been sent: a server sends them as soon as it
	// has the stream, a proxy may hold them until the first event.
	getHeadersGrace = 100 * time.Millisecond
	maxRetry        = 30 * time.Second
	minRetry        = 100 * time.Millisecond // the least wait a retry field sets (retryField)
	closeDrainWait  = 2 * time.Second
	legacyLetGo     = time.Second // a legacy POST's wait after its caller's end (bind)
	finishWait      = 100 * time.Millisecond
	defaultRetry    = time.Second
	maxRetryBackoff = 10 * time.Second
	errorBodyLimit  = 4 << 10
)

// HTTPTransport is a Transport to an MCP server over HTTP.
type HTTPTransport struct {
	opts     HTTPOptions
	url      *url.URL
	client   *http.Client
	own      bool            // client is the transport's alone
	ctx      context.Context // ends when the transport closes
	cancel   context.CancelFunc
	incoming chan inbound // messages and per-request errors for Read
	large    *largeGate   // held by the one large message being read (largegate.go)
	// lastLarge: the message Read returned last holds large, which the
	// next Read frees. Read's goroutine alone uses it.
	lastLarge bool
	// lastRelated: the request on whose answer the message Read returned
	// last came (relatedTo). Read's goroutine alone uses it.
	lastRelated json.RawMessage
	failed      chan struct{} // closed on a fatal error (fatal is set first)
	fatal       error
	streams     sync.WaitGroup // goroutines reading POST answers and the GET stream
	free        chan func()    // a POST answer reader waiting for the next exchange takes it (goRequest)
	// postIdle is how long a POST answer reader waits for the next
	// exchange before it ends (goRequest): defaultPostIdle, or a test's.
	postIdle time.Duration
	// endWait is how long an answer's stream is read past its response
	// (finishWithin): finishWait, or a test's.
	endWait time.Duration

	reinitMu   sync.Mutex // guards the start of a new session: held while one is being started
	mu         sync.Mutex // guards the fields below
	sessionID  string
	version    string   // negotiated protocol version, once known
	initMsg    []byte   // the initialize request, for re-initialization
	initID     string   // its id
	reinitDone bool     // the one re-initialization has happened
	endpoint   *url.URL // where to POST; differs from url in legacy mode
	legacy     bool
	getOpen    bool // the standalone GET stream is running
	// getOpened is closed when the GET stream opened last has its
	// headers or has failed, getSent once it has been sent; requests wait
	// for the first until getDeadline at most: getWait (getStreamWait
	// but in tests) after the opening, brought forward to headersGrace
	// after the sending.
	getOpened    <-chan struct{}
	getSent      <-chan struct{}
	getDeadline  time.Time
	getUntil     time.Time // getWait after the opening, no grace: what a subscribe waits
	getWait      time.Duration
	headersGrace time.Duration
	closed       bool
	keep         bool // Close leaves the session open: no DELETE
	failOnce     sync.Once
	agent        []string // opts.UserAgent, as a header's values
}

type inbound struct {
	data    []byte
	err     error
	large   bool            // data holds the transport's large gate
	related json.RawMessage // the id of the request on whose answer stream it came
}

// RequestError is a failure that belongs to one request: the session ends
// that request's Call with Err and carries on.
type RequestError struct {
	ID  json.RawMessage
	Err error
}

func (e *RequestError) Error() string { return e.Err.Error() }

func (e *RequestError) Unwrap() error { return e.Err }

// NewHTTPTransport prepares a transport; nothing is sent until the first Write.
func NewHTTPTransport(opts HTTPOptions) (*HTTPTransport, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("invalid server URL: want an http:// or https:// URL with a host")
	}
	opts.Mode = cmp.Or(opts.Mode, ModeAuto)
	opts.Log = cmp.Or(opts.Log, slog.New(slog.DiscardHandler))
	opts.MaxResumes = cmp.Or(max(opts.MaxResumes, 0), DefaultMaxResumes)
	client, own := opts.Client, opts.Client == nil
	if own {
		client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), CheckRedirect: SameOrigin}
	}
	ctx, cancel := context.WithCancel(context.Background())
	large := newLargeGate()
	large.limit = opts.MaxMessage
	var agent []string
	if opts.UserAgent != "" {
		agent = []string{opts.UserAgent}
	}
	return &HTTPTransport{
		agent:    agent,
		opts:     opts,
		url:      u,
		client:   client,
		own:      own,
		ctx:      ctx,
		cancel:   cancel,
		incoming: make(chan inbound, 64),
		free:     make(chan func()),
		postIdle: defaultPostIdle,
		endWait:  finishWait,
		large:    large,
		failed:   make(chan struct{}),
		endpoint: u,

		getWait:      getStreamWait,
		headersGrace: getHeadersGrace,
		sessionID:    opts.SessionID,
		version:      opts.ProtocolVersion,
	}, nil
}

// Read returns the next message from any stream or answer body. The
// session is done with the message it returned before: if that was large,
// the next large one may now be read (largegate.go).
func (t *HTTPTransport) Read() ([]byte, error) {
	if t.lastLarge {
		t.lastLarge = false
		t.large.release()
	}
	var in inbound
	select {
	case in = <-t.incoming:
	case <-t.failed:
		// Deliver what already arrived before the failure.
		select {
		case in = <-t.incoming:
		default:
			return nil, t.fatal
		}
	}
	t.lastLarge, t.lastRelated = in.large, in.related
	return in.data, in.err
}

func (t *HTTPTransport) relatedTo() json.RawMessage { return t.lastRelated }

// push hands a message (or a request's error) to Read; it gives up when the
// transport is closing.
func (t *HTTPTransport) push(in inbound) {
	select {
	case t.incoming <- in:
	case <-t.ctx.Done():
	}
}

// fail ends the transport with err; Read returns it after what is queued.
func (t *HTTPTransport) fail(err error) {
	t.failOnce.Do(func() {
		t.fatal = err
		close(t.failed)
	})
}

// outgoing describes a message mcpv is about to send.
type outgoing struct {
	method   string          // "" for a response to a server request
	id       json.RawMessage // nil for notifications
	streamed *streamedMsg    // the message as it goes, when it streams a string
}

// classify reads a message mcpv encoded itself (valid by construction,
// its id before its method): the walk stops at the method, before params
// that may be large.
func classify(msg []byte) outgoing {
	var o outgoing
	rawjson.ForEachValidMember(msg, func(k string, v []byte) error {
		switch k {
		case "method":
			o.method, _ = rawjson.String(v)
			return errClassified
		case "id":
			o.id = v
		}
		return nil
	})
	return o
}

// errClassified stops classify's walk.
var errClassified = errors.New("classified")

// Write sends one message. Requests are answered asynchronously; see the
// design note at the top of this file.
func (t *HTTPTransport) Write(ctx context.Context, msg []byte) error {
	return t.writeStream(ctx, msg, nil)
}

// writeStream is Write of msg, streaming m when not nil (streamWriter).
func (t *HTTPTransport) writeStream(ctx context.Context, msg []byte, m *streamedMsg) error {
	o := classify(msg)
	o.streamed = m
	if o.method == "initialize" {
		t.mu.Lock()
		t.initMsg, t.initID = append([]byte(nil), msg...), string(o.id)
		t.mu.Unlock()
		if t.opts.Mode == ModeSSE {
			if err := t.startLegacy(ctx); err != nil {
				return t.notLegacy(ctx, msg, err)
			}
		}
	}
	if o.id != nil && o.method != "" { // a request, not a response
		// A list only lists what the server has: it does not wait for the
		// GET stream (a server sends its own requests, an elicitation or
		// a sampling request, in the course of one that asks it to act,
		// and the list a call is typed and checked by then overlaps the
		// stream's opening).
		if !isList(o.method) {
			// A subscription's updates come on the GET stream, and a
			// server keeps none for a stream it does not have yet: a
			// subscribe waits for the headers the whole wait, with no
			// proxy's grace.
			t.awaitGetStream(ctx, o.method == "resources/subscribe")
		}
		if !t.goRequest(func() { t.request(ctx, o, msg) }) {
			return errTransportClosed
		}
		return nil
	}
	if o.method == "notifications/cancelled" && IsModern(t.protocolVersion()) {
		// The modern era cancels over HTTP by closing the response stream,
		// which the request's context has done; it defines no notification.
		return nil
	}
	resp, err := t.post(ctx, msg, o)
	if err != nil {
		return err
	}
	drain(resp)
	if o.method == "notifications/initialized" {
		t.openGetStream()
	}
	return nil
}

// defaultPostIdle is how long the goroutine that ran a request's exchange
// waits for the next request before it ends.
const defaultPostIdle = time.Second

// goRequest runs a request's exchange (request) on a goroutine that ran
// another and is waiting for the next, else on a new one. A new goroutine
// grows its stack through net/http's client each time: a reused one has
// grown it, which saves a load run a tenth of its CPU time. It reports
// false, running nothing, once the transport is closed.
func (t *HTTPTransport) goRequest(exchange func()) bool {
	if t.ctx.Err() != nil {
		return false // closed: a reader still waiting must not take it
	}
	select {
	case t.free <- exchange:
		return true
	default:
	}
	// A stream goroutine is counted under mu, where Close marks the
	// transport closed before it waits for them: none is counted while
	// Close waits (a WaitGroup's Add must not race its Wait), and none
	// starts that Close would not wait for.
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.streams.Go(func() { // POST answer reader: runs exchanges until none comes for postIdle, or the transport closes
		idle := time.NewTimer(t.postIdle)
		defer idle.Stop()
		for {
			exchange()
			idle.Reset(t.postIdle)
			select {
			case exchange = <-t.free:
			case <-idle.C:
				return
			case <-t.ctx.Done():
				return
			}
		}
	})
	return true
}

// ConcurrentWrites tells the session that messages need not wait for each
// other: each is its own POST.
func (t *HTTPTransport) ConcurrentWrites() bool { return true }

func (t *HTTPTransport) protocolVersion() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.version
}

// SetProtocolVersion records the negotiated version, sent as
// MCP-Protocol-Version on every later request.
func (t *HTTPTransport) SetProtocolVersion(v string) {
	t.mu.Lock()
	t.version = v
	t.mu.Unlock()
}

func (t *HTTPTransport) isLegacy() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.legacy
}

// SessionID is the server's session id (Mcp-Session-Id), once it has one.
func (t *HTTPTransport) SessionID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessionID
}

// Keep makes Close leave the server's session open, for a later run to
// resume with HTTPOptions.SessionID.
func (t *HTTPTransport) Keep() {
	t.mu.Lock()
	t.keep = true
	t.mu.Unlock()
}

// deleteSession ends the server's session sid at endpoint with a DELETE,
// bounded by deleteTimeout.
func (t *HTTPTransport) deleteSession(ctx context.Context, endpoint *url.URL, sid, version string) {
	ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	if req, err := http.NewRequestWithContext(ctx, http.MethodDelete, endpoint.String(), nil); err == nil {
		t.setHeaders(req, sid, version)
		if resp, err := t.do(req); err == nil {
			drain(resp) // 405 means the server keeps sessions itself: fine
		}
	}
}

// errTransportClosed is what a request written after Close gets.
var errTransportClosed = &TransportError{Op: "connection closed"}

// Close ends the session: waits briefly for requests still being answered,
// DELETEs the session (unless kept), and ends every stream.
func (t *HTTPTransport) Close(ctx context.Context) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	endpoint, sid, version := t.endpoint, t.sessionID, t.version
	keep := t.keep
	t.mu.Unlock()
	if sid != "" && !keep && ctx.Err() == nil {
		t.deleteSession(ctx, endpoint, sid, version)
	}
	t.cancel()
	done := make(chan struct{})
	go func() { t.streams.Wait(); close(done) }() // stream drain waiter: ends when every stream has seen the cancel
	select {
	case <-done:
	case <-time.After(closeDrainWait):
	}
	t.fail(errTransportClosed)
	if t.own {
		t.client.CloseIdleConnections()
	}
	return nil
}
