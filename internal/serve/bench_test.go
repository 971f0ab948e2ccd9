package serve

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strconv"
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
	// A client of the 2026-07-28 era, bridged to the server in the
	// initialize era: its result gets the members its era requires.
	b.Run("serve-modern", func(b *testing.B) {
		c, _ := stdioClient(b, startServer(b, demoStdio(), nil, false), "modern")
		roundTrips(b, c, params)
	})
	// The same client calling a tool that asks it a question: two round
	// trips (input_required, then the retry with the answer) and the
	// server's question, which waits gatherWait for others to come with
	// it.
	b.Run("serve-modern-ask", func(b *testing.B) {
		c, _ := stdioClient(b, startServer(b, demoStdio(), nil, false), "modern")
		roundTrips(b, c, json.RawMessage(`{"name":"ask","arguments":{}}`))
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

// BenchmarkGatewayRoundTrip: one tools/call echo through serve in front
// of the go-sdk demo server over stdio, and through a gateway in front of
// four of them (the call named by its server), each to a client on a
// pair of pipes: the difference is what the gateway's routing costs.
func BenchmarkGatewayRoundTrip(b *testing.B) {
	b.Run("serve", func(b *testing.B) {
		c, _ := stdioClient(b, startServer(b, demoStdio(), nil, false), "legacy")
		roundTrips(b, c, json.RawMessage(`{"name":"echo","arguments":{"message":"hi"}}`))
	})
	b.Run("gateway", func(b *testing.B) {
		var members []testMember
		for _, name := range []string{"s1", "s2", "s3", "s4"} {
			members = append(members, testMember{name: name, settings: demoStdio(), eager: true})
		}
		g, _ := startGateway(b, members...)
		c, _ := stdioClient(b, g.Server(), "legacy")
		roundTrips(b, c, json.RawMessage(`{"name":"s3__echo","arguments":{"message":"hi"}}`))
	})
}

// BenchmarkGatewayList: one tools/list page through the gateway in front
// of four demo servers (each page one server's), beside one through serve.
func BenchmarkGatewayList(b *testing.B) {
	b.Run("serve", func(b *testing.B) {
		c, _ := stdioClient(b, startServer(b, demoStdio(), nil, false), "legacy")
		listPages(b, c)
	})
	b.Run("gateway", func(b *testing.B) {
		var members []testMember
		for _, name := range []string{"s1", "s2", "s3", "s4"} {
			members = append(members, testMember{name: name, settings: demoStdio(), eager: true})
		}
		g, _ := startGateway(b, members...)
		c, _ := stdioClient(b, g.Server(), "legacy")
		listPages(b, c)
	})
}

func listPages(b *testing.B, c *mcp.Client) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.Call(ctx, "tools/list", json.RawMessage(`{}`)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGatewayLazyStart: a gateway of twenty servers started lazily
// (each a server that never starts), to its client's initialize answered.
func BenchmarkGatewayLazyStart(b *testing.B) {
	var members []testMember
	for i := range 20 {
		members = append(members, testMember{name: "s" + strconv.Itoa(i), settings: fakeStdio("slow-start=600000")})
	}
	for b.Loop() {
		g := &Gateway{}
		for _, tm := range members {
			g.Members = append(g.Members, &Member{Name: tm.name, Server: serverFor(b, tm.settings)})
		}
		if err := g.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		c, _ := stdioClient(b, g.Server(), "legacy")
		c.Close(context.Background())
		for _, m := range g.Members {
			if st, _ := m.life.status(); st != lifeIdle {
				b.Fatalf("%s started", m.Name)
			}
		}
		g.Close()
	}
}
