package mcp

// The queue of notifications between the session's reader and its
// dispatcher, and what it keeps when the dispatcher falls behind.
//
// The reader never waits for the dispatcher: a notification handler that
// is slow (a terminal that scrolls, a pipe nobody reads) must not hold up
// the response a call is waiting for. So the queue is bounded, and when it
// is full (maxQueuedNotes notifications, or maxQueuedBytes of params):
//   - a notification that supersedes one still waiting replaces it: the
//     latest progress per token, the latest status per task, one update
//     per resource, one change per list. The older one is taken out and
//     the newer one goes to the end of the queue, so that what is kept
//     stays in the order it came in;
//   - any other notification (a log message above all) is dropped and
//     counted. A notice takes the place of the first one dropped, and
//     the dispatcher reports there, as one warning, how many were dropped
//     until it reached it.
// A log of every notification that must miss none (--events) is written
// by the reader as it reads (SessionOptions.Record): it slows the reading,
// never fills the queue.
//
// A session whose handler only hands each notification on, waiting for
// room a bounded time (mcpv serve, whose clients must miss none), asks
// for back-pressure instead (SessionOptions.NoteBackPressure): a full
// queue holds the reader until the dispatcher takes what it holds, so
// that the server is read no faster than it is heard, and nothing is
// dropped. Its handler must never wait for the reader (a call's answer).
//
// Every queued item has a sequence number; a response records the last one
// given before it, and its call waits until the dispatcher has handled
// that far. An item taken out for a newer one leaves that newer one, with
// a higher number, still to be handled, so the wait always ends.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpv/mcpv/internal/lazy"
)

// The bounds of the notification queue; the dispatcher holds at most as
// much again, the batch it is handling.
const (
	maxQueuedNotes = 10000
	maxQueuedBytes = 4 << 20
)

// queuedNote is a notification waiting for the dispatcher, or the notice
// of the ones dropped.
type queuedNote struct {
	method string
	params json.RawMessage
	key    string // what it supersedes (supersedeKey)
	seq    uint64
	notice bool // where notifications were dropped: report the count here
	dead   bool // superseded by a later one: skip it
}

// noteQueue is a bounded FIFO of notifications with one producer (the
// reader) and one consumer (the dispatcher). push never blocks.
type noteQueue struct {
	mu     sync.Mutex     // guards the fields below
	items  []queuedNote   // waiting, oldest first
	live   int            // items neither dead nor notices
	dead   int            // dead items
	bytes  int            // the params of the live items
	latest map[string]int // supersession key → index in items of the last item with it
	closed bool           // no more pushes; take drains what is left
	hold   bool           // a full queue holds push until take (NoteBackPressure); set before use
	wake   chan struct{}  // 1-buffered: a push or close since the consumer last looked
	room   lazy.Signal    // fired when take empties the queue
	seq    uint64         // the sequence number last given
	done   uint64         // every item up to this number has been handled
	moved  lazy.Signal    // fired when done advances

	// Dropped notifications not reported yet, and whether a notice is
	// queued or being handled, which will report them.
	droppedLogs, droppedOther int
	noticeOut                 bool
}

func newNoteQueue(hold bool) noteQueue {
	return noteQueue{wake: make(chan struct{}, 1), latest: map[string]int{}, hold: hold}
}

// push queues a notification; key names what it supersedes
// (supersedeKey). A full queue holding its pushes waits until take empties
// it, or stop is closed; else, or then, a full queue takes it in place of
// the last item with the same key when the bytes allow, or drops it.
func (q *noteQueue) push(m message, key string, stop <-chan struct{}) {
	q.mu.Lock()
	if q.hold {
		q.waitRoom(len(m.Params), stop)
	}
	full := q.full(len(m.Params))
	old, supersedes := q.latest[key]
	switch {
	case !full:
	case key != "" && supersedes && q.bytes-len(q.items[old].params)+len(m.Params) <= maxQueuedBytes:
		// It takes the place of the one it supersedes, if the bytes allow:
		// a larger one must not grow the queue past its bound.
		q.kill(old)
	default:
		q.drop(m.Method)
		q.mu.Unlock()
		return
	}
	q.seq++
	if key != "" {
		q.latest[key] = len(q.items)
	}
	// A copy: m.Params lies in the whole message (in a batch, in all of
	// it), which would stay alive as long as the note waits, and the
	// bound counts only the params.
	q.items = append(q.items, queuedNote{method: m.Method, params: bytes.Clone(m.Params), key: key, seq: q.seq})
	q.live++
	q.bytes += len(m.Params)
	if q.dead > 64 && q.dead > len(q.items)/2 {
		q.compact()
	}
	q.mu.Unlock()
	lazy.Wake(q.wake)
}

// waitRoom waits, with q.mu let go, until a notification of n bytes of
// params finds room, or stop is closed (q.mu held).
func (q *noteQueue) waitRoom(n int, stop <-chan struct{}) {
	for q.full(n) {
		room := q.room.C()
		q.mu.Unlock()
		select {
		case <-room:
		case <-stop:
			q.mu.Lock()
			return
		}
		q.mu.Lock()
	}
}

