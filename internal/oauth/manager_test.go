package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
	"github.com/mcpv/mcpv/internal/testkit"
)

// world is an authorization server and a resource whose handler answers
// with the scope of the token it was called with.
type world struct {
	*oauthtest.Server
	rs struct{ URL string }
}

func newWorld(t *testing.T) *world {
	w := &world{}
	w.Server = oauthtest.New(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ") // Bearer or DPoP
		fmt.Fprintf(rw, `{"scope":%q}`, w.ScopeOf(tok))
	}))
	w.Scopes = []string{"read"}
	w.Clients["bot"] = "bot-secret"
	w.rs.URL = w.RS.URL
	return w
}

func (w *world) count(k string) int { return w.Count(k) }

// browser follows the authorization URL's redirects to mcpv's listener.
func browser(t *testing.T) func(string) error {
	return func(u string) error {
		go func() {
			resp, err := testkit.HTTP(t).Get(u)
			if err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
}

func noBrowser(t *testing.T) func(string) error {
	return func(string) error {
		t.Error("a browser was opened")
		return errors.New("no browser here")
	}
}

func (w *world) manager(t *testing.T, dir string, mode string, open func(string) error) *Manager {
	t.Helper()
	m, err := NewManager(Options{ServerURL: w.rs.URL + "/mcp", HTTP: testkit.HTTP(t), Store: &Store{Dir: dir},
		Mode: mode, Open: open}, testkit.Pool(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func call(t *testing.T, m *Manager, w *world, method string) (int, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", w.rs.URL+"/mcp", strings.NewReader(`{"method":"`+method+`"}`))
	resp, err := (&http.Client{Transport: m}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

func TestFlowThenStoredToken(t *testing.T) {
	w := newWorld(t)
	dir := filepath.Join(t.TempDir(), "oauth")
	status, body, err := call(t, w.manager(t, dir, ModeAuto, browser(t)), w, "tools/list")
	if err != nil || status != 200 {
		t.Fatalf("first call: %d %s %v", status, body, err)
	}
	if body != `{"scope":"read offline_access"}` {
		t.Errorf("scopes: %s (want the resource's scopes_supported plus offline_access)", body)
	}
	if w.count("register") != 1 || w.count("authorize") != 1 {
		t.Errorf("%d registrations, %d authorizations", w.count("register"), w.count("authorize"))
	}
	entries, _ := os.ReadDir(dir)
	if runtime.GOOS == "windows" {
		entries = nil // no mode bits there: internal/winacl's TestProtect checks the DACL
	}
	for _, e := range entries {
		info, _ := e.Info()
		if strings.HasSuffix(e.Name(), ".json") && info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v", e.Name(), info.Mode())
		}
	}
	if fi, _ := os.Stat(dir); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("store dir mode %v", fi.Mode())
	}
	// A new run (stored mode: no flow allowed) uses the stored token.
	status, _, err = call(t, w.manager(t, dir, ModeStored, noBrowser(t)), w, "tools/list")
	if err != nil || status != 200 || w.count("authorize") != 1 {
		t.Fatalf("second run: %d %v, %d authorizations", status, err, w.count("authorize"))
	}
}

func TestStoredModeNeverStartsAFlow(t *testing.T) {
	w := newWorld(t)
	_, _, err := call(t, w.manager(t, t.TempDir(), ModeStored, noBrowser(t)), w, "tools/list")
	var oe *Error
	if !errors.As(err, &oe) || oe.Step != StepAuthorization || oe.Need != NeedLogin || !strings.Contains(err.Error(), "does not start a browser flow") {
		t.Fatalf("got %v", err)
	}
	if w.count("authorize") != 0 || w.count("register") != 0 {
		t.Errorf("%d registrations, %d authorizations", w.count("register"), w.count("authorize"))
	}
}

// A 401 whose challenge shows no sign of OAuth (no resource_metadata):
// the server may want a token of its own, which the error says it may.
func TestStoredModeNoSignOfOAuth(t *testing.T) {
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpv serve"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer rs.Close()
	m, err := NewManager(Options{ServerURL: rs.URL + "/mcp", HTTP: testkit.HTTP(t), Store: &Store{Dir: t.TempDir()}, Mode: ModeStored, Open: noBrowser(t)}, testkit.Pool(t))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", rs.URL+"/mcp", strings.NewReader(`{}`))
	_, err = (&http.Client{Transport: m}).Do(req)
	var oe *Error
	if !errors.As(err, &oe) || oe.Need != NeedBearer {
		t.Fatalf("got %v, want the need of a bearer token", err)
	}
}

func TestRefreshRotatesAndIsShared(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	if status, _, err := call(t, w.manager(t, dir, ModeAuto, browser(t)), w, "tools/list"); status != 200 || err != nil {
		t.Fatal(status, err)
	}
	// Expire the stored token.
	expire := func() {
		recs, err := (&Store{Dir: dir}).Find(t.Context(), w.rs.URL+"/mcp")
		if len(recs) == 0 {
			t.Fatalf("no stored token to expire: %v", err)
		}
		recs[0].Token.ExpiresAt = time.Now().Add(-time.Minute)
		(&Store{Dir: dir}).Save(recs[0])
	}
	expire()
	// Two runs at once, each with its own store handle: one refresh.
	var wg sync.WaitGroup
	results := make([]int, 4)
	for i := range results {
		wg.Go(func() {
			results[i], _, _ = call(t, w.manager(t, dir, ModeStored, noBrowser(t)), w, "tools/list")
		})
	}
	wg.Wait()
	for i, s := range results {
		if s != 200 {
			t.Errorf("run %d: status %d", i, s)
		}
	}
	if n := w.count("token:refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	recs, _ := (&Store{Dir: dir}).Find(t.Context(), w.rs.URL+"/mcp")
	if len(recs) != 1 || recs[0].Token.RefreshToken == "refresh-2" || recs[0].Token.RefreshToken == "" {
		t.Errorf("the rotated refresh token was not saved: %+v", recs[0].Token.RefreshToken)
	}
	// The old refresh token is spent: a second expiry refreshes with the new one.
	expire()
	if status, _, err := call(t, w.manager(t, dir, ModeStored, noBrowser(t)), w, "tools/list"); status != 200 || err != nil {
		t.Fatalf("after rotation: %d %v", status, err)
	}
	if n := w.count("token:refresh_token"); n != 2 {
		t.Errorf("%d refreshes, want 2", n)
	}
}

func TestStepUpUnionOfScopes(t *testing.T) {
	w := newWorld(t)
	w.Need["tools/call"] = "write"
	m := w.manager(t, t.TempDir(), ModeAuto, browser(t))
	if status, _, err := call(t, m, w, "tools/list"); status != 200 || err != nil {
		t.Fatal(status, err)
	}
	status, body, err := call(t, m, w, "tools/call")
	if err != nil || status != 200 || body != `{"scope":"read offline_access write"}` {
		t.Fatalf("step-up: %d %s %v", status, body, err)
	}
	if w.count("authorize") != 2 {
		t.Errorf("%d authorizations, want 2", w.count("authorize"))
	}
	if w.count("register") != 1 {
		t.Errorf("%d registrations, want 1: a step-up reuses the client", w.count("register"))
	}
}

func TestRetryLimit(t *testing.T) {
	w := newWorld(t)
	w.ForbidAll = true
	_, _, err := call(t, w.manager(t, t.TempDir(), ModeAuto, browser(t)), w, "tools/list")
	if err == nil || !strings.Contains(err.Error(), "after 3 authorizations") {
		t.Fatalf("got %v", err)
	}
	if n := w.count("authorize"); n != 3 {
		t.Errorf("%d authorizations, want 3", n)
	}
}

// A redirect with a forged state is turned away and decides nothing: no code
// is exchanged, and the flow waits for the real answer (here it never comes,
// so the call ends with its context).
func TestTamperedState(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	forgedStatus := make(chan int, 1)
	forger := func(u string) error {
		go func() {
			c := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if req.URL.Host != via[0].URL.Host { // the hop to mcpv: change the state
					q := req.URL.Query()
					q.Set("state", "forged")
					req.URL.RawQuery = q.Encode()
				}
				return nil
			}}
			status := 0
			if resp, err := c.Get(u); err == nil {
				status = resp.StatusCode
				resp.Body.Close()
			}
			forgedStatus <- status
			cancel() // the real answer never comes
		}()
		return nil
	}
	req, _ := http.NewRequestWithContext(ctx, "POST", w.rs.URL+"/mcp", strings.NewReader(`{"method":"tools/list"}`))
	_, err := (&http.Client{Transport: w.manager(t, t.TempDir(), ModeAuto, forger)}).Do(req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the flow to wait until its context ended", err)
	}
	if status := <-forgedStatus; status != http.StatusBadRequest {
		t.Errorf("the forged redirect got %d, want 400", status)
	}
	if w.count("token:authorization_code") != 0 {
		t.Error("a code was exchanged despite the forged state")
	}
}

func TestLooseTokenFileRefused(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	if status, _, err := call(t, w.manager(t, dir, ModeAuto, browser(t)), w, "tools/list"); status != 200 || err != nil {
		t.Fatal(status, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	os.Chmod(files[0], 0o644)
	_, _, err := call(t, w.manager(t, dir, ModeStored, noBrowser(t)), w, "tools/list")
	var pe *PermissionError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("got %v", err)
	}
}

func TestClientCredentials(t *testing.T) {
	w := newWorld(t)
	m, err := NewManager(Options{ServerURL: w.rs.URL + "/mcp", HTTP: testkit.HTTP(t), Store: &Store{Dir: t.TempDir()},
		Mode: ModeAuto, Grant: GrantClientCredentials, ClientID: "bot", ClientSecret: "bot-secret", Open: noBrowser(t)}, testkit.Pool(t))
	if err != nil {
		t.Fatal(err)
	}
	status, body, err := call(t, m, w, "tools/list")
	if err != nil || status != 200 || body != `{"scope":"read"}` {
		t.Fatalf("%d %s %v", status, body, err)
	}
	if w.count("authorize") != 0 || w.count("register") != 0 {
		t.Errorf("%d registrations, %d authorizations", w.count("register"), w.count("authorize"))
	}
	m.opts.ClientSecret = "wrong"
	m.rec.Token.ExpiresAt = time.Now().Add(-time.Hour)
	m.rec.Grant = GrantClientCredentials
	m.rec.Client.Secret = "wrong-secret-value"
	_, _, err = call(t, m, w, "tools/list")
	if err == nil || strings.Contains(err.Error(), "wrong-secret-value") {
		t.Fatalf("bad secret: %v", err)
	}
}

func TestClientIdentityOrder(t *testing.T) {
	const cimdURL = "https://client.example/mcpv.json"
	tests := []struct {
		name          string
		cimd, noDCR   bool
		clientID      string
		metadataURL   string
		wantClient    string
		wantRegister  int
		wantErrSubstr string
	}{
		{name: "pre-registered beats everything", cimd: true, clientID: "pre-registered", metadataURL: cimdURL, wantClient: "pre-registered"},
		{name: "metadata document when supported", cimd: true, metadataURL: cimdURL, wantClient: cimdURL},
		{name: "registration when documents are not supported", metadataURL: cimdURL, wantClient: "dynamic-client", wantRegister: 1},
		{name: "registration without a document URL", cimd: true, wantClient: "dynamic-client", wantRegister: 1},
		{name: "nothing possible", noDCR: true, wantErrSubstr: "offers no dynamic registration and no client ID metadata documents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.CIMD, w.NoDCR = tt.cimd, tt.noDCR
			m, err := NewManager(Options{ServerURL: w.rs.URL + "/mcp", HTTP: testkit.HTTP(t), Store: &Store{Dir: t.TempDir()}, Mode: ModeAuto,
				ClientID: tt.clientID, ClientMetadataURL: tt.metadataURL, Open: browser(t)}, testkit.Pool(t))
			if err != nil {
				t.Fatal(err)
			}
			status, _, err := call(t, m, w, "tools/list")
			if tt.wantErrSubstr != "" {
				var oe *Error
				if !errors.As(err, &oe) || oe.Step != StepRegistration || oe.Need != NeedClient || !strings.Contains(err.Error(), tt.wantErrSubstr) {
					t.Fatalf("got %v", err)
				}
				return
			}
			if err != nil || status != 200 {
				t.Fatalf("%d %v", status, err)
			}
			if ids := w.ClientIDs(); len(ids) != 1 || ids[0] != tt.wantClient {
				t.Errorf("client ids %q, want %q", ids, tt.wantClient)
			}
			if n := w.count("register"); n != tt.wantRegister {
				t.Errorf("%d registrations, want %d", n, tt.wantRegister)
			}
		})
	}
}
