package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// Latencies are kept in microseconds from 1 µs to a day, to three
// significant digits: a histogram of fixed size (about 200 KB), whatever
// the run's length. A longer latency is kept as a day, and counted.
const (
	lowest  = 1
	highest = int64(24 * time.Hour / time.Microsecond)
	digits  = 3
)

func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(lowest, highest, digits) }

// maxKinds bounds the kinds of error a run tells apart (a server chooses
// its JSON-RPC codes); the rest are counted together.
const maxKinds = 32

// recorder gathers what a run measures. One mutex guards it all: a record
// is a few array updates, and even tens of thousands a second hold the lock
// for a small part of one core.
type recorder struct {
	mu        sync.Mutex // guards every field below
	latency   *hdrhistogram.Histogram
	setup     *hdrhistogram.Histogram
	closing   *hdrhistogram.Histogram
	perOp     []*hdrhistogram.Histogram // by operation, for a mix
	okOps     []int64                   // succeeded, by operation
	failedOps []int64                   // failed, by operation
	ok        int64                     // operations that succeeded
	failed    int64                     // iterations that failed, at set-up or in the operation
	clamped   int64                     // latencies beyond highest
	errs      map[errorKey]*errorCount
	order     []errorKey // errs in the order first seen
	late      time.Duration
	lateCount int64 // iterations that started more than lateBy behind schedule
	// The window: what the iterations since the monitor last looked did,
	// for the timeline.
	window       *hdrhistogram.Histogram
	windowErrors int64
}

// lateBy is how far behind schedule an iteration may start before the run
// says that it did not hold its rate.
const lateBy = 10 * time.Millisecond

type errorKey struct {
	phase, kind string
	op          int // the operation or step; -1: none
}

type errorCount struct {
	n       int64
	example string // the first message of the kind, masked and safe for a terminal
}

func newRecorder(ops int, steps bool) *recorder {
	r := &recorder{latency: newHistogram(), setup: newHistogram(), closing: newHistogram(), window: newHistogram(),
		okOps: make([]int64, ops), failedOps: make([]int64, ops), errs: map[errorKey]*errorCount{}}
	if ops > 1 || steps {
		for range ops {
			r.perOp = append(r.perOp, newHistogram())
		}
	}
	return r
}

func (r *recorder) record(h *hdrhistogram.Histogram, d time.Duration) {
	v := max(int64(d/time.Microsecond), lowest)
	if v > highest {
		v = highest
		r.clamped++
	}
	h.RecordValue(v)
}

// operation records op's success and latency: a step of a one-step
// pass, counted under one hold of the lock (every worker's success
// takes it, and a reader sees the step and the pass together).
func (r *recorder) operation(op int, d, late time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stepped(op, d)
	r.passed(d, late)
}

func (r *recorder) lateness(late time.Duration) {
	r.late = max(r.late, late)
	if late > lateBy {
		r.lateCount++
	}
}

// step records a scenario's step j (or a mix's operation) that
// succeeded, and its latency.
func (r *recorder) step(j int, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stepped(j, d)
}

// stepped is step with mu held.
func (r *recorder) stepped(j int, d time.Duration) {
	r.okOps[j]++
	if r.perOp != nil {
		r.record(r.perOp[j], d)
	}
}

// pass records a pass through a scenario whose steps all succeeded.
func (r *recorder) pass(d, late time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.passed(d, late)
}

// passed is pass with mu held.
func (r *recorder) passed(d, late time.Duration) {
	r.ok++
	r.record(r.latency, d)
	r.record(r.window, d)
	r.lateness(late)
}

// session records how long a session took to open or to close.
func (r *recorder) session(closing bool, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if closing {
		r.record(r.closing, d)
	} else {
		r.record(r.setup, d)
	}
}

// failure records an iteration that failed in phase ("setup",
// "operation"); op < 0 is none.
func (r *recorder) failure(op int, phase, kind, message string, late time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed++
	r.windowErrors++
	if op >= 0 {
		r.failedOps[op]++
	}
	r.lateness(late)
	r.count(phase, kind, message, 1, op)
}

// count adds n errors of a kind, of operation op (-1: none); past
// maxKinds kinds, to "other".
func (r *recorder) count(phase, kind, message string, n int64, op int) {
	k := errorKey{phase, kind, op}
	c := r.errs[k]
	if c == nil && len(r.errs) >= maxKinds {
		k.kind, k.op, message = "other", -1, "(more kinds of error than a report tells apart)"
		c = r.errs[k]
	}
	if c == nil {
		c = &errorCount{example: message}
		r.errs[k] = c
		r.order = append(r.order, k)
	}
	c.n += n
}

// takeWindow is what the iterations did since it was last called, as a
// point of the timeline at t (seconds from the start) over span seconds.
func (r *recorder) takeWindow(t, span float64) TimePoint {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.window
	p := TimePoint{T: t, Span: span, OK: w.TotalCount(), Errors: r.windowErrors}
	if p.OK > 0 {
		ms := func(v int64) float64 { return float64(v) / 1000 }
		p.P50, p.P90, p.P99, p.Max = ms(w.ValueAtQuantile(50)), ms(w.ValueAtQuantile(90)), ms(w.ValueAtQuantile(99)), ms(w.Max())
	}
	w.Reset()
	r.windowErrors = 0
	return p
}

// progress is what the live line shows.
func (r *recorder) progress() (done, failed int64, p99 time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ok + r.failed, r.failed, time.Duration(r.latency.ValueAtQuantile(99)) * time.Microsecond
}

// classify names the kind of an error: JSON-RPC CODE, tool error, timeout,
// auth, capability, transport. mask hides the run's secrets in its message.
func classify(err error, mask func(string) string) (kind, message string) {
	var ce *mcp.CallError
	var se *mcp.StatusError
	switch {
	case errors.Is(err, errToolFailed):
		kind = "tool error"
	case errors.As(err, new(*ExpectationError)):
		kind = "expectation"
	case errors.As(err, &ce):
		kind = fmt.Sprintf("JSON-RPC %d", ce.Err.Code)
	case errors.As(err, new(*mcp.TimeoutError)), errors.Is(err, context.DeadlineExceeded):
		kind = "timeout"
	case errors.As(err, new(*mcp.AuthError)):
		kind = "auth"
	case errors.As(err, &se):
		kind = fmt.Sprintf("HTTP %d", se.Status)
	case errors.As(err, new(*mcp.CapabilityError)):
		kind = "capability"
	default:
		kind = "transport"
	}
	message = err.Error()
	if mask != nil {
		message = mask(message)
	}
	return kind, safetext.Line(safetext.Clip(message, 200))
}
