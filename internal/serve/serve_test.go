package serve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// TestRelayEachEra: a client of either era, on stdio or HTTP, reaches a
// server of either era through serve: lists, calls, and the server's
// questions, which reach the client that asked.
func TestRelayEachEra(t *testing.T) {
	t.Parallel()
	for _, upEra := range []string{"legacy", "modern"} {
		url := demoURL(t, upEra)
		for _, side := range []string{"stdio", "http"} {
			for _, downEra := range []string{"legacy", "modern"} {
				t.Run(upEra+"/"+side+"/"+downEra, func(t *testing.T) {
					t.Parallel()
					srv := startServer(t, settingsFor(url, upEra, nil), nil, false)
					var c *mcp.Client
					if side == "stdio" {
						c, _ = stdioClient(t, srv, downEra)
					} else {
						c, _ = httpClient(t, serveHTTP(t, srv, ""), downEra, side)
					}
					if got := c.Modern(); got != (downEra == "modern") {
						t.Fatalf("client modern = %v, want %v", got, downEra == "modern")
					}
					tools := call(t, c, "tools/list", `{}`)
					if !strings.Contains(string(tools), `"name":"echo"`) {
						t.Fatalf("tools/list: %s", tools)
					}
					res := call(t, c, "tools/call", `{"name":"echo","arguments":{"message":"hi there"}}`)
					if !strings.Contains(string(res), `hi there`) {
						t.Fatalf("echo: %s", res)
					}
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					res, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"ask","arguments":{}}`))
					if downEra == "modern" && upEra == "legacy" {
						// A server's request mid-call cannot reach a client
						// that takes none: refused, not left hanging.
						if err == nil && !strings.Contains(string(res), "2026-07-28") {
							t.Fatalf("ask from a legacy server to a modern client: %s", res)
						}
						return
					}
					if err != nil {
						t.Fatalf("ask: %v", err)
					}
					if !strings.Contains(string(res), side) {
						t.Fatalf("ask: %s, want the answer of %s", res, side)
					}
				})
			}
		}
	}
}

// TestLogLevelForModernServer: a legacy client's logging/setLevel, which
// a modern server has no method for, goes in the _meta of the client's
// later requests: messages below the level stay away, the rest come.
func TestLogLevelForModernServer(t *testing.T) {
	t.Parallel()
	srv := startServer(t, settingsFor(demoURL(t, "modern"), "modern", nil), nil, false)
	c, rec := stdioClient(t, srv, "legacy")
	call(t, c, "logging/setLevel", `{"level":"error"}`)
	call(t, c, "tools/call", `{"name":"log","arguments":{"level":"info","message":"quiet please"}}`)
	call(t, c, "tools/call", `{"name":"log","arguments":{"level":"error","message":"loud and clear"}}`)
	var logged []string
	for _, m := range rec.all() {
		if strings.Contains(string(m), "notifications/message") {
			logged = append(logged, string(m))
		}
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "loud and clear") {
		t.Fatalf("log messages: %q, want the error one only", logged)
	}
}
