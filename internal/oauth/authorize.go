package oauth

// The front channel of the authorization code flow for a native app
// (RFC 8252): the user's browser visits the authorization endpoint, and the
// authorization server redirects it to a one-shot HTTP server on the
// loopback interface, which reads the code.
//
// Concurrency: Authorize runs the server on its own goroutine, and the
// server runs one goroutine per connection. Authorize stops them all on
// every return path with srv.Close, which closes the listener and every
// connection, and it waits for Serve to return. The first callback that
// decides the outcome wins: it flips callbackHandler.done, writes and
// flushes the whole page to the browser, and only then sends on the
// 1-buffered result channel, so closing right after loses no page. Later
// callbacks get a page saying the answer is in. A handler still running
// after Close only writes to its closed connection; it never blocks.

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// AuthorizeRequest is what Authorize needs.
type AuthorizeRequest struct {
	Metadata    *ServerMetadata
	Client      *Client
	Scope       string // space-separated; omitted when empty
	Resource    string // RFC 8707 resource indicator; omitted when empty
	Listener    net.Listener
	RedirectURI string // the one Listener answers at, as registered
	// Open shows the URL to the user, typically in a browser. It runs on
	// Authorize's goroutine and should return promptly; its failure is
	// logged as a warning and the wait goes on. Nil means only log the URL.
	Open func(url string) error
	Log  *slog.Logger // what the user must see (the URL); nil discards it
	// Timeout bounds the wait for the browser's answer; 0 leaves it to ctx.
	Timeout time.Duration
	// Waiting, when set, is called as the wait for the user begins, and
	// the function it returns as it ends: the caller stops the clocks that
	// should not count the user's time.
	Waiting func() (done func())
}

// Authorize runs the front channel of the authorization code flow with PKCE
// (RFC 6749 §4.1, RFC 7636) and returns the code and the verifier to redeem
// it with (ExchangeCode). It closes r.Listener before it returns, also when
// ctx ends first. The verifier is never printed or logged.
func Authorize(ctx context.Context, r AuthorizeRequest) (code, verifier string, err error) {
	if r.Listener == nil || r.RedirectURI == "" {
		return "", "", stepErrorf(StepAuthorization, "no loopback listener for the redirect")
	}
	defer r.Listener.Close()
	if r.Metadata == nil || r.Metadata.AuthorizationEndpoint == "" {
		return "", "", stepErrorf(StepAuthorization, "the authorization server has no authorization endpoint")
	}
	if r.Client == nil || r.Client.ID == "" {
		return "", "", stepErrorf(StepAuthorization, "no client ID")
	}
	redirect, err := url.Parse(r.RedirectURI)
	if err != nil {
		return "", "", stepErrorf(StepAuthorization, "bad redirect URI: %w", err)
	}
	logger := cmp.Or(r.Log, slog.New(slog.DiscardHandler))

	// RFC 7636 §4.1: a fresh verifier per request; RFC 6749 §10.12 and
	// OAuth 2.1 §7.5.1: state binds the answer to this request.
	verifier, err = NewVerifier()
	state, stateErr := NewState()
	if err := cmp.Or(err, stateErr); err != nil {
		return "", "", &Error{Step: StepAuthorization, Err: err}
	}
	authURL, err := authorizationURL(r, state, S256(verifier))
	if err != nil {
		return "", "", err
	}

	if err := context.Cause(ctx); err != nil {
		return "", "", stepErrorf(StepAuthorization, "no answer came from the browser: %w", err)
	}
	h := newCallbackHandler(redirect, state, r.Metadata)
	if r.Waiting != nil {
		defer r.Waiting()()
	}
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, r.Timeout, &LoginTimeoutError{Timeout: r.Timeout})
		defer cancel()
	}
	code, err = awaitCode(ctx, r.Listener, h, h, nil, func() {
		logger.Info("to authorize, open this URL in a browser: " + authURL)
		if r.Open != nil {
			if err := r.Open(authURL); err != nil {
				logger.Warn(fmt.Sprintf("could not open a browser: %v", err))
			}
		}
	})
	if err != nil {
		return "", "", err
	}
	return code, verifier, nil
}

// awaitCode serves ln with handler, whose redirect cb reads, and waits for
// the code of the decisive callback: until the server stops, superseded
// is closed (nil: never) or ctx ends. serving, when set, runs once the
// server is started.
func awaitCode(ctx context.Context, ln net.Listener, handler http.Handler, cb *callbackHandler, superseded <-chan struct{}, serving func()) (string, error) {
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0), // nothing goes to the process's stderr behind the caller's back
	}
	serveDone := make(chan struct{}) // closed when Serve has returned
	var serveErr error               // Serve's error; read only after serveDone is closed
	// The OAuth loopback server, or the login keeper's loopback server:
	// stopped by srv.Close in the deferred function below, which runs on
	// every return path and waits for it. Close, not Shutdown: a
	// browser's idle speculative connection would hold Shutdown up, and
	// the decisive page has been flushed already.
	go func() {
		serveErr = srv.Serve(ln)
		close(serveDone)
	}()
	defer func() {
		srv.Close()
		<-serveDone
	}()
	if serving != nil {
		serving()
	}
	select {
	case res := <-cb.result:
		return res.code, res.err
	case <-serveDone:
		return "", stepErrorf(StepAuthorization, "the loopback server for the redirect stopped: %w", serveErr)
	case <-superseded:
		return "", ErrSuperseded
	case <-ctx.Done():
		if cause := context.Cause(ctx); errors.As(cause, new(*LoginTimeoutError)) {
			return "", &Error{Step: StepAuthorization, Err: cause}
		}
		return "", stepErrorf(StepAuthorization, "no answer came from the browser: %w", context.Cause(ctx))
	}
}

