package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/origin"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// frontDoor serves the demo server with the token "let-me-in", the
// origins named admitted besides loopback ones, and set applied to the
// handler; it returns the server's base URL (no path).
func frontDoor(t *testing.T, anyHost bool, named []string, set func(*HTTPHandler)) string {
	t.Helper()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	h := srv.HTTPHandler("let-me-in", anyHost)
	p, err := origin.NewPolicy(named)
	if err != nil {
		t.Fatal(err)
	}
	h.Origins = p
	if set != nil {
		set(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return ts.URL
}

// preflight is what a browser asks before a page's fetch of POST with a
// bearer token and the protocol's headers.
func preflight(pageOrigin string, more map[string]string) map[string]string {
	h := map[string]string{"Origin": pageOrigin, "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "authorization,content-type,mcp-protocol-version,mcp-session-id,mcp-method,mcp-name,mcp-param-region"}
	for k, v := range more {
		h[k] = v
	}
	return h
}

// A browser's preflight from a page of an admitted origin (loopback, or
// named) is answered with what the page may send, without the token it
// cannot carry; one from any other page, or through a host name that is
// not this machine's (DNS rebinding), gets no CORS header at all.
func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	base := frontDoor(t, false, []string{"http://app.test:3000"}, nil)
	allowed := func(resp *http.Response) bool { return resp.Header.Get("Access-Control-Allow-Origin") != "" }
	for _, tt := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"loopback page", preflight("http://localhost:5173", nil), http.StatusNoContent},
		{"127.0.0.1 page", preflight("http://127.0.0.1:8080", nil), http.StatusNoContent},
		{"named page", preflight("http://app.test:3000", nil), http.StatusNoContent},
		{"named page, another port", preflight("http://app.test:3001", nil), http.StatusForbidden},
		{"foreign page", preflight("https://evil.example", nil), http.StatusForbidden},
		{"null origin", preflight("null", nil), http.StatusForbidden},
		{"look-alike of localhost", preflight("http://localhost.evil.example", nil), http.StatusForbidden},
		{"rebound name", preflight("http://evil.example:8808", map[string]string{"Host": "evil.example:8808"}), http.StatusForbidden},
		{"loopback page through a foreign host", preflight("http://localhost:5173", map[string]string{"Host": "evil.example"}), http.StatusForbidden},
	} {
		resp, _ := servetest.Do(t, http.MethodOptions, base+"/mcp", tt.header, "")
		if resp.StatusCode != tt.status || allowed(resp) != (tt.status == http.StatusNoContent) {
			t.Errorf("%s: %d, Access-Control-Allow-Origin %q; want %d", tt.name, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), tt.status)
			continue
		}
		if tt.status != http.StatusNoContent {
			for k := range resp.Header {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("%s: refused, yet answered %s", tt.name, k)
				}
			}
			continue
		}
		h := resp.Header
		if h.Get("Access-Control-Allow-Origin") != tt.header["Origin"] || h.Get("Access-Control-Allow-Credentials") != "" ||
			!strings.Contains(h.Get("Vary"), "Origin") || h.Get("Access-Control-Max-Age") == "" {
			t.Errorf("%s: %v", tt.name, h)
		}
		for _, m := range []string{"GET", "POST", "DELETE"} {
			if !strings.Contains(h.Get("Access-Control-Allow-Methods"), m) {
				t.Errorf("%s: %s not allowed: %q", tt.name, m, h.Get("Access-Control-Allow-Methods"))
			}
		}
		for _, name := range []string{"authorization", "content-type", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id", "mcp-method", "mcp-name", "mcp-param-region"} {
			if !strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), name) {
				t.Errorf("%s: %s not allowed: %q", tt.name, name, h.Get("Access-Control-Allow-Headers"))
			}
		}
	}

	// What is asked beyond what is allowed is not allowed: the browser
	// then refuses the request.
	resp, _ := servetest.Do(t, http.MethodOptions, base+"/mcp", preflight("http://localhost:5173", map[string]string{
		"Access-Control-Request-Headers": "authorization, cookie, x-forwarded-for, mcp-param-, mcp-param-a b, ,,, mcp-param-zone"}), "")
	got := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
	for _, name := range []string{"cookie", "x-forwarded-for", "mcp-param-,", "mcp-param-a"} {
		if strings.Contains(got+",", name) {
			t.Errorf("%q allowed: %q", name, got)
		}
	}
	if !strings.Contains(got, "mcp-param-zone") {
		t.Errorf("mcp-param-zone not allowed: %q", got)
	}

	// A public page that asks to reach this machine is let, being admitted.
	resp, _ = servetest.Do(t, http.MethodOptions, base+"/mcp", preflight("http://app.test:3000", map[string]string{"Access-Control-Request-Private-Network": "true"}), "")
	if resp.Header.Get("Access-Control-Allow-Private-Network") != "true" {
		t.Errorf("private network access not let: %v", resp.Header)
	}

	// An OPTIONS that is no preflight says what is allowed, no more.
	resp, _ = servetest.Do(t, http.MethodOptions, base+"/mcp", nil, "")
	if resp.StatusCode != http.StatusNoContent || !strings.Contains(resp.Header.Get("Allow"), "POST") || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("plain OPTIONS: %d %v", resp.StatusCode, resp.Header)
	}
}

