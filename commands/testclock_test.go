package commands

import (
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
)

// testClock is a clock of a test's own for connect.Env.AfterFunc: its
// timers fire only when the test says (fire), and a stopped one not at
// all, so that what stops a bound is shown by events rather than by how
// fast a machine is.
type testClock struct {
	mu      sync.Mutex
	timers  []*testTimer
	changed chan struct{} // closed (and replaced) when a timer starts, stops or resets
}

type testTimer struct {
	c       *testClock
	d       time.Duration
	f       func()
	running bool // guarded by c.mu
}

func newTestClock() *testClock { return &testClock{changed: make(chan struct{})} }

// in is env on the clock.
func (c *testClock) in(env connect.Env) connect.Env {
	env.AfterFunc = c.afterFunc
	return env
}

func (c *testClock) afterFunc(d time.Duration, f func()) connect.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &testTimer{c: c, d: d, f: f, running: true}
	c.timers = append(c.timers, t)
	c.tell()
	return t
}

// tell wakes those waiting for a change; the caller holds mu.
func (c *testClock) tell() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (t *testTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.running
	t.running = false
	t.c.tell()
	return was
}

func (t *testTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.running
	t.running, t.d = true, d
	t.c.tell()
	return was
}

// fire runs every running timer of duration d as if its time had passed,
// and returns how many it ran.
func (c *testClock) fire(d time.Duration) int {
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

// waitUntil waits until cond holds of the clock's timers (each's
// duration and whether it runs), which a timer's start, stop or reset may
// change; a minute without it is a hang, not a slow machine.
func (c *testClock) waitUntil(t *testing.T, what string, cond func(running map[time.Duration]int, stopped map[time.Duration]int) bool) {
	t.Helper()
	guard := time.After(time.Minute)
	for {
		c.mu.Lock()
		running, stopped := map[time.Duration]int{}, map[time.Duration]int{}
		for _, tm := range c.timers {
			if tm.running {
				running[tm.d]++
			} else {
				stopped[tm.d]++
			}
		}
		changed := c.changed
		c.mu.Unlock()
		if cond(running, stopped) {
			return
		}
		select {
		case <-changed:
		case <-guard:
			t.Fatalf("a minute, and still not %s", what)
		}
	}
}
