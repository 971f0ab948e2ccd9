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
	"sync"
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
	state.mu.Lock()
	state.tuned, state.deferred, state.percent, state.limit = true, true, percent, math.MaxInt64
	state.mu.Unlock()
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	runtime.AddCleanup(new(sentinel), func(int) {
		state.mu.Lock()
		debug.SetGCPercent(state.percent)
		debug.SetMemoryLimit(state.limit)
		state.deferred = false
		state.mu.Unlock()
		if done != nil {
			done()
		}
	}, 0)
}

// state is what Defer set up, for Raise.
var state struct {
	mu       sync.Mutex // guards the fields below, and orders Raise with the first collection
	tuned    bool       // Defer was called: the user left the collector to mcpv
	deferred bool       // collection is off until the first collection
	percent  int        // the GOGC the first collection sets
	limit    int64      // the memory limit the first collection sets
}

// Raise sets GOGC to percent for the rest of a run that allocates steadily
// for long (mcpv load), trading memory (up to 1+percent/100 times what is
// live) for less collecting: from the first collection on when Defer still
// holds collection off, else at once. It does nothing unless Defer was
// called, so a GOGC or GOMEMLIMIT the user set holds.
func Raise(percent int) {
	whenOn(func() { state.percent = percent }, func() { debug.SetGCPercent(percent) })
}

// whenOn records a setting for the first collection to make (record),
// and makes it at once (apply) when collection is on already; nothing
// unless Defer was called.
func whenOn(record, apply func()) {
	state.mu.Lock()
	defer state.mu.Unlock()
	if !state.tuned {
		return
	}
	record()
	if !state.deferred {
		apply()
	}
}

// Bound sets a soft limit of bytes on the heap for the rest of a run
// whose heap is a multiple of its input (mcpv audit of a surface of
// 60 MiB): the collector runs before the heap doubles past it. From the
// first collection on when Defer still holds collection off, else at
// once. It does nothing unless Defer was called, so a GOGC or GOMEMLIMIT
// the user set holds.
func Bound(bytes int64) {
	whenOn(func() { state.limit = bytes }, func() { debug.SetMemoryLimit(bytes) })
}

// Settle ends a deferral still in force with a collection now: for a run
// that turns out long and steady (a list of many pages written as they
// come), which is better collected as usual from a small heap than let
// grow to Defer's limit first. It does nothing once collection is on, or
// when Defer was not called.
func Settle() {
	state.mu.Lock()
	deferred := state.deferred
	state.mu.Unlock()
	if deferred {
		runtime.GC() // frees the sentinel, whose cleanup turns collection on
	}
}
