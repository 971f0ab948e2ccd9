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

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/serve/servetest"
)

// countingServer is a Server with Isolate in front of s, counting the
// upstream sessions it opens.
func countingServer(t *testing.T, s *connect.Settings) (*Server, *atomic.Int64) {
	t.Helper()
	srv, opened := isolatedCounting(t, s)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, opened
}

// isolatedCounting is a Server with Isolate in front of s, not started,
// counting the upstream sessions it opens.
func isolatedCounting(t *testing.T, s *connect.Settings) (*Server, *atomic.Int64) {
	srv := serverFor(t, s)
	srv.Isolate = true
	var opened *atomic.Int64
	srv.Open, opened = servetest.Counting(srv.Open)
	return srv, opened
}

// TestIsolateModernClientStartsOnce: one mcpv call through serve
// --isolate (server/discover, tools/list to find the tool, tools/call:
// three HTTP requests without a session) starts its server once; a
// client of another token gets a server of its own; a client of the
// initialize era still gets one for its session.
func TestIsolateModernClientStartsOnce(t *testing.T) {
	t.Parallel()
	srv, opened := countingServer(t, servetest.DemoStdio())
	h := srv.HTTPHandler("", false)
	clients, _ := NewClients(map[string]*View{"one": nil, "two": nil})
	h.SetClients(clients)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	c, _ := servetest.Authed(t, ts.URL+"/mcp", "one", "modern")
	servetest.Call(t, c, "tools/list", `{}`)
	if got := servetest.Call(t, c, "tools/call", `{"name":"echo","arguments":{"message":"once"}}`); !strings.Contains(string(got), "once") {
		t.Fatalf("echo: %s", got)
	}
	if n := opened.Load(); n != 1 {
		t.Errorf("a modern client's discover, list and call started the server %d times, want once", n)
	}
	c2, _ := servetest.Authed(t, ts.URL+"/mcp", "two", "modern")
	servetest.Call(t, c2, "tools/list", `{}`)
	if n := opened.Load(); n != 2 {
		t.Errorf("a client of another token: %d starts in all, want a second one of its own", n)
	}
	legacy, _ := servetest.Authed(t, ts.URL+"/mcp", "one", "legacy")
	servetest.Call(t, legacy, "tools/list", `{}`)
	if n := opened.Load(); n != 3 {
		t.Errorf("a client of the initialize era: %d starts in all, want one of its own", n)
	}
}

// TestIsolateManyModernClients: sixteen modern clients at once, each
// listing and calling, through serve --isolate in front of a server slow
// to start: each is answered, and the server starts no more than once
// per client at once (its sessions are used again, one request at a
// time).
func TestIsolateManyModernClients(t *testing.T) {
	t.Parallel()
	slow := servetest.FakeStdio("slow-start=300")
	srv, opened := countingServer(t, slow)
	u := serveHTTP(t, srv, "")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			c, _ := servetest.HTTPClient(t, u, "modern", "c")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			for range 3 {
				if _, err := c.Call(ctx, "tools/list", json.RawMessage(`{}`)); err != nil {
					t.Errorf("client %d: %v", i, err)
					return
				}
			}
			if _, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"x","arguments":{}}`)); err != nil {
				t.Errorf("client %d: call: %v", i, err)
			}
		})
	}
	wg.Wait()
	if n := opened.Load(); n > 16 {
		t.Errorf("sixteen clients of four requests each started the server %d times, want at most 16", n)
	}
}
