package commands

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/testkit"
)

// httpModes are the go-sdk Streamable HTTP server set-ups mcpv must handle.
var httpModes = map[string]*sdk.StreamableHTTPOptions{
	"sse":         {},
	"json":        {JSONResponse: true},
	"stateless":   {Stateless: true},
	"event-store": {EventStore: sdk.NewMemoryEventStore(nil)},
}

func demoHTTP(t *testing.T, opts *sdk.StreamableHTTPOptions) string {
	t.Helper()
	server := demoserver.New()
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, opts))
	t.Cleanup(ts.Close)
	return ts.URL
}

func demoLegacySSE(t *testing.T) string {
	t.Helper()
	server := demoserver.New()
	ts := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestDemoServerOverHTTP runs the stdio table of TestDemoServer against the
// go-sdk server over each HTTP set-up.
func TestDemoServerOverHTTP(t *testing.T) {
	t.Parallel()
	urls := map[string]func(t *testing.T) string{"legacy-sse": demoLegacySSE}
	for name, opts := range httpModes {
		urls[name] = func(t *testing.T) string { return demoHTTP(t, opts) }
	}
	for mode, url := range urls {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			u := url(t)
			for _, tt := range demoCases {
				if tt.name == "request unknown method" {
					// The go-sdk answers an unknown method over HTTP with a plain
					// 400, not a JSON-RPC error: a transport failure to mcpv.
					tt.wantCode = 4
				}
				r := mcpv(t, tt.stdin, append([]string{"--protocol-era", "legacy", "-u", u}, tt.args...)...)
				if r.code != tt.wantCode {
					t.Errorf("%s: exit code %d, want %d; stderr:\n%s", tt.name, r.code, tt.wantCode, r.stderr)
				}
				if d := cmp.Diff(tt.wantOut, strings.TrimSuffix(r.stdout, "\n")); d != "" {
					t.Errorf("%s: stdout (-want +got):\n%s", tt.name, d)
				}
			}
		})
	}
}

func TestHTTPTimeoutAndVerbose(t *testing.T) {
	t.Parallel()
	u := demoHTTP(t, httpModes["sse"])
	// The call's cancellation goes on a connection of its own, and the
	// server may take it before the call, which then runs its length:
	// the server's close at the test's end waits for it. 20 s, not an
	// hour.
	code, stderr := timeoutWhen(t, 300*time.Millisecond, `"method":"tools/call"`, []string{"-u", u, "-H", "Authorization: Bearer sekrit-token", "--timeout", "300ms", "call", "slow", "seconds:=20"})
	if code != 124 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if strings.Contains(stderr, "sekrit") {
		t.Errorf("the verbose trace shows the Authorization header:\n%s", stderr)
	}
	if !strings.Contains(stderr, "Authorization: ***") || !strings.Contains(stderr, `"method":"notifications/cancelled"`) {
		t.Errorf("trace lacks the masked header or the cancellation:\n%s", stderr)
	}
}

// TestDemoServerModern runs the table of TestDemoServer in the modern era
// (2026-07-28: server/discover, no initialize, _meta on every request)
// against the go-sdk server over stdio and stateless Streamable HTTP.
func TestDemoServerModern(t *testing.T) {
	testkit.SkipLong(t, "the demo table again in the modern era, over stdio and HTTP")
	t.Parallel()
	targets := map[string]func(t *testing.T) []string{
		"stdio": func(t *testing.T) []string { return demo() },
		"http":  func(t *testing.T) []string { return []string{"-u", demoHTTP(t, httpModes["stateless"])} },
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			server := target(t)
			for _, tt := range demoCases {
				switch tt.name {
				case "info":
					tt.wantOut = `["2026-07-28","mcpv-demo"]`
				case "call echo": // printed as sent: a modern result names its server and its type
					tt.wantOut = `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpv-demo","version":"1.0.0"}},` +
						`"content":[{"type":"text","text":"hi there"}],"structuredContent":{"message":"hi there"},"resultType":"complete"}`
				}
				r := mcpv(t, tt.stdin, args(append([]string{"--protocol-version", "2026-07-28"}, tt.args...), server)...)
				if r.code != tt.wantCode {
					t.Errorf("%s: exit code %d, want %d; stderr:\n%s", tt.name, r.code, tt.wantCode, r.stderr)
				}
				if d := cmp.Diff(tt.wantOut, strings.TrimSuffix(r.stdout, "\n")); d != "" {
					t.Errorf("%s: stdout (-want +got):\n%s", tt.name, d)
				}
			}
		})
	}
}

