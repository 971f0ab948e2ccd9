package mcptest

import (
	"sync/atomic"
	"time"
)

// Latency is how long a fake takes to answer each tools/call, a
// distribution known in advance so that a load test can hold what it
// measures to it: Delay for every call, except that each Every-th call
// (the Every-th, the 2·Every-th...) takes Slow, and the call numbered
// StallAt (counting from 1) takes Stall, a stall that holds up whatever
// waits behind it. Calls are numbered in the order the fake receives
// them.
//
// Capacity, when above 0, is how many calls the fake works on at once:
// the others wait for one to finish, so that the fake holds at most
// Capacity/Delay calls a second, a known breaking point. (HTTP fake.)
type Latency struct {
	Delay    time.Duration
	Every    int
	Slow     time.Duration
	StallAt  int
	Stall    time.Duration
	Capacity int
}

// Of is how long the n-th call (from 1) takes.
func (l Latency) Of(n int) time.Duration {
	switch {
	case l.StallAt > 0 && n == l.StallAt:
		return l.Stall
	case l.Every > 0 && n%l.Every == 0:
		return l.Slow
	}
	return l.Delay
}

// latency is a Latency as a spec server keeps it (Spec.lat): the calls it
// has numbered, and the slots of its Capacity.
type latency struct {
	Latency
	serial bool          // one request at a time (the serial behaviour)
	slots  chan struct{} // a token for each call being worked on, when Capacity bounds them
	n      atomic.Int64  // the tools/call requests numbered so far
}

// run answers a tools/call (answer) once its time has passed: in turn
// under serial, holding up every request after it, or aside, each on its
// own clock; when the client goes first, nothing is answered. A call
// waits for a slot first, over HTTP (where aside is at once).
func (l *latency) run(out specOut, answer func()) {
	if l.slots != nil {
		select {
		case l.slots <- struct{}{}:
			defer func() { <-l.slots }()
		case <-out.done:
			return
		}
	}
	d := l.Of(int(l.n.Add(1)))
	run := func() {
		if wait(d, out.done) {
			answer()
		}
	}
	if l.serial {
		run()
		return
	}
	out.async(run)
}

// wait sleeps for d, or less when done closes first (false).
func wait(d time.Duration, done <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
	}
	return false
}
