package serve

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
)

// outbox is a client's notifications on their way to it: the upstream's
// one dispatcher hands them to a queue that the client's own writer
// empties, so that a client that does not read delays no other.
//
// A client that reads, however slowly, gets everything: while its queue
// is full, the dispatcher waits for its writer to make room, and the
// upstream's reader waits with it (upstream.behind). A client whose
// writer has taken nothing for its stall (Server.NoteStall) does not
// read: what comes for it is dropped and counted, and serve says so once,
// and how many in all when the client leaves. out and its writer come
// with the first notification.
type outbox struct {
	out      chan outNote // guarded by sentMu; nil until the first notification
	outBytes atomic.Int64 // the params queued
	since    atomic.Int64 // when the writer began the write it is in (Unix ns); 0 between writes

	sentMu  sync.Mutex       // guards the fields below, and orders the sends on out
	queued  int64            // notifications put in out so far
	sent    int64            // notifications the writer is done with
	sentCh  lazy.Signal      // fired when sent moves
	lastRel map[string]int64 // a request in flight -> the number (queued) of the last notification related to it
	stalled bool             // the writer took nothing for its stall: drop until it takes one
	dropped int64            // notifications dropped in all
	told    int64            // of them, those serve has said something of

	level logLevel // the log level it asked for (loglevel.go)
}

// outNote is a notification waiting for its client's writer.
type outNote struct {
	ctx    context.Context
	method string
	params json.RawMessage
}

// What one client's notifications may hold while it does not read, and
// how long its writer may take nothing before it counts as not reading.
const (
	maxOutNotes = 1024
	maxOutBytes = 8 << 20
	stallAfter  = time.Second
)

// notify hands a notification to the client's writer, by the rules of
// outbox; behind, when not nil, counts the clients a notification waits
// for, which the upstream's reader waits on.
func (c *client) notify(ctx context.Context, behind *outstanding, method string, params json.RawMessage) {
	n := int64(len(params))
	c.sentMu.Lock()
	defer c.sentMu.Unlock()
	if c.out == nil {
		c.out = make(chan outNote, maxOutNotes)
		go c.writeNotes(c.out) // client's notification writer: ends with the client's session
	}
	for len(c.out) == cap(c.out) || c.outBytes.Load() > 0 && c.outBytes.Load()+n > maxOutBytes {
		if c.stalled || !c.waitForRoom(behind) {
			c.drop()
			return
		}
	}
	rel := related(ctx)
	if rel != nil && !c.inFlight(rel) {
		// Its answer has gone (flushNotes, which runs once the request
		// is no longer in flight, takes sentMu after this): nobody waits.
		rel = nil
	}
	c.outBytes.Add(n)
	c.out <- outNote{ctx, method, params} // there is room: only this sends, under sentMu
	c.queued++
	if rel != nil {
		lazy.Put(&c.lastRel, string(rel), c.queued)
	}
}

// waitForRoom waits, with sentMu let go, until the writer takes a
// notification; false when it took none for its stall, or the client's
// session ended. The caller holds sentMu.
func (c *client) waitForRoom(behind *outstanding) bool {
	wait := c.srv.noteStall()
	if since := c.since.Load(); since != 0 {
		wait -= time.Since(time.Unix(0, since))
	}
	if wait <= 0 {
		c.stalled = true
		return false
	}
	moved := c.sentCh.C()
	if behind != nil {
		behind.add(1)
		defer behind.add(-1)
	}
	c.sentMu.Unlock()
	defer c.sentMu.Lock()
	select {
	case <-moved:
		return true
	case <-time.After(wait):
		c.sentMu.Lock()
		c.stalled = true
		c.sentMu.Unlock()
		return false
	case <-c.sess.Done():
		return false
	}
}

// drop counts a notification the client does not get; the first of a
// client's drops is said at once (sentMu held).
func (c *client) drop() {
	c.dropped++
	if c.told == 0 {
		c.told = c.dropped
		c.srv.Log.Warn(fmt.Sprintf("a client has not read for %v: what the server sends it is dropped until it reads again", c.srv.noteStall()))
	}
}

func (s *Server) noteStall() time.Duration { return cmp.Or(s.NoteStall, stallAfter) }

func (s *Server) noteWait() time.Duration { return cmp.Or(s.NoteWait, notifyWait) }

// sayDropped says, as the client leaves, how many of its notifications
// were dropped beyond the one said at once.
func (c *client) sayDropped() {
	c.sentMu.Lock()
	n, told := c.dropped, c.told
	c.sentMu.Unlock()
	if n > told {
		c.srv.Log.Warn(fmt.Sprintf("%d notifications in all were dropped for a client that did not read", n))
	}
}

// writeNotes sends the client its notifications, in order, each bounded
// by its NoteWait, until its session ends.
func (c *client) writeNotes(out <-chan outNote) {
	for {
		select {
		case n := <-out:
			ctx, cancel := context.WithTimeout(n.ctx, c.srv.noteWait())
			c.since.Store(time.Now().UnixNano())
			c.sess.Notify(ctx, n.method, n.params)
			c.since.Store(0)
			cancel()
			c.outBytes.Add(-int64(len(n.params)))
			// The writer is done with one more notification: the client
			// reads.
			c.sentMu.Lock()
			c.sent++
			c.stalled = false
			c.sentCh.Fire()
			c.sentMu.Unlock()
		case <-c.sess.Done():
			return
		}
	}
}

// flushNotes waits until the writer is done with every notification
// related to the request id queued so far, or NoteWait has passed, or
// ctx ends: those reach the client before the answer, as they came.
// Notifications for no request (bound for a GET stream, which may be read
// late or never) do not hold the answer up.
func (c *client) flushNotes(ctx context.Context, id json.RawMessage) {
	c.sentMu.Lock()
	target, ok := c.lastRel[string(id)]
	delete(c.lastRel, string(id))
	c.sentMu.Unlock()
	if !ok {
		return
	}
	timer := time.After(c.srv.noteWait())
	for {
		c.sentMu.Lock()
		if c.sent >= target {
			c.sentMu.Unlock()
			return
		}
		moved := c.sentCh.C()
		c.sentMu.Unlock()
		select {
		case <-moved:
		case <-timer:
			return
		case <-ctx.Done():
			return
		case <-c.sess.Done():
			return
		}
	}
}
