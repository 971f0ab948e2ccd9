// Package gcstart tunes Go's garbage collector for mcpv's short runs.
//
// Most runs of mcpv last a few tens of milliseconds and allocate a few
// megabytes, yet with Go's default (GOGC=100 from a 4 MB heap) they collect
// several times while start-up builds its tables. Collecting nothing until
// the heap is large costs such a run nothing in memory that matters and
// saves that work; a run that grows past the threshold (a 100 MB result, a
// long batch) is collected as usual from then on.
package gcstart

import (
	"math"
	"runtime"
	"runtime/debug"
)

// sentinel is an object the first collection frees: large enough, and with
// a pointer, not to share a tiny allocation with anything that lives on.
type sentinel struct {
	_ *int
	_ [6]uintptr
}

// Defer turns collection off until the heap (all the memory the Go runtime
// holds) first nears limit bytes, then sets the collector back to percent
// (GOGC) with no memory limit. done, if not nil, is called once that has
// happened. A caller leaves the collector alone when the user set GOGC or
// GOMEMLIMIT.
func Defer(limit int64, percent int, done func()) {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	runtime.AddCleanup(new(sentinel), func(int) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(math.MaxInt64)
		if done != nil {
			done()
		}
	}, 0)
}
