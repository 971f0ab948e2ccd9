package check

import (
	"sync"
	"testing"
	"time"
)

// Two checks that each wait for what the other makes (each calls every
// --call tool in turn, and each makes one of the calls): their clocks
// follow each other, and runs, stands and unfollows on both, at once,
// all return. (Before one lock guarded every clock, a run under one
// clock's lock took the other's while that one's run held it and asked
// for the first: the run hung.)
func TestClocksThatFollowEachOther(t *testing.T) {
	for range 200 {
		a, b := newClock(time.Hour, func() {}, nil), newClock(time.Hour, func() {}, nil)
		unA := a.follow(b)
		unB := b.follow(a) // b would follow its own follower: not followed, as the two move together
		var wg sync.WaitGroup
		for _, f := range []func(){a.run, b.run, a.stand, b.stand, unA, unB, a.run, b.stand} {
			wg.Go(f)
		}
		wg.Wait()
		a.halt()
		b.halt()
	}
}

// A follower stands while its lead stands, and runs again when it stops
// following.
func TestFollowerStandsWithItsLead(t *testing.T) {
	lead, f := newClock(time.Hour, func() {}, nil), newClock(time.Hour, func() {}, nil)
	defer lead.halt()
	defer f.halt()
	lead.stand()
	unfollow := f.follow(lead)
	clocks.Lock()
	standing := f.timer == nil
	clocks.Unlock()
	if !standing {
		t.Fatal("a clock that follows a standing lead runs")
	}
	lead.run()
	clocks.Lock()
	running := f.timer != nil
	clocks.Unlock()
	if !running {
		t.Fatal("a follower stands after its lead runs again")
	}
	lead.stand()
	unfollow()
	clocks.Lock()
	running = f.timer != nil
	clocks.Unlock()
	if !running {
		t.Fatal("a clock that stopped following stands")
	}
}
