package serve

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
)

// TestModernResultsOverLegacy: a modern client of a server of the
// initialize era gets results valid in its era: resultType on each,
// first, ttlMs and cacheScope on the cacheable ones (the 2026-07-28
// schema requires them), the server named in _meta (as that era asks of
// every result); the rest of the result is the server's.
func TestModernResultsOverLegacy(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "")
	for _, tc := range []struct {
		method, params string
		cacheable      bool
		keeps          string // what the server's result holds, kept
	}{
		{"server/discover", ``, true, `"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`},
		{"tools/list", ``, true, `"name":"echo"`},
		{"resources/read", `,"uri":"demo://readme"`, true, `"uri":"demo://readme"`},
		{"tools/call", `,"name":"echo","arguments":{"message":"hi"}`, false, `"text":"hi"`},
		{"completion/complete", `,"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"language","value":"g"}`, false, `"completion"`},
	} {
		_, body := servetest.PostModern(t, u, `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":{"_meta":`+servetest.ModernMetaJSON+tc.params+`}}`, nil)
		res := rawjson.Member([]byte(sseData(body)), "result")
		fields := rawjson.ScanFields(nil, res)
		if len(fields) == 0 || !json.Valid(res) || !fields[0].KeyIs("resultType") {
			t.Errorf("%s: %s, want resultType first", tc.method, body)
			continue
		}
		if !strings.Contains(string(res), `"resultType":"complete"`) || !strings.Contains(string(res), tc.keeps) {
			t.Errorf("%s: %s, want it complete and holding %s", tc.method, res, tc.keeps)
		}
		if name, _ := rawjson.String(rawjson.Member(rawjson.Member(rawjson.Member(res, "_meta"), mcp.MetaServerInfo), "name")); name == "" {
			t.Errorf("%s: %s, want _meta naming the server", tc.method, res)
		}
		if tc.cacheable && (rawjson.Member(res, "ttlMs") == nil || rawjson.Member(res, "cacheScope") == nil) {
			t.Errorf("%s: %s, want ttlMs and cacheScope", tc.method, res)
		}
	}
}

// TestModernMembers: what a result of the initialize era lacks for the
// modern era is added, and nothing it has.
func TestModernMembers(t *testing.T) {
	for _, tc := range []struct{ method, res, want string }{
		{"tools/list", `{"tools":[]}`, `"resultType":"complete","ttlMs":0,"cacheScope":"private"`},
		{"tools/list", `{"tools":[],"ttlMs":5,"cacheScope":"public"}`, `"resultType":"complete"`},
		{"resources/read", `{"contents":[]}`, `"resultType":"complete","ttlMs":0,"cacheScope":"private"`},
		{"tools/call", `{"content":[]}`, `"resultType":"complete"`},
		{"tools/call", `{"resultType":"complete","content":[]}`, ``},
		{"tools/call", `{"inputRequests":{"a":{"method":"roots/list"}},"requestState":"s"}`, `"resultType":"input_required"`},
		{"tools/list", `{"tools":[],"requestState":"s"}`, `"resultType":"complete","ttlMs":0,"cacheScope":"private"`},
		{"tools/call", `{"content":[]}`, `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s"}}`},
		{"tools/call", `{"content":[],"_meta":{"k":1}}`, `"resultType":"complete"`}, // its own _meta is left as it is
	} {
		info := json.RawMessage(nil)
		if strings.HasPrefix(tc.want, `"resultType":"complete","_meta"`) || strings.Contains(tc.res, `"_meta"`) {
			info = json.RawMessage(`{"name":"s"}`)
		}
		if got := string(modernMembers(tc.method, json.RawMessage(tc.res), info)); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.method, tc.res, got, tc.want)
		}
	}
}

// TestRetiredCodesOverLegacy: a server of 2025-11-25 answers an unknown
// resource -32002, which the 2026-07-28 era retired ("Implementations of
// this protocol version MUST NOT emit these codes"): its modern client
// gets -32602, the code that era answers a resource not found with, and
// the server's message; a client of the server's own era gets -32002.
func TestRetiredCodesOverLegacy(t *testing.T) {
	t.Parallel()
	spec := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(spec, []byte(`{"resources":[{"uri":"mem://a","name":"a"}],"capabilities":{"resources":{}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, servetest.FakeStdio("spec="+spec), nil, false)
	u := serveHTTP(t, srv, "")
	_, body := servetest.PostModern(t, u, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"_meta":`+servetest.ModernMetaJSON+`,"uri":"mem://nope"}}`, nil)
	var m struct {
		Error *mcp.RPCError `json:"error"`
	}
	if err := json.Unmarshal([]byte(sseData(body)), &m); err != nil || m.Error == nil || m.Error.Code != mcp.CodeInvalidParams || !strings.Contains(m.Error.Message, "mem://nope") {
		t.Errorf("modern client: %s, want error -32602 naming mem://nope", body)
	}
	c, _ := servetest.HTTPClient(t, u, "legacy", "")
	_, err := c.Call(context.Background(), "resources/read", json.RawMessage(`{"uri":"mem://nope"}`))
	if re := (*mcp.RPCError)(nil); !errors.As(err, &re) || re.Code != -32002 {
		t.Errorf("legacy client: %v, want error -32002 as the server sent it", err)
	}
}

// TestRetiredCode: each code 2026-07-28 retired becomes one of its own,
// message and data kept; any other error is left as it is.
func TestRetiredCode(t *testing.T) {
	data := json.RawMessage(`{"elicitations":[{"mode":"url","url":"https://example.com/a"}]}`)
	for _, tc := range []struct{ code, want int }{{-32002, -32602}, {-32042, -32603}, {-32601, -32601}, {-32603, -32603}, {-32001, -32001}} {
		got := retiredCode(&mcp.RPCError{Code: tc.code, Message: "m", Data: data})
		re, ok := got.(*mcp.RPCError)
		if !ok || re.Code != tc.want || re.Message != "m" || string(re.Data) != string(data) {
			t.Errorf("%d: %v, want %d with message and data kept", tc.code, got, tc.want)
		}
	}
	if err := retiredCode(context.Canceled); err != context.Canceled {
		t.Errorf("not an RPC error: %v", err)
	}
}
