package check

// The main session's wire, as the run sees it: every message the session
// sends and receives, as it came (mcp.SessionOptions.Trace, through
// Target.Open's hooks), shown to the watches with its bytes as sent; the
// requests sent, so that a response is tied to the method it answers, a
// second response to an id is known as such, and an error whose id is
// null is taken as the answer to the call that waits for one (which the
// session itself cannot do). While the session opens, a sign that its
// first exchange went wrong (a response to an id never sent, stdout that
// is no JSON) starts the first-contact diagnosis at once (first.go),
// rather than after the connect timeout.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/mcp"
)

// mainWire watches the main session's wire.
type mainWire struct {
	r *runner

	mu       sync.Mutex         // guards the fields below
	sent     map[string]sentReq // requests sent and not yet answered, by idKey
	seq      int                // requests sent so far
	notified []string           // the methods of the notifications sent (noted)
	answered idSet
	asked    idSet              // ids of the server's requests, for one used twice
	given    given              // over stdio, the progress tokens of the session's requests, for progress after their completion
	strays   []string           // the last responses to ids never sent, as they came
	frags    *fragments         // stdio: lines of no JSON, held while they may make one message (a piece held starts the first-contact diagnosis: the session's warnings of such lines stop after a few)
	alarm    func()             // while the session opens, told that its first exchange went wrong; nil once it is open
	calls    map[*mainCall]bool // the checks' calls in flight on the main session
	done     bool               // the run has ended: what comes is for no one
	last     map[string]string  // the last response to each method, as it came
	offered  string             // the version the session's initialize offered
	replied  idSet              // ids of the server's requests the session answered
	began    time.Time          // when the session's notifications/initialized was sent
	pinged   []time.Time        // when the server's first two pings of the session came
	pings    lazy.Signal        // fired at each ping of the server's (pingsAgain)
}

// sentReq is a request the main session sent.
type sentReq struct {
	method string
	seq    int
}

// mainCall is a check's call on the main session, which an error with a
// null id may end.
type mainCall struct {
	methods []string // what it may send
	cancel  context.CancelCauseFunc
	stray   *strayAnswer // an answer under an id no request waiting had, which may be its; under mainWire.mu
}

// nullAnswer ends a call on the main session: an error whose id is null
// came while it waited, which is its answer when it was the only call in
// flight (ambiguous otherwise).
type nullAnswer struct {
	err       *mcp.RPCError
	raw       string
	ambiguous bool
}

func (e *nullAnswer) Error() string {
	return "the server answered with an error whose id is null: " + clip(e.raw, 200)
}

const maxSent = 4096 // requests of the main session remembered unanswered

// trace is the main session's Trace hook: called on the session's reader
// goroutine for what it receives, on the writer's for what it sends.
func (w *mainWire) trace(out bool, data []byte) {
	if out {
		w.sending(data)
		return
	}
	if w.r.target.Stdio != nil && !json.Valid(data) && len(data) <= maxFragmentBytes {
		w.frags.piece(seenLine{data, true})
		return
	}
	w.frags.flush()
	w.take(unitsOf(data, "session", "", false, w.r.target.Stdio != nil))
}

// sending records the requests of what the session sends.
func (w *mainWire) sending(data []byte) {
	msgs, err := mcp.DecodeMessages(data)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range msgs {
		if m.IsNotification() && !slices.Contains(w.notified, m.Method) {
			w.notified = append(w.notified, m.Method)
		}
		if m.IsRequest() && len(w.sent) < maxSent {
			w.seq++
			w.sent[idKey(m.ID)] = sentReq{method: m.Method, seq: w.seq}
		}
		if w.r.target.Stdio != nil { // over HTTP the session's streams are not told apart here
			w.given.sent(m)
		}
		if m.Method == "initialize" {
			w.offered, _ = str(member(m.Params, "protocolVersion"))
		}
		if m.Method == "notifications/initialized" && w.began.IsZero() {
			w.began = time.Now()
		}
		if m.IsResponse() && m.ID != nil {
			w.replied.add(idKey(m.ID))
		}
	}
}

// fire tells the alarm that the first exchange went wrong, while the
// session opens.
func (w *mainWire) fire() {
	if fire := locked(&w.mu, func() func() { return w.alarm }); fire != nil {
		fire()
	}
}

// take ties the responses received to the requests sent, and shows the
// messages to the watches.
func (w *mainWire) take(out []seen) {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return
	}
	alarm := false
	var null *seen         // an error with a null id, taken as the answer to the request waiting longest
	var stray *strayAnswer // an answer under an id no request waiting had
	for i := range out {
		s := &out[i]
		m := s.msg
		if s.bad != "" || s.framing {
			alarm = alarm || s.framing || s.via == "stdout"
			continue
		}
		if m.IsRequest() {
			s.reused = reuse(&w.asked, &w.replied, m.ID)
		}
		if m.IsRequest() && m.Method == "ping" {
			if len(w.pinged) < 2 {
				w.pinged = append(w.pinged, time.Now())
			}
			w.pings.Fire()
		}
		if w.r.target.Stdio != nil {
			w.given.answered(m, "stdout")
			s.spent = w.given.late(m, "stdout")
		}
		s.strayCancel = m.Method == "notifications/cancelled" && !w.asked.has(idKey(member(m.Params, "requestId")))
		if !m.IsResponse() {
			continue
		}
		if m.ID == nil {
			if m.Error != nil && m.Error.Code == mcp.CodeParseError && w.r.headers.Load() {
				continue // the answer to a line the server, which frames with headers, could not read
			}
			if m.Error != nil && len(w.sent) > 0 && !answersNote(m.Error, w.notified) {
				// the request waiting longest, taken as answered
				key := slices.MinFunc(slices.Collect(maps.Keys(w.sent)), func(a, b string) int { return w.sent[a].seq - w.sent[b].seq })
				s.nullFor, s.method = w.sent[key].method, w.sent[key].method
				delete(w.sent, key)
				null = s
			}
			continue
		}
		k := idKey(m.ID)
		if req, ok := w.sent[k]; ok {
			s.method = req.method
			delete(w.sent, k)
			w.answered.put(k, answerDigest(m))
			if len(w.last) < 64 || w.last[req.method] != "" {
				w.last[req.method] = s.raw
			}
			continue
		}
		if st, twin := w.unmatched(s, k); twin {
			alarm = true
		} else if st != nil {
			stray = st
		}
	}
	fire := w.alarm
	var calls, strayed []*mainCall
	for c := range w.calls {
		switch {
		case null != nil && (slices.Contains(c.methods, out[0].nullFor) || len(out) > 1):
			calls = append(calls, c)
		case stray != nil && c.stray == stray && len(w.sent) == 1 && w.r.target.URL == "":
			strayed = append(strayed, c)
		}
	}
	w.mu.Unlock()
	if alarm && fire != nil {
		fire()
	}
	for _, c := range calls {
		c.cancel(&nullAnswer{err: null.msg.Error, raw: null.raw, ambiguous: len(calls) > 1})
	}
	for _, c := range strayed {
		c.cancel(stray)
	}
	for _, s := range out {
		w.r.watches.see(s)
	}
}