// Every answer to a page of an admitted origin names it and lets it read
// the session's id and the protocol's headers, a refusal of its token
// included (so that it can tell why); a foreign page's request is refused
// with no CORS header.
func TestCORSAnswers(t *testing.T) {
	t.Parallel()
	base := frontDoor(t, false, []string{"https://app.example"}, nil)
	init := func(header map[string]string) (*http.Response, string) {
		h := map[string]string{"Content-Type": "application/json", "Accept": servetest.AcceptBoth}
		for k, v := range header {
			h[k] = v
		}
		return servetest.Do(t, http.MethodPost, base+"/mcp", h, servetest.LegacyInitialize)
	}
	for _, page := range []string{"http://localhost:5173", "https://app.example"} {
		resp, body := init(map[string]string{"Origin": page, "Authorization": "Bearer let-me-in"})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" || !strings.Contains(body, "serverInfo") {
			t.Fatalf("%s: %d %s", page, resp.StatusCode, body)
		}
		exposed := resp.Header.Get("Access-Control-Expose-Headers")
		if resp.Header.Get("Access-Control-Allow-Origin") != page || !strings.Contains(exposed, "Mcp-Session-Id") ||
			!strings.Contains(exposed, "Mcp-Protocol-Version") || !strings.Contains(resp.Header.Get("Vary"), "Origin") {
			t.Errorf("%s: %v", page, resp.Header)
		}
		resp, _ = init(map[string]string{"Origin": page})
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != page ||
			!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Errorf("%s without the token: %d %v", page, resp.StatusCode, resp.Header)
		}
	}
	resp, _ := init(map[string]string{"Origin": "https://evil.example", "Authorization": "Bearer let-me-in"})
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a foreign page: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = init(map[string]string{"Authorization": "Bearer let-me-in"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("no page: %d %v", resp.StatusCode, resp.Header)
	}
}

// Served beyond this machine (any host name), the endpoint still
// refuses a page of a foreign origin; a page served under the endpoint's
// own name (by a proxy in front of both) is let in.
func TestRemoteOrigins(t *testing.T) {
	t.Parallel()
	base := frontDoor(t, true, nil, nil)
	for _, tt := range []struct {
		origin, host string
		status       int
	}{
		{"https://mcp.example", "mcp.example", http.StatusOK},
		{"https://evil.example", "mcp.example", http.StatusForbidden},
		{"null", "mcp.example", http.StatusForbidden},
		{"", "mcp.example", http.StatusOK},
	} {
		h := map[string]string{"Host": tt.host, "Authorization": "Bearer let-me-in", "Content-Type": "application/json", "Accept": servetest.AcceptBoth}
		if tt.origin != "" {
			h["Origin"] = tt.origin
		}
		if resp, body := servetest.Do(t, http.MethodPost, base+"/mcp", h, servetest.LegacyInitialize); resp.StatusCode != tt.status {
			t.Errorf("Origin %q, Host %q: %d %s; want %d", tt.origin, tt.host, resp.StatusCode, body, tt.status)
		}
	}
}

