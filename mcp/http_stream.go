package mcp

// Streams of the HTTP transport: following a request's SSE answer and resuming
// it with GET, and the replay of initialize when the session expired. The
// standalone GET stream and the legacy transport's are in http_get.go.

import (
	"bytes"
	"cmp"
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
// (resend.go). A stream that ends before it is resumed (follow) in the
// initialize era; in the modern era, which resumes none, and when the
// resumption fails, the answer is lost.
func (t *HTTPTransport) followStream(ctx context.Context, body io.ReadCloser, id, as json.RawMessage) error {
	if string(as) == string(id) {
		as = nil
	}
	var open func(string) (io.ReadCloser, error)
	if !IsModern(t.protocolVersion()) {
		open = func(lastID string) (io.ReadCloser, error) {
			resp, err := t.get(ctx, lastID)
			var se *StatusError
			switch {
			case err == nil:
				return resp.Body, nil
			case errors.As(err, new(*AuthError)):
				t.fail(err)
				return nil, &stopResume{err}
			case errors.As(err, &se) && se.Status < 500, errkind.Refused(err):
				// Refused: asking again will not help. Nothing listens
				// any more: the server has died; waiting out the
				// backoff would only hide that.
				return nil, &stopResume{&TransportError{Op: "resume the answer's stream", Err: err}}
			}
			return nil, err
		}
	}
	f := follow{max: t.opts.MaxResumes, open: open, finish: func(body io.ReadCloser) { finishWithin(body, t.endWait) },
		reader: func(body io.Reader) *sseReader { return newGatedSSEReader(ctx, body, t.large) },
		read:   func(r *sseReader) (bool, bool, error) { return t.pump(ctx, r, id, as) }}
	retry, err := f.run(ctx, body)
	var stop *stopResume
	switch {
	case err == nil || ctx.Err() != nil:
		return err
	case tooLarge(err):
		return &TransportError{Op: "read answer", Err: err}
	case errors.As(err, &stop):
		if errors.As(err, new(*AuthError)) {
			return stop.error
		}
		return lost(stop.error)
	case open == nil:
		return &answerLost{error: &TransportError{Op: "read answer", Err: errors.New("the response stream ended before the response")}, retry: retry}
	}
	return lost(&TransportError{Op: "read answer", Err: err})
}

// follow reads one request's event stream across the connections a
// server closes before the stream's end (transports, "Sending Messages
// to the Server": the client "SHOULD then poll the SSE stream by
// attempting to reconnect"; "Resumability and Redelivery"): after the
// delay the server's retry field asked (which the client "MUST
// respect"), within [minRetry, maxRetry], or a backoff when it asked
// none, it opens the stream again after its last event id, until read
// has what it waits for. The HTTP transport and mcpv check (FollowEvents)
// both read a request's stream through it.
type follow struct {
	// max bounds the reconnections in a row that bring no new event (an
	// event a connection replays, under an id an earlier one had, is
	// none).
	max    int
	reader func(io.Reader) *sseReader
	// read reads a connection's events until the one awaited (got) or
	// the end; progressed: it had an event that was not a replay.
	read func(*sseReader) (got, progressed bool, err error)
	// open opens the stream again after lastID (GET with
	// Last-Event-ID); an error it wraps in *stopResume ends the
	// following, another is counted as a reconnection. nil: none.
	open func(lastID string) (io.ReadCloser, error)
	// finish takes the body that had the awaited event; nil closes it.
	finish func(io.ReadCloser)
}

// stopResume is an error of follow.open after which reconnecting will not help.
type stopResume struct{ error }

func (e *stopResume) Unwrap() error { return e.error }

// StopResuming wraps an error of FollowEvents's open after which
// reconnecting will not help (a GET refused with a 4xx): the stream is
// followed no further, and the error is FollowEvents's.
func StopResuming(err error) error { return &stopResume{err} }

// run follows the stream whose first connection is body. It returns nil
// once read has what it waited for, else why not (and the last retry the
// server asked).
func (f follow) run(ctx context.Context, body io.ReadCloser) (time.Duration, error) {
	r := f.reader(body)
	var lastErr error // why the last reconnection failed, if it did
	for attempt := 0; ; {
		if body != nil {
			got, progressed, err := f.read(r)
			r.done()
			if got {
				if f.finish != nil {
					f.finish(body)
				} else {
					body.Close()
				}
				return 0, nil
			}
			body.Close()
			if tooLarge(err) || ctx.Err() != nil {
				return r.Retry, cmp.Or(ctx.Err(), err)
			}
			if progressed {
				attempt = 0
			}
			lastErr = nil
		}
		switch attempt++; {
		case f.open == nil:
			return r.Retry, errors.New("the stream ended before the response")
		case r.LastID == "":
			return r.Retry, errors.New("the stream ended before the response, and without an event id it cannot be resumed")
		case attempt > f.max:
			err := fmt.Errorf("the stream ended before the response; gave up after %d reconnections", f.max)
			if lastErr != nil {
				err = fmt.Errorf("%w, the last: %w", err, lastErr)
			}
			return r.Retry, err
		}
		if !sleep(ctx, retryDelay(r.Retry, attempt)) {
			return r.Retry, ctx.Err()
		}
		var err error
		if body, err = f.open(r.LastID); err != nil {
			if errors.As(err, new(*stopResume)) || ctx.Err() != nil {
				return r.Retry, cmp.Or(ctx.Err(), err)
			}
			lastErr, body = err, nil
			continue
		}
		r = r.resumed(f.reader(body))
	}
}

// tooLarge reports whether a stream ended on a message over MaxMessage:
// resuming would only read it again.
func tooLarge(err error) bool {
	return errors.As(err, new(*MessageSizeError))
}

// finishWithin reads what is left of an answer's stream once its response
// has been handed over (the server ends the stream then, as it should),
// for wait at most (the transport's endWait), and closes it: a body
// closed before its end closes its connection too, and the next request
// would open another. The request's goroutine does it, after the session
// has the response.
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
		if ev.Type != "" && ev.Type != "message" {
			progressed = progressed || !ev.Replay
			continue
		}
		response := id != nil && isResponseTo(ev.Data, id)
		if ev.Replay && !response {
			continue // the session had it, on an earlier connection
		}
		progressed = true
		data := ev.Data
		if response && as != nil {
			data = answerAs(data, id, as)
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
		return retry // within [minRetry, maxRetry] (retryField)
	}
	d := defaultRetry << (attempt - 1)
	if d > maxRetryBackoff || d <= 0 {
		d = maxRetryBackoff
	}
	return d
}

