package oauth

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/output"
)

// managerWith is w.manager with options of the test's.
func (w *world) managerWith(t *testing.T, dir, mode string, open func(string) error, set func(*Options)) *Manager {
	t.Helper()
	opts := Options{ServerURL: w.rs.URL + "/mcp", HTTP: testkit.HTTP(t), Store: &Store{Dir: dir}, Mode: mode, Open: open}
	set(&opts)
	m, err := NewManager(opts, testkit.Pool(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// resourcesSent are the resource parameters of the requests to endpoint:
// one entry per request, nil where it had none.
func resourcesSent(w *world, endpoint string) [][]string {
	var out [][]string
	for _, q := range w.SeenAt(endpoint) {
		out = append(out, q["resource"])
	}
	return out
}

// A resource given is sent as given (a trailing slash kept) on the
// authorization, token and refresh requests alike, and its token is used
// only by runs that give the same resource for the same server.
func TestResourceGiven(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	const tenant1 = "https://tenant1.example/"
	given := func(r string) func(*Options) { return func(o *Options) { o.Want.Resource = r } }
	if status, _, err := call(t, w.managerWith(t, dir, ModeAuto, browser(t), given(tenant1)), w, "tools/list"); status != 200 || err != nil {
		t.Fatal(status, err)
	}
	for _, endpoint := range []string{"authorize", "token:authorization_code"} {
		if got := resourcesSent(w, endpoint); len(got) != 1 || !slices.Equal(got[0], []string{tenant1}) {
			t.Errorf("%s carried resource %q, want %q", endpoint, got, tenant1)
		}
	}
	recs, _ := (&Store{Dir: dir}).Find(t.Context(), w.rs.URL+"/mcp")
	if len(recs) != 1 || recs[0].Resource != tenant1 || recs[0].ResourceParam != ResourceGiven || !slices.Equal(w.ResourceOf(recs[0].Token.AccessToken), []string{tenant1}) {
		t.Fatalf("stored: %+v", recs)
	}

	// Another resource, or none given: the tenant's token is not theirs.
	for _, set := range []func(*Options){given("https://tenant2.example/"), func(*Options) {}, func(o *Options) { o.Want.OmitResource = true }} {
		_, _, err := call(t, w.managerWith(t, dir, ModeStored, noBrowser(t), set), w, "tools/list")
		var oe *Error
		if !errors.As(err, &oe) || oe.Need != NeedLogin || !strings.Contains(err.Error(), "asked for another resource or fewer scopes") {
			t.Errorf("another resource used the tenant's token: %v", err)
		}
	}
	// The same one: used, and refreshed with the same resource.
	recs[0].Token.ExpiresAt = time.Now().Add(-time.Hour)
	(&Store{Dir: dir}).Save(recs[0])
	if status, _, err := call(t, w.managerWith(t, dir, ModeStored, noBrowser(t), given(tenant1)), w, "tools/list"); status != 200 || err != nil {
		t.Fatalf("the same resource: %d %v", status, err)
	}
	if got := resourcesSent(w, "token:refresh_token"); len(got) != 1 || !slices.Equal(got[0], []string{tenant1}) {
		t.Errorf("the refresh carried resource %q, want %q", got, tenant1)
	}
	if q := w.SeenAt("token:refresh_token")[0]; q.Has("scope") {
		t.Errorf("the refresh asked for scope %q: with the resource sent, it keeps what was granted", q.Get("scope"))
	}
}

// A server that refuses the resource parameter (as Entra ID's v2 endpoints
// do) fails with it and works without it: no request of the flow, of the
// refresh or of a machine grant carries one, and the token is kept apart
// from a token of the discovered resource.
func TestResourceOmitted(t *testing.T) {
	w := newWorld(t)
	w.RefuseResource = func(r []string) bool { return r != nil }
	dir := t.TempDir()
	_, _, err := call(t, w.manager(t, dir, ModeAuto, browser(t)), w, "tools/list")
	var oe *Error
	if !errors.As(err, &oe) || oe.Code != "invalid_target" {
		t.Fatalf("with the resource: %v, want invalid_target", err)
	}
	omit := func(o *Options) { o.Want.OmitResource = true }
	if status, _, err := call(t, w.managerWith(t, dir, ModeAuto, browser(t), omit), w, "tools/list"); status != 200 || err != nil {
		t.Fatalf("without the resource: %d %v", status, err)
	}
	recs, _ := (&Store{Dir: dir}).Find(t.Context(), w.rs.URL+"/mcp")
	if len(recs) != 1 || recs[0].Resource != "" || recs[0].ResourceParam != ResourceOmitted {
		t.Fatalf("stored: %+v", recs)
	}
	recs[0].Token.ExpiresAt = time.Now().Add(-time.Hour)
	(&Store{Dir: dir}).Save(recs[0])
	if status, _, err := call(t, w.managerWith(t, dir, ModeStored, noBrowser(t), omit), w, "tools/list"); status != 200 || err != nil {
		t.Fatalf("refresh without the resource: %d %v", status, err)
	}
	// Without a resource, the scope says what the token is for: the
	// refresh asks for the scope granted again.
	if q := w.SeenAt("token:refresh_token"); len(q) != 1 || q[0].Get("scope") != recs[0].Token.Scope || recs[0].Token.Scope == "" {
		t.Errorf("the refresh asked for scope %v, want %q", q, recs[0].Token.Scope)
	}
	bot := w.managerWith(t, t.TempDir(), ModeAuto, noBrowser(t), func(o *Options) {
		omit(o)
		o.Grant, o.ClientID, o.ClientSecret = GrantClientCredentials, "bot", "bot-secret"
	})
	if status, _, err := call(t, bot, w, "tools/list"); status != 200 || err != nil {
		t.Fatalf("client credentials without the resource: %d %v", status, err)
	}
	for _, endpoint := range []string{"token:authorization_code", "token:refresh_token", "token:client_credentials"} {
		if got := resourcesSent(w, endpoint); len(got) != 1 || got[0] != nil {
			t.Errorf("%s carried resource %q", endpoint, got)
		}
	}
	if got := resourcesSent(w, "authorize"); len(got) != 2 || got[0] == nil || got[1] != nil {
		t.Errorf("the authorization requests carried resources %q, want the discovered one, then none", got)
	}

	// A token of the discovered resource for the same issuer lives beside it.
	w.RefuseResource = nil
	if status, _, err := call(t, w.manager(t, dir, ModeAuto, browser(t)), w, "tools/list"); status != 200 || err != nil {
		t.Fatal(status, err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(files) != 2 {
		t.Errorf("%d token files, want 2 (one per resource setting)", len(files))
	}
}

// A record of the discovered resource keeps the file name it always had,
// so that tokens stored before are found.
func TestRecordFileOfTheDiscoveredResource(t *testing.T) {
	dir := t.TempDir()
	if err := (&Store{Dir: dir}).Save(&Record{Server: "https://mcp.example/mcp", Issuer: "https://as.example", Resource: "https://mcp.example/mcp"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "705a64211f0742e5be0e6115.json")); err != nil {
		t.Error(err)
	}
}

// Scopes given are asked for exactly; a token asked with them serves runs
// that ask for no more, and a run that asks for another scope asks again,
// even when the authorization server granted less than was asked.
func TestScopesGiven(t *testing.T) {
	w := newWorld(t)
	w.Scopes = []string{"read", "write", "admin"}
	w.Grant = func(asked string) string { return strings.ReplaceAll(asked, "write", "") } // grants less
	dir := t.TempDir()
	scopes := func(s ...string) func(*Options) { return func(o *Options) { o.Want.Scopes = s } }
	_, body, err := call(t, w.managerWith(t, dir, ModeAuto, browser(t), scopes("read", "write")), w, "tools/list")
	if err != nil || body != `{"scope":"read "}` {
		t.Fatalf("%s %v", body, err)
	}
	if got := w.SeenAt("authorize"); len(got) != 1 || got[0].Get("scope") != "read write" {
		t.Errorf("asked for %q, want exactly the scopes given", got[0].Get("scope"))
	}
	for _, again := range [][]string{{"read", "write"}, {"read"}, nil} {
		if status, _, err := call(t, w.managerWith(t, dir, ModeStored, noBrowser(t), scopes(again...)), w, "tools/list"); status != 200 || err != nil {
			t.Errorf("scopes %q: %d %v", again, status, err)
		}
	}
	_, _, err = call(t, w.managerWith(t, dir, ModeStored, noBrowser(t), scopes("read", "admin")), w, "tools/list")
	if !strings.Contains(fmtErr(err), "fewer scopes than this run asks for") {
		t.Errorf("a new scope used the stored token: %v", err)
	}
	if status, _, err := call(t, w.managerWith(t, dir, ModeAuto, browser(t), scopes("read", "admin")), w, "tools/list"); status != 200 || err != nil {
		t.Fatalf("asking again: %d %v", status, err)
	}
	if got := w.SeenAt("authorize"); len(got) != 2 || got[1].Get("scope") != "read admin" {
		t.Errorf("asked again for %q", got)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// With scopes given, a 403 insufficient_scope is not stepped up past them:
// the error names the scope the server asks for, and no flow starts.
func TestScopesGivenAreNotSteppedUp(t *testing.T) {
	w := newWorld(t)
	w.Need["tools/call"] = "write"
	m := w.managerWith(t, t.TempDir(), ModeAuto, browser(t), func(o *Options) { o.Want.Scopes = []string{"read"} })
	if status, _, err := call(t, m, w, "tools/list"); status != 200 || err != nil {
		t.Fatal(status, err)
	}
	_, _, err := call(t, m, w, "tools/call")
	var oe *Error
	if !errors.As(err, &oe) || oe.Need != NeedScope || !strings.Contains(err.Error(), "asks for scope write (HTTP 403 insufficient_scope), beyond the scopes given (read)") {
		t.Fatalf("got %v", err)
	}
	if n := w.count("authorize"); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}
}

// hasIPv6Loopback reports whether this machine can listen on ::1.
func hasIPv6Loopback() bool {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// A pre-registered client's redirect URI is used exactly: the host, port
// and path given; the authorization server accepts no other.
func TestFixedRedirect(t *testing.T) {
	w := newWorld(t)
	port := testkit.FreePort(t)
	uri := "http://localhost:" + strconv.Itoa(port) + "/oauth/callback"
	w.RedirectURIs = map[string][]string{"pre": {uri}}
	m := w.managerWith(t, t.TempDir(), ModeAuto, browser(t), func(o *Options) {
		o.ClientID = "pre"
		o.Redirect = Redirect{Host: "localhost", Port: port, Path: "/oauth/callback"}
	})
	if status, _, err := call(t, m, w, "tools/list"); status != 200 || err != nil {
		t.Fatal(status, err)
	}
	for _, endpoint := range []string{"authorize", "token:authorization_code"} {
		if got := w.SeenAt(endpoint); len(got) != 1 || got[0].Get("redirect_uri") != uri {
			t.Errorf("%s carried redirect_uri %q, want %s", endpoint, got, uri)
		}
	}
}

// Dynamic registration registers the redirect URI given, and a later flow
// reuses the client at it.
func TestFixedRedirectRegistered(t *testing.T) {
	w := newWorld(t)
	w.Need["tools/call"] = "write"
	port := testkit.FreePort(t)
	m := w.managerWith(t, t.TempDir(), ModeAuto, browser(t), func(o *Options) { o.Redirect = Redirect{Port: port} })
	for _, method := range []string{"tools/list", "tools/call"} { // the second steps up: a second flow
		if status, _, err := call(t, m, w, method); status != 200 || err != nil {
			t.Fatal(method, status, err)
		}
	}
	want := "http://127.0.0.1:" + strconv.Itoa(port) + "/callback"
	if got := w.SeenAt("register"); len(got) != 1 || got[0].Get("redirect_uri") != want {
		t.Errorf("registered %q, want one registration at %s", got, want)
	}
	for _, q := range w.SeenAt("authorize") {
		if q.Get("redirect_uri") != want {
			t.Errorf("authorization request with redirect_uri %s", q.Get("redirect_uri"))
		}
	}
}

// A fixed redirect port another program holds (on either loopback address
// a host name leads to) fails at once, naming it, before the browser is
// sent anywhere: another port would not be the registered URI, and a
// listener on the address left free would get the code.
func TestFixedRedirectPortInUse(t *testing.T) {
	type holder struct{ network, addr, host string }
	cases := []holder{{"tcp4", "127.0.0.1", "127.0.0.1"}, {"tcp4", "127.0.0.1", "localhost"}}
	if hasIPv6Loopback() {
		cases = append(cases, holder{"tcp6", "::1", "localhost"})
	}
	for _, h := range cases {
		t.Run(h.network+" "+h.host, func(t *testing.T) {
			w := newWorld(t)
			held, err := net.Listen(h.network, net.JoinHostPort(h.addr, "0"))
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			port := held.Addr().(*net.TCPAddr).Port
			m := w.managerWith(t, t.TempDir(), ModeAuto, noBrowser(t), func(o *Options) { o.Redirect = Redirect{Host: h.host, Port: port} })
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a wait for a browser that never comes ends too
			defer cancel()
			_, err = m.Login(ctx)
			var inUse *PortInUseError
			var oe *Error
			if !errors.As(err, &inUse) || !errors.As(err, &oe) || oe.Step != StepAuthorization ||
				!strings.Contains(err.Error(), net.JoinHostPort(h.addr, strconv.Itoa(port))+" is in use by another program") {
				t.Fatalf("got %v", err)
			}
			if n := w.count("authorize") + w.count("register"); n != 0 {
				t.Errorf("%d requests to register or authorize", n)
			}
		})
	}
}

// The wait for the browser ends at its bound with a *LoginTimeoutError
// (not a deadline: a login that took too long is an authorization failure),
// and the caller hears when the wait for the user begins and ends. An
// authorization server that sends the browser elsewhere, or to another
// path of the listener, ends the same way: nothing it sends is taken.
func TestLoginTimeout(t *testing.T) {
	for _, elsewhere := range []string{"", "http://127.0.0.1:1/callback", "/other"} {
		t.Run(elsewhere, func(t *testing.T) {
			w := newWorld(t)
			port := testkit.FreePort(t)
			open := func(string) error { return nil } // the user never comes back
			if elsewhere != "" {
				w.RedirectTo = elsewhere
				if strings.HasPrefix(elsewhere, "/") {
					w.RedirectTo = "http://127.0.0.1:" + strconv.Itoa(port) + elsewhere
				}
				open = browser(t)
			}
			var began, ended int
			m := w.managerWith(t, t.TempDir(), ModeAuto, open, func(o *Options) {
				o.Redirect = Redirect{Port: port}
				o.LoginTimeout = 100 * time.Millisecond
				o.Waiting = func() func() { began++; return func() { ended++ } }
			})
			ctx, cancel := context.WithTimeout(t.Context(), time.Hour) // far past the bound: only the bound can end it in time
			defer cancel()
			_, err := m.Login(ctx)
			var lt *LoginTimeoutError
			var oe *Error
			if !errors.As(err, &lt) || !errors.As(err, &oe) || oe.Step != StepAuthorization || err.Error() != "oauth authorization: no answer came from the browser within 100ms" {
				t.Fatalf("got %v", err)
			}
			if began != 1 || ended != 1 {
				t.Errorf("the wait began %d and ended %d times", began, ended)
			}
			if w.count("token:authorization_code") != 0 {
				t.Error("a code was exchanged")
			}
		})
	}
}

func TestCheckResource(t *testing.T) {
	for _, ok := range []string{"https://mcp.example/mcp", "https://tenant1.example/", "http://127.0.0.1:8080/mcp", "http://localhost/mcp", "https://mcp.example/mcp?tenant=1"} {
		if err := CheckResource(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for bad, why := range map[string]string{
		"mcp.example/mcp":                 "not an absolute https URL",
		"/mcp":                            "not an absolute https URL",
		"api://0000-1111":                 "not an https URL",
		"http://mcp.example/mcp":          "not an https URL",
		"https://u:pw@mcp.example/mcp":    "must not hold credentials (u@)",
		"https://mcp.example/mcp#section": "has a fragment",
		"urn:example:resource":            "not an absolute https URL",
	} {
		if err := CheckResource(bad); err == nil || !strings.Contains(err.Error(), why) || strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: %v, want %q", bad, err, why)
		}
	}
}

func TestCheckRedirect(t *testing.T) {
	for _, ok := range []Redirect{{}, {Host: "localhost", Port: 8765, Path: "/oauth/callback"}, {Host: "::1"}, {Host: "[::1]"},
		{Host: "127.0.0.1", Port: 65535}, {Host: "mcpv.localhost"}, {Path: "/a%20b"}, {Host: "dev-box.lan"}} {
		if err := CheckRedirect(ok); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	for _, bad := range []struct {
		r   Redirect
		why string
	}{
		{Redirect{Port: 65536}, "redirect port 65536 is out of range (1-65535)"},
		{Redirect{Port: -1}, "out of range"},
		{Redirect{Path: "callback"}, "does not start with /"},
		{Redirect{Path: "/cb?x=1"}, "has a query"},
		{Redirect{Path: "/c b"}, "has a query, a fragment, a space"},
		{Redirect{Path: "/é"}, "not a URL path as it would be sent"},
		{Redirect{Host: "http://localhost"}, "not a host name or IP address"},
		{Redirect{Host: "localhost:8080"}, "not a host name or IP address"},
		{Redirect{Host: "evil.example/x"}, "not a host name or IP address"},
		{Redirect{Host: "[127.0.0.1]"}, "only an IPv6 address goes in brackets"},
	} {
		if err := CheckRedirect(bad.r); err == nil || !strings.Contains(err.Error(), bad.why) {
			t.Errorf("%+v: %v, want %q", bad.r, err, bad.why)
		}
	}
	for host, loopback := range map[string]bool{"": true, "localhost": true, "LocalHost": true, "a.localhost": true, "127.0.0.2": true,
		"::1": true, "[::1]": true, "dev-box.lan": false, "10.0.0.1": false, "localhost.evil.example": false} {
		if IsLoopbackRedirectHost(host) != loopback {
			t.Errorf("IsLoopbackRedirectHost(%q) = %v", host, !loopback)
		}
	}
}

// A name's redirect listens on both loopback addresses, so whichever a
// browser resolves it to, the answer comes to mcpv.
func TestListenRedirectOnBothLoopbackAddresses(t *testing.T) {
	if !hasIPv6Loopback() {
		t.Skip("no IPv6 loopback address here")
	}
	ln, uri, err := ListenRedirect(Redirect{Host: "localhost", Path: "/cb"})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(uri)
	if u.Hostname() != "localhost" || u.Path != "/cb" || u.Port() == "0" {
		t.Fatalf("redirect URI %s", uri)
	}
	go http.Serve(ln, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})) // ends when ln closes
	for _, addr := range []string{"127.0.0.1", "::1"} {
		resp, err := testkit.HTTP(t).Get("http://" + net.JoinHostPort(addr, u.Port()) + "/cb")
		if err != nil {
			t.Errorf("%s: %v", addr, err)
			continue
		}
		resp.Body.Close()
	}
	ln.Close()
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close: %v", err)
	}
	for _, addr := range []string{"127.0.0.1", "::1"} {
		if c, err := net.Dial("tcp", net.JoinHostPort(addr, u.Port())); err == nil {
			c.Close()
			t.Errorf("%s still listens after Close", addr)
		}
	}
}

// A redirect host that is not a loopback name (one the user maps to this
// machine) is served on the loopback addresses, with a warning that the
// code goes wherever the name leads.
func TestRedirectHostOfTheUsers(t *testing.T) {
	w := newWorld(t)
	port := testkit.FreePort(t)
	hosts := func(u string) error { // a browser whose hosts file maps callback.test here
		c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if h, p, _ := net.SplitHostPort(addr); h == "callback.test" {
				addr = net.JoinHostPort("127.0.0.1", p)
			}
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}}}
		go func() {
			if resp, err := c.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	var diag strings.Builder
	m := w.managerWith(t, t.TempDir(), ModeAuto, hosts, func(o *Options) {
		o.Redirect = Redirect{Host: "callback.test", Port: port}
		o.Log = output.NewLogger(&diag)
	})
	if status, _, err := call(t, m, w, "tools/list"); status != 200 || err != nil {
		t.Fatal(status, err)
	}
	if got := w.SeenAt("authorize")[0].Get("redirect_uri"); got != "http://callback.test:"+strconv.Itoa(port)+"/callback" {
		t.Errorf("redirect_uri %s", got)
	}
	if !strings.Contains(diag.String(), "the browser takes the authorization code to callback.test, wherever that name leads") {
		t.Errorf("no warning: %q", diag.String())
	}
}