// unmatched says what s, a response under k that no request waiting
// had, is: the same answer again (dup), a twin (alarm), or an answer
// under an id not pending (unpending), given to the calls that may have
// sent what it answers: over stdio the one request waiting, whose wait
// take ends; over HTTP, where the answer that held it fails its call,
// for that failure to be named (call); mu must be held.
func (w *mainWire) unmatched(s *seen, k string) (_ *strayAnswer, twin bool) {
	was := w.answered.has(k)
	if was && w.answered.ids[k] == answerDigest(s.msg) {
		s.dup = true
		return nil, false
	}
	for sk := range w.sent {
		if !was && strings.TrimPrefix(strings.TrimPrefix(sk, "n:"), "s:") == twinKey(s.msg.ID) {
			s.twin = sk[2:]
		}
	}
	switch {
	case s.twin != "":
		return nil, true
	case !was:
		w.strays = append(w.strays[max(0, len(w.strays)-7):], s.raw)
		if w.r.target.URL != "" {
			return nil, false // it may have come on the GET stream, which answers no request: http.get-no-response's
		}
	}
	waits, meant := w.waiting()
	if s.unpending = unpending(&idSet{}, &w.answered, k, s.msg, waits); s.unpending == "" || len(waits) == 0 {
		return nil, false
	}
	s.meant = meant[0]
	stray := &strayAnswer{raw: s.raw, said: s.unpending}
	for c := range w.calls {
		if slices.ContainsFunc(c.methods, func(m string) bool { return slices.Contains(meant, m) }) {
			c.stray = stray
		}
	}
	return stray, false
}

// waiting names the requests sent and not answered, the oldest first,
// three at most, and gives the methods of them all; mu must be held.
func (w *mainWire) waiting() (said, methods []string) {
	for i, k := range slices.SortedFunc(maps.Keys(w.sent), func(a, b string) int { return w.sent[a].seq - w.sent[b].seq }) {
		methods = append(methods, w.sent[k].method)
		if i < 3 {
			id := k[2:]
			if k[0] == 's' {
				id = strconv.Quote(id)
			}
			said = append(said, fmt.Sprintf("%s (id %s)", w.sent[k].method, clip(id, 60)))
		}
	}
	return said, methods
}

// end stops the watch: the run has its results.
func (w *mainWire) end() {
	withLock(&w.mu, func() { w.done = true })
}

// opened ends the watch for the first exchange.
func (w *mainWire) opened() {
	withLock(&w.mu, func() { w.alarm = nil })
}

// call runs fn, a call on the main session, under a context that an
// error with a null id ends (nullAnswer).
func (w *mainWire) call(ctx context.Context, methods []string, fn func(ctx context.Context) (json.RawMessage, error)) (json.RawMessage, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c := &mainCall{methods: methods, cancel: cancel}
	withLock(&w.mu, func() { w.calls[c] = true })
	var res json.RawMessage
	err := w.r.answered(ctx, func(ctx context.Context) (err error) {
		res, err = fn(ctx)
		return err
	})
	stray := locked(&w.mu, func() *strayAnswer { delete(w.calls, c); return c.stray })
	var na *nullAnswer
	var sa *strayAnswer
	var te *mcp.TransportError
	switch cause := context.Cause(ctx); {
	case err != nil && (errors.As(cause, &na) || errors.As(cause, &sa)):
		return nil, cause
	case stray != nil && errors.As(err, &te):
		return nil, stray // over HTTP: the answer held no response to the call, but that
	}
	return res, err
}

// errorID is the check that names an error answered with a null id.
const errorID = "jsonrpc.error-id"

// lastAnswer is the last response to method the session received, as it
// came, or "".
func (w *mainWire) lastAnswer(method string) string {
	return locked(&w.mu, func() string { return w.last[method] })
}

// stray is the last response to an id no request of the session had, as
// it came, or "".
func (w *mainWire) stray() string {
	return locked(&w.mu, func() string { return lastOf(w.strays) })
}

// pingTimes are when the session's initialized notification was sent
// (zero before it, and in the 2026-07-28 era, which has none), when the
// server's first two pings of the session came, and a channel closed at
// the next.
func (w *mainWire) pingTimes() (began time.Time, pinged []time.Time, next <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.began, slices.Clone(w.pinged), w.pings.C()
}
