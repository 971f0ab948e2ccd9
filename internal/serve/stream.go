package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// ServeStream serves one client on r and w; see ServeStdio.
func (s *Server) ServeStream(ctx context.Context, r io.Reader, w io.Writer, closeIn func() error) error {
	return s.ServeStdio(ctx, Stdio{In: r, Out: w, CloseIn: closeIn})
}

// Stdio is one client on a pair of streams: mcpv's own stdin and stdout.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	// CloseIn, when set, is called once serving ends. In is read on a
	// goroutine of its own: closing a blocking stdin does not end a read.
	CloseIn func() error
	// Gone, when set, is closed when the client can no longer read Out
	// (it closed its end, or died): it has left.
	Gone <-chan struct{}
}

// settleWait bounds the wait, once the upstream has ended, for the
// errors of the requests it was serving to reach the client.
const settleWait = 2 * time.Second

// ServeStdio serves one client until it leaves, ctx ends, or the shared
// upstream session ends; what it asked that is still in flight is
// settled first. When its input ends, it still gets the answer to
// everything it asked before; when it leaves (Gone) or ctx ends, what is
// in flight is cancelled upstream; when the upstream ends, each request
// gets the error that ended it, and serving ends with it.
func (s *Server) ServeStdio(ctx context.Context, st Stdio) error {
	// In is read on a goroutine of its own and handed on through a pipe,
	// whose Close ends a Read waiting on it at once.
	pr, pw := io.Pipe()
	go func() { // stdin copier: ends at st.In's end or error, or once the pipe is closed and st.In reads again; a read that never returns is left to the process's exit
		_, err := io.Copy(pw, st.In)
		pw.CloseWithError(err)
	}()
	closeIn := sync.OnceFunc(func() {
		if st.CloseIn != nil {
			st.CloseIn()
		}
	})
	closeAll := func() error {
		pr.Close()
		closeIn()
		return nil
	}
	d := newDrain()
	t := &draining{StreamTransport: mcp.NewStreamTransport(pr, st.Out, closeAll, s.Log), d: d}
	t.OnJunk(func([]byte) {
		t.refuse(nil, &mcp.RPCError{Code: mcp.CodeParseError, Message: "a line of input is not JSON"})
	})
	c := s.serveClientWith(t, d, nil)
	defer c.close() // cancels what is still in flight, upstream too
	select {
	case <-c.sess.Done():
		return nil
	case <-st.Gone:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-s.Done():
		d.owed.wait(settleWait, d.stop)
		return s.Err()
	}
}

// drain keeps a stream client's requests from when they are read to
// when their answer is written, or they are cancelled: the session
// writes an answer after its handler returns, and drops what it has not
// written when the input ends.
type drain struct {
	mu      sync.Mutex     // guards pending
	pending map[string]int // the ids of the requests not yet answered, each with how many (a client may repeat one)
	owed    outstanding    // how many pending holds in all
	eof     chan struct{}  // closed when the input has ended: the client answers nothing more
	once    sync.Once      // guards closing eof
	// stop is closed when the transport closes: the handlers are
	// cancelled and write no answer.
	stop     chan struct{}
	stopOnce sync.Once // guards closing stop
}

func newDrain() *drain {
	return &drain{pending: map[string]int{}, eof: make(chan struct{}), stop: make(chan struct{})}
}

func (d *drain) add(id []byte) {
	d.mu.Lock()
	d.pending[string(id)]++
	d.mu.Unlock()
	d.owed.add(1)
}

// settle forgets a request answered or cancelled.
func (d *drain) settle(id []byte) {
	d.mu.Lock()
	n, ok := d.pending[string(id)]
	if n <= 1 {
		delete(d.pending, string(id))
	} else {
		d.pending[string(id)] = n - 1
	}
	d.mu.Unlock()
	if ok {
		d.owed.add(-1)
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
		t.d.owed.wait(-1, t.d.stop) // until every request read is answered, or the session ends
		return nil, err
	}
	e, rerr := readIncoming(msg)
	switch {
	case rerr != nil && rerr.Code == mcp.CodeInvalidRequest && rawjson.IsObject(msg) && rawjson.Member(msg, "result") == nil && rawjson.Member(msg, "error") == nil:
		// JSON, no JSON-RPC message, and no answer: refused as over
		// HTTP, under its id where that is one, rather than left for its
		// client to wait on. A line that is no JSON at all is refused
		// where it is skipped (OnJunk); one that begins as JSON goes on to
		// the session, which finds the messages written inside it.
		t.refuse(validID(e.id), rerr)
		return t.Read()
	case e.method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(e.params, &p) == nil && p.RequestID != nil {
			t.d.settle(p.RequestID) // a cancelled request is not answered
		}
	case e.request() && e.method != "ping" && rawjson.Valid(msg):
		// A line that is no JSON names no request: nothing to wait for.
		t.d.add(e.id)
	}
	return msg, nil
}

// refuse answers a line of input that is no request with rerr, under id
// (nil: null).
func (t *draining) refuse(id json.RawMessage, rerr *mcp.RPCError) {
	t.StreamTransport.Write(context.Background(), errorMessage(id, rerr))
}

// validID is id when it is a JSON-RPC id (a string, a number or null);
// nil otherwise.
func validID(id json.RawMessage) json.RawMessage {
	if len(id) == 0 || strings.IndexByte("{[tf", id[0]) >= 0 {
		return nil
	}
	return id
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
	if id, ok := responseID(msg); ok {
		t.d.settle(id)
	}
}
