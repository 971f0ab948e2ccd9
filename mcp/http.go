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
//     Last-Event-ID after the server's retry delay, a bounded number of times.
//   - A 404 to a POST that carried a session id means the session expired: the
//     transport replays the initialize it saw, once, and repeats the POST.
//   - Close DELETEs the session (bounded), then ends every stream.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/redact"
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
	// redirects within the server's origin only.
	Client *http.Client
	// Header is added to every request (-H).
	Header http.Header
	// Mode is ModeAuto (""), ModeStreamable or ModeSSE.
	Mode string
	// Log receives notices (a session started again); nil discards them.
	Log *slog.Logger
	// Trace, when set, sees one line per HTTP exchange, secrets masked.
	Trace func(line string)
	// MaxResumes bounds reconnections of one stream; 0 means DefaultMaxResumes.
	MaxResumes int
	// SessionID resumes a session an earlier run opened and kept (Keep),
	// at the ProtocolVersion it negotiated: nothing is initialized again.
	SessionID, ProtocolVersion string
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
	ctx      context.Context // ends when the transport closes
	cancel   context.CancelFunc
	incoming chan inbound // messages and per-request errors for Read
	large    *largeGate   // held by the one large message being read (largegate.go)
	// lastLarge: the message Read returned last holds large, which the
	// next Read frees. Read's goroutine alone uses it.
	lastLarge bool
	failed    chan struct{} // closed on a fatal error (fatal is set first)
	fatal     error
	streams   sync.WaitGroup // goroutines reading POST answers and the GET stream

	reinitMu   sync.Mutex // held while a new session is being started
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
	// for the first, for headersGrace after the second at most, and until
	// getDeadline at most.
	getOpened    <-chan struct{}
	getSent      <-chan struct{}
	getDeadline  time.Time
	headersGrace time.Duration
	closed       bool
	keep         bool // Close leaves the session open: no DELETE
	failOnce     sync.Once
}

type inbound struct {
	data  []byte
	err   error
	large bool // data holds the transport's large gate
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
	if opts.Mode == "" {
		opts.Mode = ModeAuto
	}
	opts.Log = orDiscard(opts.Log)
	if opts.MaxResumes <= 0 {
		opts.MaxResumes = DefaultMaxResumes
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{CheckRedirect: sameOrigin}
	}
	ctx, cancel := context.WithCancel(context.Background())
	large := newLargeGate()
	large.limit = opts.MaxMessage
	return &HTTPTransport{
		opts:     opts,
		url:      u,
		client:   client,
		ctx:      ctx,
		cancel:   cancel,
		incoming: make(chan inbound, 64),
		large:    large,
		failed:   make(chan struct{}),
		endpoint: u,

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
	t.lastLarge = in.large
	return in.data, in.err
}

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
	method string
	id     json.RawMessage // nil for notifications
	isResp bool            // a response to a server request
}

// classify reads a message mcpv encoded itself (valid by construction,
// its id before its method): the walk stops at the method, before params
// that may be large.
func classify(msg []byte) outgoing {
	var o outgoing
	rawjson.ForEachValidMember(msg, func(k string, v []byte) error {
		switch k {
		case "method":
			json.Unmarshal(v, &o.method)
			return errClassified
		case "id":
			o.id = v
		}
		return nil
	})
	o.isResp = o.method == "" && o.id != nil
	return o
}

// errClassified stops classify's walk.
var errClassified = errors.New("classified")

