//go:build unix && e2e

package e2e

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeStdioFrontsOAuth: mcpv, as the stdio server of another mcpv,
// reaches an HTTP server that needs OAuth with the stored token, which
// has expired and is refreshed; the client, of either era, gets its
// answers and never the token: a tool that echoes the Authorization
// header it got shows the client a mask where the token was.
func TestServeStdioFrontsOAuth(t *testing.T) {
	t.Parallel()
	demo := demoserver.New()
	type in struct{}
	sdk.AddTool(demo, &sdk.Tool{Name: "authorization"}, func(_ context.Context, req *sdk.CallToolRequest, _ in) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: req.Extra.Header.Get("Authorization")}}}, nil, nil
	})
	srv := oauthtest.New(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	state := t.TempDir()
	_, refresh := srv.Issue("mcp")
	storeToken(t, srv, state, oauth.Token{AccessToken: "long-expired", RefreshToken: refresh, ExpiresAt: time.Now().Add(-time.Hour), Scope: "mcp"})
	token := regexp.MustCompile(`access-[0-9]+`)
	for _, era := range []string{"legacy", "modern"} {
		cmd := exec.Command(mcpvBin, "--protocol-era", era, "call", "authorization", "-q", ".content[0].text",
			"--", mcpvBin, "serve", "-u", srv.URL())
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != `"Bearer ***"` {
			t.Errorf("%s: %v\n%s", era, err, out)
		}
		if token.Match(out) {
			t.Errorf("%s: the token reached the client: %s", era, out)
		}
	}
	if n := srv.Count("token:refresh_token"); n == 0 {
		t.Errorf("the expired token was not refreshed: the token masked is not one learned while serving")
	}
}

// TestServeHTTP: mcpv serve --http fronts a server for mcpv clients of
// both eras that send the bearer token it generated and printed (a client
// without it is refused, on loopback too), and ends on Ctrl-C with 130.
func TestServeHTTP(t *testing.T) {
	t.Parallel()
	cmd, wait, url, token := serving(t, "serve", "--http", "127.0.0.1:0", "-u", demoUpstream(t), "--deny-tools", "fail")
	if len(token) < 32 {
		t.Fatalf("no bearer token printed before serving (%q)", token)
	}
	out, err := exec.Command(mcpvBin, "-u", url, "call", "echo", "message=hi").CombinedOutput()
	if code := exitCode(err); code != 5 || !strings.Contains(string(out), "401") || !strings.Contains(string(out), "the bearer token mcpv serve printed") ||
		!strings.Contains(string(out), "send it with -H 'Authorization: Bearer TOKEN'") || strings.Contains(string(out), "or use --auth auto") {
		t.Errorf("a client without the token: exit %d\n%s", code, out)
	}
	// Told of OAuth, a user tries it: the answer names the bearer token.
	out, err = exec.Command(mcpvBin, "auth", "login", "-u", url).CombinedOutput()
	if code := exitCode(err); code != 5 || !strings.Contains(string(out), "publishes no OAuth metadata") || !strings.Contains(string(out), "-H 'Authorization: Bearer TOKEN'") {
		t.Errorf("auth login at serve: exit %d\n%s", code, out)
	}
	auth := "Authorization: Bearer " + token
	for _, era := range []string{"legacy", "modern"} {
		out, err := exec.Command(mcpvBin, "--protocol-era", era, "-u", url, "-H", auth, "call", "echo", "message=hi", "-q", ".structuredContent.message").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != `"hi"` {
			t.Errorf("%s: %v\n%s", era, err, out)
		}
		out, err = exec.Command(mcpvBin, "--protocol-era", era, "-u", url, "-H", auth, "call", "fail", "--no-validate").CombinedOutput()
		if code := exitCode(err); code != 3 || !strings.Contains(string(out), "guarded") {
			t.Errorf("%s: a denied tool: exit %d\n%s", era, code, out)
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- wait() }()
	select {
	case err := <-done:
		if code := exitCode(err); code != 130 {
			t.Errorf("after Ctrl-C: exit %d, want 130", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("mcpv serve still running 15s after Ctrl-C")
	}
}

// TestServeHTTPNoToken: --http-no-token serves loopback to a client that
// sends no token.
func TestServeHTTPNoToken(t *testing.T) {
	t.Parallel()
	_, _, url, _ := serving(t, "serve", "--http", "127.0.0.1:0", "--http-no-token", "-u", demoUpstream(t))
	out, err := exec.Command(mcpvBin, "-u", url, "call", "echo", "message=hi", "-q", ".structuredContent.message").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != `"hi"` {
		t.Errorf("%v\n%s", err, out)
	}
}

// TestServeRefusesOpenAddress: --http beyond loopback needs --allow-remote.
func TestServeRefusesOpenAddress(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(mcpvBin, "serve", "--http", "0.0.0.0:0", "-u", "http://127.0.0.1:1/mcp").CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "--allow-remote") {
		t.Errorf("exit %d, want 2:\n%s", code, out)
	}
}

// demoUpstream serves the demo server over Streamable HTTP for the test,
// and returns its URL.
func demoUpstream(t *testing.T) string {
	t.Helper()
	demo := demoserver.New()
	up := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, nil))
	t.Cleanup(up.Close)
	return up.URL
}

// serving starts mcpv with args (serve or mock over --http) and reads its
// stderr up to the line that says where it serves: the URL, and the bearer
// token when one was printed before it. wait waits for mcpv to exit, once;
// the test's end kills it.
func serving(t *testing.T, args ...string) (cmd *exec.Cmd, wait func() error, url, token string) {
	t.Helper()
	cmd = exec.Command(mcpvBin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wait = sync.OnceValue(cmd.Wait)
	t.Cleanup(func() { cmd.Process.Kill(); wait() })
	lines := bufio.NewReader(stderr)
	for url == "" {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("stderr: %q %v", line, err)
		}
		line = strings.TrimSpace(line)
		if tok, ok := strings.CutPrefix(line, "mcpv: clients must send Authorization: Bearer "); ok {
			token = tok
		}
		if u, ok := strings.CutPrefix(line, "mcpv: serving at "); ok {
			url = u
		}
	}
	return cmd, wait, url, token
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