// In the modern era a server asks for input by returning input_required:
// mcpv answers from --answer, --root and --sampling-cmd as it answers the
// initialize era's server requests, and sends the call again.
func TestModernInputRequired(t *testing.T) {
	t.Parallel()
	sampler := shellEcho(`{"role":"assistant","content":{"type":"text","text":"yo"},"model":"m"}`)
	root := t.TempDir()
	rootURI := url.URL{Scheme: "file", Path: "/" + strings.TrimPrefix(filepath.ToSlash(root), "/")}
	for name, server := range map[string][]string{
		"stdio": demo(),
		"http":  {"-u", demoHTTP(t, httpModes["stateless"])},
	} {
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"call", "ask", "--answer", "name=Ada", "--answer", "age=36"}, `{"action":"accept","content":{"age":36,"color":"green","name":"Ada","subscribe":false}}`},
			{[]string{"--root", root, "call", "roots"}, `{"roots":[{"name":"` + filepath.Base(root) + `","uri":"` + rootURI.String() + `"}]}`},
			{[]string{"--sampling-cmd", sampler, "call", "sample", "prompt=hi"}, `{"content":{"type":"text","text":"yo"},"model":"m","role":"assistant"}`},
		} {
			argv := append([]string{"--protocol-version", "2026-07-28"}, tt.args...)
			r := mcpv(t, "", args(append(argv, "-r", "-q", ".content[0].text"), server)...)
			if r.code != 0 || r.stdout != tt.want+"\n" {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q", name, tt.args, r.code, r.stdout, r.stderr)
			}
		}
	}
}

// In the modern era watch subscribes with one subscriptions/listen stream
// instead of resources/subscribe, with the same output.
func TestModernWatch(t *testing.T) {
	t.Parallel()
	for name, server := range map[string][]string{
		"stdio": demo(),
		"http":  {"-u", demoHTTP(t, httpModes["stateless"])},
	} {
		r := mcpv(t, "", args([]string{"--protocol-version", "2026-07-28", "-v", "watch", "demo://clock", "--count", "2", "--read", "-c", "-q", "[.uri, (.contents | length)]"}, server)...)
		if r.code != 0 || r.stdout != "[\"demo://clock\",1]\n[\"demo://clock\",1]\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %s", name, r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, `"method":"subscriptions/listen"`) || strings.Contains(r.stderr, `"method":"resources/subscribe"`) {
			t.Errorf("%s: not subscribed by subscriptions/listen:\n%s", name, r.stderr)
		}
	}
}

// --protocol-era picks how the era is found: auto (the default) probes
// with server/discover and falls back to initialize; modern never sends
// initialize; legacy starts with initialize.
func TestProtocolEras(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args   []string
		server []string
		code   int
		out    string
		errHas string
	}{
		{[]string{"--protocol-era", "auto", "info", "-r", "-q", ".protocolVersion"}, demo(), 0, "2026-07-28\n", ""},
		{[]string{"--protocol-era", "auto", "-v", "info", "-r", "-q", ".protocolVersion"}, fake("plain"), 0, "2025-11-25\n",
			`-> {"jsonrpc":"2.0","id":1,"method":"server/discover"`},
		{[]string{"info", "-r", "-q", ".protocolVersion"}, demo(), 0, "2026-07-28\n", ""}, // auto, the default
		{[]string{"--protocol-era", "legacy", "info", "-r", "-q", ".protocolVersion"}, demo(), 0, "2025-11-25\n", ""},
		{[]string{"--protocol-era", "modern", "info", "-r", "-q", ".protocolVersion"}, demo(), 0, "2026-07-28\n", ""},
		{[]string{"--protocol-era", "modern", "ping"}, fake("plain"), 3, "", "server/discover: server error -32601"},
		{[]string{"--protocol-era", "modern", "--protocol-version", "2025-11-25", "ping"}, demo(), 2, "", "exclude each other"},
	} {
		r := mcpv(t, "", args(append([]string{"-v"}, tt.args...), tt.server)...) // -v: the trace shows what was cancelled
		if r.code != tt.code || r.stdout != tt.out || !strings.Contains(r.stderr, tt.errHas) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stderr, "notifications/cancelled") {
			t.Errorf("%v: the probe was cancelled on the wire:\n%s", tt.args, r.stderr)
		}
	}
}
