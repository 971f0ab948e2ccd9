package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
)

// TestGatewaySSE: a gateway with the legacy transport on serves it at
// the endpoint's (/sse, every server's names) and at each server's path
// (/mcp/NAME/sse, its names as they are), to mcpv's legacy client and
// the go-sdk's, each with a token of its own view.
func TestGatewaySSE(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t, testMember{name: "alpha", settings: twoTools(t, "alpha")}, testMember{name: "beta", settings: twoTools(t, "beta")})
	clients, _ := serve.NewClients(map[string]*serve.View{"all": nil, "ci": {Name: "ci", Servers: []string{"alpha"}}})
	h := g.HTTPHandler(clients, false, "", func(h *serve.HTTPHandler) { h.SSE = true })
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	for _, tt := range []struct{ token, path, want, call, called string }{
		{"all", "/sse", "alpha__add alpha__echo beta__add beta__echo", "beta__add", "beta added"},
		{"ci", "/sse", "alpha__add alpha__echo", "alpha__add", "alpha added"},
		{"all", "/mcp/beta/sse", "add echo", "add", "beta added"},
	} {
		tr, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: ts.URL + tt.path, Mode: mcp.ModeSSE, Header: http.Header{"Authorization": {"Bearer " + tt.token}}})
		if err != nil {
			t.Fatal(err)
		}
		sess := mcp.NewSession(tr, mcp.SessionOptions{})
		c := servetest.InitializeDeclaring(t, sess, "legacy", servetest.ClientCaps)
		if got := strings.Join(listAll(t, c, "tools/list", "tools"), " "); got != tt.want {
			t.Errorf("%s at %s: tools %s, want %s", tt.token, tt.path, got, tt.want)
		}
		if res := servetest.Call(t, c, "tools/call", `{"name":"`+tt.call+`","arguments":{}}`); !strings.Contains(string(res), tt.called) {
			t.Errorf("%s at %s: %s: %s", tt.token, tt.path, tt.call, res)
		}
		sess.Close(context.Background())
	}
	resp, _ := servetest.Send(t, http.MethodGet, ts.URL+"/mcp/beta/sse", http.Header{"Authorization": {"Bearer ci"}, "Accept": {"text/event-stream"}}, "")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("ci at beta's legacy stream: %d, want 404", resp.StatusCode)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "sdk-sse", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.SSEClientTransport{Endpoint: ts.URL + "/sse", HTTPClient: &http.Client{Transport: servetest.WithHeader{H: http.Header{"Authorization": {"Bearer all"}}}}}, nil)
	if err != nil {
		t.Fatalf("the go-sdk's SSE client: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "alpha__add", Arguments: map[string]any{}})
	if b, _ := json.Marshal(res); err != nil || !strings.Contains(string(b), "alpha added") {
		t.Errorf("go-sdk alpha__add: %s %v", b, err)
	}
}
