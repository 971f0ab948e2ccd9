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
// back by the connection, until the gate is free or for largeWait, after
// which it reads on without it. A message that is not
// handed to the session (an event of another type, a stream that breaks)
// gives the gate back when its reader moves on or stops.

import (
	"context"
	"io"
	"time"
)

// largeMessage is how much of a message a stream reads before it waits
// for the gate: with N streams answering at once, what is read is the
// largest message and less than this of each other one.
const largeMessage = 4 << 20

// largeWait is how long a stream waits for the gate before it reads on
// without it, as a session keeper holds a server back for a slow command
// (keeper.holdLarge): a large answer that a server sends slowly, or a
// stream it stalls in the middle of one, holds up the others' large
// answers a moment, not for as long as it takes.
const largeWait = 2 * time.Second

// largeGate is held by the one large message being read, or read and not
// yet done with; it is free when its one slot is empty.
type largeGate struct {
	slot chan struct{}
	wait time.Duration // largeWait, but in tests
	// limit is the transport's MaxMessage, which every stream that
	// shares the gate reads under (0: none).
	limit int64
}

func newLargeGate() *largeGate { return &largeGate{slot: make(chan struct{}, 1), wait: largeWait} }

// hold waits until the gate is free and takes it (held), or for g.wait,
// after which the caller reads on without it, or until ctx ends.
func (g *largeGate) hold(ctx context.Context) (held bool, err error) {
	select {
	case g.slot <- struct{}{}:
		return true, nil
	default:
	}
	select {
	case g.slot <- struct{}{}:
		return true, nil
	case <-time.After(g.wait):
		return false, nil
	case <-ctx.Done():
		return false, context.Cause(ctx)
	}
}

// release frees the gate, which the caller holds.
func (g *largeGate) release() { <-g.slot }

// readBody reads an answer's whole body, holding t's gate (under ctx) from
// when largeMessage bytes of it have been read; large says that it holds
// it. After an error it holds nothing.
func (t *HTTPTransport) readBody(ctx context.Context, body io.Reader) (data []byte, large bool, err error) {
	r := &gatedReader{r: body, hold: func() (bool, error) { return t.large.hold(ctx) }, limit: t.large.limit}
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
	r           io.Reader
	n           int
	hold        func() (bool, error)
	asked, held bool
	limit       int64 // a body longer than this is a *MessageSizeError; 0: no limit
}

func (g *gatedReader) Read(p []byte) (int, error) {
	if !g.asked && g.n >= largeMessage {
		g.asked = true
		held, err := g.hold()
		if err != nil {
			return 0, err
		}
		g.held = held
	}
	n, err := g.r.Read(p)
	g.n += n
	if g.limit > 0 && int64(g.n) > g.limit {
		return n, &MessageSizeError{Limit: g.limit}
	}
	return n, err
}
