package gcstart

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

var keep [][]byte

// TestDefer: no collection below the limit; past it, one collection, and
// then GOGC and no memory limit again.
func TestDefer(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	defer debug.SetMemoryLimit(math.MaxInt64)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	restored := make(chan struct{})
	Defer(int64(before.Sys)+64<<20, 100, func() { close(restored) })

	// 16 MB of garbage in small pieces: below the limit, no collection.
	for range 4096 {
		_ = make([]byte, 4096)
	}
	var mid runtime.MemStats
	runtime.ReadMemStats(&mid)
	if mid.NumGC != before.NumGC {
		t.Fatalf("%d collections below the limit", mid.NumGC-before.NumGC)
	}
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("GOGC is %d before the limit, want off", p)
	}

	// Past the limit (garbage counts until it is collected): collected,
	// and the collector is back to normal.
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		select {
		case <-restored:
		case <-deadline:
			t.Fatalf("the collector was never set back (%d MB allocated)", 4*i)
		default:
			keep = append(keep[:0], make([]byte, 4<<20))
			continue
		}
		break
	}
	keep = nil
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if after.NumGC == before.NumGC {
		t.Error("no collection past the limit")
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC is %d after the first collection, want 100", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("the memory limit is %d after the first collection, want none", l)
	}
}

// TestRaise: a raise while collection is deferred takes effect at the
// first collection; after it, at once; without Defer, never.
func TestRaise(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	defer debug.SetMemoryLimit(math.MaxInt64)
	state.mu.Lock()
	state.tuned = false // as in a process whose user set GOGC (TestDefer has called Defer)
	state.mu.Unlock()

	Raise(300)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("GOGC is %d after a raise without Defer, want the user's 100", p)
	}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	restored := make(chan struct{})
	Defer(int64(before.Sys)+32<<20, 100, func() { close(restored) })
	Raise(400)
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("GOGC is %d while deferred, want off", p)
	}
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		select {
		case <-restored:
		case <-deadline:
			t.Fatalf("the collector was never set back (%d MB allocated)", 4*i)
		default:
			keep = append(keep[:0], make([]byte, 4<<20))
			continue
		}
		break
	}
	keep = nil
	if p := debug.SetGCPercent(400); p != 400 {
		t.Errorf("GOGC is %d after the first collection, want the raised 400", p)
	}
	Raise(250)
	if p := debug.SetGCPercent(250); p != 250 {
		t.Errorf("GOGC is %d after a raise past the first collection, want 250", p)
	}
}
