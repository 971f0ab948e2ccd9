package connect

// The connect timeout bounds a server's start and the handshake. When the
// handshake needs a browser login, the user's time in the browser is not
// the server's: the clock stops while mcpv waits for the user, whom
// --login-timeout bounds instead.

import (
	"context"
	"sync"
	"time"
)

// startClock ends its context with cause once d has run, not counting the
// time between a pause and its resume.
type startClock struct {
	cancel context.CancelCauseFunc
	cause  error

	mu     sync.Mutex    // guards the fields below
	timer  *time.Timer   // runs while not paused; nil once stopped
	left   time.Duration // what is left of d when paused
	since  time.Time     // when the timer last started
	paused int           // pauses not yet resumed
}

// newStartClock starts the clock; stop releases it.
func newStartClock(ctx context.Context, d time.Duration, cause error) (context.Context, *startClock) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &startClock{cancel: cancel, cause: cause, left: d, since: time.Now()}
	c.timer = time.AfterFunc(d, func() { cancel(cause) })
	return ctx, c
}

// pause stops the clock until the function it returns is called; pauses
// may overlap.
func (c *startClock) pause() (resume func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == 0 && c.timer != nil && c.timer.Stop() {
		c.left -= time.Since(c.since)
	}
	c.paused++
	var once sync.Once
	return func() { once.Do(c.resume) }
}

func (c *startClock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused--
	if c.paused == 0 && c.timer != nil {
		c.since = time.Now()
		c.timer.Reset(max(c.left, 0))
	}
}

// stop ends the clock and its context.
func (c *startClock) stop() {
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	c.cancel(nil)
}
