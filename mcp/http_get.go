package mcp

// The HTTP transport's standalone GET stream, which carries the server's
// own messages, and the legacy HTTP+SSE transport's stream.

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"
)

// openGetStream opens the standalone GET stream (transports, "Listening for
// Messages from the Server"). A server that offers none (405, 404, 400) is
// fine. The requests that follow wait for its headers (awaitGetStream), so
// that server requests sent there are not missed; a list request does not.
// The GET and a POST after it go on connections of their own, and a server
// may take the POST's request first: the GET having been sent is not
// enough, the headers say the server has the stream.
func (t *HTTPTransport) openGetStream() {
	t.mu.Lock()
	if t.legacy || t.getOpen || t.closed {
		t.mu.Unlock()
		return
	}
	t.getOpen = true
	opened, sent := make(chan struct{}), make(chan struct{})
	t.getOpened, t.getSent, t.getDeadline = opened, sent, time.Now().Add(t.getWait)
	t.getUntil = t.getDeadline
	// The stream is counted under mu, as goRequest's are.
	defer t.mu.Unlock()
	t.streams.Go(func() { // standalone GET stream: runs until the transport closes or the server stops offering the stream
		defer func() {
			t.mu.Lock()
			t.getOpen = false
			t.mu.Unlock()
		}()
		t.runGetStream(opened, sent)
	})
}

// awaitGetStream waits until the GET stream opened last has its headers (or
// failed), until its getDeadline at most (getStreamWait after it was
// opened, brought forward to headersGrace after it was sent), or until ctx
// ends. Every request shares the one deadline: once it has passed, none
// waits. whole waits getStreamWait after the opening, grace or none.
func (t *HTTPTransport) awaitGetStream(ctx context.Context, whole bool) {
	t.mu.Lock()
	opened, sent, deadline := t.getOpened, t.getSent, t.getDeadline
	if whole {
		sent, deadline = nil, t.getUntil
	}
	t.mu.Unlock()
	if opened == nil {
		return
	}
	select {
	case <-opened:
		return
	default:
	}
	wait := time.NewTimer(time.Until(deadline))
	defer wait.Stop()
	for {
		select {
		case <-opened:
			return
		case <-sent:
			sent = nil
			t.mu.Lock()
			if t.getDeadline.Before(deadline) {
				deadline = t.getDeadline
			}
			t.mu.Unlock()
			wait.Reset(time.Until(deadline))
		case <-wait.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (t *HTTPTransport) runGetStream(opened, sent chan struct{}) {
	prev := &sseReader{} // the stream's last connection: its last id, retry and ids
	failures := 0
	wrote := sync.OnceFunc(func() {
		t.mu.Lock()
		if t.getSent == sent { // still the stream requests wait for
			if grace := time.Now().Add(t.headersGrace); grace.Before(t.getDeadline) {
				t.getDeadline = grace
			}
		}
		t.mu.Unlock()
		close(sent)
	})
	for first := true; ; first = false {
		sid := t.SessionID()
		ctx := t.ctx
		if first {
			ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { wrote() }})
		}
		resp, err := t.get(ctx, prev.LastID)
		if first {
			wrote()
			close(opened)
		}
		progressed := false
		if err == nil {
			r := prev.resumed(newGatedSSEReader(t.ctx, resp.Body, t.large))
			_, progressed, _ = t.pump(t.ctx, r, nil, nil)
			r.done()
			resp.Body.Close()
			prev = r
		}
		var se *StatusError
		switch {
		case err != nil && t.ctx.Err() != nil:
			return
		case t.SessionID() != sid:
			// The session expired and a new one began while this stream
			// was asked for, or read: ask again, for the new one.
			prev, failures = &sseReader{}, 0
			continue
		case err != nil && (!errors.As(err, &se) || se.Status < 500):
			return // no stream offered (405/404/400), or auth refused
		case progressed:
			failures = 0
		default:
			failures++
		}
		if failures > t.opts.MaxResumes || !sleep(t.ctx, retryDelay(prev.Retry, max(failures, 1))) {
			return
		}
	}
}

// startLegacy opens the 2024-11-05 HTTP+SSE transport: a GET stream whose
// first event names the endpoint to POST to, and which carries every server
// message from then on.
func (t *HTTPTransport) startLegacy(ctx context.Context) error {
	sctx, cancel := context.WithCancel(t.ctx)
	stop := context.AfterFunc(ctx, cancel) // until the endpoint arrives, ctx bounds the wait
	resp, err := t.get(sctx, "")
	if err != nil {
		stop()
		cancel()
		return err
	}
	r := newGatedSSEReader(sctx, resp.Body, t.large)
	end := func() { // lets the stream go, when it is not kept
		cancel()
		r.done()
		resp.Body.Close()
	}
	var endpoint string
	for endpoint == "" {
		ev, err := r.Next()
		if err != nil {
			stop()
			end()
			return &TransportError{Op: "legacy SSE", Err: fmt.Errorf("the stream ended before an endpoint event: %w", err)}
		}
		if ev.Type == "endpoint" {
			endpoint = strings.TrimSpace(string(ev.Data))
		}
	}
	if !stop() {
		end()
		return ctx.Err()
	}
	u, err := t.url.Parse(endpoint)
	if err != nil || u.Scheme != t.url.Scheme || u.Host != t.url.Host {
		end()
		return &TransportError{Op: "legacy SSE", Err: errors.New("the endpoint event names another origin; refusing to send there")}
	}
	t.mu.Lock()
	closed := t.closed
	if !closed { // the stream is counted under mu, as goRequest's are
		t.endpoint, t.legacy = u, true
		t.streams.Go(func() { // legacy SSE stream: ends with the stream: when the server closes it or the transport closes
			defer cancel()
			t.pump(sctx, r, nil, nil)
			r.done()
			resp.Body.Close()
			t.fail(&TransportError{Op: "legacy SSE", Err: errors.New("the server closed its event stream")})
		})
	}
	t.mu.Unlock()
	if closed {
		end()
		return errTransportClosed
	}
	return nil
}