// full reports whether a notification of n bytes of params finds the
// queue full (q.mu held).
func (q *noteQueue) full(n int) bool {
	return q.live >= maxQueuedNotes || q.live > 0 && q.bytes+n > maxQueuedBytes
}

// kill marks items[i], a live item, superseded: its params are let go and
// the dispatcher skips it.
func (q *noteQueue) kill(i int) {
	it := &q.items[i]
	q.live--
	q.dead++
	q.bytes -= len(it.params)
	*it = queuedNote{seq: it.seq, dead: true}
}

// drop counts a notification that did not fit, and queues the notice
// that will report it unless one is out already.
func (q *noteQueue) drop(method string) {
	if method == "notifications/message" {
		q.droppedLogs++
	} else {
		q.droppedOther++
	}
	if q.noticeOut {
		return
	}
	q.noticeOut = true
	q.seq++
	q.items = append(q.items, queuedNote{seq: q.seq, notice: true})
}

// compact takes the dead items out of the queue.
func (q *noteQueue) compact() {
	kept := q.items[:0]
	clear(q.latest)
	for _, it := range q.items {
		if it.dead {
			continue
		}
		if it.key != "" {
			q.latest[it.key] = len(kept)
		}
		kept = append(kept, it)
	}
	clear(q.items[len(kept):])
	q.items, q.dead = kept, 0
}

// dropped returns the count of dropped notifications not reported yet, and
// lets the next drop queue a notice of its own.
func (q *noteQueue) dropped() (logs, other int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	logs, other = q.droppedLogs, q.droppedOther
	q.droppedLogs, q.droppedOther, q.noticeOut = 0, 0, false
	return logs, other
}

// count reports the sequence number given last.
func (q *noteQueue) count() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.seq
}

// handled records that the consumer has handled every item up to seq.
func (q *noteQueue) handled(seq uint64) {
	q.mu.Lock()
	q.done = max(q.done, seq)
	q.moved.Fire()
	q.mu.Unlock()
}

// wait returns once every item up to seq n has been handled, ctx has
// ended, or stopped (the consumer's end) is closed.
func (q *noteQueue) wait(ctx context.Context, stopped <-chan struct{}, n uint64) {
	for {
		q.mu.Lock()
		if q.done >= n {
			q.mu.Unlock()
			return
		}
		moved := q.moved.C()
		q.mu.Unlock()
		select {
		case <-moved:
		case <-ctx.Done():
			return
		case <-stopped:
			return
		}
	}
}

func (q *noteQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	lazy.Wake(q.wake)
}

// take waits for items and returns all that are queued, oldest first;
// false once the queue is closed and empty.
func (q *noteQueue) take() ([]queuedNote, bool) {
	for {
		q.mu.Lock()
		items, closed := q.items, q.closed
		q.items, q.live, q.dead, q.bytes = nil, 0, 0, 0
		clear(q.latest)
		q.room.Fire()
		q.mu.Unlock()
		if len(items) > 0 {
			return items, true
		}
		if closed {
			return nil, false
		}
		<-q.wake
	}
}

// dispatch hands the queued notifications to OnNotification in order, and
// reports dropped ones where their notice stands.
func (s *Session) dispatch() {
	defer close(s.noted)
	for {
		batch, ok := s.notes.take()
		if !ok {
			return
		}
		for _, it := range batch {
			switch {
			case it.notice:
				logs, other := s.notes.dropped()
				switch {
				case s.opts.OnDropped != nil:
					s.opts.OnDropped(logs, other)
				case other == 0:
					s.opts.Log.Warn(fmt.Sprintf("dropped %d log messages from the server: they came faster than they could be shown", logs))
				default:
					s.opts.Log.Warn(fmt.Sprintf("dropped %d notifications from the server (%d of them log messages): they came faster than they could be handled", logs+other, logs))
				}
			case it.dead:
			case s.opts.OnNotification != nil:
				s.opts.OnNotification(it.method, it.params)
			}
		}
		s.notes.handled(batch[len(batch)-1].seq)
	}
}

// supersedeField is the member of a notification's params that names
// what it supersedes, by method (made at its first use, not at start-up).
var supersedeField = &lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{"notifications/progress": "progressToken", "notifications/tasks/status": "taskId", "notifications/resources/updated": "uri"}
}}

// supersedeKey names what a notification supersedes when the queue is
// full: an earlier progress for the same token, status of the same task,
// update of the same resource, change of the same list; "" for nothing.
func supersedeKey(method string, params json.RawMessage) string {
	field, ok := supersedeField.Get()[method]
	if !ok {
		if _, list := ListChanged(method); list || method == "notifications/roots/list_changed" {
			return method
		}
		return ""
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p[field] == nil {
		return ""
	}
	return method + " " + string(p[field])
}
