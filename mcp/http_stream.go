package mcp

// Streams of the HTTP transport: following a request's SSE answer and resuming
// it with GET, and the replay of initialize when the session expired. The
// standalone GET stream and the legacy transport's are in http_get.go.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/redact"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// followStream hands every message of a request's SSE answer to the
// session until the response to id has come, under the session's id as
// (resend.go). A stream that ends before it is resumed with GET and
// Last-Event-ID (a dropped stream is not a cancellation) in the
// initialize era; in the modern era, which resumes none, and when the
// resumption fails, the answer is lost.
func (t *HTTPTransport) followStream(ctx context.Context, body io.ReadCloser, id, as json.RawMessage) error {
	if string(as) == string(id) {
		as = nil
	}
	r := newGatedSSEReader(ctx, body, t.large)
	got, _, err := t.pump(ctx, r, id, as)
	r.done()
	if got {
		t.finish(body)
		return nil
	}
	body.Close()
	if tooLarge(err) {
		return &TransportError{Op: "read answer", Err: err}
	}
	lastID, retry := r.LastID, r.Retry
	if IsModern(t.protocolVersion()) {
		return &answerLost{error: &TransportError{Op: "read answer", Err: errors.New("the response stream ended before the response")}, retry: retry}
	}
	var lastErr error // why the last resumption failed, if it did
	for attempt := 1; attempt <= t.opts.MaxResumes; attempt++ {
		if lastID == "" {
			return lost(&TransportError{Op: "read answer", Err: errors.New("the stream ended before the response, and without an event id it cannot be resumed")})
		}
		if !sleep(ctx, retryDelay(retry, attempt)) {
			return ctx.Err()
		}
		resp, err := t.get(ctx, lastID)
		if err != nil {
			var se *StatusError
			switch {
			case errors.As(err, new(*AuthError)):
				t.fail(err)
				return err
			case ctx.Err() != nil:
				return ctx.Err()
			case errors.As(err, &se) && se.Status < 500,
				errkind.Refused(err):
				// Refused: asking again will not help. Nothing listens
				// any more: the server has died; waiting out the
				// backoff would only hide that.
				return lost(&TransportError{Op: "resume the answer's stream", Err: err})
			}
			lastErr = err
			continue
		}
		r = newGatedSSEReader(ctx, resp.Body, t.large)
		r.LastID, r.Retry = lastID, retry
		got, progressed, err := t.pump(ctx, r, id, as)
		r.done()
		resp.Body.Close()
		if got {
			return nil
		}
		if tooLarge(err) {
			return &TransportError{Op: "read answer", Err: err}
		}
		if progressed {
			attempt = 0
		}
		lastID, retry = r.LastID, r.Retry
		lastErr = nil
	}
	err = fmt.Errorf("the stream ended before the response; gave up after %d reconnections", t.opts.MaxResumes)
	if lastErr != nil {
		err = fmt.Errorf("%w, the last: %w", err, lastErr)
	}
	return lost(&TransportError{Op: "read answer", Err: err})
}

// tooLarge reports whether a stream ended on a message over MaxMessage:
// resuming would only read it again.
func tooLarge(err error) bool {
	return errors.As(err, new(*MessageSizeError))
}

// finish reads what is left of an answer's stream once its response has
// been handed over (the server ends the stream then, as it should), for
// t.endWait at most, and closes it: a body closed before its end closes
// its connection too, and the next request would open another. The
// request's goroutine does it, after the session has the response.
func (t *HTTPTransport) finish(body io.ReadCloser) { finishWithin(body, t.endWait) }

// finishWithin is finish with its wait given.
func finishWithin(body io.ReadCloser, wait time.Duration) {
	cut := time.AfterFunc(wait, func() { body.Close() })
	io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	cut.Stop()
	body.Close()
}

// pump hands the data of each event to the session; it stops at the end of the
// stream or once the response to id has been handed over, under the id
// the session gave it, as, when that is another (resend.go).
func (t *HTTPTransport) pump(ctx context.Context, r *sseReader, id, as json.RawMessage) (got, progressed bool, err error) {
	for {
		ev, err := r.Next()
		if err != nil {
			return false, progressed, err
		}
		progressed = true
		if ev.Type != "" && ev.Type != "message" {
			continue
		}
		response := id != nil && isResponseTo(ev.Data, id)
		data := ev.Data
		if response && as != nil {
			data = withID(data, as)
		}
		if response {
			// Before the session has it: the caller may be gone the moment
			// it does, and its end must not cut the rest of the stream.
			detach(ctx)
		}
		in := inbound{data: data, large: r.take()}
		if !response && id != nil {
			// A server's message on a request's stream relates to it
			// (WithCaller): under the session's id.
			in.related = id
			if as != nil {
				in.related = as
			}
		}
		t.push(in)
		if response {
			return true, true, nil
		}
		if ctx.Err() != nil {
			return false, true, ctx.Err()
		}
	}
}

// isResponseTo reports whether data is (or, in a batch, holds) the response
// to id. It looks without checking: the session checks each message once,
// as it decodes it. For data that is not valid JSON the answer means
// little, and either way the session finds the message unreadable (and
// fails the call whose id it can read in it).
func isResponseTo(data []byte, id json.RawMessage) bool {
	if i := rawjson.SkipSpace(data, 0); i < len(data) && data[i] == '[' {
		found := false
		rawjson.ScanElements(data, func(el []byte) { found = found || rawjson.IsObject(el) && isResponseTo(el, id) })
		return found
	}
	var buf [8]rawjson.Field
	var gotID []byte
	method := false
	for _, f := range rawjson.ScanFields(buf[:0], data) {
		switch {
		case f.KeyIs("id"):
			gotID = f.Value
		case f.KeyIs("method"):
			method = true
		}
	}
	return !method && bytes.Equal(gotID, id)
}

