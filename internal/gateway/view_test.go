package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// TestGatewayViewsByToken: one gateway serves a CI job and a desktop app
// with different tools. What a token does not see is invisible: left out
// of its lists, a call of it answered as one of a tool no server has, a
// server's own path not found, a resource not found; /healthz names only
// the servers it sees, and nothing without a token.
func TestGatewayViewsByToken(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t, testMember{name: "alpha", settings: twoTools(t, "alpha")}, testMember{name: "beta", settings: twoTools(t, "beta")})
	clients, err := serve.NewClients(map[string]*serve.View{
		"ci-token":      {Name: "ci", Servers: []string{"alpha"}, Guard: config.Guard{AllowTools: []string{"alpha__add"}}},
		"desktop-token": nil,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, base := gatewayHTTP(t, g, clients)
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			ci, _ := servetest.Authed(t, base, "ci-token", era)
			desk, _ := servetest.Authed(t, base, "desktop-token", era)
			if got := strings.Join(listAll(t, ci, "tools/list", "tools"), " "); got != "alpha__add" {
				t.Errorf("ci's tools: %s", got)
			}
			if got := strings.Join(listAll(t, desk, "tools/list", "tools"), " "); got != "alpha__add alpha__echo beta__add beta__echo" {
				t.Errorf("desktop's tools: %s", got)
			}
			if got := strings.Join(listAll(t, ci, "resources/list", "resources"), " "); got != "file:///shared.txt file:///alpha.txt" {
				t.Errorf("ci's resources: %s", got)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, name := range []string{"alpha__echo", "beta__add"} {
				_, err := ci.Call(ctx, "tools/call", json.RawMessage(`{"name":"`+name+`","arguments":{}}`))
				var ce *mcp.CallError
				if !errors.As(err, &ce) || ce.Err.Message != "unknown tool: "+name {
					t.Errorf("ci calling %s: %v, want what an unknown tool gets", name, err)
				}
			}
			_, err := ci.Call(ctx, "resources/read", json.RawMessage(`{"uri":"file:///beta.txt"}`))
			var ce *mcp.CallError
			if !errors.As(err, &ce) || ce.Err.Code != map[string]int{"legacy": -32002, "modern": -32602}[era] { // 2026-07-28 retired -32002
				t.Errorf("ci reading beta's resource: %v", err)
			}
			if got := servetest.Call(t, ci, "tools/call", `{"name":"alpha__add","arguments":{}}`); !strings.Contains(string(got), "alpha added") {
				t.Errorf("ci's alpha__add: %s", got)
			}
		})
	}
	// A server's own path: the ci token sees alpha's (with its guard),
	// not beta's, which is not there for it.
	alpha, _ := servetest.Authed(t, base+"/alpha", "ci-token", "legacy")
	if got := strings.Join(listAll(t, alpha, "tools/list", "tools"), " "); got != "add" {
		t.Errorf("ci at /mcp/alpha: %s", got)
	}
	resp, _ := servetest.Send(t, http.MethodPost, base+"/beta", http.Header{"Authorization": {"Bearer ci-token"}, "Content-Type": {"application/json"}, "Accept": {servetest.AcceptBoth}}, servetest.LegacyInitialize)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("ci at /mcp/beta: %d, want 404", resp.StatusCode)
	}
	resp, _ = servetest.Send(t, http.MethodPost, base+"/beta", http.Header{"Authorization": {"Bearer desktop-token"}, "Content-Type": {"application/json"}, "Accept": {servetest.AcceptBoth}}, servetest.LegacyInitialize)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("desktop at /mcp/beta: %d, want 200", resp.StatusCode)
	}
	// /healthz: the servers a token sees, by name; counts alone without.
	if _, h := getHealth(t, base, http.Header{"Authorization": {"Bearer ci-token"}}); memberState(h, "alpha") == "" || memberState(h, "beta") != "" {
		t.Errorf("healthz for ci: %v", h)
	}
	if _, h := getHealth(t, base, nil); strings.Contains(jsonText(h), "alpha") {
		t.Errorf("healthz without a token names a server: %v", h)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestGatewaySessionIsItsToken's: a session opened with one token is not
// found with another, whatever the path, so that a client of one token
// cannot reach another's session by its id.
func TestGatewaySessionIsItsTokens(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t, testMember{name: "alpha", settings: twoTools(t, "alpha")})
	clients, _ := serve.NewClients(map[string]*serve.View{"one": nil, "two": nil})
	_, base := gatewayHTTP(t, g, clients)
	for _, path := range []string{"", "/alpha"} {
		h := http.Header{"Authorization": {"Bearer one"}, "Content-Type": {"application/json"}, "Accept": {servetest.AcceptBoth}}
		resp, _ := servetest.Send(t, http.MethodPost, base+path, h, servetest.LegacyInitialize)
		sid := resp.Header.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatalf("%s: no session", path)
		}
		h2 := h.Clone()
		h2.Set("Authorization", "Bearer two")
		h2.Set("Mcp-Session-Id", sid)
		resp, _ = servetest.Send(t, http.MethodPost, base+path, h2, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: another token's session: %d, want 404", path, resp.StatusCode)
		}
		h.Set("Mcp-Session-Id", sid)
		resp, _ = servetest.Send(t, http.MethodPost, base+path, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("%s: its own token: %d", path, resp.StatusCode)
		}
	}
}