// sleep waits d; it returns false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-time.After(d):
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

	resp, _, err := t.send(ctx, initMsg, nil)
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
	nresp, _, err := t.send(ctx, note, nil)
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
		if err == nil && m.Error != nil {
			return true, m.Error
		}
		return true, err
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
	for _, k := range slices.Sorted(maps.Keys(h)) {
		v := strings.Join(h[k], ", ")
		if redact.Name(k) {
			v = redact.Mask
		}
		if len(h[k]) > 0 { // a name without values is not sent (Idempotency-Key: net/http's mark)
			b.WriteString(", " + k + ": " + v)
		}
	}
	return "{" + strings.TrimPrefix(b.String(), ", ") + "}"
}

// withID is msg, a request or the response to one sent under another
// id, with its id replaced.
func withID(msg, id json.RawMessage) json.RawMessage {
	b, _ := appendMembers([]byte{'{'}, msg, func(k string, v []byte) ([]byte, bool) {
		if k == "id" {
			return id, true
		}
		return v, true
	})
	return append(b, '}')
}

// appendMembers appends to b, an object being written, the members of
// obj, each with the value edit gives it, or left out when edit says so;
// nothing when obj is no valid object (the error says why).
func appendMembers(b, obj []byte, edit func(k string, v []byte) ([]byte, bool)) ([]byte, error) {
	err := rawjson.ForEachRawMember(obj, func(k string, rawKey, v []byte) error {
		if v, keep := edit(k, v); keep {
			if b[len(b)-1] != '{' {
				b = append(b, ',')
			}
			b = append(append(append(b, rawKey...), ':'), v...)
		}
		return nil
	})
	return b, err
}

// answerAs is the answer a request sent under the id wire got, with the
// response to it under id: in a JSON array (an answer a server wrapped
// in one), that response alone.
func answerAs(msg, wire, id json.RawMessage) json.RawMessage {
	if i := rawjson.SkipSpace(msg, 0); i >= len(msg) || msg[i] != '[' {
		return withID(msg, id)
	}
	b := []byte{'['}
	rawjson.ScanElements(msg, func(el []byte) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		if rawjson.IsObject(el) && isResponseTo(el, wire) {
			el = withID(el, id)
		}
		b = append(b, el...)
	})
	return append(b, ']')
}