func retryDelay(retry time.Duration, attempt int) time.Duration {
	if retry > 0 {
		return min(retry, maxRetry)
	}
	d := defaultRetry << (attempt - 1)
	if d > maxRetryBackoff || d <= 0 {
		d = maxRetryBackoff
	}
	return d
}

// sleep waits d; it returns false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// get opens an SSE stream with GET, resuming after lastID when set.
func (t *HTTPTransport) get(ctx context.Context, lastID string) (*http.Response, error) {
	t.mu.Lock()
	endpoint, sid, version := t.endpoint, t.sessionID, t.version
	t.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint.String(), nil)
	if err != nil {
		return nil, &TransportError{Op: "GET", Err: err}
	}
	t.setHeaders(req, sid, version)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := t.do(req)
	if err != nil {
		return nil, err
	}
	if err := statusError(resp, outgoing{method: "GET stream"}); err != nil {
		return nil, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		drain(resp)
		return nil, &TransportError{Op: "GET stream", Err: fmt.Errorf("answered with Content-Type %q", resp.Header.Get("Content-Type"))}
	}
	return resp, nil
}

// reinitialize starts a new session after the server answered 404 to a POST
// that carried session id stale (transports, "Session Management"): it
// replays initialize without a
// session id, once per transport, and sends notifications/initialized.
func (t *HTTPTransport) reinitialize(ctx context.Context, stale string) error {
	t.reinitMu.Lock() // others that got a 404 wait here, then find the new session
	defer t.reinitMu.Unlock()
	t.mu.Lock()
	if t.sessionID != stale {
		t.mu.Unlock()
		return nil // another request already started the new session
	}
	if t.initMsg == nil {
		t.mu.Unlock()
		return &TransportError{Op: "POST", Err: fmt.Errorf("the server no longer has session %s (HTTP 404)", stale)}
	}
	if t.reinitDone {
		t.mu.Unlock()
		return &TransportError{Op: "POST", Err: errors.New("the server's session expired (HTTP 404) again")}
	}
	t.reinitDone = true
	t.sessionID = ""
	initMsg, initID := t.initMsg, json.RawMessage(t.initID)
	t.mu.Unlock()
	t.opts.Log.Info("the server's session expired (HTTP 404); starting a new one")

	resp, _, err := t.send(ctx, initMsg)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := statusError(resp, outgoing{method: "initialize"}); err != nil {
		return err
	}
	t.noteSession(resp, outgoing{method: "initialize"})
	limit := int64(reinitLimit)
	if t.large.limit > 0 {
		limit = min(limit, t.large.limit)
	}
	if err := readOwnResponse(resp, initID, limit); err != nil {
		return &TransportError{Op: "initialize (new session)", Err: err}
	}
	note, _ := encodeRequest(nil, "notifications/initialized", nil)
	nresp, _, err := t.send(ctx, note)
	if err != nil {
		return err
	}
	if err := statusError(nresp, outgoing{method: "notifications/initialized"}); err != nil {
		return err
	}
	drain(nresp)
	t.openGetStream() // the old stream ended with the old session
	return nil
}

// reinitLimit bounds the answer to the initialize sent again after a 404,
// which is read, checked and dropped (MaxMessage, when smaller, bounds
// it instead): a server cannot make the transport read it without end.
const reinitLimit = 16 << 20

// readOwnResponse reads the answer to a request the transport made itself
// and checks that it is a success; a message longer than limit is a
// *MessageSizeError, read no further.
func readOwnResponse(resp *http.Response, id json.RawMessage, limit int64) error {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	check := func(data []byte) (bool, error) {
		if !isResponseTo(data, id) {
			return false, nil
		}
		m, err := decodeMessage(data)
		if err != nil {
			return true, err
		}
		if m.Error != nil {
			return true, m.Error
		}
		return true, nil
	}
	if mt == "application/json" {
		body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
		if err != nil {
			return err
		}
		if int64(len(body)) > limit {
			return &MessageSizeError{Limit: limit}
		}
		if ok, err := check(body); !ok && err == nil {
			return errors.New("no response to initialize")
		} else {
			return err
		}
	}
	r := newSSEReader(resp.Body)
	r.lines.limit = limit
	for {
		ev, err := r.Next()
		if tooLarge(err) {
			return err
		}
		if err != nil {
			return errors.New("the stream ended before the response to initialize")
		}
		if ok, err := check(ev.Data); ok {
			return err
		}
	}
}

// maskedHeaders renders headers for --verbose with credentials and session
// ids masked.
func maskedHeaders(h http.Header) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(h)) {
		if i > 0 {
			b.WriteString(", ")
		}
		v := strings.Join(h[k], ", ")
		if redact.Name(k) {
			v = redact.Mask
		}
		b.WriteString(k + ": " + v)
	}
	b.WriteByte('}')
	return b.String()
}

// withID is msg with its id replaced.
func withID(msg, id json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	rawjson.ForEachRawMember(msg, func(k string, rawKey, v []byte) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(rawKey)
		b.WriteByte(':')
		if k == "id" {
			v = id
		}
		b.Write(v)
		return nil
	})
	b.WriteByte('}')
	return b.Bytes()
}
