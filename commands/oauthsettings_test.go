package commands

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
	"github.com/mcpv/mcpv/internal/testkit"
)

// The settings a pre-registered client and a multi-tenant server need, on
// the command line: the authorization server sees the resource, scopes and
// redirect URI given, exactly; the token is kept for that resource alone.
func TestOAuthSettingsFlags(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	url := srv.URL()
	port := testkit.FreePort(t)
	redirect := "http://localhost:" + strconv.Itoa(port) + "/oauth/cb"
	const tenant = "https://tenant1.example/"
	settings := []string{"--resource", tenant, "--scope", "mcp:tools", "--scope", "extra:read", "--redirect-host", "localhost",
		"--redirect-port", strconv.Itoa(port), "--redirect-path", "/oauth/cb"}
	r := w.mcpv(t, "", append([]string{"auth", "login", "-u", url, "-c"}, settings...)...)
	if r.code != 0 || !strings.Contains(r.stdout, `"resource":"`+tenant+`","resource_parameter":"given"`) ||
		!strings.Contains(r.stdout, `"asked_scopes":["mcp:tools","extra:read"],"matches":true`) {
		t.Fatalf("auth login: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for endpoint, want := range map[string][]string{"authorize": {tenant, "mcp:tools extra:read", redirect}, "token:authorization_code": {tenant, "", redirect}} {
		got := srv.SeenAt(endpoint)
		if len(got) != 1 || !slices.Equal([]string{got[0].Get("resource"), got[0].Get("scope"), got[0].Get("redirect_uri")}, want) {
			t.Errorf("%s carried %v, want resource, scope and redirect_uri %q", endpoint, got, want)
		}
	}
	if got := srv.SeenAt("register"); len(got) != 1 || got[0].Get("redirect_uri") != redirect {
		t.Errorf("registered %v, want %s", got, redirect)
	}

	// The tenant's token is not the server's: without --resource, nothing
	// usable is stored, and a command exits 5 saying why.
	if r := w.mcpv(t, "", "auth", "status", "-u", url, "-c"); r.code != 5 || !strings.Contains(r.stdout, `"logged_in":false`) || !strings.Contains(r.stdout, `"matches":false`) {
		t.Errorf("status without --resource: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := w.mcpv(t, "", "auth", "status", "-u", url, "--resource", tenant, "-c", "-q", ".logged_in"); r.code != 0 || r.stdout != "true\n" {
		t.Errorf("status with --resource: exit %d, stdout %q", r.code, r.stdout)
	}
	r = w.mcpv(t, "", "ping", "-u", url)
	if r.code != 5 || !strings.Contains(r.stderr, "the token stored for it was asked for another resource or fewer scopes than this run asks for") {
		t.Errorf("a command without --resource: exit %d, stderr %q", r.code, r.stderr)
	}
	// Another scope asks again (in a browser, with --auth auto).
	r2 := w.mcpv(t, "", append([]string{"-v", "--auth", "auto", "ping", "-u", url, "--scope", "mcp:tools admin"}, settings[:2]...)...)
	if r2.code != 0 || srv.Count("authorize") != 2 || srv.SeenAt("authorize")[1].Get("scope") != "mcp:tools admin" {
		t.Errorf("a new scope: exit %d, %d authorizations, stderr %q", r2.code, srv.Count("authorize"), r2.stderr)
	}
	// No token, code or verifier in what was shown, -v traces included.
	secrets := append(storedTokens(t, w), "code-", "code_verifier")
	if len(secrets) != 4 {
		t.Fatalf("stored tokens: %q", secrets)
	}
	for _, out := range []string{r.stdout, r.stderr, r2.stdout, r2.stderr} {
		for _, secret := range secrets {
			if strings.Contains(out, secret) {
				t.Errorf("output shows %q:\n%s", secret, out)
			}
		}
	}
}

// A server whose authorization server refuses the resource parameter
// (invalid_target, as Entra ID's v2 endpoints answer) works with
// --resource none; so do its later runs, which refresh without one.
func TestOAuthResourceNone(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	srv.RefuseResource = func(r []string) bool { return r != nil }
	r := w.mcpv(t, "", "auth", "login", "-u", srv.URL())
	if r.code != 5 || !strings.Contains(r.stderr, "invalid_target") {
		t.Fatalf("with the resource: exit %d, stderr %q", r.code, r.stderr)
	}
	r = w.mcpv(t, "", "auth", "login", "-u", srv.URL(), "--resource", "none", "-c", "-q", "[.resource, .resource_parameter]")
	if r.code != 0 || r.stdout != `["","omitted"]`+"\n" {
		t.Fatalf("--resource none: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	srv.Revoke() // the next run refreshes
	r = w.mcpv(t, "", "list-tools", "-u", srv.URL(), "--resource", "none", "-c", "-q", "[.tools[].name]")
	if r.code != 0 || strings.TrimSpace(r.stdout) != demoTools || srv.Count("token:refresh_token") != 1 {
		t.Fatalf("a later run: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, q := range append(srv.SeenAt("token:refresh_token"), srv.SeenAt("token:authorization_code")...) {
		if q.Has("resource") {
			t.Errorf("a token request carried resource %q", q["resource"])
		}
	}
}

// Values OAuth does not allow are usage errors, one line each, exit 2,
// before anything is sent; a secret in one is not repeated.
func TestOAuthSettingsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, opened := authWorld(t, w)
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--redirect-port", "70000"}, "--redirect-port 70000 is out of range (1-65535)"},
		{[]string{"--redirect-port=-1"}, `--redirect-port: "-1" is negative`},
		{[]string{"--redirect-port", "http"}, "--redirect-port"},
		{[]string{"--redirect-path", "callback"}, "--redirect-path callback does not start with /"},
		{[]string{"--redirect-path", "/cb?x=1"}, "has a query"},
		{[]string{"--redirect-host", "evil.example:80"}, "--redirect-host evil.example:80 is not a host name or IP address"},
		{[]string{"--resource", "http://mcp.example/mcp"}, "--resource: http://mcp.example/mcp is not an https URL (http only to a loopback host) (or none, to send no resource)"},
		{[]string{"--resource", "mcp.example"}, "is not an absolute https URL"},
		{[]string{"--resource", "https://user:hunter2-secret@mcp.example/"}, "must not hold credentials (user@)"},
		{[]string{"--resource", "https://mcp.example/#frag"}, "has a fragment"},
		{[]string{"--scope", `read "write"`}, "holds a character no scope may have"},
		{[]string{"--login-timeout=-1s"}, `--login-timeout: "-1s" is negative`},
		{[]string{"--login-timeout", "soon"}, "--login-timeout"},
	} {
		for _, cmd := range [][]string{{"auth", "login"}, {"ping"}} {
			r := w.mcpv(t, "", append(append(cmd, "-u", srv.URL()), tc.args...)...)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.HasPrefix(r.stderr, "mcpv: ") || !strings.Contains(r.stderr, tc.says) || strings.Contains(r.stderr, "hunter2") {
				t.Errorf("%v %v: exit %d, stderr %q; want 2 and one line with %q", cmd, tc.args, r.code, r.stderr, tc.says)
			}
		}
	}
	if seen := srv.Seen(); len(seen) > 0 || len(srv.Agents()) > 0 {
		t.Errorf("requests were sent: %v %v", seen, srv.Agents())
	}
	if _, err := os.Stat(opened); err == nil {
		t.Error("a browser was opened")
	}
}

// A fixed redirect port another program holds ends the login at once, in
// one line, exit 5: the registered URI cannot be served, and another port
// would not be it.
func TestOAuthRedirectPortInUse(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, opened := authWorld(t, w)
	held, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	port := strconv.Itoa(held.Addr().(*net.TCPAddr).Port)
	for _, args := range [][]string{{"auth", "login"}, {"--auth", "auto", "ping"}} {
		r := w.mcpv(t, "", append(args, "-u", srv.URL(), "--redirect-port", port)...)
		want := "oauth authorization: the redirect address 127.0.0.1:" + port + " is in use by another program; " +
			"free it, or give another --redirect-port (one the authorization server has registered)\n"
		if r.code != 5 || !strings.HasPrefix(r.stderr, "mcpv: ") || !strings.HasSuffix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(opened); err == nil || srv.Count("authorize") != 0 {
		t.Error("the browser was sent to authorize")
	}
}

// --login-timeout ends a login the browser never answers: exit 5, one
// line naming the setting. A pre-registered client whose redirect URI the
// authorization server does not know gets its error page, and the browser
// never comes back: the bound ends that wait too.
func TestOAuthLoginTimeout(t *testing.T) {
	testkit.SkipLong(t, "two logins that wait out a 1 s timeout")
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	srv.RedirectURIs = map[string][]string{"pre": {"http://127.0.0.1:1/registered"}}
	for _, args := range [][]string{
		{"auth", "login", "--login-timeout", "1s", "--client-id", "pre"},
		{"--auth", "auto", "ping", "--login-timeout", "1", "--client-id", "pre"},
	} {
		r := w.mcpv(t, "", append(args, "-u", srv.URL())...)
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		last := lines[len(lines)-1]
		if r.code != 5 || !strings.HasPrefix(last, "mcpv: ") || !strings.HasSuffix(last, "oauth authorization: no answer came from the browser within 1s (--login-timeout)") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	browsed(srv, 2)
	if srv.Count("authorize") != 2 || srv.Count("token:authorization_code") != 0 {
		t.Errorf("%d authorizations, %d codes exchanged", srv.Count("authorize"), srv.Count("token:authorization_code"))
	}
}

// A redirect host that is not a loopback name is the user's to give, on the
// command line: it is taken (not a usage error), with a warning that the
// code goes wherever the name leads; here it leads nowhere, and the login
// ends at its bound.
func TestOAuthRedirectHostFromTheCommandLine(t *testing.T) {
	testkit.SkipLong(t, "a login that waits out a 2 s timeout")
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	r := w.mcpv(t, "", "auth", "login", "-u", srv.URL(), "--redirect-host", "dev-box.invalid", "--login-timeout", "2s")
	if r.code != 5 || !strings.Contains(r.stderr, "the browser takes the authorization code to dev-box.invalid, wherever that name leads") ||
		!strings.HasSuffix(r.stderr, "no answer came from the browser within 2s (--login-timeout)\n") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	browsed(srv, 1)
	if got := srv.SeenAt("authorize"); len(got) != 1 || !strings.HasPrefix(got[0].Get("redirect_uri"), "http://dev-box.invalid:") {
		t.Errorf("authorize carried %v", got)
	}
}

// browsed waits, a minute at most, for the browsers mcpv started to have
// asked the authorization server n times: mcpv starts a browser and does
// not wait for it, and on a busy machine its request can come after the
// login has given up.
func browsed(srv *oauthtest.Server, n int) {
	for deadline := time.Now().Add(time.Minute); srv.Count("authorize") < n && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}

// The settings from a config entry's oauth block, and the one a config
// file may not set: a redirect host that is not a loopback one, which
// would send the login's code to another machine (a cloned repository's
// file, trusted or not, cannot).
func TestOAuthSettingsFromConfigEntry(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	srv, _ := authWorld(t, w.world)
	port := testkit.FreePort(t)
	w.setenv("TENANT_URL", "https://tenant9.example")
	catalog := filepath.Join(w.home, ".config", "mcpv", "servers.yaml")
	w.write(t, catalog, `servers:
  api:
    url: `+q(srv.URL())+`
    oauth:
      resource: ${TENANT_URL}
      scope: [mcp:tools, extra]
      redirect_host: localhost
      redirect_port: `+strconv.Itoa(port)+`
      redirect_path: /cb
      login_timeout: 2m
`)
	r := w.mcpv(t, "", "auth", "login", "-s", "api")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	got := srv.SeenAt("authorize")
	if want := []string{"https://tenant9.example", "mcp:tools extra", "http://localhost:" + strconv.Itoa(port) + "/cb"}; len(got) != 1 ||
		!slices.Equal([]string{got[0].Get("resource"), got[0].Get("scope"), got[0].Get("redirect_uri")}, want) {
		t.Errorf("authorize carried %v, want %q", got, want)
	}
	s := w.mcpv(t, "", "servers", "api", "-c", "-q", ".oauth")
	if want := `{"login_timeout":"2m0s","redirect_host":"localhost","redirect_path":"/cb","redirect_port":` + strconv.Itoa(port) +
		`,"resource":"${TENANT_URL}","scope":"mcp:tools extra"}` + "\n"; s.stdout != want {
		t.Errorf("servers: %q, want %q", s.stdout, want)
	}

	for _, tc := range []struct{ oauth, says string }{
		{"{redirect_host: attacker.example}", `oauth.redirect_host: attacker.example is not a loopback host (127.0.0.1, localhost, ::1); a config file cannot send the login's code to another machine: give it with --redirect-host`},
		{"{redirect_port: 99999}", "oauth.redirect_port 99999 is out of range (1-65535)"},
		{"{redirect_port: eighty}", "oauth.redirect_port must be a port number"},
		{"{redirect_path: cb}", "oauth.redirect_path cb does not start with /"},
		{"{resource: 'http://tenant.example/'}", "oauth.resource: http://tenant.example/ is not an https URL"},
		{"{login_timeout: forever}", "oauth.login_timeout"},
	} {
		w.write(t, catalog, "servers:\n  api:\n    url: "+q(srv.URL())+"\n    oauth: "+tc.oauth+"\n")
		r := w.mcpv(t, "", "auth", "login", "-s", "api", "--login-timeout", "20s")
		if r.code != 2 || !strings.Contains(r.stderr, tc.says) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tc.oauth, r.code, r.stderr, tc.says)
		}
	}
	if n := srv.Count("authorize"); n != 1 {
		t.Errorf("%d authorizations, want the first alone", n)
	}

	// A trusted project file is not enough for another host either; an
	// untrusted one is refused for its oauth block before that.
	w.write(t, catalog, "servers: {}\n")
	w.write(t, ".mcp.json", `{"mcpServers": {"proj": {"url": `+q(srv.URL())+`, "oauth": {"redirect_host": "attacker.example", "redirect_port": 8765}}}}`)
	if r := w.mcpv(t, "", "auth", "login", "-s", "proj"); r.code != 2 || !strings.Contains(r.stderr, "is not trusted") {
		t.Errorf("untrusted: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "trust", ".mcp.json"); r.code != 0 {
		t.Fatalf("trust: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "auth", "login", "-s", "proj", "--login-timeout", "20s"); r.code != 2 || !strings.Contains(r.stderr, "not a loopback host") {
		t.Errorf("trusted: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := srv.Count("authorize") + srv.Count("register"); n != 2 {
		t.Errorf("%d requests to register or authorize, want the first login's 2", n)
	}
}

// HARDENING, a hostile authorization server: a token endpoint that
// redirects the code's redemption to another origin gets nothing sent
// there (the code and verifier stay), and the login fails, exit 5.
func TestOAuthTokenRedirectElsewhere(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	var got atomic.Int32 // requests the other origin received
	elsewhere := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { got.Add(1) }))
	defer elsewhere.Close()
	srv.TokenRedirect = elsewhere.URL + "/steal"
	r := w.mcpv(t, "", "auth", "login", "-u", srv.URL(), "--redirect-port", strconv.Itoa(testkit.FreePort(t)))
	if r.code != 5 || !strings.Contains(r.stderr, "refusing to follow a redirect to another origin") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got.Load() != 0 {
		t.Error("the token request was sent to the other origin")
	}
	if strings.Contains(r.stderr, "code-") || strings.Contains(r.stderr, "verifier") {
		t.Errorf("stderr shows the code or verifier: %q", r.stderr)
	}
}

// A secret in a resource's query (a key some servers take there) is masked
// in the authorization URL mcpv shows and in what auth login prints.
func TestOAuthResourceSecretMasked(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	const resource = "https://tenant.example/mcp?api_key=res-SECRET-77"
	r := w.mcpv(t, "", "auth", "login", "-u", srv.URL(), "--resource", resource)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := srv.SeenAt("authorize")[0].Get("resource"); got != resource {
		t.Errorf("the resource sent was %q", got)
	}
	if strings.Contains(r.stdout+r.stderr, "res-SECRET-77") || !strings.Contains(r.stderr, "open this URL in a browser") {
		t.Errorf("the secret shows: stdout %q, stderr %q", r.stdout, r.stderr)
	}
}

// auth logout with a resource setting forgets only the records a command
// with it would use; without one, every record of the server.
func TestOAuthLogoutOfOneResource(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	const tenant = "https://tenant.example/mcp"
	for _, extra := range [][]string{nil, {"--resource", tenant}, {"--resource", "none"}} {
		if r := w.mcpv(t, "", append([]string{"auth", "login", "-u", srv.URL()}, extra...)...); r.code != 0 {
			t.Fatalf("login %v: exit %d, stderr %q", extra, r.code, r.stderr)
		}
	}
	params := func() string {
		t.Helper()
		r := w.mcpv(t, "", "auth", "status", "-u", srv.URL(), "-c", "-q", "[.records[].resource_parameter] | sort")
		return strings.TrimSpace(r.stdout)
	}
	if got := params(); got != `["discovered","given","omitted"]` {
		t.Fatalf("records before logout: %s", got)
	}
	url := srv.URL()
	for _, step := range []struct {
		args      []string
		said      string
		remaining string
	}{
		{[]string{"--resource", tenant}, `{"kept":2,"removed":1,"server":"` + url + `"}`, `["discovered","omitted"]`},
		{[]string{"--resource", tenant}, `{"kept":2,"removed":0,"server":"` + url + `"}`, `["discovered","omitted"]`},
		{[]string{"--resource", "none"}, `{"kept":1,"removed":1,"server":"` + url + `"}`, `["discovered"]`},
		{nil, `{"removed":1,"server":"` + url + `"}`, `[]`},
	} {
		r := w.mcpv(t, "", append([]string{"auth", "logout", "-u", url, "-c"}, step.args...)...)
		if r.code != 0 || strings.TrimSpace(r.stdout) != step.said {
			t.Fatalf("logout %v: exit %d, stdout %q, want %s; stderr %q", step.args, r.code, r.stdout, step.said, r.stderr)
		}
		if got := params(); got != step.remaining {
			t.Errorf("after logout %v: records %s, want %s", step.args, got, step.remaining)
		}
	}
}
