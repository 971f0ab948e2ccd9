package serve

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
)

// heldLists is an upstream whose tools/list waits for release; it counts
// the lists it was sent, and those cancelled.
type heldLists struct {
	servetest.Hang
	release         chan struct{}
	sent, cancelled atomic.Int32
}

func (u *heldLists) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method != "tools/list" {
		return u.Hang.Forward(ctx, method, params)
	}
	u.sent.Add(1)
	select {
	case <-u.release:
		return json.RawMessage(`{"tools":[{"name":"listed","inputSchema":{"type":"object"}}]}`), nil
	case <-ctx.Done():
		u.cancelled.Add(1)
		return nil, ctx.Err()
	}
}

// listWaiting is how many askers wait on srv's shared lists, and in how
// many requests.
func listWaiting(t *testing.T, srv *Server) (askers, requests int) {
	u, err := srv.sharedUpstream(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	u.lists.mu.Lock()
	defer u.lists.mu.Unlock()
	for _, f := range u.lists.flights {
		askers += f.waiting
	}
	return askers, len(u.lists.flights)
}

// Sixteen clients that list at once send the server one tools/list; each
// gets its answer. One that gives up does not end the others' wait; when
// every asker has, the list is cancelled upstream, and the next asks
// again.
func TestListsAskedAtOnceSentOnce(t *testing.T) {
	t.Parallel()
	up := &heldLists{Hang: servetest.Hang{End: make(chan struct{}), Called: make(chan struct{}, 100)}, release: make(chan struct{})}
	srv := &Server{Open: func(context.Context, Relay) (Upstream, error) { return up, nil }}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := srv.HTTPHandler("", false)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close(); srv.Close() })

	const n = 16
	clients := make([]*mcp.Client, n)
	for i := range clients {
		clients[i], _ = servetest.HTTPClient(t, ts.URL+"/mcp", "legacy", "client")
	}
	// One asker gives up while the others wait.
	quitter, quit := context.WithCancel(context.Background())
	got := make([]string, n)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			ctx := context.Background()
			if i == 0 {
				ctx = quitter
			}
			res, err := c.Call(ctx, "tools/list", json.RawMessage(`{}`))
			got[i] = string(res)
			if err != nil {
				got[i] = err.Error()
			}
		})
	}
	servetest.WaitFor(t, "every client to wait on one list", func() bool { a, r := listWaiting(t, srv); return a == n && r == 1 })
	quit()
	servetest.WaitFor(t, "the one that gave up to go", func() bool { a, _ := listWaiting(t, srv); return a == n-1 })
	close(up.release)
	wg.Wait()
	for i, g := range got[1:] {
		if !strings.Contains(g, `"listed"`) {
			t.Errorf("client %d: %s", i+1, g)
		}
	}
	if s, c := up.sent.Load(), up.cancelled.Load(); s != 1 || c != 0 {
		t.Errorf("the server was sent %d lists (%d cancelled), want 1", s, c)
	}

	// Every asker gives up: the list is cancelled upstream.
	up.release = make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := clients[1].Call(ctx, "tools/list", json.RawMessage(`{}`)); err == nil {
		t.Fatal("a list held upstream was answered")
	}
	servetest.WaitFor(t, "the list to be cancelled upstream", func() bool { return up.cancelled.Load() == 1 })
}
