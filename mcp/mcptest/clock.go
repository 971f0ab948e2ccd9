package mcptest

import (
	"maps"
	"sync"
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

func (t *clockTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.running
	t.running = false
	t.c.tell()
	return was
}

func (t *clockTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.running
	t.running, t.d = true, d
	t.c.resets[d]++
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
		if t.running {
			ts.Running[t.d]++
		} else {
			ts.Stopped[t.d]++
		}
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
