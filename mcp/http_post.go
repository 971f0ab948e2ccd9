package mcp

// The POST path of the HTTP transport: each message POSTed, its headers,
// the answer read (a JSON body, or an SSE stream followed in http_stream.go),
// and the session id noted.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
)

// request POSTs a request and hands its answer to the session.
func (t *HTTPTransport) request(ctx context.Context, o outgoing, msg []byte) {
	ctx, stop := t.bind(ctx)
	defer stop()
	err := t.exchange(ctx, o, msg)
	switch {
	case err == nil, ctx.Err() != nil: // answered, or the caller gave up: the session knows
	case errors.As(err, new(*AuthError)):
		t.fail(err)
	default:
		t.push(inbound{err: &RequestError{ID: o.id, Err: err}})
	}
}

// exchange POSTs a request and reads its answer. A lost answer
// (resend.go) to a request that changes nothing is asked for again in the
// modern era, which resumes no stream (but after a balancer's 502 or 504,
// which it would answer again): sent again under a new id, after the
// retry delay, up to MaxResumes times, its response handed over under the
// session's id. Any other lost answer is a *LostError, in either era.
func (t *HTTPTransport) exchange(ctx context.Context, o outgoing, msg []byte) error {
	wire := o.id
	for attempt := 1; ; attempt++ {
		resp, err := t.post(ctx, msg, o)
		if err == nil {
			err = t.readAnswer(ctx, resp, o, wire)
			resp.Body.Close()
		}
		var gone *answerLost
		switch {
		case err == nil || ctx.Err() != nil || !errors.As(err, &gone):
			return err
		case !Resendable(o.method) && o.method != "initialize": // a session opened twice does nothing of the user's
			lostBy := gone.error
			if ce := (*CallError)(nil); errors.As(lostBy, &ce) {
				// A balancer's own JSON-RPC error, in its 502: what was
				// lost is the server's answer, on the way.
				lostBy = &TransportError{Op: "POST " + displayURL(t.url), Err: ce.Err}
			}
			return &LostError{Method: o.method, Err: lostBy}
		case !Resendable(o.method), gone.answered, !IsModern(t.protocolVersion()):
			return gone.error
		case attempt > t.opts.MaxResumes:
			return &TransportError{Err: fmt.Errorf("its answer was lost %d times, and it was sent again each time; the last: %w", attempt, gone.error)}
		}
		if !sleep(ctx, retryDelay(gone.retry, attempt)) {
			return ctx.Err()
		}
		wire = mustJSON(fmt.Sprintf("%s-again-%d", bytes.Trim(o.id, `"`), attempt))
		msg = withID(msg, wire)
	}
}

