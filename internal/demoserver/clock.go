package demoserver

// demo://clock: a resource whose content is the current time, and the
// resources/subscribe support that reports its changes.
//
// Design:
//   - The go-sdk's Server.ResourceUpdated sends to every session subscribed to
//     a URI; it cannot address one session. So there is one ticker goroutine
//     per server, not per subscription: it runs while at least one session is
//     subscribed to demo://clock and sends one update per tick, which the SDK
//     fans out to each subscriber once.
//   - clock.subs mirrors the SDK's subscriptions to demo://clock. Unsubscribe
//     removes a session; a session that ended without unsubscribing is pruned
//     on the next tick (the SDK has already dropped it from Server.Sessions).
//     When the set is empty the ticker stops; the next subscription starts a
//     new one.

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const clockURI = "demo://clock"

// clockInterval is how often demo://clock changes while someone is subscribed.
const clockInterval = 200 * time.Millisecond

type clock struct {
	server    *mcp.Server
	every     time.Duration
	onRunning func(running bool) // test hook: the ticker started (true) or returned (false)
	mu        sync.Mutex         // guards subs and stop
	subs      map[*mcp.ServerSession]bool
	stop      chan struct{} // closed to stop the running ticker; nil when none runs
}

func addClock(s *mcp.Server) {
	s.AddResource(&mcp.Resource{
		URI: clockURI, Name: "clock", Title: "Clock",
		Description: "The current time; subscribe to hear it change every 200ms.", MIMEType: "text/plain",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: "text/plain", Text: time.Now().UTC().Format(time.RFC3339Nano)},
		}}, nil
	})
}

// subscribe accepts subscriptions to the demo's resources; only the clock changes.
func (c *clock) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	switch {
	case uri == clockURI:
		c.add(req.Session)
	case uri == "demo://readme", uri == "demo://logo.png":
	case strings.HasPrefix(uri, notesPrefix) && len(uri) > len(notesPrefix):
	default:
		return mcp.ResourceNotFoundError(uri)
	}
	return nil
}

func (c *clock) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	if req.Params.URI == clockURI {
		c.remove(req.Session)
	}
	return nil
}

func (c *clock) add(ss *mcp.ServerSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subs[ss] = true
	if c.stop != nil {
		return
	}
	c.stop = make(chan struct{})
	if c.onRunning != nil {
		c.onRunning(true)
	}
	go c.run(c.stop) // demo clock: stopped by closing c.stop, when the last subscriber leaves
}

func (c *clock) remove(ss *mcp.ServerSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.subs, ss)
	c.stopIfIdle()
}

// stopIfIdle stops the ticker when nobody listens; c.mu is held.
func (c *clock) stopIfIdle() {
	if len(c.subs) == 0 && c.stop != nil {
		close(c.stop)
		c.stop = nil
	}
}

// prune drops sessions that ended without unsubscribing and reports whether
// anyone is still subscribed.
func (c *clock) prune() bool {
	live := map[*mcp.ServerSession]bool{}
	for ss := range c.server.Sessions() {
		live[ss] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for ss := range c.subs {
		if !live[ss] {
			delete(c.subs, ss)
		}
	}
	c.stopIfIdle()
	return len(c.subs) > 0
}

func (c *clock) run(stop chan struct{}) {
	if c.onRunning != nil {
		defer c.onRunning(false)
	}
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if !c.prune() {
			return
		}
		// Best effort: the SDK logs a session it cannot reach and goes on.
		_ = c.server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: clockURI})
	}
}
