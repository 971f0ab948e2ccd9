package jq

// Expressions someone else wrote (a mock's responses file, a test file of
// a cloned repository) run within bounds: of time, and of what the run
// allocates, so that one that never ends or grows without end fails its
// run with an error, and whoever runs it lives on.

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"time"
)

// Bounds are what one run may take.
type Bounds struct {
	// Time is how long the run may take.
	Time time.Duration
	// Alloc is how many bytes may be allocated while it runs (by the
	// whole process: what runs beside it counts too, so this is set far
	// above what an expression over a request's arguments needs).
	Alloc uint64
}

// Default are the bounds of a predicate over a request's arguments: far
// more than one needs, far less than would hold its caller up or fill
// its memory.
var Default = Bounds{Time: time.Second, Alloc: 64 << 20}

// LimitError is a run that went past its bounds.
type LimitError struct {
	What  string // "time" or "memory"
	Bound string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("the jq expression ran past its bound of %s (%s)", e.What, e.Bound)
}

// RunWithin is Run within b and ctx: past a bound the run ends with a
// *LimitError, and when ctx ends first with ctx's cause.
func (f *Filter) RunWithin(ctx context.Context, input any, b Bounds) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		ctx, stop := context.WithCancelCause(ctx)
		defer stop(nil)
		ctx, cancel := context.WithTimeoutCause(ctx, b.Time, &LimitError{"time", b.Time.String()})
		defer cancel()
		done := make(chan struct{})
		defer close(done)
		go watchAlloc(b.Alloc, done, func() { // allocation watcher: ends with the run
			stop(&LimitError{"memory", fmt.Sprintf("%d MiB allocated", b.Alloc>>20)})
		})
		outputs(f.code.RunWithContext(ctx, input, f.values...), func(v any, err error) bool {
			if err != nil && ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return yield(v, err)
		})
	}
}

// watchInterval is how often a run's allocation is looked at. (Through
// runtime.ReadMemStats, which stops the world for microseconds: not
// runtime/metrics, whose package builds its descriptions at init, on
// every start of mcpv, for the few commands that run jq.)
const watchInterval = 2 * time.Millisecond

// watchAlloc calls over, once, when the process has allocated more than
// limit bytes since it began, until done is closed.
func watchAlloc(limit uint64, done <-chan struct{}, over func()) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	start := m.TotalAlloc
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			runtime.ReadMemStats(&m)
			if m.TotalAlloc-start > limit {
				over()
				return
			}
		}
	}
}