// /healthz answers a probe without the token, with nothing about the
// server, and no CORS header for any page; the checks against DNS
// rebinding and foreign pages hold there too.
func TestHealthz(t *testing.T) {
	t.Parallel()
	base := frontDoor(t, false, nil, nil)
	for _, tt := range []struct {
		name   string
		method string
		header map[string]string
		status int
		body   string
	}{
		{"a probe", http.MethodGet, nil, http.StatusOK, `{"status":"ok"}` + "\n"},
		{"HEAD", http.MethodHead, nil, http.StatusOK, ""},
		{"a loopback page", http.MethodGet, map[string]string{"Origin": "http://localhost:5173"}, http.StatusOK, `{"status":"ok"}` + "\n"},
		{"a foreign page", http.MethodGet, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden, ""},
		{"a rebound name", http.MethodGet, map[string]string{"Host": "evil.example"}, http.StatusForbidden, ""},
		{"POST", http.MethodPost, nil, http.StatusMethodNotAllowed, ""},
		{"a preflight", http.MethodOptions, preflight("http://localhost:5173", nil), http.StatusMethodNotAllowed, ""},
	} {
		resp, body := servetest.Do(t, tt.method, base+"/healthz", tt.header, "")
		if resp.StatusCode != tt.status || tt.body != "" && body != tt.body {
			t.Errorf("%s: %d %q, want %d %q", tt.name, resp.StatusCode, body, tt.status, tt.body)
		}
		for k := range resp.Header {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s: answered %s", tt.name, k)
			}
		}
		if strings.Contains(strings.ToLower(body), "demo") {
			t.Errorf("%s: the answer names the server: %s", tt.name, body)
		}
	}
}

// /healthz says 503 once the server is gone: killed, here.
func TestHealthzUpstreamKilled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	s := &connect.Settings{Command: []string{os.Args[0]}, ConnectTimeout: 30 * time.Second, ProtocolEra: "legacy",
		Env: append(os.Environ(), mcptest.EnvVar+"=plain", mcptest.EnvPid+"="+pidFile)}
	srv := startServer(t, s, nil, false)
	h := srv.HTTPHandler("", false)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	if resp, body := servetest.Do(t, http.MethodGet, ts.URL+"/healthz", nil, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("while the server runs: %d %s", resp.StatusCode, body)
	}
	b, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(string(b))
	if err != nil || pid == 0 {
		t.Fatalf("the server's pid: %q %v", b, err)
	}
	if p, err := os.FindProcess(pid); err != nil || p.Kill() != nil {
		t.Fatalf("killing the server: %v", err)
	}
	select {
	case <-srv.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not see the server go")
	}
	resp, body := servetest.Do(t, http.MethodGet, ts.URL+"/healthz", nil, "")
	if resp.StatusCode != http.StatusServiceUnavailable || body != `{"status":"unavailable"}`+"\n" || strings.Contains(body, "exit") {
		t.Errorf("after the server was killed: %d %q", resp.StatusCode, body)
	}
}

// Once serve ends (SIGTERM), /healthz says so, so that a balancer stops
// sending clients.
func TestHealthzWhileEnding(t *testing.T) {
	t.Parallel()
	_, h, url := hangHTTP(t)
	base := strings.TrimSuffix(url, "/mcp")
	if resp, _ := servetest.Do(t, http.MethodGet, base+"/healthz", nil, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("serving: %d", resp.StatusCode)
	}
	h.Close()
	if resp, _ := servetest.Do(t, http.MethodGet, base+"/healthz", nil, ""); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("closed: %d", resp.StatusCode)
	}
}