// authorizationURL is the authorization request (RFC 6749 §4.1.1): the
// endpoint's own query is kept (§3.1), ours is added.
func authorizationURL(r AuthorizeRequest, state, challenge string) (string, error) {
	u, err := url.Parse(r.Metadata.AuthorizationEndpoint)
	if err != nil {
		return "", stepErrorf(StepAuthorization, "bad authorization endpoint: %w", err)
	}
	q := u.Query()
	q.Set("response_type", "code")
	q.Set("client_id", r.Client.ID)
	q.Set("redirect_uri", r.RedirectURI)
	q.Set("state", state)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256") // RFC 7636 §4.3; MCP requires S256
	setParamsIfSet(q, "resource", r.Resource, "scope", r.Scope)
	u.RawQuery = q.Encode()
	u.Fragment, u.RawFragment = "", "" // §3.1: the endpoint has none
	return u.String(), nil
}

// callbackResult is the outcome of the decisive callback.
type callbackResult struct {
	code string
	err  error
}

// callbackHandler serves the redirect (RFC 6749 §4.1.2). Only a callback
// that carries this request's state decides the outcome: anything else that
// reaches the port (another local process can) gets an error page and the
// wait goes on.
type callbackHandler struct {
	path, host  string // of the redirect URI
	state       string // ours, compared in constant time
	issuer      string // the authorization server this request went to (RFC 9207)
	issRequired bool   // its metadata says its responses carry iss

	done   atomic.Bool         // set by the first decisive callback
	result chan callbackResult // 1-buffered; only the callback that set done sends
}

// newCallbackHandler serves the redirect to redirect of a request with
// state to md's authorization server.
func newCallbackHandler(redirect *url.URL, state string, md *ServerMetadata) *callbackHandler {
	return &callbackHandler{path: cmp.Or(redirect.Path, "/"), host: redirect.Host, state: state, issuer: md.Issuer,
		issRequired: md.AuthorizationResponseIssParameterSupported, result: make(chan callbackResult, 1)}
}

func (h *callbackHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Bound to 127.0.0.1 already; the checks also turn away a page that
	// reaches the port under another name (DNS rebinding).
	if !remoteIsLoopback(r.RemoteAddr) || !strings.EqualFold(r.Host, h.host) {
		writeCallbackPage(w, http.StatusForbidden, "forbidden")
		return
	}
	if r.Method != http.MethodGet || r.URL.Path != h.path {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	// RFC 6749 §10.12: a state that is not ours means the answer belongs to
	// another request, perhaps an attacker's; it decides nothing, error
	// responses included, and its text is not shown.
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(h.state)) != 1 {
		writeCallbackPage(w, http.StatusBadRequest, "this answer is not for mcpv's request; mcpv goes on waiting for its own")
		return
	}
	if !h.done.CompareAndSwap(false, true) {
		writeCallbackPage(w, http.StatusConflict, "mcpv has already received an answer; you can close this tab")
		return
	}
	res := h.judge(q)
	if res.err != nil {
		reason := strings.TrimPrefix(res.err.Error(), "oauth "+StepAuthorization+": ")
		writeCallbackPage(w, http.StatusBadRequest, "mcpv is not authorized: "+reason)
	} else {
		writeCallbackPage(w, http.StatusOK, "mcpv is authorized; you can close this tab")
	}
	h.result <- res
}

// judge reads the authorization response (RFC 6749 §4.1.2) or error
// response (§4.1.2.1) that carries our state.
func (h *callbackHandler) judge(q url.Values) callbackResult {
	// RFC 9207 §2.4: the issuer, when the response has one, must be exactly
	// the one the request went to, and a server that says it sends one must
	// have; otherwise the response, error or not, is rejected unread (a
	// mix-up attack would write the error too).
	iss, hasIss := q["iss"]
	switch {
	case hasIss && (len(iss) != 1 || iss[0] != h.issuer):
		return callbackResult{err: stepErrorf(StepAuthorization, "the authorization response comes from issuer %s, not %s; possible mix-up attack",
			messageSafe(strings.Join(iss, ", ")), messageSafe(h.issuer))}
	case !hasIss && h.issRequired:
		return callbackResult{err: stepErrorf(StepAuthorization, "the authorization response has no iss, though %s says its responses carry one (RFC 9207); possible mix-up attack",
			messageSafe(h.issuer))}
	}
	if e := q.Get("error"); e != "" {
		return callbackResult{err: &Error{Step: StepAuthorization,
			Code: messageSafeText(e), Description: messageSafeText(q.Get("error_description"))}}
	}
	code := q.Get("code")
	if code == "" {
		return callbackResult{err: stepErrorf(StepAuthorization, "the authorization server's answer carries no code")}
	}
	return callbackResult{code: code}
}

func remoteIsLoopback(remoteAddr string) bool {
	ap, err := netip.ParseAddrPort(remoteAddr)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// writeCallbackPage answers the browser with a one-line page and flushes it
// whole (its length is declared) to the connection. The page links nowhere
// and is not cached; the code in its URL goes no further.
func writeCallbackPage(w http.ResponseWriter, status int, msg string) {
	page := "<!doctype html>\n<meta charset=\"utf-8\">\n<title>mcpv</title>\n<p>" + html.EscapeString(msg) + "</p>\n"
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(page)))
	hd.Set("Cache-Control", "no-store")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Connection", "close")
	w.WriteHeader(status)
	io.WriteString(w, page)
	http.NewResponseController(w).Flush() // a failure means the browser is gone
}
