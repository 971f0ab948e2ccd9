package serve

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// TestGatewayEachEra: behind one endpoint, a server of each era (the
// go-sdk demo server over HTTP, spoken to in the initialize era and in
// the 2026-07-28 one); a client of each era on stdio and HTTP calls each,
// and each server's question mid-call reaches the client that called
// (a server request, or an input_required result); completion,
// prompts, resources and a log level reach the server they belong to.
func TestGatewayEachEra(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t,
		testMember{name: "old", settings: settingsFor(demoURL(t, "legacy"), "legacy", nil)},
		testMember{name: "new", settings: settingsFor(demoURL(t, "modern"), "modern", nil)})
	for _, side := range []string{"stdio", "http"} {
		for _, era := range []string{"legacy", "modern"} {
			// One after the other: a server of the initialize era asks its
			// questions outside any request, and serve tells whose they
			// are only while one request is in flight.
			t.Run(side+"/"+era, func(t *testing.T) {
				var c *mcp.Client
				if side == "stdio" {
					c, _ = stdioClient(t, g.Server(), era)
				} else {
					_, u := gatewayHTTP(t, g, nil)
					c, _ = httpClient(t, u, era, side)
				}
				tools := strings.Join(listAll(t, c, "tools/list", "tools"), " ")
				for _, want := range []string{"old__ask", "new__ask", "old__echo", "new__echo"} {
					if !strings.Contains(tools, want) {
						t.Errorf("tools: %s, want %s", tools, want)
					}
				}
				for _, server := range []string{"old", "new"} {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					res, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"`+server+`__ask","arguments":{}}`))
					cancel()
					if err != nil || !strings.Contains(string(res), side) {
						t.Errorf("%s__ask: %s %v, want the answer of %s", server, res, err, side)
					}
					if got := call(t, c, "tools/call", `{"name":"`+server+`__echo","arguments":{"message":"to `+server+`"}}`); !strings.Contains(string(got), "to "+server) {
						t.Errorf("%s__echo: %s", server, got)
					}
					if got := call(t, c, "prompts/get", `{"name":"`+server+`__greet","arguments":{"name":"Ada"}}`); !strings.Contains(string(got), "Ada") {
						t.Errorf("%s__greet: %s", server, got)
					}
					if got := call(t, c, "completion/complete", `{"ref":{"type":"ref/prompt","name":"`+server+`__review"},"argument":{"name":"language","value":"ja"}}`); !strings.Contains(string(got), "java") {
						t.Errorf("%s completion: %s", server, got)
					}
				}
				if got := call(t, c, "resources/read", `{"uri":"demo://readme"}`); !strings.Contains(string(got), "demo://readme") {
					t.Errorf("readme: %s", got)
				}
				if got := call(t, c, "resources/read", `{"uri":"demo://notes/1"}`); !strings.Contains(string(got), "notes/1") {
					t.Errorf("a note by its template: %s", got)
				}
			})
		}
	}
}

// TestGatewayPagesSpanServers: lists of servers that page span them,
// page by page, in the servers' order; a cursor is the gateway's own
// (not any server's), and one made up, changed, or of another list is
// refused.
func TestGatewayPagesSpanServers(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t, testMember{name: "a", settings: fakeStdio("pages=3")}, testMember{name: "b", settings: twoTools(t, "b")}, testMember{name: "c", settings: fakeStdio("pages=2")})
	c, _ := stdioClient(t, g.Server(), "legacy")
	if got := strings.Join(listAll(t, c, "tools/list", "tools"), " "); got != "a__tool0 a__tool1 a__tool2 a__x b__add b__echo c__tool0 c__tool1 c__x" {
		t.Errorf("tools: %s", got)
	}
	// A page holds the servers' pages one after the other: here all of
	// them, for a client that reads the first page alone.
	if got := strings.Join(itemKeys(t, call(t, c, "tools/list", `{}`), "tools"), " "); got != "a__tool0 a__tool1 a__tool2 a__x b__add b__echo c__tool0 c__tool1 c__x" {
		t.Errorf("the first page: %s", got)
	}
	// Past a page's bound, its nextCursor is the gateway's own, signed.
	cursor := g.cursor("tools/list", listPos{M: "b"})
	if got := strings.Join(itemKeys(t, call(t, c, "tools/list", `{"cursor":"`+cursor+`"}`), "tools"), " "); got != "b__add b__echo c__tool0 c__tool1 c__x" {
		t.Errorf("from b on: %s", got)
	}
	p := struct{ Next string }{cursor}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, bad := range []string{"x", p.Next[:len(p.Next)-2] + "AA", "eyJtIjoiYiJ9"} {
		_, err := c.Call(ctx, "tools/list", json.RawMessage(`{"cursor":"`+bad+`"}`))
		var ce *mcp.CallError
		if !errors.As(err, &ce) || ce.Err.Code != mcp.CodeInvalidParams {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
	if _, err := c.Call(ctx, "prompts/list", json.RawMessage(`{"cursor":"`+p.Next+`"}`)); err == nil {
		t.Error("a cursor of tools/list was taken by prompts/list")
	}
}
