package keeper

import (
	"cmp"
	"fmt"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
)

// Large results hold the server back. While one waits in a command's
// outbox, or is being written to the command, the keeper's session reads
// no more of the server's messages: results that come one after another
// are held one at a time, and the server, blocked on its writes, holds
// the next one itself. Read on, three commands' 100 MiB results could be
// in the keeper at once.
//
// What is held back is bounded, so that one command cannot hold up the
// others: a large message that reaches no command (a notification, the
// answer to a request whose command left) holds the server back for
// handoffWait at most, and a large result its command is slow to read for
// Keeper.HoldLarge (holdLarge by default) after it was queued; the
// session then reads on, and holds the next large result the same way.

// handoffWait bounds the wait for a large message just read to reach a
// command's outbox.
const handoffWait = 200 * time.Millisecond

// holdLarge is how long a large result its command has not read holds the
// server back, by default: a command reads 100 MiB in well under a second.
const holdLarge = 2 * time.Second

// largeResults counts the large results queued for the commands.
type largeResults struct {
	mu      sync.Mutex  // guards the fields below
	changed lazy.Signal // fired when queued or pending changes
	queued  uint64      // large results ever queued
	pending int         // queued, and not yet written or dropped
	seen    uint64      // queued, as the reader last left it
	until   time.Time   // the server is held back until then at most
}

// add counts a large result queued for a command, which holds the server
// back for hold at most.
func (l *largeResults) add(hold time.Duration) {
	l.mu.Lock()
	l.queued++
	l.pending++
	l.until = time.Now().Add(hold)
	l.changed.Fire()
	l.mu.Unlock()
}

// done counts a large result written, or dropped.
func (l *largeResults) done() {
	l.mu.Lock()
	l.pending--
	l.changed.Fire()
	l.mu.Unlock()
}

// waitUntil waits, with l.mu held (and held again on return), until ok
// holds or deadline passes; it says whether ok holds.
func (l *largeResults) waitUntil(ok func() bool, deadline *time.Timer) bool {
	for !ok() {
		ch := l.changed.C()
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
// then, while a large result waits to be written, for it to be written,
// until the hold of the last one queued runs out.
func (k *Keeper) ReadGate(last int) {
	l := &k.large
	l.mu.Lock()
	defer l.mu.Unlock()
	if last <= bigMessage && l.pending == 0 { // the way of almost every message: no timer
		l.seen = l.queued
		return
	}
	if last > bigMessage {
		handoff := time.NewTimer(cmp.Or(k.handoff, handoffWait))
		seen := l.seen
		l.waitUntil(func() bool { return l.queued != seen }, handoff)
		handoff.Stop()
	}
	if hold := time.Until(l.until); l.pending > 0 && hold > 0 {
		written := time.NewTimer(hold)
		defer written.Stop()
		if !l.waitUntil(func() bool { return l.pending == 0 }, written) {
			k.Log.Info(fmt.Sprintf("a command is slow to read a large result (%d waiting); the session reads the server on", l.pending))
		}
	}
	l.seen = l.queued
}