// Write sends one message. Requests are answered asynchronously; see the
// design note at the top of this file.
func (t *HTTPTransport) Write(ctx context.Context, msg []byte) error {
	o := classify(msg)
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
	if o.id != nil && !o.isResp {
		if !asksWhatItHas(o.method) {
			t.awaitGetStream(ctx)
		}
		t.streams.Go(func() { // ends with the request's answer, its ctx or the transport
			t.request(ctx, o, msg)
		})
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

// request POSTs a request and hands its answer to the session.
func (t *HTTPTransport) request(ctx context.Context, o outgoing, msg []byte) {
	ctx, stop := t.bind(ctx)
	defer stop()
	if IsModern(t.protocolVersion()) {
		err := t.reissue(ctx, o, msg)
		var ae *AuthError
		switch {
		case err == nil, ctx.Err() != nil:
		case errors.As(err, &ae):
			t.fail(err)
		default:
			t.push(inbound{err: &RequestError{ID: o.id, Err: err}})
		}
		return
	}
	resp, err := t.post(ctx, msg, o)
	if err != nil {
		if ctx.Err() != nil {
			return // the caller gave up; the session knows
		}
		var ae *AuthError
		if errors.As(err, &ae) {
			t.fail(err)
			return
		}
		t.push(inbound{err: &RequestError{ID: o.id, Err: err}})
		return
	}
	defer resp.Body.Close()
	if err := t.readAnswer(ctx, resp, o); err != nil && ctx.Err() == nil {
		t.push(inbound{err: &RequestError{ID: o.id, Err: err}})
	}
}

// bind returns the context of a request's HTTP exchanges: it ends with
// ctx (a legacy POST legacyLetGo after it) or with the transport, until
// the response is handed over (detach, just before the session has it),
// and then with the transport alone, so that the rest of the answer's
// stream can be read (finish) after the caller has its response and is
// gone. stop ends it.
func (t *HTTPTransport) bind(ctx context.Context) (context.Context, func()) {
	rctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx)) // ctx's values (x-mcp-header), not its end
	unwatch := context.AfterFunc(ctx, func() {
		if !t.isLegacy() {
			cancel(context.Cause(ctx))
			return
		}
		// A legacy server answers on its event stream, often before the
		// POST's own 202, and the caller, answered, ends ctx while the POST
		// still waits. net/http puts a connection whose response has no
		// body back in its pool before the POST returns, so a cancel then
		// breaks the request that took the connection next ("context
		// canceled"). The POST carries no answer: it is let go a while
		// later, so that one the server never answers is not kept, with
		// its connection, for as long as the transport.
		time.AfterFunc(legacyLetGo, func() { cancel(context.Cause(ctx)) })
	})
	stopClose := context.AfterFunc(t.ctx, func() { cancel(context.Canceled) })
	return context.WithValue(rctx, detachKey{}, unwatch), func() { unwatch(); stopClose(); cancel(nil) }
}

type detachKey struct{}

// detach says that the response of the request ctx was bound for (bind)
// is being handed over: the caller's end, which may come as soon as the
// session has it, no longer ends its exchanges.
func detach(ctx context.Context) {
	if unwatch, ok := ctx.Value(detachKey{}).(func() bool); ok {
		unwatch()
	}
}

// post sends msg and returns a successful response (2xx), handling the legacy
// fallback and the expired-session replay. Other statuses become errors.
func (t *HTTPTransport) post(ctx context.Context, msg []byte, o outgoing) (*http.Response, error) {
	resp, sid, err := t.send(ctx, msg)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && sid != "":
		drain(resp)
		if err := t.reinitialize(ctx, sid); err != nil {
			return nil, err
		}
		if resp, _, err = t.send(ctx, msg); err != nil {
			return nil, err
		}
	case o.method == "initialize" && t.opts.Mode == ModeAuto && !t.isLegacy() &&
		(resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed):
		// Perhaps a 2024-11-05 server: try its GET stream (transports,
		// "Backwards Compatibility"). A
		// JSON-RPC error in the body is the server's answer, though.
		status := resp.Status
		body, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
		drain(resp)
		if rerr := rpcErrorIn(body); rerr != nil {
			return nil, &CallError{Method: o.method, Err: rerr}
		}
		if lerr := t.startLegacy(ctx); lerr != nil {
			var ae *AuthError
			if errors.As(lerr, &ae) {
				return nil, lerr
			}
			return nil, &TransportError{Op: "POST " + displayURL(t.url), Err: fmt.Errorf("%s; as a legacy SSE server: %w", safetext.Line(status), lerr)}
		}
		if resp, _, err = t.send(ctx, msg); err != nil {
			return nil, err
		}
	}
	if err := statusError(resp, o); err != nil {
		return nil, err
	}
	return resp, nil
}

