package gateway

import (
	"context"
	"strconv"
	"testing"

	"github.com/mcpv/mcpv/internal/serve/servetest"
)

// BenchmarkGatewayRoundTrip: one tools/call echo through serve in front
// of the go-sdk demo server over stdio, and through a gateway in front of
// four of them (the call named by its server), each to a client on a
// pair of pipes: the difference is what the gateway's routing costs.
func BenchmarkGatewayRoundTrip(b *testing.B) {
	b.Run("serve", func(b *testing.B) {
		c, _ := servetest.StdioClient(b, started(b, servetest.DemoStdio()), "legacy")
		servetest.Calls(b, c, "tools/call", `{"name":"echo","arguments":{"message":"hi"}}`)
	})
	b.Run("gateway", func(b *testing.B) {
		var members []testMember
		for _, name := range []string{"s1", "s2", "s3", "s4"} {
			members = append(members, testMember{name: name, settings: servetest.DemoStdio(), eager: true})
		}
		g, _ := startGateway(b, members...)
		c, _ := servetest.StdioClient(b, g.Server(), "legacy")
		servetest.Calls(b, c, "tools/call", `{"name":"s3__echo","arguments":{"message":"hi"}}`)
	})
}

// BenchmarkGatewayList: one tools/list page through the gateway in front
// of four demo servers (each page one server's), beside one through serve.
func BenchmarkGatewayList(b *testing.B) {
	b.Run("serve", func(b *testing.B) {
		c, _ := servetest.StdioClient(b, started(b, servetest.DemoStdio()), "legacy")
		servetest.Calls(b, c, "tools/list", `{}`)
	})
	b.Run("gateway", func(b *testing.B) {
		var members []testMember
		for _, name := range []string{"s1", "s2", "s3", "s4"} {
			members = append(members, testMember{name: name, settings: servetest.DemoStdio(), eager: true})
		}
		g, _ := startGateway(b, members...)
		c, _ := servetest.StdioClient(b, g.Server(), "legacy")
		servetest.Calls(b, c, "tools/list", `{}`)
	})
}

// BenchmarkGatewayLazyStart: a gateway of twenty servers started lazily
// (each a server that never starts), to its client's initialize answered.
func BenchmarkGatewayLazyStart(b *testing.B) {
	var members []testMember
	for i := range 20 {
		members = append(members, testMember{name: "s" + strconv.Itoa(i), settings: servetest.FakeStdio("slow-start=600000")})
	}
	for b.Loop() {
		g := &Gateway{}
		for _, tm := range members {
			g.Members = append(g.Members, &Member{Name: tm.name, Server: serverFor(b, tm.settings)})
		}
		if err := g.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		c, _ := servetest.StdioClient(b, g.Server(), "legacy")
		c.Close(context.Background())
		for _, m := range g.Members {
			if st, _ := m.life.status(); st != lifeIdle {
				b.Fatalf("%s started", m.Name)
			}
		}
		g.Close()
	}
}
