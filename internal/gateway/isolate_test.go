package gateway

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/serve/servetest"
)

// TestIsolateMemberOfGateway: a gateway's server isolated per client
// (the serve file's isolate:) starts once for one modern client's
// discover, list and call at the endpoint, and once more for a client of
// another token, whose session it never gets.
func TestIsolateMemberOfGateway(t *testing.T) {
	t.Parallel()
	srv := serverFor(t, servetest.DemoStdio())
	srv.Isolate = true
	var opened *atomic.Int64
	srv.Open, opened = servetest.Counting(srv.Open)
	g := &Gateway{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Secrets: redact.NewScrubber(io.Discard),
		Members: []*Member{{Name: "demo", Server: srv}, {Name: "other", Server: serverFor(t, twoTools(t, "other"))}}}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	clients, _ := serve.NewClients(map[string]*serve.View{"one": nil, "two": nil})
	_, base := gatewayHTTP(t, g, clients)
	c, _ := servetest.Authed(t, base, "one", "modern")
	listAll(t, c, "tools/list", "tools")
	if got := servetest.Call(t, c, "tools/call", `{"name":"demo__echo","arguments":{"message":"once"}}`); !strings.Contains(string(got), "once") {
		t.Fatalf("demo__echo: %s", got)
	}
	if n := opened.Load(); n != 1 {
		t.Errorf("a modern client's list and call at the endpoint started the isolated server %d times, want once", n)
	}
	c2, _ := servetest.Authed(t, base, "two", "modern")
	servetest.Call(t, c2, "tools/call", `{"name":"demo__echo","arguments":{"message":"twice"}}`)
	if n := opened.Load(); n != 2 {
		t.Errorf("a client of another token: %d starts in all, want a second of its own", n)
	}
}
