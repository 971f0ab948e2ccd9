package serve

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// demoEnv makes the test binary the go-sdk demo server over stdio.
const demoEnv = "MCPV_SERVE_TEST_DEMO"

func TestMain(m *testing.M) {
	if mcptest.RunIfRequested() {
		return
	}
	if os.Getenv(demoEnv) == "1" {
		demoserver.New().Run(context.Background(), &sdk.StdioTransport{})
		return
	}
	os.Exit(m.Run())
}

// demoStdio starts the demo server over stdio: the test binary itself.
func demoStdio() *connect.Settings {
	return &connect.Settings{Command: []string{os.Args[0]}, Env: append(os.Environ(), demoEnv+"=1"),
		ProtocolEra: "legacy", ConnectTimeout: 30 * time.Second}
}

// BenchmarkRoundTrip: one tools/call echo, go-sdk demo server over stdio,
// by mcpv's client directly and through serve (a client on a pair of
// pipes, the server on stdio).
func BenchmarkRoundTrip(b *testing.B) {
	params := json.RawMessage(`{"name":"echo","arguments":{"message":"hi"}}`)
	b.Run("direct", func(b *testing.B) {
		conn, err := connect.Open(context.Background(), demoStdio(), connect.Env{Cwd: b.TempDir(), GOOS: runtime.GOOS}, connect.Hooks{})
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		roundTrips(b, conn.Client, params)
	})
	b.Run("serve", func(b *testing.B) {
		c, _ := stdioClient(b, startServer(b, demoStdio(), nil, false), "legacy")
		roundTrips(b, c, params)
	})
}

func roundTrips(b *testing.B, c *mcp.Client, params json.RawMessage) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.Call(ctx, "tools/call", params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRelayLarge: a 100 MiB tool result relayed through serve, to a
// client on a pair of pipes (stdio) and over HTTP; B/op is what serve and
// the client together allocate for it.
func BenchmarkRelayLarge(b *testing.B) {
	const size = 100 << 20
	params := json.RawMessage(`{"name":"big","arguments":{"bytes":104857600}}`)
	for _, side := range []string{"stdio", "http"} {
		b.Run(side, func(b *testing.B) {
			srv := startServer(b, demoStdio(), nil, false)
			var c *mcp.Client
			if side == "stdio" {
				c, _ = stdioClient(b, srv, "legacy")
			} else {
				c, _ = httpClient(b, serveHTTP(b, srv, ""), "legacy", side)
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
