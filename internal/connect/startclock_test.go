package connect

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// The connect timeout does not count the time the user spends in a
// browser: the clock stops while paused (pauses may overlap) and runs on
// with what was left.
func TestStartClockPauses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cause := errors.New("the server did not answer")
		ctx, clock := newStartClock(context.Background(), time.Minute, cause)
		defer clock.stop()
		time.Sleep(20 * time.Second)
		resume := clock.pause()
		resume2 := clock.pause()
		time.Sleep(time.Hour) // a long login
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatal("the clock ran while paused")
		}
		resume()
		resume() // a second call does nothing
		time.Sleep(time.Hour)
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatal("the clock ran while one pause was left")
		}
		resume2()
		time.Sleep(39 * time.Second)
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatal("the clock ended before its minute")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if !errors.Is(context.Cause(ctx), cause) {
			t.Fatalf("after its minute: %v", context.Cause(ctx))
		}
	})
}

// Once stopped (the session is open), a pause and resume change nothing:
// a later login's wait reaches a clock that no longer runs.
func TestStartClockStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, clock := newStartClock(context.Background(), time.Minute, errors.New("late"))
		clock.stop()
		clock.pause()()
		time.Sleep(time.Hour)
		synctest.Wait()
		if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != context.Canceled {
			t.Fatalf("a stopped clock: %v", context.Cause(ctx))
		}
	})
}