// bind returns the context of a request's HTTP exchanges: it ends with
// ctx (a legacy POST legacyLetGo after it) or with the transport, until
// the response is handed over (detach, just before the session has it),
// and then with the transport alone, so that the rest of the answer's
// stream can be read (finishWithin) after the caller has its response and is
// gone. stop ends it.
func (t *HTTPTransport) bind(ctx context.Context) (context.Context, func()) {
	b := &boundCtx{Context: t.ctx, values: ctx} // ctx's values (x-mcp-header), not its end
	rctx, cancel := context.WithCancelCause(b)
	b.unwatch = context.AfterFunc(ctx, func() {
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
	return rctx, func() { b.unwatch(); cancel(nil) }
}

// boundCtx is the parent of a request's exchanges (bind): the
// transport's context, which ends them when it ends, with the values of
// the request's context, and detach's.
type boundCtx struct {
	context.Context                 // the transport's
	values          context.Context // the request's
	unwatch         func() bool     // stops the request's end from ending the exchanges
}

func (b *boundCtx) Value(key any) any {
	if _, ok := key.(detachKey); ok {
		return b.unwatch
	}
	// The transport's context first: context finds through it that its
	// children end with it, and registers them there, with no goroutine.
	if v := b.Context.Value(key); v != nil {
		return v
	}
	return b.values.Value(key)
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
	resp, sid, err := t.send(ctx, msg, o.streamed)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && sid != "":
		drain(resp)
		if err := t.reinitialize(ctx, sid); err != nil {
			return nil, err
		}
		if resp, _, err = t.send(ctx, msg, o.streamed); err != nil {
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
			if errors.As(lerr, new(*AuthError)) {
				return nil, lerr
			}
			return nil, &TransportError{Op: "POST " + displayURL(t.url), Err: fmt.Errorf("%s; as a legacy SSE server: %w", safetext.Line(status), lerr)}
		}
		if resp, _, err = t.send(ctx, msg, o.streamed); err != nil {
			return nil, err
		}
	}
	if err := statusError(resp, o); err != nil {
		if resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout {
			// A balancer's or a proxy's: it may have handed the request
			// on, and got no answer.
			return nil, &answerLost{error: err, answered: true}
		}
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
// A transport closed meanwhile has nothing to ask.
func (t *HTTPTransport) notLegacy(ctx context.Context, msg []byte, err error) error {
	if errors.Is(err, errTransportClosed) || errors.As(err, new(*AuthError)) || ctx.Err() != nil {
		return err
	}
	resp, _, perr := t.send(ctx, msg, nil)
	if perr != nil {
		return err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	streamable := resp.StatusCode/100 == 2 && (mt == "application/json" || mt == "text/event-stream")
	resp.Body.Close() // an event stream may not end: not drained
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.deleteSession(ctx, t.url, sid, "")
	}
	if !streamable {
		return err
	}
	if te := (*TransportError)(nil); errors.As(err, &te) && te.Err != nil {
		err = te.Err // its cause, quoted within another
	}
	return &TransportError{Op: "legacy SSE", Err: fmt.Errorf("%s is %w (its GET: %v)", displayURL(t.url), ErrNotLegacy, err)}
}

// send POSTs msg (streaming m, when not nil) once with the current
// session headers; it returns the session id it sent.
func (t *HTTPTransport) send(ctx context.Context, msg []byte, m *streamedMsg) (*http.Response, string, error) {
	t.mu.Lock()
	endpoint, sid, version := t.endpoint, t.sessionID, t.version
	t.mu.Unlock()
	var wrote atomic.Bool // the request was written in full (net/http writes on a goroutine of its own)
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(w httptrace.WroteRequestInfo) {
		wrote.Store(w.Err == nil)
	}})
	req := postRequest(ctx, endpoint, msg, m)
	t.setHeaders(req, sid, version)
	o := classify(msg)
	if IsModern(version) {
		StandardHeaders(req.Header, msg)
		if headers := ParamHeadersFrom(ctx); headers != nil && o.method == "tools/call" {
			SetParamHeaders(req.Header, headers, msg)
		}
	}
	req.Header["Content-Type"] = contentTypeJSON
	req.Header["Accept"] = acceptAnswers
	MarkReplayable(req.Header, o.method, o.id != nil && !IsModern(version)) // the modern era sends a read again under a new id (exchange)
	resp, err := t.do(req)
	// A connection that ended or was reset under a request, not a refusal
	// (a dial's, an authorization layer's): delivered, and then it broke.
	if op := (*net.OpError)(nil); err != nil && wrote.Load() && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &op) && op.Op != "dial") {
		err = lost(err)
	}
	return resp, sid, err
}

// The values of the headers every POST carries, shared: net/http copies a
// request's headers before it changes any, and so does every
// RoundTripper that adds its own (a RoundTripper must not change the
// request it is given).
var (
	contentTypeJSON = []string{"application/json"}
	acceptAnswers   = []string{"application/json, text/event-stream"}
)

// postRequest is http.NewRequestWithContext's POST of msg to endpoint,
// made without writing endpoint as text and parsing it again for each
// request: the URL is shared, and net/http does not change it.
func postRequest(ctx context.Context, endpoint *url.URL, msg []byte, m *streamedMsg) *http.Request {
	req := &http.Request{
		Method:        http.MethodPost,
		URL:           endpoint,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        make(http.Header, 8),
		Body:          io.NopCloser(bytes.NewReader(msg)),
		GetBody:       func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(msg)), nil },
		ContentLength: int64(len(msg)),
		Host:          strings.TrimSuffix(endpoint.Host, ":"), // as NewRequest: no empty port
	}
	if len(msg) == 0 {
		req.Body, req.GetBody = http.NoBody, func() (io.ReadCloser, error) { return http.NoBody, nil }
	}
	if m != nil {
		// Read from its file as net/http writes it: a file cut under it
		// ends the body short of its Content-Length, which fails the
		// request, never sends it as if whole.
		req.Body, req.ContentLength = io.NopCloser(m.reader()), m.size()
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(m.reader()), nil }
	}
	return req.WithContext(ctx)
}

