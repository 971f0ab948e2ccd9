package load

import (
	"cmp"
	"context"
	"encoding/json"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// idlePoll is how often an idle session of a closed loop in stages looks
// whether the stages want it busy.
const idlePoll = 20 * time.Millisecond

// A session that fails to open is tried again after a pause that starts
// at setupPause and doubles with each failure in a row, up to
// setupPauseMax: a server that is down is not started or dialled again
// at full speed by every session, and one that comes back is found
// within a second. An iteration is not lost to the pause: it is the one
// that failed, counted once.
const (
	setupPause    = 10 * time.Millisecond
	setupPauseMax = time.Second
)

// nextPause is the pause after a set-up failure that followed one of
// prev (0: the first failure in a row).
func nextPause(prev time.Duration) time.Duration {
	if prev == 0 {
		return setupPause
	}
	return min(2*prev, setupPauseMax)
}

// worker is session i of the run: it runs iterations until the plan ends,
// the run is cut or interrupted. A session held open is opened at its
// first iteration and again after one that ended under it.
func (r *run) worker(i int) {
	var s *Session
	var pause time.Duration // after the set-up failures in a row; 0 after a session opened
	defer func() {
		if s != nil {
			r.closeSession(s)
		}
	}()
	for {
		k, late, ok := r.nextIteration(i)
		if !ok {
			return
		}
		op, params := 0, json.RawMessage(nil)
		var st *mcp.Streamed
		var err error
		if r.cfg.Steps == nil {
			op = r.pick.pick(k)
			if params, st, err = r.params(op, k, i); err != nil {
				r.failed(op, "template", err, late)
				continue
			}
		}
		if s == nil && r.shared == nil {
			if s = r.first.Swap(nil); s == nil {
				if pause > 0 && !r.sleep(pause) {
					return
				}
				t := time.Now()
				if s, err = r.cfg.Open(r.ctx); err != nil {
					if r.cfg.Steps != nil {
						op = -1 // no step's
					}
					r.failed(op, "setup", err, late)
					pause = nextPause(pause)
					continue
				}
				pause = 0
				r.rec.session(false, time.Since(t))
			}
		}
		session := cmp.Or(r.shared, s)
		if r.cfg.Steps != nil {
			r.pass(k, i, session.Client, late)
		} else {
			t := time.Now()
			_, err = r.cfg.Ops[op].result(r.ctx, session.Client, params, st)
			if err != nil {
				r.failed(op, "operation", err, late)
			} else {
				r.rec.operation(op, time.Since(t)+late, late)
			}
		}
		if s != nil && (r.cfg.NewSession || ended(s)) {
			r.closeSession(s)
			s = nil
		}
	}
}

// params are the request of iteration k of session i: the operation's
// own, or, when it varies, made from its templates (not timed: a
// template's cost is mcpv's, not the server's), with the string it
// streams from a large row (streamed).
func (r *run) params(op int, k int64, i int) (json.RawMessage, *mcp.Streamed, error) {
	o := &r.cfg.Ops[op]
	if !o.Varies() {
		return o.params, nil, nil
	}
	if params, st, ok, err := r.streamed(o, k, i); ok || err != nil {
		return params, st, err
	}
	in, err := r.input(k, i)
	if err != nil {
		return nil, nil, err
	}
	params, err := o.Params(r.ctx, in)
	return params, nil, err
}

// ended reports whether s ended under the run (its server gone).
func ended(s *Session) bool {
	select {
	case <-s.Client.Done():
		return true
	default:
		return false
	}
}

// failed records an iteration's failure, unless the run was interrupted
// (what was in flight then is no measurement) or cut at its end (counted
// as unfinished).
func (r *run) failed(op int, phase string, err error, late time.Duration) {
	switch {
	case r.user.Err() != nil:
		return
	case r.ctx.Err() != nil && context.Cause(r.ctx) == errCut:
		r.rec.failure(op, phase, "unfinished", "still in flight when the run's time and its grace were over", late)
		return
	}
	kind, msg := classify(err, r.cfg.Mask)
	if phase == "template" {
		kind = "template" // the run's own mistake, not the server's
	}
	r.rec.failure(op, phase, kind, msg, late)
}

// nextIteration waits for session i's next iteration: its number, how far
// behind its schedule it starts, false when the run is over for i.
func (r *run) nextIteration(i int) (k int64, late time.Duration, ok bool) {
	for {
		if r.stopped.Load() || r.ctx.Err() != nil {
			return 0, 0, false
		}
		now := time.Now()
		if !r.end.IsZero() && !now.Before(r.end) {
			return 0, 0, false
		}
		if r.sched.fixedRate() {
			k = r.next.Add(1) - 1
			at, ok := r.sched.at(k)
			if !ok || r.cfg.Count > 0 && k >= r.cfg.Count {
				return 0, 0, false
			}
			r.started.Add(1)
			intended := r.start.Add(at)
			if d := intended.Sub(now); d > 0 && !r.sleep(d) {
				r.started.Add(-1)
				return 0, 0, false
			}
			return k, max(time.Since(intended), 0), true
		}
		if i >= r.sched.level(now.Sub(r.start)) {
			if !r.sleep(idlePoll) {
				return 0, 0, false
			}
			continue
		}
		k = r.next.Add(1) - 1
		if r.cfg.Count > 0 && k >= r.cfg.Count {
			return 0, 0, false
		}
		r.started.Add(1)
		return k, 0, true
	}
}

// sleep waits d, or less when the run ends first (false).
func (r *run) sleep(d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-r.ctx.Done():
		return false
	}
}
