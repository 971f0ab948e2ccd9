package serve

import (
	"sync"
	"time"
)

// outstanding counts what is owed (requests read and not yet answered),
// and lets whoever must wait for it wait until nothing is.
type outstanding struct {
	mu      sync.Mutex    // guards n and emptied
	n       int           // owed now
	emptied chan struct{} // closed, and replaced, each time n falls to zero; nil until first needed
}

// add counts k more owed (or fewer, when negative).
func (o *outstanding) add(k int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n += k
	if o.n == 0 && o.emptied != nil {
		close(o.emptied)
		o.emptied = nil
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
		if o.emptied == nil {
			o.emptied = make(chan struct{})
		}
		emptied := o.emptied
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