// StandardHeaders sets the modern era's request headers that mirror its
// body, as the HTTP transport sets them
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports):
// Mcp-Method, and Mcp-Name for the methods that name a tool, prompt or
// resource, so that a gateway can route without reading the body.
// The message is walked, not decoded: a tools/call may carry megabytes of
// arguments, and only a short string or two is needed.
func StandardHeaders(h http.Header, msg []byte) {
	method, _ := rawjson.String(rawjson.Member(msg, "method"))
	if method == "" {
		return
	}
	h.Set("Mcp-Method", headerValue(method))
	name, ok := nameHeader.Get()[method]
	if !ok {
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
	if t.agent != nil && req.Header.Get("User-Agent") == "" {
		req.Header["User-Agent"] = t.agent
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
}

// DoAgain is c.Do(req), sent once more on a new connection when the
// server closed the one net/http gave it while it was idle ("http: server
// closed idle connection", which net/http leaves to its caller for a POST
// whose bytes it had begun to write into the closing connection): a
// server that had closed read none of it, so even a call goes again.
func DoAgain(c *http.Client, req *http.Request) (*http.Response, error) {
	resp, err := c.Do(req)
	if ue, ok := errors.AsType[*url.Error](err); err == nil || req.GetBody == nil || !ok || ue.Err.Error() != "http: server closed idle connection" {
		return resp, err
	}
	again := req.Clone(req.Context())
	if again.Body, err = req.GetBody(); err != nil {
		return nil, err
	}
	return c.Do(again)
}

// do sends req, tracing it with secrets masked.
func (t *HTTPTransport) do(req *http.Request) (*http.Response, error) {
	resp, err := DoAgain(t.client, req)
	if t.opts.OnEvent != nil {
		t.opts.OnEvent(httpEvent(req, resp, err))
	}
	if t.opts.Trace != nil {
		if err != nil {
			// Not err itself: a *url.Error quotes the whole URL, query included.
			t.opts.Trace(fmt.Sprintf("%s %s %s -> %v", req.Method, displayURL(req.URL), maskedHeaders(req.Header), unwrap[*url.Error](err)))
		} else {
			t.opts.Trace(fmt.Sprintf("%s %s %s -> %s %s", req.Method, displayURL(req.URL), maskedHeaders(req.Header), resp.Status, maskedHeaders(resp.Header)))
		}
	}
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, context.Cause(req.Context())
		}
		return nil, &TransportError{Op: req.Method + " " + displayURL(req.URL), Err: unwrap[*url.Error](err)}
	}
	return resp, nil
}

// SameOrigin, an http.Client's CheckRedirect, follows redirects only within
// the origin of the first request: headers (-H, Header) and the session id
// must not reach another host.
func SameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if first := via[0].URL; req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return fmt.Errorf("refusing to follow a redirect to another origin (%s://%s)", req.URL.Scheme, req.URL.Host)
	}
	return nil
}

// readAnswer reads a request's answer: one JSON body, or an SSE stream
// that is resumed until the response has come. wire is the id the
// request was sent under; its response reaches the session under o.id.
func (t *HTTPTransport) readAnswer(ctx context.Context, resp *http.Response, o outgoing, wire json.RawMessage) error {
	t.noteSession(resp, o)
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/event-stream":
		return t.followStream(ctx, resp.Body, wire, o.id)
	case "application/json":
		body, large, err := t.readBody(ctx, resp.Body)
		switch {
		case tooLarge(err):
			return &TransportError{Op: "read answer", Err: err}
		case err != nil:
			return lost(&TransportError{Op: "read answer", Err: err})
		case isResponseTo(body, wire):
			if string(wire) != string(o.id) {
				body = answerAs(body, wire, o.id)
			}
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
		return &TransportError{Err: oddAnswer{fmt.Errorf("the server's answer holds no response to request %s", wire)}}
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

// drain discards the rest of a body so the connection can be reused.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
