package connect

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// The connect timeout does not count the time the user spends in a
// browser: every clock stops while paused (pauses may overlap), one
// started during a pause waits for its end, and each runs on with what was
// left.
func TestStartClocksPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clocks := startClocks{after: Env{}.afterFunc}
		cause := errors.New("the server did not answer")
		ctx, stop := clocks.start(context.Background(), time.Minute, cause)
		defer stop()
		time.Sleep(20 * time.Second)
		resume := clocks.pause()
		resume2 := clocks.pause()
		later, stopLater := clocks.start(context.Background(), time.Minute, cause) // a remembered server's first call
		defer stopLater()
		time.Sleep(time.Hour) // a long login
		synctest.Wait()
		if ctx.Err() != nil || later.Err() != nil {
			t.Fatal("a clock ran while paused")
		}
		resume()
		resume() // a second call does nothing
		time.Sleep(time.Hour)
		synctest.Wait()
		if ctx.Err() != nil || later.Err() != nil {
			t.Fatal("a clock ran while one pause was left")
		}
		resume2()
		time.Sleep(39 * time.Second)
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatal("the clock ended before its minute")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if !errors.Is(context.Cause(ctx), cause) || later.Err() != nil {
			t.Fatalf("after its minute: %v; the later clock: %v", context.Cause(ctx), later.Err())
		}
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if !errors.Is(context.Cause(later), cause) {
			t.Fatalf("the later clock after its minute: %v", context.Cause(later))
		}
	})
}

// Once stopped (the session is open), a pause and resume change nothing:
// a later login's wait reaches no clock.
func TestStartClocksStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clocks := startClocks{after: Env{}.afterFunc}
		ctx, stop := clocks.start(context.Background(), time.Minute, errors.New("late"))
		stop()
		clocks.pause()()
		time.Sleep(time.Hour)
		synctest.Wait()
		if context.Cause(ctx) != context.Canceled {
			t.Fatalf("a stopped clock: %v", context.Cause(ctx))
		}
	})
}
