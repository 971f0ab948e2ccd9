package connect

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/oauth"
)

// The OAuth mode of a run: the one asked for, else auto with a user at a
// terminal (who can take a browser flow), else stored tokens only.
func TestAuthMode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		mode        string
		interactive bool
		want        string
	}{
		{"none", true, "none"}, {"", true, oauth.ModeAuto}, {"", false, oauth.ModeStored}, {"auto", false, "auto"},
	} {
		s := &Settings{Auth: Auth{Mode: tt.mode}}
		if got := s.AuthMode(Hooks{Interactive: tt.interactive}); got != tt.want {
			t.Errorf("mode %q, interactive %v: %q, want %q", tt.mode, tt.interactive, got, tt.want)
		}
	}
}

// What a grant needs is asked for before anything is sent; auth is for
// HTTP servers only; a client key is read as an EC P-256 PEM key.
func TestAuthManagerRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(filepath.Join(dir, "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
	os.WriteFile(filepath.Join(dir, "junk.pem"), []byte("not a key"), 0o600)
	env := Env{Cwd: dir, GOOS: "linux", Environ: []string{"XDG_STATE_HOME=" + dir}}
	for _, tt := range []struct {
		name string
		s    Settings
		want string // "" for a manager
	}{
		{"a stdio server", Settings{Command: []string{"srv"}}, "auth is for HTTP servers: give --url URL or --server NAME of an HTTP server"},
		{"client credentials without a client", Settings{URL: "https://h.example/mcp", Auth: Auth{Grant: oauth.GrantClientCredentials}},
			"--grant client-credentials needs --client-id and --client-secret or --client-key"},
		{"client credentials with a secret", Settings{URL: "https://h.example/mcp", Auth: Auth{Grant: oauth.GrantClientCredentials, ClientID: "c", ClientSecret: "s"}}, ""},
		{"client credentials with a key", Settings{URL: "https://h.example/mcp", Auth: Auth{Grant: oauth.GrantClientCredentials, ClientID: "c", ClientKey: "key.pem"}}, ""},
		{"a key that is no key", Settings{URL: "https://h.example/mcp", Auth: Auth{Grant: oauth.GrantClientCredentials, ClientID: "c", ClientKey: "junk.pem"}},
			"--client-key " + filepath.Join(dir, "junk.pem") + ": "},
		{"a key that is not there", Settings{URL: "https://h.example/mcp", Auth: Auth{Grant: oauth.GrantClientCredentials, ClientID: "c", ClientKey: "none.pem"}},
			"--client-key: "},
		{"jwt-bearer without an assertion", Settings{URL: "https://h.example/mcp", Auth: Auth{Grant: oauth.GrantJWTBearer, ClientID: "c"}},
			"--grant jwt-bearer needs --client-id and --assertion"},
		{"cross-app without the identity provider", Settings{URL: "https://h.example/mcp", Auth: Auth{Grant: oauth.GrantCrossApp, ClientID: "c", ClientSecret: "s"}},
			"--grant cross-app needs --idp-token-endpoint, --idp-client-id and --id-token"},
		{"cross-app", Settings{URL: "https://h.example/mcp", Auth: Auth{Grant: oauth.GrantCrossApp, ClientID: "c", ClientSecret: "s",
			IDPTokenEndpoint: "https://idp.example/token", IDPClientID: "i", IDToken: "tok"}}, ""},
	} {
		m, err := AuthManager(&tt.s, oauth.ModeStored, env, Hooks{})
		switch {
		case tt.want == "" && (err != nil || m == nil):
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (!usageErr(err) || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%s: %v, want a usage error %q", tt.name, err, tt.want)
		}
	}
}

// An HTTP server's client goes through OAuth unless the run says none or
// the user sends an Authorization header of their own: then the server
// gets exactly what the user gave.
func TestAuthorizedClient(t *testing.T) {
	t.Parallel()
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Authorization")
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	env := Env{GOOS: "linux", Environ: []string{"XDG_STATE_HOME=" + t.TempDir()}}
	for _, tt := range []struct {
		name   string
		s      Settings
		oauth  bool
		header string
	}{
		{"none", Settings{URL: srv.URL, Auth: Auth{Mode: "none"}}, false, ""},
		{"the user's header", Settings{URL: srv.URL, Auth: Auth{Mode: "auto"}, Header: http.Header{"Authorization": {"Bearer mine"}}}, false, "Bearer mine"},
		{"stored tokens", Settings{URL: srv.URL, Auth: Auth{Mode: "stored", Grant: oauth.GrantAuthorizationCode}}, true, ""},
	} {
		c, err := authorizedClient(&tt.s, env, Hooks{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		_, isOAuth := c.Transport.(*oauth.Manager)
		if isOAuth != tt.oauth {
			t.Errorf("%s: OAuth %v, want %v", tt.name, isOAuth, tt.oauth)
		}
		req, _ := http.NewRequest("POST", srv.URL, nil)
		req.Header = tt.s.Header.Clone()
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
		if h := <-got; h != tt.header {
			t.Errorf("%s: Authorization %q, want %q", tt.name, h, tt.header)
		}
	}
}

// --cacert adds the certificates of a PEM file to the system's: a server
// whose certificate only it vouches for is then reached; a file that is
// not there or holds no certificate is a usage mistake.
func TestCACert(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake mcpv refuses
	srv.StartTLS()
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	os.WriteFile(filepath.Join(dir, "empty.pem"), []byte("no certificate here"), 0o600)
	for _, tt := range []struct {
		cacert string
		ok     bool
	}{{"", false}, {ca, true}} {
		c, err := httpClient(tt.cacert, "mcpv/test")
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		if (err == nil) != tt.ok {
			t.Errorf("--cacert %q: %v", tt.cacert, err)
		}
	}
	for file, want := range map[string]string{"none.pem": "--cacert: ", "empty.pem": "--cacert " + filepath.Join(dir, "empty.pem") + ": no PEM certificate found"} {
		if _, err := httpClient(filepath.Join(dir, file), ""); !usageErr(err) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
}

// Redirects are followed within the server's origin only, so that its
// headers and session go nowhere else, and not for ever.
func TestRedirectsStayInTheOrigin(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other origin was reached, with Authorization %q", r.Header.Get("Authorization"))
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/here":
			http.Redirect(w, r, "/there", http.StatusTemporaryRedirect)
		case "/there":
			w.Write([]byte("arrived"))
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		default:
			http.Redirect(w, r, r.URL.Path+"x", http.StatusTemporaryRedirect) // for ever
		}
	}))
	defer srv.Close()
	c, err := httpClient("", "")
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := c.Get(srv.URL + "/here"); err != nil || resp.StatusCode != 200 {
		t.Errorf("within the origin: %v", err)
	} else {
		resp.Body.Close()
	}
	req, _ := http.NewRequest("GET", srv.URL+"/away", nil)
	req.Header.Set("Authorization", "Bearer secret")
	if _, err := c.Do(req); err == nil || !strings.Contains(err.Error(), "refusing to follow a redirect to another origin (http://"+strings.TrimPrefix(other.URL, "http://")+")") {
		t.Errorf("to another origin: %v", err)
	}
	if _, err := c.Get(srv.URL + "/loop"); err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Errorf("a loop: %v", err)
	}
}
