package mcptest

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
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

// on reports whether l delays anything.
func (l Latency) on() bool { return l != Latency{} }

// parseLatency reads the behaviours delay=D, tail=N/D and stall=N/D into l.
func (l *Latency) parse(k, v string) error {
	if k == "delay" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("delay=%s: want a duration, e.g. 20ms", v)
		}
		l.Delay = d
		return nil
	}
	count, dur, ok := strings.Cut(v, "/")
	n, err := strconv.Atoi(count)
	d, derr := time.ParseDuration(dur)
	if !ok || err != nil || derr != nil || n < 1 || d < 0 {
		return fmt.Errorf("%s=%s: want N/DURATION, e.g. 10/400ms", k, v)
	}
	if k == "tail" {
		l.Every, l.Slow = n, d
	} else {
		l.StallAt, l.Stall = n, d
	}
	return nil
}

// callCounter numbers the calls a fake receives.
type callCounter struct {
	mu sync.Mutex // guards n
	n  int
}

func (c *callCounter) next() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

// wait sleeps for d, or less when done or also (nil: never) closes first
// (false).
func wait(d time.Duration, done, also <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
	case <-also:
	}
	return false
}