// ErrNotLegacy is a server reached as a legacy HTTP+SSE server that
// speaks Streamable HTTP.
var ErrNotLegacy = errors.New("a Streamable HTTP server, not a legacy HTTP+SSE one")

// notLegacy is the error of a legacy SSE connection that failed with err:
// when the URL answers msg (initialize) as a Streamable HTTP server would,
// the error says that it is one. The session the probe opened is ended.
func (t *HTTPTransport) notLegacy(ctx context.Context, msg []byte, err error) error {
	var ae *AuthError
	if errors.As(err, &ae) || ctx.Err() != nil {
		return err
	}
	resp, _, perr := t.send(ctx, msg)
	if perr != nil {
		return err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	streamable := resp.StatusCode/100 == 2 && (mt == "application/json" || mt == "text/event-stream")
	resp.Body.Close() // an event stream may not end: not drained
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		dctx, cancel := context.WithTimeout(ctx, deleteTimeout)
		defer cancel()
		if req, rerr := http.NewRequestWithContext(dctx, http.MethodDelete, t.url.String(), nil); rerr == nil {
			t.setHeaders(req, sid, "")
			if resp, derr := t.do(req); derr == nil {
				drain(resp)
			}
		}
	}
	if !streamable {
		return err
	}
	return &TransportError{Op: "legacy SSE", Err: fmt.Errorf("%s is %w (its GET: %v)", displayURL(t.url), ErrNotLegacy, unwrapTransport(err))}
}

// unwrapTransport is the cause inside a *TransportError, for quoting it
// within another.
func unwrapTransport(err error) error {
	var te *TransportError
	if errors.As(err, &te) && te.Err != nil {
		return te.Err
	}
	return err
}

// send POSTs msg once with the current session headers; it returns the
// session id it sent.
func (t *HTTPTransport) send(ctx context.Context, msg []byte) (*http.Response, string, error) {
	t.mu.Lock()
	endpoint, sid, version := t.endpoint, t.sessionID, t.version
	t.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.String(), bytes.NewReader(msg))
	if err != nil {
		return nil, "", &TransportError{Op: "POST", Err: err}
	}
	t.setHeaders(req, sid, version)
	if IsModern(version) {
		setStandardHeaders(req.Header, msg)
		if headers := ParamHeadersFrom(ctx); headers != nil && classify(msg).method == "tools/call" {
			setParamHeaders(req.Header, headers, msg)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := t.do(req)
	return resp, sid, err
}

// setStandardHeaders sets the modern era's request headers
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports):
// Mcp-Method, and Mcp-Name for the methods that name a tool, prompt or
// resource, so that a gateway can route without reading the body.
// The message is walked, not decoded: a tools/call may carry megabytes of
// arguments, and only a short string or two is needed.
func setStandardHeaders(h http.Header, msg []byte) {
	method, _ := rawjson.String(rawjson.Member(msg, "method"))
	if method == "" {
		return
	}
	h.Set("Mcp-Method", headerValue(method))
	name := ""
	switch method {
	case "tools/call", "prompts/get":
		name = "name"
	case "resources/read":
		name = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		name = "taskId"
	default:
		return
	}
	v, _ := rawjson.String(rawjson.Member(rawjson.Member(msg, "params"), name))
	h.Set("Mcp-Name", headerValue(v))
}

