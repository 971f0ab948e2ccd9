package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerServer serves a go-sdk server with a tool whose region argument
// goes in the header Mcp-Param-Region, and one that needs the sampling
// capability: stateless for era modern.
func headerServer(t *testing.T, era string) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "headers", Version: "1"}, nil)
	type in struct {
		Region string `json:"region,omitempty"`
		Level  int    `json:"level,omitempty"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "regional", InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"region":{"type":"string","x-mcp-header":"Region"},"level":{"type":"integer","x-mcp-header":"Level"}}}`)},
		func(_ context.Context, _ *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("region=%s level=%d", a.Region, a.Level)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "needs-sampling"}, func(_ context.Context, req *sdk.CallToolRequest, _ in) (*sdk.CallToolResult, any, error) {
		return nil, nil, &jsonrpc.Error{Code: sdk.CodeMissingRequiredClientCapabilities, Message: "sampling is required", Data: json.RawMessage(`{"requiredCapabilities":{"sampling":{}}}`)}
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: era == "modern"}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestModernHTTPRules: serve's endpoint keeps the 2026-07-28 era's rules
// of Streamable HTTP for a modern client's POST, whatever era the server
// behind speaks: its _meta checked (400, -32602 or -32022 with the
// versions serve speaks), its headers matched with its body (400,
// -32020), the methods the era removed and unknown ones not found (404,
// -32601), a request the server refuses for a capability not declared
// answered 400.
func TestModernHTTPRules(t *testing.T) {
	t.Parallel()
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":` + servetest.ModernMetaJSON + `,"name":"regional","arguments":` + args + `}}`
	}
	method := func(m string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + m + `","params":{"_meta":` + servetest.ModernMetaJSON + `}}`
	}
	v999 := strings.Replace(method("server/discover"), "2026-07-28", "v999", 1)
	for _, upEra := range []string{"legacy", "modern"} {
		u := serveHTTP(t, startServer(t, servetest.Settings(headerServer(t, upEra), upEra, nil), nil, false), "")
		for _, tc := range []struct {
			name   string
			body   string
			header map[string]string
			status int
			want   string // in the body
		}{
			{"discover", method("server/discover"), nil, 200, `"supportedVersions"`},
			{"missing _meta", `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{}}`, nil, 400, `"code":-32602`},
			{"no protocol version", strings.Replace(method("tools/list"), `"io.modelcontextprotocol/protocolVersion":"2026-07-28",`, "", 1), map[string]string{}, 400, `"code":-32602`},
			{"no capabilities", strings.Replace(method("tools/list"), `"io.modelcontextprotocol/clientCapabilities":{},`, "", 1), nil, 400, `"code":-32602`},
			{"unsupported version", v999, map[string]string{"Mcp-Protocol-Version": "v999"}, 400, `"data":{"requested":"v999","supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]}`},
			{"version header mismatch", v999, nil, 400, `"code":-32020`},
			{"no version header", method("tools/list"), map[string]string{"Mcp-Protocol-Version": ""}, 400, `"code":-32020`},
			{"initialize removed", method("initialize"), nil, 404, `"code":-32601`},
			{"ping removed", method("ping"), nil, 404, `"code":-32601`},
			{"logging/setLevel removed", method("logging/setLevel"), nil, 404, `"code":-32601`},
			{"resources/subscribe removed", method("resources/subscribe"), nil, 404, `"code":-32601`},
			{"Mcp-Method missing", method("tools/list"), map[string]string{"Mcp-Method": ""}, 400, `"code":-32020`},
			{"Mcp-Method other", method("tools/list"), map[string]string{"Mcp-Method": "prompts/list"}, 400, `"code":-32020`},
			{"Mcp-Method case", method("tools/list"), map[string]string{"Mcp-Method": "TOOLS/LIST"}, 400, `"code":-32020`},
			{"Mcp-Method lower-case name", method("tools/list"), map[string]string{"mcp-method": "tools/list"}, 200, `"regional"`},
			{"Mcp-Name other", call(`{}`), map[string]string{"Mcp-Name": "other"}, 400, `"code":-32020`},
			{"Mcp-Param given", call(`{"region":"eu","level":3}`), map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-Level": "3"}, 200, `region=eu level=3`},
			{"Mcp-Param base64", call(`{"region":"Hello"}`), map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8=?="}, 200, `region=Hello`},
			{"Mcp-Param bad base64", call(`{"region":"Hello"}`), map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?="}, 400, `"code":-32020`},
			{"Mcp-Param missing", call(`{"region":"eu"}`), nil, 400, `"code":-32020`},
			{"Mcp-Param other", call(`{"region":"eu"}`), map[string]string{"Mcp-Param-Region": "us"}, 400, `"code":-32020`},
			{"undeclared capability", strings.Replace(call(`{}`), `"regional"`, `"needs-sampling"`, 1), nil, 400, `"code":-32021`},
		} {
			resp, body := servetest.PostModern(t, u, tc.body, tc.header)
			if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("%s upstream, %s: %d %s; want %d and %s", upEra, tc.name, resp.StatusCode, body, tc.status, tc.want)
			}
			if tc.status != 200 && !strings.Contains(body, `"id":7`) {
				t.Errorf("%s upstream, %s: %s does not answer the request's id", upEra, tc.name, body)
			}
		}
	}
	// A method no server has: a modern server says so (a server of the
	// initialize era over HTTP may refuse it at the HTTP level, as the
	// go-sdk's does, which says less).
	u := serveHTTP(t, startServer(t, servetest.Settings(headerServer(t, "modern"), "modern", nil), nil, false), "")
	if resp, body := servetest.PostModern(t, u, method("unknown/method"), nil); resp.StatusCode != 404 || !strings.Contains(body, `"code":-32601`) {
		t.Errorf("unknown method: %d %s, want 404 -32601", resp.StatusCode, body)
	}
}
