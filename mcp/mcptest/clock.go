package mcptest

import (
	"bytes"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Clock is a clock of a test's own for the timers of a run's bounds
// (mcp.ClientOptions.AfterFunc, connect.Env.AfterFunc): its timers fire
// only when the test says (Fire), a stopped one not at all, and each
// start, stop and reset is told (WaitUntil), so that what starts,
// restarts or stops a bound is shown by events rather than by how fast a
// machine is.
type Clock struct {
	mu      sync.Mutex // guards the fields below and every timer's
	timers  []*clockTimer
	resets  map[time.Duration]int // how many times a timer was reset to each duration
	changed chan struct{}         // closed (and replaced) when a timer starts, stops or resets
}

type clockTimer struct {
	c       *Clock
	d       time.Duration
	f       func()
	running bool
}

// Timers is what a Clock's timers are at one moment: of each duration,
// how many run, how many are stopped or fired, and how many times a timer
// was reset to it.
type Timers struct {
	Running, Stopped, Resets map[time.Duration]int
}

// NewClock returns a Clock with no timers.
func NewClock() *Clock {
	return &Clock{resets: map[time.Duration]int{}, changed: make(chan struct{})}
}

// AfterFunc starts a timer that runs f when the test fires d: the
// signature of the AfterFunc options.
func (c *Clock) AfterFunc(d time.Duration, f func()) interface {
	Reset(time.Duration) bool
	Stop() bool
} {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &clockTimer{c: c, d: d, f: f, running: true}
	c.timers = append(c.timers, t)
	c.tell()
	return t
}

// tell wakes those waiting for a change; the caller holds mu.
func (c *Clock) tell() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (t *clockTimer) Stop() bool { return t.set(false, t.d) }

func (t *clockTimer) Reset(d time.Duration) bool { return t.set(true, d) }

// set stops the timer, or resets it to d, and says whether it ran.
func (t *clockTimer) set(running bool, d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.running
	if t.running, t.d = running, d; running {
		t.c.resets[d]++
	}
	t.c.tell()
	return was
}

// Fire runs every running timer of duration d as if its time had passed,
// and returns how many it ran.
func (c *Clock) Fire(d time.Duration) int {
	c.mu.Lock()
	var due []func()
	for _, t := range c.timers {
		if t.running && t.d == d {
			t.running = false
			due = append(due, t.f)
		}
	}
	c.tell()
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
	return len(due)
}

// Timers is what the clock's timers are now.
func (c *Clock) Timers() Timers { return locked(&c.mu, c.timersLocked) }

func (c *Clock) timersLocked() Timers {
	ts := Timers{Running: map[time.Duration]int{}, Stopped: map[time.Duration]int{}, Resets: map[time.Duration]int{}}
	for _, t := range c.timers {
		pick(t.running, ts.Running, ts.Stopped)[t.d]++
	}
	maps.Copy(ts.Resets, c.resets)
	return ts
}

// WaitUntil waits until cond holds of the clock's timers, which a timer's
// start, stop or reset may change; a minute without it is a hang, not a
// slow machine.
func (c *Clock) WaitUntil(t testing.TB, what string, cond func(Timers) bool) {
	t.Helper()
	guard := time.After(time.Minute)
	for {
		c.mu.Lock()
		ts, changed := c.timersLocked(), c.changed
		c.mu.Unlock()
		if cond(ts) {
			return
		}
		select {
		case <-changed:
		case <-guard:
			t.Fatalf("a minute, and still not %s (timers %+v)", what, ts)
		}
	}
}

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

// Buffer is a bytes.Buffer that the goroutines of a session (or of a fake
// server) may write to at once while a test reads it.
type Buffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string { return locked(&b.mu, b.b.String) }

// locked is f's value, got with mu held.
func locked[T any](mu *sync.Mutex, f func() T) T {
	mu.Lock()
	defer mu.Unlock()
	return f()
}

// withLock runs f with mu held.
func withLock(mu *sync.Mutex, f func()) {
	mu.Lock()
	defer mu.Unlock()
	f()
}
