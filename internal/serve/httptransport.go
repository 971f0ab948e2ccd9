package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
)

// responseID reads a message's id when it is a response (an id and no
// method member at all).
func responseID(msg []byte) (json.RawMessage, bool) {
	e, _ := readEnvelope(msg)
	return e.id, e.id != nil && !e.hasMethod
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

// Write sends msg where send sends it.
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
			if in, err := readIncoming(msg.parts[0]); err == nil && in.request() {
				return errors.New("the client has no stream open to take a request")
			}
		}
		return nil
	}
	// An answer is never given up while its stream lives: the client
	// would wait for it for ever, hearing only keep-alives. Its wait is
	// bounded by the stream's stall.
	done := ctx.Done()
	if resp {
		done = nil
	} else if st.quiet.Load() {
		return nil // the client stalled: only answers go to it
	}
	select {
	case st.ch <- msg:
		return nil
	case <-st.gone:
		return errors.New("the client's stream has closed")
	case <-t.closed:
		return io.EOF
	case <-done:
		return context.Cause(ctx)
	}
}

// ConcurrentWrites: each message goes to a stream of its own.
func (t *httpTransport) ConcurrentWrites() bool { return true }

func (t *httpTransport) Close(context.Context) error {
	t.once.Do(func() { close(t.closed) })
	return nil
}
