//go:build unix && e2e

package e2e

import (
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
)

// TestTwoProcessesShareOneRefresh starts two mcpv processes at once with an
// expired stored token and a slow token endpoint: one refreshes, the other
// waits for the lock and takes the refreshed token. Without the lock both
// would spend the same (rotating) refresh token, and one would fail.
func TestTwoProcessesShareOneRefresh(t *testing.T) {
	t.Parallel()
	demo := demoserver.New()
	srv := oauthtest.New(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	srv.Delay = 500 * time.Millisecond
	state := t.TempDir()
	_, refresh := srv.Issue("mcp")
	store := storeToken(t, srv, state, oauth.Token{AccessToken: "long-expired", RefreshToken: refresh, ExpiresAt: time.Now().Add(-time.Hour), Scope: "mcp"})
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i := range outs {
		wg.Go(func() {
			cmd := exec.Command(mcpvBin, "-u", srv.URL(), "call", "echo", "message=hi", "-q", ".structuredContent.message")
			cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		})
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil || strings.TrimSpace(outs[i]) != `"hi"` {
			t.Errorf("process %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	if n := srv.Count("token:refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	recs, err := store.Find(t.Context(), srv.URL())
	if err != nil || len(recs) != 1 || recs[0].Token.RefreshToken == refresh || !srv.Valid(recs[0].Token.AccessToken) {
		t.Errorf("the store does not hold the refreshed, rotated token: %v", err)
	}
}

// storeToken stores token for srv in the state directory state, as a
// login would have, and returns the store.
func storeToken(t *testing.T, srv *oauthtest.Server, state string, token oauth.Token) *oauth.Store {
	t.Helper()
	store := &oauth.Store{Dir: state + "/mcpv/oauth"}
	err := store.Save(&oauth.Record{
		Server: srv.URL(), Issuer: srv.AS.URL, Resource: srv.URL(),
		Metadata: &oauth.ServerMetadata{Issuer: srv.AS.URL, TokenEndpoint: srv.AS.URL + "/token", CodeChallengeMethodsSupported: []string{"S256"}},
		Client:   oauth.Client{ID: "dynamic-client", AuthMethod: oauth.AuthNone},
		Token:    token,
		Updated:  time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// squatEnv makes the test binary another local user's program: it listens
// at the address the variable names ("tcp6 [::1]:PORT"), says "listening"
// or "refused ..." on stdout, and holds the port until its stdin closes.
const squatEnv = "MCPV_E2E_SQUAT"

func runSquatterIfRequested() bool {
	spec := os.Getenv(squatEnv)
	if spec == "" {
		return false
	}
	network, addr, _ := strings.Cut(spec, " ")
	ln, err := net.Listen(network, addr)
	if err != nil {
		os.Stdout.WriteString("refused " + err.Error() + "\n")
		os.Exit(0)
	}
	os.Stdout.WriteString("listening\n")
	io.Copy(io.Discard, os.Stdin)
	ln.Close()
	os.Exit(0)
	return true
}

// waitForFile waits until path exists: the mark a command leaves when it
// reaches a point the test needs.
func waitForFile(t *testing.T, path string, r *run) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared; stderr:\n%s", path, r.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Ctrl-C during the wait for the browser ends mcpv with 130, in auth login
// and in a command whose handshake needed the login alike; nothing of the
// flow's secrets is shown.
func TestCtrlCDuringLoginWait(t *testing.T) {
	t.Parallel()
	demo := demoserver.New()
	srv := oauthtest.New(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	for _, args := range [][]string{{"auth", "login"}, {"--auth", "auto", "ping"}} {
		mark := filepath.Join(t.TempDir(), "opened")
		r := &run{cmd: exec.Command(mcpvBin, append(args, "-u", srv.URL(), "--login-timeout", "0")...)}
		r.cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "BROWSER=touch "+mark)
		r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.cmd.Process.Kill() })
		waitForFile(t, mark, r) // the browser was opened: mcpv waits for it
		r.cmd.Process.Signal(os.Interrupt)
		if code, _ := r.wait(t, 10*time.Second); code != 130 {
			t.Errorf("%v: exit %d, want 130; stderr:\n%s", args, code, r.stderr.String())
		}
		if strings.Contains(r.stderr.String(), "code_verifier") || strings.Contains(r.stderr.String(), "code=") {
			t.Errorf("%v: stderr shows the flow's secrets:\n%s", args, r.stderr.String())
		}
	}
}

// mcpv serve -u takes the OAuth settings for its upstream: here a machine
// grant at an authorization server that refuses the resource parameter,
// with --resource none and a scope of its own.
func TestServeUpstreamOAuthSettings(t *testing.T) {
	t.Parallel()
	demo := demoserver.New()
	srv := oauthtest.New(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	srv.RefuseResource = func(r []string) bool { return r != nil }
	srv.Clients["bot"] = "bot-secret-5150"
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("bot-secret-5150\n"), 0o600)
	cmd := exec.Command(mcpvBin, "call", "echo", "message=hi", "-q", ".structuredContent.message",
		"--", mcpvBin, "serve", "-u", srv.URL(), "--grant", "client-credentials", "--client-id", "bot", "--client-secret", "@"+secret,
		"--resource", "none", "--scope", "mcp:bridge")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != `"hi"` {
		t.Fatalf("%v\n%s", err, out)
	}
	got := srv.SeenAt("token:client_credentials")
	if len(got) != 1 || got[0].Has("resource") || got[0].Get("scope") != "mcp:bridge" {
		t.Errorf("the token request carried %v, want no resource and scope mcp:bridge", got)
	}
}
