// Package jqlimit runs jq expressions that someone else wrote (a mock's
// responses file, a file of a cloned repository) within bounds: of time,
// of what the run allocates, and with no access to mcpv's environment
// ($ENV and env are empty), so that an expression that never ends or
// grows without end fails its run with an error, and whoever runs it
// lives on.
package jqlimit

import (
	"context"
	"fmt"
	"runtime/metrics"
	"time"

	"github.com/itchyny/gojq"
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

// Compile compiles a parsed expression with no access to the
// environment, and with the variables named (each "$name"), whose values
// Run is given.
func Compile(q *gojq.Query, vars ...string) (*gojq.Code, error) {
	return gojq.Compile(q, gojq.WithEnvironLoader(func() []string { return nil }), gojq.WithVariables(vars))
}

// Run runs code on input within b (and ctx), handing each output to fn
// until it returns false; values are those of the variables code was
// compiled with, in order. It returns the run's first error, a
// *LimitError when a bound ended it, or ctx's error.
func Run(ctx context.Context, code *gojq.Code, input any, b Bounds, fn func(v any) bool, values ...any) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	ctx, cancel := context.WithTimeoutCause(ctx, b.Time, &LimitError{"time", b.Time.String()})
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go watchAlloc(b.Alloc, done, func() { // ends with the run
		stop(&LimitError{"memory", fmt.Sprintf("%d MiB allocated", b.Alloc>>20)})
	})
	iter := code.RunWithContext(ctx, input, values...)
	for {
		v, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := v.(error); isErr {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return err
		}
		if !fn(v) {
			return nil
		}
	}
}

// allocMetric is the bytes the process has allocated so far.
const allocMetric = "/gc/heap/allocs:bytes"

// watchInterval is how often a run's allocation is looked at.
const watchInterval = time.Millisecond

// watchAlloc calls over, once, when the process has allocated more than
// limit bytes since it began, until done is closed.
func watchAlloc(limit uint64, done <-chan struct{}, over func()) {
	sample := []metrics.Sample{{Name: allocMetric}}
	metrics.Read(sample)
	start := sample[0].Value.Uint64()
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			metrics.Read(sample)
			if sample[0].Value.Uint64()-start > limit {
				over()
				return
			}
		}
	}
}
