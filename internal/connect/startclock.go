package connect

// The connect timeout bounds a server's start and the handshake (in
// Initialize, or at the first call for a server whose era is remembered).
// When either needs a browser login, the user's time in the browser is not
// the server's: every clock of the start stops while mcpv waits for the
// user, whom --login-timeout bounds instead.

import (
	"context"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
)

// startClocks are the clocks of one session's start. A pause stops each
// that runs, and one started during a pause, until the pause ends; pauses
// may overlap.
type startClocks struct {
	after func(time.Duration, func()) Timer // starts a clock's timer (Env.afterFunc)

	mu     sync.Mutex           // guards the fields below and every clock's
	paused int                  // pauses not yet resumed
	live   map[*startClock]bool // the clocks not yet stopped
}

// startClock ends its context with its cause once its time has run, not
// counting the time paused.
type startClock struct {
	timer Timer         // ends the context with the cause when it fires
	left  time.Duration // what is left of its time when it last stopped
	since time.Time     // when it last began to run
}

// start starts a clock of d that ends ctx with cause; the function it
// returns stops it.
func (r *startClocks) start(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &startClock{left: d}
	r.mu.Lock()
	defer r.mu.Unlock()
	lazy.Put(&r.live, c, true)
	c.since, c.timer = time.Now(), r.after(d, func() { cancel(cause) })
	if r.paused > 0 {
		c.timer.Stop() // it runs once the pause ends
	}
	return ctx, func() {
		r.mu.Lock()
		delete(r.live, c)
		c.timer.Stop()
		r.mu.Unlock()
		cancel(nil)
	}
}

// pause stops every clock until the function it returns is called.
func (r *startClocks) pause() (resume func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.paused == 0 {
		for c := range r.live {
			if c.timer.Stop() {
				c.left -= time.Since(c.since)
			}
		}
	}
	r.paused++
	var once sync.Once
	return func() { once.Do(r.resume) }
}

func (r *startClocks) resume() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paused--
	if r.paused > 0 {
		return
	}
	for c := range r.live {
		c.since = time.Now()
		c.timer.Reset(max(c.left, 0))
	}
}