// With Path, the endpoint is there, and /mcp is not.
func TestPath(t *testing.T) {
	t.Parallel()
	base := frontDoor(t, false, nil, func(h *HTTPHandler) { h.Path = "/api/v1/mcp" })
	tr, _ := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: base + "/api/v1/mcp", Mode: mcp.ModeStreamable, Header: http.Header{"Authorization": {"Bearer let-me-in"}}})
	sess := mcp.NewSession(tr, mcp.SessionOptions{})
	t.Cleanup(func() { sess.Close(context.Background()) })
	c := servetest.InitializeDeclaring(t, sess, "legacy", servetest.ClientCaps)
	if res := servetest.Call(t, c, "tools/call", `{"name":"echo","arguments":{"message":"at the path"}}`); !strings.Contains(string(res), "at the path") {
		t.Errorf("call: %s", res)
	}
	resp, _ := servetest.Do(t, http.MethodPost, base+"/mcp", map[string]string{"Authorization": "Bearer let-me-in", "Content-Type": "application/json", "Accept": servetest.AcceptBoth}, servetest.LegacyInitialize)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/mcp beside the path: %d", resp.StatusCode)
	}
}

func TestLegacyPaths(t *testing.T) {
	for endpoint, want := range map[string][2]string{
		"/mcp": {"/sse", "/message"}, "/": {"/sse", "/message"}, "/api/v1/mcp": {"/api/v1/sse", "/api/v1/message"}, "/mcp/": {"/mcp/sse", "/mcp/message"},
	} {
		if stream, message := LegacyPaths(endpoint); stream != want[0] || message != want[1] {
			t.Errorf("LegacyPaths(%q) = %q, %q; want %q", endpoint, stream, message, want)
		}
	}
}

func TestCheckPath(t *testing.T) {
	for _, tt := range []struct {
		path string
		sse  bool
		ok   bool
	}{
		{"/mcp", false, true}, {"/", false, true}, {"/api/v1/mcp", false, true}, {"/mcp/", false, true}, {"/a-b_c.d~e", false, true},
		{"/sse", false, true}, {"/message", false, true},
		{"mcp", false, false}, {"", false, false}, {"/a/../mcp", false, false}, {"/a/./mcp", false, false}, {"/..", false, false},
		{"/a//b", false, false}, {"//", false, false}, {"/%2e%2e/mcp", false, false}, {"/mcp?x=1", false, false}, {"/mcp#x", false, false},
		{"/m cp", false, false}, {"/mcp\x00", false, false}, {"/ｍcp", false, false}, {"/a\\b", false, false},
		{"/healthz", false, false}, {"/sse", true, false}, {"/message", true, false},
		{"/api/sse", true, false}, {"/api/message", true, false}, {"/api/sse", false, true}, {"/sse/", true, true}, {"/", true, true},
	} {
		if err := CheckPath(tt.path, tt.sse); (err == nil) != tt.ok {
			t.Errorf("CheckPath(%q, %v) = %v, want ok %v", tt.path, tt.sse, err, tt.ok)
		}
	}
}

// A browser's request that carries no Origin (an <img>, a no-cors fetch
// of GET, a link) yet was made for a page of another site is refused:
// where no token is asked, no page can open a legacy stream (a session,
// and with Isolate a server) by its address alone. What a user opens
// himself, and what no browser sent, is served.
func TestCrossSiteWithoutOrigin(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	_, base := sseDoor(t, srv, func(h *HTTPHandler) { h.token = "" })
	for _, tt := range []struct {
		path, site string
		status     int
	}{
		{ssePath, "cross-site", http.StatusForbidden},
		{HealthPath, "cross-site", http.StatusForbidden},
		{ssePath, "", http.StatusOK},
		{ssePath, "none", http.StatusOK},
		{ssePath, "same-origin", http.StatusOK},
		{ssePath, "same-site", http.StatusOK},
		{HealthPath, "", http.StatusOK},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+tt.path, nil)
		if tt.site != "" {
			req.Header.Set("Sec-Fetch-Site", tt.site)
		}
		resp, err := testkit.HTTP(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tt.status {
			t.Errorf("GET %s, Sec-Fetch-Site %q: %d, want %d", tt.path, tt.site, resp.StatusCode, tt.status)
		}
		cancel()
		resp.Body.Close()
	}
	resp, _ := servetest.Do(t, http.MethodPost, base+"/mcp", map[string]string{"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json", "Accept": servetest.AcceptBoth}, servetest.LegacyInitialize)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site initialize with no Origin: %d", resp.StatusCode)
	}
}