// headerValue writes s as a header value: as it is when it is printable
// ASCII without leading or trailing blanks, else as =?base64?...?= (as is a
// value that already looks like one, so that it cannot be misread).
func headerValue(s string) string {
	plain := !strings.HasPrefix(s, " ") && !strings.HasPrefix(s, "\t") &&
		!strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\t") &&
		!(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

func (t *HTTPTransport) setHeaders(req *http.Request, sid, version string) {
	for k, vs := range t.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
}

// do sends req, tracing it with secrets masked.
func (t *HTTPTransport) do(req *http.Request) (*http.Response, error) {
	resp, err := t.client.Do(req)
	if t.opts.Trace != nil {
		if err != nil {
			// Not err itself: a *url.Error quotes the whole URL, query included.
			t.opts.Trace(fmt.Sprintf("%s %s %s -> %v", req.Method, displayURL(req.URL), maskedHeaders(req.Header), unwrapURLError(err)))
		} else {
			t.opts.Trace(fmt.Sprintf("%s %s %s -> %s %s", req.Method, displayURL(req.URL), maskedHeaders(req.Header), resp.Status, maskedHeaders(resp.Header)))
		}
	}
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, context.Cause(req.Context())
		}
		return nil, &TransportError{Op: req.Method + " " + displayURL(req.URL), Err: unwrapURLError(err)}
	}
	return resp, nil
}

// sameOrigin follows redirects only within the origin of the first request:
// Header and the session id must not reach another host.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if first := via[0].URL; req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return fmt.Errorf("refusing to follow a redirect to another origin (%s://%s)", req.URL.Scheme, req.URL.Host)
	}
	return nil
}

// displayURL shows a URL in messages and traces without its query (which may
// carry a session id) or password.
func displayURL(u *url.URL) string {
	c := *u
	c.RawQuery, c.ForceQuery, c.User = "", false, nil
	return c.String()
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// sentCredentials reports whether a request carried credentials: an
// Authorization header, or a header of the user's whose name marks a
// secret (an API key, a token). The protocol's own Mcp-* headers (a
// session id among them) are none.
func sentCredentials(h http.Header) bool {
	for name := range h {
		if strings.EqualFold(name, "Authorization") || redact.Name(name) && !strings.HasPrefix(strings.ToLower(name), "mcp-") {
			return true
		}
	}
	return false
}

// oddAnswer marks an HTTP answer that came from the server but holds no
// JSON-RPC response to the request: to the era probe, the answer of a
// server that is not a modern one.
type oddAnswer struct{ error }

func (o oddAnswer) Unwrap() error { return o.error }

// statusError turns a non-2xx answer into an error: *AuthError for 401 and
// a 403 about credentials, a JSON-RPC error body passed through as such,
// else a *TransportError.
func statusError(resp *http.Response, o outgoing) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	defer drain(resp)
	body, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
	challenge := resp.Header.Values("Www-Authenticate")
	detail := bodySummary(body, resp.Header.Get("Content-Type"))
	// A 403 is about authorization when the server asks for credentials or
	// refuses the ones sent. Without either it refuses for reasons of its
	// own (a Host or origin check, a forbidden path), which its body says.
	if resp.StatusCode == http.StatusUnauthorized ||
		resp.StatusCode == http.StatusForbidden && (len(challenge) > 0 || sentCredentials(resp.Request.Header)) {
		return &AuthError{Status: resp.StatusCode, Challenge: challenge, URL: displayURL(resp.Request.URL), Reason: detail}
	}
	what := resp.Request.Method
	if rerr := rpcErrorIn(body); rerr != nil {
		method := o.method
		if method == "" {
			method = what
		}
		return &CallError{Method: method, Err: rerr}
	}
	if detail != "" {
		detail = ": " + detail
	}
	return &TransportError{Op: what, Err: &StatusError{Status: resp.StatusCode, Text: resp.Status, URL: displayURL(resp.Request.URL), Detail: detail}}
}

// bodySummary is the start of an error answer's body on one line, with what
// a terminal would act on shown escaped (internal/safetext). An HTML page
// (a proxy's or a framework's error page) is named by its title rather
// than pasted.
func bodySummary(body []byte, contentType string) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	start := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 512)]))
	if mt == "text/html" || mt == "application/xhtml+xml" || bytes.HasPrefix(start, []byte("<!doctype html")) || bytes.HasPrefix(start, []byte("<html")) {
		if title := htmlTitle(body); title != "" {
			return fmt.Sprintf("an HTML page titled %q", title)
		}
		return "an HTML page"
	}
	return safetext.Line(string(clip([]byte(strings.Join(strings.Fields(string(body)), " ")), 300)))
}

