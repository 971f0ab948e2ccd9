package commands

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testkit"
)

// The test binary plays the user's browser when MCPV_TEST_BROWSER is set: it
// follows the authorization URL's redirects to mcpv's loopback listener.
func runBrowserIfRequested() bool {
	if os.Getenv("MCPV_TEST_BROWSER") == "" {
		return false
	}
	if mark := os.Getenv("MCPV_TEST_BROWSER"); mark != "1" {
		os.WriteFile(mark, nil, 0o600) // where $BROWSER is a program, not a shell command
	}
	resp, err := (&http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}).Get(os.Args[len(os.Args)-1])
	if err != nil {
		os.Exit(1)
	}
	resp.Body.Close()
	os.Exit(0)
	return true
}

// authWorld is the go-sdk demo server behind an OAuth guard, a private
// token store in w, and a browser that leaves a mark when it is opened.
func authWorld(t *testing.T, w *world) (srv *oauthtest.Server, opened string) {
	return authWorldWith(t, w, &sdk.StreamableHTTPOptions{JSONResponse: true})
}

// authWorldWith is authWorld with the demo server's HTTP set-up of opts.
func authWorldWith(t *testing.T, w *world, opts *sdk.StreamableHTTPOptions) (srv *oauthtest.Server, opened string) {
	server := demoserver.New()
	srv = oauthtest.New(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, opts))
	srv.Scopes = []string{"mcp:tools"}
	w.setenv("XDG_STATE_HOME", t.TempDir())
	stopLoginKeepers(t, w)
	opened = filepath.Join(t.TempDir(), "opened")
	if runtime.GOOS == "windows" { // $BROWSER is the browser's path there
		w.setenv("MCPV_TEST_BROWSER", opened)
		w.setenv("BROWSER", os.Args[0])
		return srv, opened
	}
	w.setenv("BROWSER", "touch "+shellwords.Quote(opened)+"; MCPV_TEST_BROWSER=1 "+shellwords.Quote(os.Args[0]))
	return srv, opened
}

func storedTokens(t *testing.T, w *world) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.env.Getenv("XDG_STATE_HOME"), "mcpv", "oauth", "*.json"))
	var out []string
	for _, f := range files {
		var rec oauth.Record
		data, _ := os.ReadFile(f)
		json.Unmarshal(data, &rec)
		out = append(out, rec.Token.AccessToken, rec.Token.RefreshToken)
	}
	return out
}

