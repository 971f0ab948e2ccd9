package serve

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
)

// BenchmarkRoundTrip: one tools/call echo, go-sdk demo server over stdio,
// by mcpv's client directly and through serve (a client on a pair of
// pipes, the server on stdio).
func BenchmarkRoundTrip(b *testing.B) {
	params := `{"name":"echo","arguments":{"message":"hi"}}`
	b.Run("direct", func(b *testing.B) {
		conn, err := connect.Open(context.Background(), servetest.DemoStdio(), connect.Env{Cwd: b.TempDir(), GOOS: runtime.GOOS}, connect.Hooks{})
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		servetest.Calls(b, conn.Client, "tools/call", params)
	})
	b.Run("serve", func(b *testing.B) {
		c, _ := servetest.StdioClient(b, startServer(b, servetest.DemoStdio(), nil, false), "legacy")
		servetest.Calls(b, c, "tools/call", params)
	})
	// A client of the 2026-07-28 era, bridged to the server in the
	// initialize era: its result gets the members its era requires.
	b.Run("serve-modern", func(b *testing.B) {
		c, _ := servetest.StdioClient(b, startServer(b, servetest.DemoStdio(), nil, false), "modern")
		servetest.Calls(b, c, "tools/call", params)
	})
	// The same client calling a tool that asks it a question: two round
	// trips (input_required, then the retry with the answer) and the
	// server's question, which waits gatherWait for others to come with
	// it.
	b.Run("serve-modern-ask", func(b *testing.B) {
		c, _ := servetest.StdioClient(b, startServer(b, servetest.DemoStdio(), nil, false), "modern")
		servetest.Calls(b, c, "tools/call", `{"name":"ask","arguments":{}}`)
	})
}

// BenchmarkRelayLarge: a 100 MiB tool result relayed through serve, to a
// client on a pair of pipes (stdio) and over HTTP; B/op is what serve and
// the client together allocate for it.
func BenchmarkRelayLarge(b *testing.B) {
	const size = 100 << 20
	params := json.RawMessage(`{"name":"big","arguments":{"bytes":104857600}}`)
	for _, side := range []string{"stdio", "http"} {
		b.Run(side, func(b *testing.B) {
			srv := startServer(b, servetest.DemoStdio(), nil, false)
			var c *mcp.Client
			if side == "stdio" {
				c, _ = servetest.StdioClient(b, srv, "legacy")
			} else {
				c, _ = servetest.HTTPClient(b, serveHTTP(b, srv, ""), "legacy", side)
			}
			b.SetBytes(size)
			for b.Loop() {
				res, err := c.Call(context.Background(), "tools/call", params)
				if err != nil || len(res) < size {
					b.Fatalf("%d bytes, %v", len(res), err)
				}
			}
		})
	}
}