// TestGatewayRefusedConnectionClosed: at a gateway's endpoint and at a
// server's own path, a request with a token no client has is answered
// 401 and its connection closed by serve: a client that asked to keep
// it alive finds it ended, so no number of refused requests holds
// connections open.
func TestGatewayRefusedConnectionClosed(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t, testMember{name: "alpha", settings: twoTools(t, "alpha")})
	clients, _ := serve.NewClients(map[string]*serve.View{"right": nil})
	_, base := gatewayHTTP(t, g, clients)
	u, _ := url.Parse(base)
	for _, path := range []string{u.Path, u.Path + "/alpha"} {
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(30 * time.Second)) // a hang guard
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nConnection: keep-alive\r\nAuthorization: Bearer wrong\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
			path, u.Host, len(servetest.LegacyInitialize), servetest.LegacyInitialize)
		r := bufio.NewReader(conn)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", path, resp.StatusCode)
		}
		if n, err := r.ReadByte(); err != io.EOF {
			t.Errorf("%s: the refused connection is still open (%v %v)", path, n, err)
		}
		conn.Close()
	}
}

// TestGatewayLevelReachesAMemberMetThroughTheView: a client whose view
// lets read-only tools alone through sets its log level before it meets
// a member; the view's look at the tool's annotations is its first
// contact, and the member is told the level before the call all the same.
func TestGatewayLevelReachesAMemberMetThroughTheView(t *testing.T) {
	t.Parallel()
	member := specServer(t, `{"capabilities":{"tools":{},"logging":{}},
		"tools":[{"name":"look","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}],
		"callResults":{"look":{"content":[{"type":"text","text":"looked"}]}}}`)
	seen := filepath.Join(t.TempDir(), "seen.log")
	member.Env = append(member.Env, mcptest.EnvLog+"="+seen)
	g, _ := startGateway(t, testMember{name: "m", settings: member})
	clients, err := serve.NewClients(map[string]*serve.View{"ro": {Name: "ro", Guard: config.Guard{ReadOnly: true}}})
	if err != nil {
		t.Fatal(err)
	}
	_, base := gatewayHTTP(t, g, clients)
	c, _ := servetest.Authed(t, base, "ro", "legacy")
	servetest.Call(t, c, "logging/setLevel", `{"level":"error"}`)
	if got := servetest.Call(t, c, "tools/call", `{"name":"m__look","arguments":{}}`); !strings.Contains(string(got), "looked") {
		t.Fatalf("the call: %s", got)
	}
	log, _ := os.ReadFile(seen)
	level, call := strings.Index(string(log), `"logging/setLevel"`), strings.Index(string(log), `"tools/call"`)
	if level < 0 || call < 0 || level > call || !strings.Contains(string(log), `"level":"error"`) {
		t.Errorf("the member saw no level before the call:\n%s", log)
	}
}