func TestOAuthCodeFlowAndStoredTokens(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, opened := authWorld(t, w)
	url := srv.URL()
	var outputs []string
	run := func(stdin string, args ...string) result {
		r := w.mcpv(t, stdin, args...)
		outputs = append(outputs, r.stdout, r.stderr)
		return r
	}

	// Without a terminal nothing is stored yet: exit 5 at once, no browser,
	// the sign-in link handed to a process that waits for it.
	r := run("", "-u", url, "list-tools")
	if r.code != 5 || !strings.Contains(r.stderr, "mcpv auth wait") {
		t.Fatalf("non-interactive: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(opened); err == nil {
		t.Fatal("a browser was opened without --auth auto")
	}

	r = run("", "--auth", "auto", "-v", "-u", url, "list-tools", "-c", "-q", "[.tools[].name]")
	if r.code != 0 || strings.TrimSpace(r.stdout) != demoTools {
		t.Fatalf("--auth auto: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(opened); err != nil || !strings.Contains(r.stderr, "open this URL in a browser: "+srv.AS.URL+"/authorize?") {
		t.Fatalf("the authorization URL was not opened and shown: %q", r.stderr)
	}
	os.Remove(opened)
	// Every request of mcpv's names it (the browser's are the browser's).
	for req, agent := range srv.Agents() {
		if req != "GET /authorize" && agent != "mcpv/"+Version {
			t.Errorf("%s: User-Agent %q, want mcpv/%s", req, agent, Version)
		}
	}
	if len(srv.Agents()) < 5 {
		t.Errorf("requests seen: %v", srv.Agents())
	}

	// Later runs use the stored token; a refused one is refreshed.
	if r := run("", "-u", url, "ping"); r.code != 0 {
		t.Fatalf("stored: exit %d, stderr %q", r.code, r.stderr)
	}
	srv.Revoke()
	if r := run("", "-u", url, "call", "echo", "message=hi", "-q", ".structuredContent.message"); r.code != 0 || r.stdout != `"hi"`+"\n" {
		t.Fatalf("after revocation: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := srv.Count("token:refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	if srv.Count("authorize") != 1 {
		t.Errorf("%d authorizations, want 1", srv.Count("authorize"))
	}

	r = run("", "auth", "status", "-u", url, "-c")
	var status struct {
		LoggedIn bool `json:"logged_in"`
		Records  []struct {
			ClientID string   `json:"client_id"`
			Scopes   []string `json:"scopes"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &status); r.code != 0 || err != nil || !status.LoggedIn ||
		len(status.Records) != 1 || status.Records[0].ClientID != "dynamic-client" {
		t.Fatalf("auth status: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	tok := w.mcpv(t, "", "auth", "token", "-u", url) // its stdout is the token, on purpose
	if tok.code != 0 || !srv.Valid(strings.TrimSpace(tok.stdout)) {
		t.Fatalf("auth token: exit %d, stdout %q, stderr %q", tok.code, tok.stdout, tok.stderr)
	}
	outputs = append(outputs, tok.stderr)
	secrets := storedTokens(t, w)
	if len(secrets) != 2 {
		t.Fatalf("stored tokens: %q", secrets)
	}
	for _, out := range outputs {
		for _, s := range append(secrets, "code-1", "refresh-") {
			if strings.Contains(out, s) {
				t.Errorf("output shows %q:\n%s", s, out)
			}
		}
	}

	if r := run("", "auth", "logout", "-u", url); r.code != 0 || r.stdout != `{"removed":1,"server":"`+url+`"}`+"\n" {
		t.Fatalf("logout: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := run("", "auth", "status", "-u", url); r.code != 5 || !strings.Contains(r.stdout, `"logged_in":false`) {
		t.Fatalf("status after logout: exit %d, stdout %q", r.code, r.stdout)
	}
	if _, err := os.Stat(opened); err == nil {
		t.Error("a browser was opened after the first login")
	}
}

func TestOAuthClientCredentials(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, opened := authWorld(t, w)
	srv.Clients["ci-bot"] = "ci-secret-value-123"
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("ci-secret-value-123\n"), 0o600)
	r := w.mcpv(t, "", "--grant", "client-credentials", "--client-id", "ci-bot", "--client-secret", "@"+secret,
		"-u", srv.URL(), "list-tools", "-c", "-q", "[.tools[].name]")
	if r.code != 0 || strings.TrimSpace(r.stdout) != demoTools {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(opened); err == nil || srv.Count("authorize") != 0 {
		t.Error("client credentials opened a browser")
	}
	w.setenv("MCPV_CLIENT_SECRET", "wrong-secret-value")
	w.setenv("XDG_STATE_HOME", t.TempDir())
	r = w.mcpv(t, "", "--grant", "client-credentials", "--client-id", "ci-bot", "-u", srv.URL(), "ping")
	if r.code != 5 || !strings.Contains(r.stderr, "oauth token: invalid_client (bad client credentials)") || strings.Contains(r.stderr, "wrong-secret-value") {
		t.Fatalf("bad secret: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "--grant", "client-credentials", "-u", srv.URL(), "ping"); r.code != 2 || !strings.Contains(r.stderr, "--client-id") {
		t.Fatalf("no client id: exit %d, stderr %q", r.code, r.stderr)
	}
}

// --grant jwt-bearer trades a workload's JWT for a token: no browser, no
// registration, and the JWT is never shown.
func TestOAuthJWTBearer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, opened := authWorld(t, w)
	const jwt = "eyJhbGciOiJFUzI1NiJ9.workload-claims.signature"
	srv.Assertions[jwt] = "ci-workload"
	file := filepath.Join(t.TempDir(), "oidc-token")
	os.WriteFile(file, []byte(jwt+"\n"), 0o600)
	r := w.mcpv(t, "", "-v", "--grant", "jwt-bearer", "--client-id", "ci-workload", "--assertion", "@"+file,
		"-u", srv.URL(), "list-tools", "-c", "-q", "[.tools[].name]")
	if r.code != 0 || strings.TrimSpace(r.stdout) != demoTools || strings.Contains(r.stderr, jwt) {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(opened); err == nil || srv.Count("authorize") != 0 || srv.Count("register") != 0 {
		t.Error("the jwt-bearer grant opened a browser or registered")
	}
	w.setenv("XDG_STATE_HOME", t.TempDir())
	w.setenv("MCPV_ASSERTION", "forged.jwt.value")
	r = w.mcpv(t, "", "--grant", "jwt-bearer", "--client-id", "ci-workload", "-u", srv.URL(), "ping")
	if r.code != 5 || !strings.Contains(r.stderr, "invalid_grant (bad assertion)") || strings.Contains(r.stderr, "forged.jwt.value") {
		t.Fatalf("bad assertion: exit %d, stderr %q", r.code, r.stderr)
	}
	w.setenv("MCPV_ASSERTION", "")
	if r := w.mcpv(t, "", "--grant", "jwt-bearer", "--client-id", "ci-workload", "-u", srv.URL(), "ping"); r.code != 2 || !strings.Contains(r.stderr, "needs --client-id and --assertion") {
		t.Fatalf("no assertion: exit %d, stderr %q", r.code, r.stderr)
	}
}

// 'auth login' against a server that has no OAuth says so, rather than
// guessing endpoints (2025-03-26's defaults) and failing at /register. A
// server that publishes nothing but does answer 401 still gets the guess.
func TestAuthLoginWithoutOAuth(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var paths []string
	serve := func(h http.Handler) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			paths = append(paths, r.Method+" "+r.URL.Path)
			mu.Unlock()
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	server := demoserver.New()
	open := serve(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	w := newWorld(t)
	w.setenv("XDG_STATE_HOME", t.TempDir())
	w.setenv("BROWSER", "false")
	r := w.mcpv(t, "", "auth", "login", "-u", open+"/mcp")
	if r.code != 5 || r.stderr != "mcpv: oauth metadata: "+open+"/mcp does not use OAuth: it publishes no OAuth metadata and answers without asking for authorization; nothing to log in to\n" {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	mu.Lock()
	for _, p := range paths {
		if strings.HasSuffix(p, "/register") || strings.HasSuffix(p, "/authorize") {
			t.Errorf("requested %s", p)
		}
	}
	mu.Unlock()
	// A server that answers with an event stream it keeps open: the probe
	// reads the status, not the stream.
	streaming := serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	r = w.mcpv(t, "", "--timeout", "20s", "auth", "login", "-u", streaming+"/mcp")
	if r.code != 5 || !strings.Contains(r.stderr, "does not use OAuth") {
		t.Errorf("a streaming server: exit %d, stderr %q", r.code, r.stderr)
	}
	locked := serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	r = w.mcpv(t, "", "auth", "login", "-u", locked+"/mcp")
	if r.code != 5 || !strings.Contains(r.stderr, "oauth registration: "+locked+"/mcp publishes no OAuth metadata") || !strings.Contains(r.stderr, locked+"/register answered 401") {
		t.Errorf("a server that asks: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestAuthNeedsAnHTTPServer(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"auth", "status"}, fake("plain"))...)
	if r.code != 2 || !strings.Contains(r.stderr, "auth is for HTTP servers") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestOAuthFromConfigEntry(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	srv, opened := authWorld(t, w.world)
	srv.Clients["ci-bot"] = "entry-secret-4567"
	w.setenv("CI_CLIENT_SECRET", "entry-secret-4567")
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), `servers:
  api:
    transport: streamable_http
    http: {endpoint: `+q(srv.URL())+`}
    oauth:
      client_id: ci-bot
      client_secret: ${CI_CLIENT_SECRET}
      grant: client_credentials
`)
	r := w.mcpv(t, "", "-v", "list-tools", "-s", "api", "-c", "-q", "[.tools[].name]")
	if r.code != 0 || strings.TrimSpace(r.stdout) != demoTools {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(opened); err == nil {
		t.Error("a browser was opened")
	}
	s := w.mcpv(t, "", "servers", "api", "-c", "-q", ".oauth")
	if s.stdout != `{"client_id":"ci-bot","client_secret":"${CI_CLIENT_SECRET}","grant":"client_credentials"}`+"\n" {
		t.Errorf("servers: %q", s.stdout)
	}
	for _, out := range []string{r.stdout, r.stderr, s.stdout, s.stderr} {
		if strings.Contains(out, "entry-secret-4567") {
			t.Errorf("output shows the client secret: %s", out)
		}
	}
}

// A CI job's config entry: the jwt-bearer grant with the job's OIDC token
// from the environment, against a resource that takes only DPoP-bound tokens.
func TestOAuthJWTBearerAndDPoPFromConfigEntry(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	srv, opened := authWorld(t, w.world)
	srv.Assertions["workload-jwt-8910"] = "ci-workload"
	srv.DPoP, srv.DPoPNonce = true, "nonce-7"
	w.setenv("CI_OIDC_TOKEN", "workload-jwt-8910")
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), `servers:
  api:
    transport: streamable_http
    http: {endpoint: `+q(srv.URL())+`}
    oauth:
      client_id: ci-workload
      assertion: ${CI_OIDC_TOKEN}
      grant: jwt_bearer
      dpop: auto
`)
	r := w.mcpv(t, "", "-v", "list-tools", "-s", "api", "-c", "-q", "[.tools[].name]")
	if r.code != 0 || strings.TrimSpace(r.stdout) != demoTools {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(opened); err == nil {
		t.Error("a browser was opened")
	}
	if srv.Count("token:urn:ietf:params:oauth:grant-type:jwt-bearer") != 2 || srv.Count("dpop-nonce:as") != 1 || srv.Count("dpop-nonce:rs") != 1 {
		t.Errorf("%d jwt-bearer token requests, %d and %d nonce challenges", srv.Count("token:urn:ietf:params:oauth:grant-type:jwt-bearer"),
			srv.Count("dpop-nonce:as"), srv.Count("dpop-nonce:rs"))
	}
	s := w.mcpv(t, "", "servers", "api", "-c", "-q", ".oauth")
	if s.stdout != `{"assertion":"${CI_OIDC_TOKEN}","client_id":"ci-workload","dpop":"auto","grant":"jwt_bearer"}`+"\n" {
		t.Errorf("servers: %q", s.stdout)
	}
	for _, out := range []string{r.stdout, r.stderr, s.stdout, s.stderr} {
		if strings.Contains(out, "workload-jwt-8910") {
			t.Errorf("output shows the assertion: %s", out)
		}
	}
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers:\n  api:\n    url: "+q(srv.URL())+"\n    oauth: {dpop: sometimes}\n")
	r = w.mcpv(t, "", "servers", "api")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown oauth.dpop "sometimes" (want auto, always or never)`) {
		t.Errorf("bad dpop: exit %d, stderr %q", r.code, r.stderr)
	}
}

// auth login --device: the link and the code on stderr, no browser, the
// code approved on another device, the token stored; the next command
// uses it without a login.
func TestAuthLoginDevice(t *testing.T) {
	testkit.SkipLong(t, "waits the device grant's polling interval")
	t.Parallel()
	w := newWorld(t)
	srv, opened := authWorld(t, w)
	srv.Device = true
	stop := make(chan struct{})
	defer close(stop)
	approving(srv, stop)
	r := w.mcpv(t, "", "auth", "login", "--device", "-u", srv.URL())
	if r.code != 0 || !strings.Contains(r.stderr, "/activate and enter the code WDJB-") || !strings.Contains(r.stdout, `"usable":true`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(opened); err == nil {
		t.Error("a browser was opened")
	}
	if r := w.mcpv(t, "", "-u", srv.URL(), "list-tools", "-r", "-q", ".tools[0].name"); r.code != 0 || r.stdout == "" {
		t.Errorf("the next command: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := srv.Count("authorize"); n != 0 {
		t.Errorf("%d authorizations in a browser", n)
	}

	// Over ssh with no browser named, a login takes the device grant by
	// itself where the server offers it.
	w2 := newWorld(t)
	srv2, opened2 := authWorld(t, w2)
	srv2.Device = true
	w2.setenv("BROWSER", "")
	w2.setenv("SSH_CONNECTION", "10.0.0.1 50000 10.0.0.2 22")
	approving(srv2, stop)
	r = w2.mcpv(t, "", "auth", "login", "-u", srv2.URL())
	if _, err := os.Stat(opened2); r.code != 0 || err == nil || !strings.Contains(r.stderr, "enter the code WDJB-") || srv2.Count("authorize") != 0 {
		t.Errorf("no browser here: exit %d, stderr %q, %d authorizations", r.code, r.stderr, srv2.Count("authorize"))
	}
}

// approving is the user on another device: each device code srv gives
// out is approved, until stop is closed.
func approving(srv *oauthtest.Server, stop <-chan struct{}) {
	go func() { // the test's approver: ends when stop is closed
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			for _, code := range srv.UserCodes() {
				srv.Approve(code)
			}
		}
	}()
}
