package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/testkit"
)

// Special bodies of discServer routes.
const (
	discTrap = "TRAP" // fetching it fails the test (the conformance suite's traps)
	discBig  = "BIG"  // a JSON object over the size limit
)

// discServer serves routes (request URI → body, "{base}" and "{port}"
// standing for the server's URL and port) on 127.0.0.1 and answers 404 to anything else. hits returns
// the request URIs in order.
func discServer(t *testing.T, routes map[string]string) (base string, hits func() []string) {
	t.Helper()
	var mu sync.Mutex // guards seen
	var seen []string
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.RequestURI())
		mu.Unlock()
		if r.Method != http.MethodGet || r.Header.Get("Accept") != "application/json" {
			t.Errorf("%s %s with Accept %q", r.Method, r.URL, r.Header.Get("Accept"))
		}
		body, ok := routes[r.URL.RequestURI()]
		switch {
		case !ok:
			http.NotFound(w, r)
		case body == discTrap:
			t.Errorf("fetched trap %s", r.URL.RequestURI())
			http.NotFound(w, r)
		case body == discBig:
			w.Write([]byte(`{"resource":"` + strings.Repeat("x", maxAnswer) + `"}`))
		default:
			port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
			w.Write([]byte(strings.NewReplacer("{base}", srv.URL, "{port}", port).Replace(body)))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// wantOAuthError checks that err is an *Error of step whose message contains
// substr ("{base}" replaced).
func wantOAuthError(t *testing.T, err error, step, substr string) {
	t.Helper()
	var oe *Error
	if !errors.As(err, &oe) {
		t.Fatalf("error = %v, want an *oauth.Error", err)
	}
	if oe.Step != step {
		t.Errorf("step = %q, want %q (%v)", oe.Step, step, err)
	}
	if !strings.Contains(err.Error(), substr) {
		t.Errorf("error %q does not contain %q", err, substr)
	}
	if strings.ContainsAny(err.Error(), "\n\r") {
		t.Errorf("error %q is not one line", err)
	}
}

func TestCanonicalResource(t *testing.T) {
	tests := []struct{ in, want, wantErr string }{
		{in: "HTTPS://Example.COM:443/mcp/#x", want: "https://example.com/mcp"},
		{in: "HTTP://Example.COM:80/mcp", want: "http://example.com/mcp"},
		{in: "http://localhost:3000/", want: "http://localhost:3000"},
		{in: "http://localhost:3000", want: "http://localhost:3000"},
		{in: "https://mcp.example.com:8443/server/mcp", want: "https://mcp.example.com:8443/server/mcp"},
		{in: "http://h:443/", want: "http://h:443"},
		{in: "https://h:80/", want: "https://h:80"},
		{in: "http://user:pw@h/mcp", want: "http://h/mcp"},
		{in: "https://h/a/b?x=1&y=2#f", want: "https://h/a/b?x=1&y=2"},
		{in: "https://h/?", want: "https://h"},
		{in: "http://h:/x", want: "http://h/x"},
		{in: "http://[::1]:80/mcp", want: "http://[::1]/mcp"},
		{in: "http://[::1]:8080/mcp", want: "http://[::1]:8080/mcp"},
		{in: "http://h/a%2Fb/", want: "http://h/a%2Fb"},
		{in: "http://h/MCP", want: "http://h/MCP"},
		{in: "mcp.example.com", wantErr: "mcp.example.com is not an absolute http or https url"},
		{in: "ftp://h/x", wantErr: "ftp://h/x is not an absolute http or https url"},
		{in: "http:///x", wantErr: "not an absolute"},
		{in: "mailto:a@b", wantErr: "not an absolute"},
		{in: "http://user:secret@h:xx/", wantErr: "invalid port"},
		{in: "ftp://user:secret@h/", wantErr: "ftp://h/ is not"},
		{in: "", wantErr: "not an absolute"},
	}
	for _, tt := range tests {
		got, err := CanonicalResource(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "secret") {
				t.Errorf("CanonicalResource(%q) = %q, %v; want error containing %q and no secret", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CanonicalResource(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestDiscoverResource(t *testing.T) {
	const (
		pathPRM = "/.well-known/oauth-protected-resource/mcp"
		rootPRM = "/.well-known/oauth-protected-resource"
		custom  = "/custom/metadata/location.json"
		mcpDoc  = `{"resource":"{base}/mcp","authorization_servers":["http://as.example/tenant1"],"scopes_supported":["mcp:basic"]}`
		rootDoc = `{"resource":"{base}","authorization_servers":["http://as.example"]}`
	)
	tests := []struct {
		name      string
		routes    map[string]string
		path      string // of the MCP server URL
		challenge string // a WWW-Authenticate value, or ""
		want      *ResourceMetadata
		wantHits  []string
		wantErr   string
	}{
		{
			name:      "metadata-default: header URL, root is a trap",
			routes:    map[string]string{pathPRM: mcpDoc, rootPRM: discTrap},
			path:      "/mcp",
			challenge: `Bearer error="invalid_token", resource_metadata="{base}` + pathPRM + `"`,
			want:      &ResourceMetadata{Resource: "{base}/mcp", AuthorizationServers: []string{"http://as.example/tenant1"}, ScopesSupported: []string{"mcp:basic"}, URL: "{base}" + pathPRM},
			wantHits:  []string{pathPRM},
		},
		{
			name:     "metadata-var1: path-based, not in header",
			routes:   map[string]string{pathPRM: mcpDoc, rootPRM: discTrap},
			path:     "/mcp",
			want:     &ResourceMetadata{Resource: "{base}/mcp", AuthorizationServers: []string{"http://as.example/tenant1"}, ScopesSupported: []string{"mcp:basic"}, URL: "{base}" + pathPRM},
			wantHits: []string{pathPRM},
		},
		{
			name:      "metadata-var2: root only, challenge without resource_metadata",
			routes:    map[string]string{rootPRM: rootDoc},
			path:      "/mcp",
			challenge: `Bearer scope="mcp:basic"`,
			want:      &ResourceMetadata{Resource: "{base}", AuthorizationServers: []string{"http://as.example"}, URL: "{base}" + rootPRM},
			wantHits:  []string{pathPRM, rootPRM},
		},
		{
			name:      "metadata-var3: custom header URL",
			routes:    map[string]string{custom: mcpDoc, pathPRM: discTrap, rootPRM: discTrap},
			path:      "/mcp",
			challenge: `Bearer resource_metadata="{base}` + custom + `"`,
			want:      &ResourceMetadata{Resource: "{base}/mcp", AuthorizationServers: []string{"http://as.example/tenant1"}, ScopesSupported: []string{"mcp:basic"}, URL: "{base}" + custom},
			wantHits:  []string{custom},
		},
		{
			name:      "relative header URL",
			routes:    map[string]string{custom: mcpDoc},
			path:      "/mcp",
			challenge: `Bearer resource_metadata="` + custom + `"`,
			want:      &ResourceMetadata{Resource: "{base}/mcp", AuthorizationServers: []string{"http://as.example/tenant1"}, ScopesSupported: []string{"mcp:basic"}, URL: "{base}" + custom},
			wantHits:  []string{custom},
		},
		{
			name:      "header URL missing is an error, no probing",
			routes:    map[string]string{pathPRM: discTrap, rootPRM: discTrap},
			path:      "/mcp",
			challenge: `Bearer resource_metadata="{base}` + custom + `"`,
			wantErr:   "protected resource metadata at {base}" + custom + ": 404 Not Found",
			wantHits:  []string{custom},
		},
		{
			name:      "header URL not http",
			path:      "/mcp",
			challenge: `Bearer resource_metadata="file:///etc/passwd"`,
			wantErr:   "resource_metadata file:///etc/passwd is not an http or https url",
		},
		{
			name:     "no metadata anywhere: a 2025-03-26 server",
			path:     "/mcp",
			wantHits: []string{pathPRM, rootPRM},
		},
		{
			name:     "server at the root probes the root only",
			routes:   map[string]string{rootPRM: rootDoc},
			path:     "/",
			want:     &ResourceMetadata{Resource: "{base}", AuthorizationServers: []string{"http://as.example"}, URL: "{base}" + rootPRM},
			wantHits: []string{rootPRM},
		},
		{
			name:     "path-based answer not JSON moves on",
			routes:   map[string]string{pathPRM: "<html>hello</html>", rootPRM: rootDoc},
			path:     "/mcp",
			want:     &ResourceMetadata{Resource: "{base}", AuthorizationServers: []string{"http://as.example"}, URL: "{base}" + rootPRM},
			wantHits: []string{pathPRM, rootPRM},
		},
		{
			name:     "a JSON array is not a document",
			routes:   map[string]string{pathPRM: `["x"]`, rootPRM: `null`},
			path:     "/mcp",
			wantHits: []string{pathPRM, rootPRM},
		},
		{
			name:     "trailing slash and query of the server URL",
			routes:   map[string]string{pathPRM + "?v=1": `{"resource":"{base}/mcp?v=1","authorization_servers":["http://as.example"]}`},
			path:     "/mcp/?v=1",
			want:     &ResourceMetadata{Resource: "{base}/mcp?v=1", AuthorizationServers: []string{"http://as.example"}, URL: "{base}" + pathPRM + "?v=1"},
			wantHits: []string{pathPRM + "?v=1"},
		},
		{
			name:     "resource in another case with a trailing slash matches",
			routes:   map[string]string{pathPRM: `{"resource":"HTTP://127.0.0.1:{port}/mcp/","authorization_servers":["http://as.example"]}`},
			path:     "/mcp",
			want:     &ResourceMetadata{Resource: "HTTP://127.0.0.1:{port}/mcp/", AuthorizationServers: []string{"http://as.example"}, URL: "{base}" + pathPRM},
			wantHits: []string{pathPRM},
		},
		{
			name:     "resource-mismatch: another host",
			routes:   map[string]string{pathPRM: `{"resource":"https://evil.example.com/mcp","authorization_servers":["http://as.example"]}`},
			path:     "/mcp",
			wantErr:  "protected resource metadata is for https://evil.example.com/mcp, not {base}/mcp; refusing to authorize",
			wantHits: []string{pathPRM},
		},
		{
			name:    "resource-mismatch: another path",
			routes:  map[string]string{pathPRM: `{"resource":"{base}/other","authorization_servers":["http://as.example"]}`},
			path:    "/mcp",
			wantErr: "is for {base}/other, not {base}/mcp",
		},
		{
			name:    "resource-mismatch: prefix not on a segment boundary",
			routes:  map[string]string{"/.well-known/oauth-protected-resource/mcpx": `{"resource":"{base}/mcp","authorization_servers":["http://as.example"]}`},
			path:    "/mcpx",
			wantErr: "is for {base}/mcp, not {base}/mcpx",
		},
		{
			name:    "resource-mismatch: scheme",
			routes:  map[string]string{pathPRM: `{"resource":"https://127.0.0.1:{port}/mcp","authorization_servers":["http://as.example"]}`},
			path:    "/mcp",
			wantErr: "is for https://127.0.0.1:{port}/mcp, not {base}/mcp",
		},
		{
			name:    "resource missing",
			routes:  map[string]string{pathPRM: `{"authorization_servers":["http://as.example"]}`},
			path:    "/mcp",
			wantErr: `protected resource metadata is for "", not {base}/mcp`,
		},
		{
			name:    "no authorization servers",
			routes:  map[string]string{pathPRM: `{"resource":"{base}/mcp","authorization_servers":[]}`},
			path:    "/mcp",
			wantErr: "protected resource metadata at {base}" + pathPRM + " lists no authorization_servers",
		},
		{
			name:    "malformed document",
			routes:  map[string]string{pathPRM: `{"resource":"{base}/mcp","authorization_servers":"http://as.example"}`},
			path:    "/mcp",
			wantErr: "malformed metadata at {base}" + pathPRM,
		},
		{
			name:    "body over the limit",
			routes:  map[string]string{pathPRM: discBig},
			path:    "/mcp",
			wantErr: "is larger than 1048576 bytes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, hits := discServer(t, tt.routes)
			port := base[strings.LastIndex(base, ":")+1:]
			fill := func(s string) string {
				return strings.ReplaceAll(strings.ReplaceAll(s, "{base}", base), "{port}", port)
			}
			var ch *Challenge
			if tt.challenge != "" {
				cs := ParseChallenges([]string{fill(tt.challenge)})
				ch = &cs[0]
			}
			got, err := DiscoverResource(context.Background(), testkit.HTTP(t), base+tt.path, ch)
			if tt.wantErr != "" {
				if got != nil {
					t.Errorf("got %+v with the error", got)
				}
				wantOAuthError(t, err, StepMetadata, fill(tt.wantErr))
			} else {
				if err != nil {
					t.Fatal(err)
				}
				want := tt.want
				if want != nil {
					want.Resource, want.URL = fill(want.Resource), fill(want.URL)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("metadata mismatch (-want +got):\n%s", diff)
				}
			}
			if tt.wantHits != nil {
				if diff := cmp.Diff(tt.wantHits, hits()); diff != "" {
					t.Errorf("requests mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestDiscoverResourceContextCanceled(t *testing.T) {
	base, _ := discServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := DiscoverResource(ctx, nil, base+"/mcp", nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

// discASDoc is authorization server metadata for issuer "{base}"+path.
func discASDoc(path, extra string) string {
	return `{"issuer":"{base}` + path + `","authorization_endpoint":"{base}/authorize","token_endpoint":"{base}/token"` + extra + `}`
}

func TestDiscoverServer(t *testing.T) {
	const (
		s256     = `,"code_challenge_methods_supported":["S256"]`
		oauthAS  = "/.well-known/oauth-authorization-server"
		oidc     = "/.well-known/openid-configuration"
		oauthT1  = oauthAS + "/tenant1"
		oidcT1   = oidc + "/tenant1"
		appendT1 = "/tenant1" + oidc
	)
	tests := []struct {
		name     string
		routes   map[string]string
		issuer   string // path after {base}
		wantHits []string
		wantErr  string
	}{
		{
			name:     "metadata-default: oauth-authorization-server",
			routes:   map[string]string{oauthAS: discASDoc("", s256), oidc: discTrap},
			wantHits: []string{oauthAS},
		},
		{
			name:     "metadata-var1: openid-configuration",
			routes:   map[string]string{oidc: discASDoc("", s256)},
			wantHits: []string{oauthAS, oidc},
		},
		{
			name:     "metadata-var2: path insertion, root is a trap",
			routes:   map[string]string{oauthT1: discASDoc("/tenant1", s256), oauthAS: discTrap, oidc: discTrap},
			issuer:   "/tenant1",
			wantHits: []string{oauthT1},
		},
		{
			name:     "openid-configuration with path insertion",
			routes:   map[string]string{oidcT1: discASDoc("/tenant1", s256), oauthAS: discTrap},
			issuer:   "/tenant1",
			wantHits: []string{oauthT1, oidcT1},
		},
		{
			name:     "metadata-var3: openid-configuration appended to the path",
			routes:   map[string]string{appendT1: discASDoc("/tenant1", s256), oauthAS: discTrap, oidc: discTrap},
			issuer:   "/tenant1",
			wantHits: []string{oauthT1, oidcT1, appendT1},
		},
		{
			name:     "issuer with a trailing slash",
			routes:   map[string]string{oauthT1: discASDoc("/tenant1/", s256)},
			issuer:   "/tenant1",
			wantHits: []string{oauthT1},
		},
		{
			name:     "server error moves on",
			routes:   map[string]string{oauthAS: "not json", oidc: discASDoc("", s256)},
			wantHits: []string{oauthAS, oidc},
		},
		{
			name:    "no S256",
			routes:  map[string]string{oauthAS: discASDoc("", `,"code_challenge_methods_supported":["plain"]`)},
			wantErr: "authorization server {base} does not advertise PKCE S256 (code_challenge_methods_supported); mcpv refuses to go on",
		},
		{
			name:    "code_challenge_methods_supported absent",
			routes:  map[string]string{oauthAS: discASDoc("", "")},
			wantErr: "does not advertise PKCE S256",
		},
		{
			name:    "issuer mismatch",
			routes:  map[string]string{oauthAS: `{"issuer":"https://evil.example","authorization_endpoint":"{base}/a","token_endpoint":"{base}/t"` + s256 + `}`},
			wantErr: "authorization server metadata at {base}" + oauthAS + " is for issuer https://evil.example, not {base}",
		},
		{
			name:    "no token endpoint",
			routes:  map[string]string{oauthAS: `{"issuer":"{base}","authorization_endpoint":"{base}/a"` + s256 + `}`},
			wantErr: "lacks authorization_endpoint or token_endpoint",
		},
		{
			name:    "endpoint not a URL",
			routes:  map[string]string{oauthAS: discASDoc("", s256+`,"registration_endpoint":"javascript:alert(1)"`)},
			wantErr: "endpoint javascript:alert(1) is not an absolute http or https url",
		},
		{
			name:    "none found",
			issuer:  "/tenant1",
			wantErr: "no authorization server metadata for {base}/tenant1; tried {base}" + oauthT1 + " (404 Not Found), {base}" + oidcT1 + " (404 Not Found), {base}" + appendT1 + " (404 Not Found)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, hits := discServer(t, tt.routes)
			fill := func(s string) string { return strings.ReplaceAll(s, "{base}", base) }
			got, err := DiscoverServer(context.Background(), testkit.HTTP(t), base+tt.issuer)
			if tt.wantErr != "" {
				if got != nil {
					t.Errorf("got %+v with the error", got)
				}
				wantOAuthError(t, err, StepMetadata, fill(tt.wantErr))
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.AuthorizationEndpoint != base+"/authorize" || got.TokenEndpoint != base+"/token" || got.Legacy {
				t.Errorf("metadata = %+v", got)
			}
			if diff := cmp.Diff(tt.wantHits, hits()); diff != "" {
				t.Errorf("requests mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLegacyServer(t *testing.T) {
	const oauthAS = "/.well-known/oauth-authorization-server"
	tests := []struct {
		name    string
		routes  map[string]string
		want    *ServerMetadata
		wantErr string
	}{
		{
			name: "metadata at the origin, endpoints under /oauth",
			routes: map[string]string{oauthAS: `{"issuer":"{base}","authorization_endpoint":"{base}/oauth/authorize",` +
				`"token_endpoint":"{base}/oauth/token","registration_endpoint":"{base}/oauth/register","code_challenge_methods_supported":["S256"]}`},
			want: &ServerMetadata{Issuer: "{base}", AuthorizationEndpoint: "{base}/oauth/authorize", TokenEndpoint: "{base}/oauth/token",
				RegistrationEndpoint: "{base}/oauth/register", CodeChallengeMethodsSupported: []string{"S256"}},
		},
		{
			name: "issuer not checked but marked unverified",
			routes: map[string]string{oauthAS: `{"issuer":"https://real-as.example","authorization_endpoint":"{base}/a",` +
				`"token_endpoint":"{base}/t","code_challenge_methods_supported":["S256"]}`},
			want: &ServerMetadata{Issuer: "https://real-as.example", AuthorizationEndpoint: "{base}/a", TokenEndpoint: "{base}/t",
				CodeChallengeMethodsSupported: []string{"S256"}, IssuerUnverified: true},
		},
		{
			name: "issuer not checked; missing issuer is the origin",
			routes: map[string]string{oauthAS: `{"authorization_endpoint":"{base}/a",` +
				`"token_endpoint":"{base}/t","code_challenge_methods_supported":["S256"]}`},
			want: &ServerMetadata{Issuer: "{base}", AuthorizationEndpoint: "{base}/a", TokenEndpoint: "{base}/t", CodeChallengeMethodsSupported: []string{"S256"}},
		},
		{
			name: "no metadata: default endpoints",
			want: &ServerMetadata{Issuer: "{base}", AuthorizationEndpoint: "{base}/authorize", TokenEndpoint: "{base}/token",
				RegistrationEndpoint: "{base}/register", CodeChallengeMethodsSupported: []string{"S256"}, Legacy: true},
		},
		{
			name:    "metadata without S256",
			routes:  map[string]string{oauthAS: discASDoc("", "")},
			wantErr: "does not advertise PKCE S256",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, hits := discServer(t, tt.routes)
			fill := func(s string) string { return strings.ReplaceAll(s, "{base}", base) }
			got, err := LegacyServer(context.Background(), testkit.HTTP(t), base+"/some/mcp?x=1")
			if diff := cmp.Diff([]string{oauthAS}, hits()); diff != "" {
				t.Errorf("requests mismatch (-want +got):\n%s", diff)
			}
			if tt.wantErr != "" {
				wantOAuthError(t, err, StepMetadata, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := *tt.want
			for _, p := range []*string{&w.Issuer, &w.AuthorizationEndpoint, &w.TokenEndpoint, &w.RegistrationEndpoint} {
				*p = fill(*p)
			}
			if diff := cmp.Diff(&w, got); diff != "" {
				t.Errorf("metadata mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
