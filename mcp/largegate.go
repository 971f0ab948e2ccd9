package mcp

// One large message at a time from an HTTP server. Over stdio the server's
// messages come on one stream, read one after another, and a reader that
// waits (SessionOptions.ReadGate) holds the server back. Over Streamable
// HTTP each request's answer comes on a stream of its own, read by a
// goroutine of its own: three large results answered at once would be read
// into memory at once, whatever the session does with them.
//
// The transport's streams share one largeGate. A stream that finds the
// message it is reading large (largeMessage bytes or more read of it) holds
// the gate before it reads on, and keeps holding it until the session has
// taken that message and comes back for the next: the session then has
// done with it what it does before its next read, which for a session
// keeper is to hand it to its command (Keeper.ReadGate). Another stream
// that reaches a large message meanwhile waits there, its server held
// back by the connection, until the gate is free. A message that is not
// handed to the session (an event of another type, a stream that breaks)
// gives the gate back when its reader moves on or stops.

import (
	"context"
	"io"
)

// largeMessage is how much of a message a stream reads before it waits
// for the gate: with N streams answering at once, what is read is the
// largest message and less than this of each other one.
const largeMessage = 4 << 20

// largeGate is held by the one large message being read, or read and not
// yet done with; it is free when its one slot is empty.
type largeGate chan struct{}

func newLargeGate() largeGate { return make(largeGate, 1) }

// hold waits until the gate is free and takes it, or until ctx ends.
func (g largeGate) hold(ctx context.Context) error {
	select {
	case g <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// release frees the gate, which the caller holds.
func (g largeGate) release() { <-g }

// readBody reads an answer's whole body, holding t's gate (under ctx) from
// when largeMessage bytes of it have been read; large says that it holds
// it. After an error it holds nothing.
func (t *HTTPTransport) readBody(ctx context.Context, body io.Reader) (data []byte, large bool, err error) {
	r := &gatedReader{r: body, hold: func() error { return t.large.hold(ctx) }}
	data, err = io.ReadAll(r)
	if err != nil {
		if r.held {
			t.large.release()
		}
		return nil, false, err
	}
	return data, r.held, nil
}

// gatedReader calls hold once largeMessage bytes have been read, before it
// reads on.
type gatedReader struct {
	r    io.Reader
	n    int
	hold func() error
	held bool
}

func (g *gatedReader) Read(p []byte) (int, error) {
	if !g.held && g.n >= largeMessage {
		if err := g.hold(); err != nil {
			return 0, err
		}
		g.held = true
	}
	n, err := g.r.Read(p)
	g.n += n
	return n, err
}
