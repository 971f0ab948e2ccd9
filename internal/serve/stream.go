package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// ServeStream serves one client on r and w (mcpv's stdin and stdout) until
// the client closes r, ctx ends, or the shared upstream session ends. A
// client that writes its requests and closes r still gets every answer:
// the end of r is taken once what was asked has been answered. closeIn,
// when not nil, makes a blocked read of r return.
func (s *Server) ServeStream(ctx context.Context, r io.Reader, w io.Writer, closeIn func() error) error {
	d := newDrain()
	t := &draining{StreamTransport: mcp.NewStreamTransport(r, w, closeIn, s.Log), d: d}
	c := s.serveClientWith(t, d, nil)
	defer c.close()
	select {
	case <-c.sess.Done():
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-s.Done():
		return s.Err()
	}
}

// drain keeps a stream client's requests from the moment they are read
// to the moment their answer is written, or the client cancels them
// (ping, which the session answers itself, is not kept). Counting to the
// handler's return is not enough: the session writes the answer after,
// and drops what it has not written when the input ends.
type drain struct {
	mu      sync.Mutex     // guards pending
	pending map[string]int // the ids of the requests not yet answered, each with how many (a client may repeat one)
	idle    chan struct{}  // signalled when pending empties
	eof     chan struct{}  // closed when the input has ended: the client answers nothing more
	once    sync.Once      // guards closing eof
	// stop is closed when the transport closes: the session is ending,
	// its handlers are cancelled and write no answer, so nothing is left
	// to wait for.
	stop     chan struct{}
	stopOnce sync.Once // guards closing stop
}

func newDrain() *drain {
	return &drain{pending: map[string]int{}, idle: make(chan struct{}), eof: make(chan struct{}), stop: make(chan struct{})}
}

func (d *drain) add(id []byte) {
	d.mu.Lock()
	d.pending[string(id)]++
	d.mu.Unlock()
}

// settle forgets a request answered or cancelled.
func (d *drain) settle(id []byte) {
	d.mu.Lock()
	if d.pending[string(id)]--; d.pending[string(id)] <= 0 {
		delete(d.pending, string(id))
	}
	n := len(d.pending)
	d.mu.Unlock()
	if n == 0 {
		select {
		case d.idle <- struct{}{}:
		default:
		}
	}
}

func (d *drain) wait() {
	for {
		d.mu.Lock()
		n := len(d.pending)
		d.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-d.idle:
		case <-d.stop:
			return
		}
	}
}

// draining is a stream transport whose end of input waits for the
// requests read before it to be answered.
type draining struct {
	*mcp.StreamTransport
	d *drain
}

func (t *draining) Read() ([]byte, error) {
	msg, err := t.StreamTransport.Read()
	if err != nil {
		t.d.once.Do(func() { close(t.d.eof) })
		t.d.wait()
		return nil, err
	}
	e, _ := readEnvelope(msg)
	switch {
	case e.method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(e.params, &p) == nil && p.RequestID != nil {
			t.d.settle(p.RequestID) // a cancelled request is not answered
		}
	case e.request() && e.method != "ping" && rawjson.Valid(msg):
		// A line that is no JSON is answered a parse error that names
		// no request: nothing to wait for.
		t.d.add(e.id)
	}
	return msg, nil
}

// Close ends the wait for answers at the end of the input: the session
// closes its transport after cancelling its handlers.
func (t *draining) Close(ctx context.Context) error {
	t.d.stopOnce.Do(func() { close(t.d.stop) })
	return t.StreamTransport.Close(ctx)
}

func (t *draining) Write(ctx context.Context, msg []byte) error {
	err := t.StreamTransport.Write(ctx, msg)
	t.written(msg)
	return err
}

// WriteParts writes a message in parts; an answer's first part is its
// head up to its result, which closed with a null is a whole message
// that names the request.
func (t *draining) WriteParts(ctx context.Context, parts [][]byte) error {
	err := t.StreamTransport.WriteParts(ctx, parts)
	if head, ok := headOf(parts); ok {
		t.written(head)
	} else {
		t.written(bytes.Join(parts, nil))
	}
	return err
}

// written settles the request a message answers.
func (t *draining) written(msg []byte) {
	e, _ := readEnvelope(msg)
	if id, ok := e.response(); ok {
		t.d.settle(id)
	}
}
