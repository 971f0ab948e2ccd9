package serve

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
)

// TestQuestionsReachTheirCallers: three clients of one shared upstream
// session (one on stdio, two over HTTP, of both eras) call a tool whose
// server asks each caller's name while all three calls are in flight
// (servetest.PairServer, a server of the initialize era over Streamable
// HTTP, which asks on each call's own stream): each question reaches the
// client whose call caused it, and no other.
func TestQuestionsReachTheirCallers(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.PairServer(t, 3), "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "")
	stdio, _ := servetest.StdioClient(t, srv, "legacy")
	alice, _ := servetest.HTTPClient(t, u, "legacy", "alice")
	bob, _ := servetest.HTTPClient(t, u, "modern", "bob")
	clients := map[string]*mcp.Client{"stdio": stdio, "alice": alice, "bob": bob}
	var wg sync.WaitGroup
	for who, c := range clients {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"pair","arguments":{}}`))
			if err != nil || !strings.Contains(string(res), `"hello `+who+`"`) {
				t.Errorf("%s's call: %s %v, want the answer of %s alone", who, res, err, who)
			}
		})
	}
	wg.Wait()
}

// TestQuestionOverStdioGoesToWhoCanAnswer: a server of the initialize era
// over stdio does not say which request a question is for; with two
// clients' calls in flight, it goes to the one whose client declared the
// capability it needs, not refused for the other's call.
func TestQuestionOverStdioGoesToWhoCanAnswer(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.DemoStdio(), nil, false)
	mute, _ := servetest.StdioClientDeclaring(t, srv, "legacy", `{}`)
	asker, _ := servetest.StdioClient(t, srv, "legacy")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go mute.Call(ctx, "tools/call", json.RawMessage(`{"name":"slow","arguments":{"seconds":60,"steps":1}}`))
	servetest.WaitFor(t, "the slow call in flight", func() bool {
		srv.mu.Lock()
		u := srv.shared
		srv.mu.Unlock()
		u.mu.Lock()
		defer u.mu.Unlock()
		return len(u.flights) == 1
	})
	res := servetest.Call(t, asker, "tools/call", `{"name":"ask","arguments":{}}`)
	if !strings.Contains(string(res), "stdio") {
		t.Errorf("ask beside another client's call: %s, want the answer of the client that asked", res)
	}
}
