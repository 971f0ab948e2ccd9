package connect

import (
	"sync"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// buildingNote is what the start line says while the Go toolchain builds
// the server.
const buildingNote = "go is building it; the start bound counts once it is built"

// maxBuildWait bounds the time a start bound does not count because the
// server is still being built (go run on a cold cache, on a slow machine):
// past it the bound counts as for any server.
const maxBuildWait = 10 * time.Minute

// buildPoll is how often watchBuild looks whether the server is being
// built.
const buildPoll = 250 * time.Millisecond

// watchBuild keeps the start bound (clocks) from counting while the Go
// toolchain builds the server, as go run does before the program runs,
// up to maxBuildWait, and has the start line (w) say so. It looks every
// buildPoll until the server is built, speaks, or the returned stop is
// called; its goroutine ends then. Known on Linux (mcp.CommandTransport.Building).
func watchBuild(t *mcp.CommandTransport, clocks *startClocks, w *startWait) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	stop = func() { once.Do(func() { close(done) }) }
	go func() { // build watcher: ends when the server is built, or at stop
		tick := time.NewTicker(buildPoll)
		defer tick.Stop()
		var resume func()
		var since time.Time
		end := func() {
			if resume != nil {
				resume()
				resume = nil
			}
			w.building.Store(false)
		}
		defer end()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			b := t.Building()
			switch {
			case b && resume == nil:
				resume, since = clocks.pause(), time.Now()
				w.building.Store(true)
			case b && time.Since(since) > maxBuildWait:
				return // built for too long: the bound counts from now
			case !b && resume != nil:
				return // built: the program runs
			}
		}
	}()
	return stop
}
