//go:build unix && e2e

package e2e

import (
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// TestServeGateway: serve --http where a gateway runs: its endpoint at a
// path of choice (the default one not served), a CORS preflight of a
// page of an origin named with --allow-origin answered and one of a
// foreign page refused, /healthz answered without the token and saying
// nothing of the server, and a client of the 2024-11-05 HTTP+SSE
// transport (mcpv's own, --transport sse) served with --sse, beside the
// endpoint.
func TestServeGateway(t *testing.T) {
	t.Parallel()
	upstream := demoUpstream(t)
	_, _, url, token := serving(t, "serve", "--http", "127.0.0.1:0", "-u", upstream, "--path", "/api/v1/mcp", "--sse",
		"--allow-origin", "http://app.example:3000")
	base, ok := strings.CutSuffix(url, "/api/v1/mcp")
	if !ok {
		t.Fatalf("served at %s, not at --path", url)
	}
	auth := "Authorization: Bearer " + token
	for _, tr := range []struct{ transport, url string }{{"streamable-http", url}, {"sse", base + "/api/v1/sse"}} {
		out, err := exec.Command(mcpvBin, "--transport", tr.transport, "-u", tr.url, "-H", auth, "call", "echo", "message=hi", "-q", ".structuredContent.message").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != `"hi"` {
			t.Errorf("%s at %s: %v\n%s", tr.transport, tr.url, err, out)
		}
	}

	do := func(method, path string, header ...string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := testkit.HTTP(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return resp, string(body)
	}
	preflight := []string{"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version"}
	resp, _ := do(http.MethodOptions, "/api/v1/mcp", append([]string{"Origin", "http://app.example:3000"}, preflight...)...)
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "http://app.example:3000" ||
		!strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "authorization") ||
		resp.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("preflight of an --allow-origin page: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = do(http.MethodOptions, "/api/v1/mcp", append([]string{"Origin", "http://evil.example"}, preflight...)...)
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight of a foreign page: %d %v", resp.StatusCode, resp.Header)
	}
	resp, body := do(http.MethodGet, "/healthz")
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(body) != `{"status":"ok"}` || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("/healthz without a token: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	for _, p := range []string{"/mcp", "/sse"} {
		if resp, _ := do(http.MethodGet, p, "Authorization", "Bearer "+token); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s, with --path elsewhere: %d", p, resp.StatusCode)
		}
	}
}

// TestServeGatewayUsage: what --allow-origin, --path and --sse refuse,
// before any server starts (exit 2).
func TestServeGatewayUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "127.0.0.1:0", "--allow-origin", "*"}, `"*" would admit every web page`},
		{[]string{"--http", "127.0.0.1:0", "--allow-origin", "null"}, `"null" is the origin of every sandboxed frame`},
		{[]string{"--http", "127.0.0.1:0", "--allow-origin", "http://app.example/path"}, "not an origin"},
		{[]string{"--http", "127.0.0.1:0", "--path", "/api/../etc"}, "--path"},
		{[]string{"--http", "127.0.0.1:0", "--path", "/%2e%2e/mcp"}, "--path"},
		{[]string{"--http", "127.0.0.1:0", "--path", "mcp"}, "must start with /"},
		{[]string{"--http", "127.0.0.1:0", "--path", "/healthz"}, "served already"},
		{[]string{"--http", "127.0.0.1:0", "--sse", "--path", "/sse"}, "served already"},
		{[]string{"--http", "127.0.0.1:0", "--sse", "--path", "/api/message"}, "served already"},
		{[]string{"--sse"}, "go with --http"},
		{[]string{"--path", "/x"}, "go with --http"},
		{[]string{"--allow-origin", "http://app.example"}, "go with --http"},
	} {
		args := append(append([]string{"serve"}, tt.args...), "-u", "http://127.0.0.1:1/mcp")
		out, err := exec.Command(mcpvBin, args...).CombinedOutput()
		if code := exitCode(err); code != 2 || !strings.Contains(string(out), tt.want) || strings.Count(string(out), "\n") != 1 {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tt.args, code, tt.want, out)
		}
	}
}
