package mcp

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
)

// StreamTransport carries JSON-RPC messages, one per line, over a reader
// and a writer: the server side of stdio (mcpv serve's own stdin and
// stdout), or a pipe in a test. Reading takes what a stdio server's
// stdout may hold: lines of any length, Content-Length frames, junk lines
// skipped with a warning.
type StreamTransport struct {
	msgs  *messageReader
	w     io.Writer
	close func() error

	wmu  sync.Mutex // guards w's writes: one message at a time
	once sync.Once  // guards close
}

// NewStreamTransport reads messages from r and writes them to w; close,
// when not nil, is called once by Close, and should make a blocked Read
// return.
func NewStreamTransport(r io.Reader, w io.Writer, close func() error, log *slog.Logger) *StreamTransport {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	m := newMessageReader(r, 64<<10)
	junk := &junkWarner{log: log, where: "of input"}
	m.junk = junk.warn
	return &StreamTransport{msgs: m, w: w, close: close}
}

// OnJunk has f told of each line Read skips as no message, after its
// warning: a server answers it a parse error. Set it before the first
// Read.
func (t *StreamTransport) OnJunk(f func(line []byte)) {
	warn := t.msgs.junk
	t.msgs.junk = func(line []byte) { warn(line); f(line) }
}

// Read returns the next message; io.EOF when the peer closed its end.
func (t *StreamTransport) Read() ([]byte, error) {
	msg, err := t.msgs.next()
	if err != nil && errors.Is(err, io.ErrClosedPipe) {
		return nil, io.EOF
	}
	return msg, err
}

// Write writes msg and a newline. A writer that blocks is not interrupted
// by ctx: what it has begun to write is finished, so no half line is left.
func (t *StreamTransport) Write(ctx context.Context, msg []byte) error {
	return t.WriteParts(ctx, [][]byte{msg})
}

// WriteParts writes one message given in parts, and a newline.
func (t *StreamTransport) WriteParts(_ context.Context, parts [][]byte) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	for i := range len(parts) + 1 { // the parts, then the newline: no slice made for it
		p := newline
		if i < len(parts) {
			p = parts[i]
		}
		if _, err := t.w.Write(p); err != nil {
			return &TransportError{Op: "write", Err: err}
		}
	}
	return nil
}

var newline = []byte{'\n'}

// Close calls the close function given, once.
func (t *StreamTransport) Close(context.Context) error {
	var err error
	t.once.Do(func() {
		if t.close != nil {
			err = t.close()
		}
	})
	return err
}
