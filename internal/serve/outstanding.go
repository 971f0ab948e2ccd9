package serve

import (
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
)

// outstanding counts what is owed (requests read and not yet answered),
// and lets whoever must wait for it wait until nothing is.
type outstanding struct {
	mu      sync.Mutex  // guards n and emptied
	n       int         // owed now
	emptied lazy.Signal // fired each time n falls to zero
}

// add counts k more owed (or fewer, when negative).
func (o *outstanding) add(k int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n += k
	if o.n == 0 {
		o.emptied.Fire()
	}
}

// wait waits until nothing is owed, stop is closed, or bound has passed
// (no bound when negative).
func (o *outstanding) wait(bound time.Duration, stop <-chan struct{}) {
	var expired <-chan time.Time
	if bound >= 0 {
		expired = time.After(bound)
	}
	for {
		o.mu.Lock()
		if o.n == 0 {
			o.mu.Unlock()
			return
		}
		emptied := o.emptied.C()
		o.mu.Unlock()
		select {
		case <-emptied:
		case <-stop:
			return
		case <-expired:
			return
		}
	}
}