// htmlTitle is the text of a page's <title> element, on one line, or "".
func htmlTitle(page []byte) string {
	// Lower ASCII letters only: offsets in lower must be offsets in page,
	// and bytes.ToLower changes lengths (an invalid byte becomes U+FFFD).
	lower := make([]byte, len(page))
	for i, c := range page {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	open := bytes.Index(lower, []byte("<title"))
	if open < 0 {
		return ""
	}
	gt := bytes.IndexByte(lower[open:], '>')
	if gt < 0 {
		return ""
	}
	text := page[open+gt+1:]
	end := bytes.Index(lower[open+gt+1:], []byte("</title"))
	if end < 0 {
		return ""
	}
	title := strings.Join(strings.Fields(html.UnescapeString(string(text[:end]))), " ")
	if r := []rune(title); len(r) > 100 {
		title = string(r[:100]) + "…"
	}
	return title
}

// rpcErrorIn returns the JSON-RPC error in an HTTP body, if it holds one.
func rpcErrorIn(body []byte) *RPCError {
	var e struct {
		Error *RPCError `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return nil
	}
	return e.Error
}

// readAnswer reads a request's answer: one JSON body, or an SSE stream that
// is resumed until the response to o.id has come.
func (t *HTTPTransport) readAnswer(ctx context.Context, resp *http.Response, o outgoing) error {
	t.noteSession(resp, o)
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/event-stream":
		return t.followStream(ctx, resp.Body, o.id)
	case "application/json":
		body, large, err := t.readBody(ctx, resp.Body)
		if err != nil {
			return &TransportError{Op: "read answer", Err: err}
		}
		if isResponseTo(body, o.id) {
			t.push(inbound{data: body, large: large})
			return nil
		}
		if large {
			t.large.release()
		}
		if len(bytes.TrimSpace(body)) == 0 {
			return &TransportError{Err: oddAnswer{errors.New("the server answered with an empty body")}}
		}
		if rerr := rpcErrorIn(body); rerr != nil {
			return &CallError{Method: o.method, Err: rerr} // an error it could not tie to our id
		}
		t.push(inbound{data: body}) // notifications, perhaps
		return &TransportError{Err: oddAnswer{fmt.Errorf("the server's answer holds no response to request %s", o.id)}}
	default:
		if t.isLegacy() {
			return nil // the answer comes on the SSE stream
		}
		return &TransportError{Err: oddAnswer{fmt.Errorf("unexpected answer: HTTP %s, Content-Type %q", safetext.Line(resp.Status), safetext.Line(resp.Header.Get("Content-Type")))}}
	}
}

// noteSession takes the session id from initialize's answer (transports,
// "Session Management").
func (t *HTTPTransport) noteSession(resp *http.Response, o outgoing) {
	if o.method != "initialize" {
		return
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.mu.Lock()
		t.sessionID = sid
		t.mu.Unlock()
	}
}

func (t *HTTPTransport) isLegacy() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.legacy
}

// drain discards the rest of a body so the connection can be reused.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
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
		dctx, cancel := context.WithTimeout(ctx, deleteTimeout)
		req, err := http.NewRequestWithContext(dctx, http.MethodDelete, endpoint.String(), nil)
		if err == nil {
			t.setHeaders(req, sid, version)
			if resp, err := t.do(req); err == nil {
				drain(resp) // 405 means the server keeps sessions itself: fine
			}
		}
		cancel()
	}
	t.cancel()
	done := make(chan struct{})
	go func() { t.streams.Wait(); close(done) }() // ends when every stream has seen the cancel
	select {
	case <-done:
	case <-time.After(closeDrainWait):
	}
	t.fail(&TransportError{Op: "connection closed"})
	return nil
}
