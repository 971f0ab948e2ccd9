package check

// Watches: checks that no single request shows, of every message the run
// receives, on every connection and in the main session. Each watch
// check's watch function is shown each message and says how it breaks
// the requirement; the check's result, at the end of the run, is the
// first message that did (and how many did), or a pass that says how
// many messages were watched. What arrives before the facts are known (a
// notification during the main session's start) is kept and shown to
// the watches once they are.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sync"
)

// watchCtx is what a watch knows of the run.
type watchCtx struct {
	f          *facts
	tokens     map[string]bool // progress tokens the run's own requests carried
	secrets    []string        // what no message may show: the run's secrets
	only, skip []string        // choose the run's checks (Selected)
}

// runs reports whether the run runs the check of id.
func (w *watchCtx) runs(id string) bool {
	c := checkByID(id)
	return c != nil && Selected(c, w.only, w.skip)
}

type watches struct {
	r *runner

	mu         sync.Mutex // guards the fields below
	f          *facts     // the run's facts, once known
	early      []seen     // seen before the facts were known
	ready      bool
	tokens     map[string]bool
	found      map[*Check]*finding
	watched    int
	nullCursor *seen // the first result seen with "nextCursor": null, for lists.shape
	nullResult *seen // the first result with a null id, which no request has: it answers a notification (jsonrpc.notification)
}

// finding is how a watch found the requirement broken.
type finding struct {
	first seen
	why   string
	count int
}

// token records a progress token a request of the run carries.
func (w *watches) token(raw json.RawMessage) {
	withLock(&w.mu, func() { w.tokens[idKey(raw)] = true })
}

// see shows one message to every watch.
func (w *watches) see(s seen) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.flush(); !w.ready {
		if len(w.early) < maxLog {
			w.early = append(w.early, s)
		}
		return
	}
	w.judge(s)
}

// flush judges what came before the facts were known, once they are;
// mu must be held.
func (w *watches) flush() {
	if w.ready || w.f == nil {
		return
	}
	w.ready = true
	for _, e := range w.early {
		w.judge(e)
	}
	w.early = nil
}

// judge runs every watch of the catalogue on s; mu must be held.
func (w *watches) judge(s seen) {
	s.era = cmp.Or(s.era, w.f.era)
	if s.version == "" && s.via != "stdout" {
		s.version = w.f.version
	}
	w.watched++
	if s.nullCursor && w.nullCursor == nil {
		w.nullCursor = &s
	}
	if s.bad == "" && !s.unpaired && s.msg.IsResponse() && s.msg.ID == nil && s.msg.Result != nil && w.nullResult == nil {
		w.nullResult = &s
	}
	ctx := &watchCtx{f: w.f, tokens: w.tokens, secrets: w.r.secrets, only: w.r.opts.Only, skip: w.r.opts.Skip}
	for _, c := range Catalogue() {
		if c.watch == nil {
			continue
		}
		if why := c.watch(ctx, s); why != "" {
			w.found1(c, s, why)
		}
	}
}

// found1 counts s against c, which finds it breaks c's requirement as
// why says; mu must be held.
func (w *watches) found1(c *Check, s seen, why string) {
	f := w.found[c]
	if f == nil {
		f = &finding{first: s, why: why}
		w.found[c] = f
	}
	f.count++
}

// finds says whether a message broke c's requirement.
func (w *watches) finds(c *Check) bool {
	return locked(&w.mu, func() bool { return w.found[c] != nil })
}

// add counts against c what a watch check's run found beyond the
// messages (what one message holds, judged in parts).
func (w *watches) add(c *Check, s seen, why string) {
	withLock(&w.mu, func() { w.found1(c, s, why) })
}

// result gives a watch check its outcome: what the watch found.
func (w *watches) result(t *T) {
	w.mu.Lock()
	w.flush()
	var f *finding
	if found := w.found[t.check]; found != nil {
		copied := *found
		f = &copied
	}
	n := w.watched
	w.mu.Unlock()
	if f == nil {
		t.Note("%d messages watched", n)
		return
	}
	more := ""
	if f.count > 1 {
		more = fmt.Sprintf(" (and %d more)", f.count-1)
	}
	t.failIf(t.check.private, "%s%s", f.why, more)
	t.FailGot(f.first.raw, "%s%s", f.why, more)
}

// firstNulls are the first result seen with a null id and the first
// with "nextCursor": null, each nil when none came.
func (w *watches) firstNulls() (result, cursor *seen) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flush()
	return w.nullResult, w.nullCursor
}
