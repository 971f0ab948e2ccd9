package keeper

import (
	"fmt"
	"sync"
	"time"
)

// Large results hold the server back. While one waits in a command's
// outbox, or is being written to the command, the keeper's session reads
// no more of the server's messages: results that come one after another
// are held one at a time, and the server, blocked on its writes, holds
// the next one itself. Read on, three commands' 100 MiB results could be
// in the keeper at once.
//
// What is held back is bounded: a large message that reaches no command
// (a notification, the answer to a request whose command left) holds the
// server back for handoffWait at most, and a command that does not read
// for writeWait (its write then fails and it is let go).

// handoffWait bounds the wait for a large message just read to reach a
// command's outbox.
const handoffWait = 200 * time.Millisecond

// largeResults counts the large results queued for the commands.
type largeResults struct {
	mu      sync.Mutex
	changed chan struct{} // closed when queued or pending changes; nil when nobody waits
	queued  uint64        // large results ever queued
	pending int           // queued, and not yet written or dropped
	seen    uint64        // queued, as the reader last left it
}

// add counts a large result queued for a command.
func (l *largeResults) add() {
	l.mu.Lock()
	l.queued++
	l.pending++
	l.signal()
	l.mu.Unlock()
}

// done counts a large result written, or dropped.
func (l *largeResults) done() {
	l.mu.Lock()
	l.pending--
	l.signal()
	l.mu.Unlock()
}

func (l *largeResults) signal() {
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

// waitUntil waits, with l.mu held (and held again on return), until ok
// holds or deadline passes; it says whether ok holds.
func (l *largeResults) waitUntil(ok func() bool, deadline *time.Timer) bool {
	for !ok() {
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
			l.mu.Lock()
		case <-deadline.C:
			l.mu.Lock()
			return ok()
		}
	}
	return true
}

// ReadGate is the keeper's session's mcp.SessionOptions.ReadGate: after a
// large message (last bytes) it waits for it to reach a command's outbox;
// then, while a large result waits to be written, for it to be written.
func (k *Keeper) ReadGate(last int) {
	l := &k.large
	l.mu.Lock()
	defer l.mu.Unlock()
	if last <= bigMessage && l.pending == 0 { // the way of almost every message: no timer
		l.seen = l.queued
		return
	}
	if last > bigMessage {
		handoff := time.NewTimer(handoffWait)
		seen := l.seen
		l.waitUntil(func() bool { return l.queued != seen }, handoff)
		handoff.Stop()
	}
	written := time.NewTimer(writeWait + lastWait + time.Second)
	defer written.Stop()
	if !l.waitUntil(func() bool { return l.pending == 0 }, written) {
		// Not to be: each write is bounded by writeWait. Read on rather
		// than hold the session for ever.
		k.Log.Warn(fmt.Sprintf("%d large results were still not written; reading the server on", l.pending))
	}
	l.seen = l.queued
}
