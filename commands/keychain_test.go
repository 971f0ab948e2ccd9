package commands

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
)

// authStores is auth status's records, by where each keeps its secrets.
func authStores(t *testing.T, w *world, url string) []string {
	t.Helper()
	r := w.mcpv(t, "", "auth", "status", "-u", url, "-c")
	var status struct {
		Records []struct {
			Store      string `json:"store"`
			StoreError string `json:"store_error"`
		} `json:"records"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &status); err != nil {
		t.Fatalf("auth status: %v: %q", err, r.stdout)
	}
	var out []string
	for _, rec := range status.Records {
		out = append(out, rec.Store+rec.StoreError)
	}
	return out
}

// keychainWorld is authWorld with a keychain in memory, MCPV_TOKEN_STORE
// unset, and a client ci-bot whose secret is ci-secret-value-123.
func keychainWorld(t *testing.T) (*world, *oauthtest.Server, *oauthtest.Keyring) {
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	srv.Clients["ci-bot"] = "ci-secret-value-123"
	ring := oauthtest.NewKeyring()
	w.env.Keychain = &oauth.Keychain{Ring: ring}
	w.unsetenv("MCPV_TOKEN_STORE")
	return w, srv, ring
}

// Tokens in a keychain (a test's, in memory): none in the file, auth status
// says where they are, and logout removes the item. A keychain that fails
// is said once and the command goes on with a file; MCPV_TOKEN_STORE is
// checked before any server is reached.
func TestTokensInTheKeychain(t *testing.T) {
	t.Parallel()
	w, srv, ring := keychainWorld(t)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("ci-secret-value-123\n"), 0o600)
	ci := []string{"--grant", "client-credentials", "--client-id", "ci-bot", "--client-secret", "@" + secret, "-u", srv.URL()}

	r := w.mcpv(t, "", append(ci, "auth", "login")...)
	if r.code != 0 || !strings.Contains(r.stderr, "tokens kept in the system's keychain") || !strings.Contains(r.stdout, `"store":"keychain"`) {
		t.Fatalf("login: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if toks := storedTokens(t, w); len(toks) != 2 || toks[0] != "" || toks[1] != "" || len(ring.Items()) != 1 {
		t.Fatalf("the file holds %q, the keychain %d items", toks, len(ring.Items()))
	}
	if r := w.mcpv(t, "", append(ci, "ping")...); r.code != 0 || r.stderr != "" || srv.Count("token:client_credentials") != 1 {
		t.Fatalf("ping with the token from the keychain: exit %d, stderr %q, %d tokens", r.code, r.stderr, srv.Count("token:client_credentials"))
	}
	if got := authStores(t, w, srv.URL()); len(got) != 1 || got[0] != "keychain" {
		t.Errorf("auth status: %q", got)
	}

	// Locked: one warning (a JSON object under --errors json), a new token
	// kept in the file, and the command's own result.
	for _, form := range []string{"text", "json"} {
		ring.Fail(nil)
		w.mcpv(t, "", append(ci, "auth", "login")...)
		ring.Fail(errors.New("the collection is locked"))
		r = w.mcpv(t, "", append(ci, "--errors", form, "ping")...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 0 || len(lines) != 1 || !strings.Contains(lines[0], "the keychain cannot be used (the collection is locked)") ||
			form == "json" && !json.Valid([]byte(lines[0])) {
			t.Errorf("--errors %s, locked: exit %d, stderr %q", form, r.code, r.stderr)
		}
	}
	if got := authStores(t, w, srv.URL()); len(got) != 1 || got[0] != "file" {
		t.Errorf("auth status after the fallback: %q", got)
	}
	for _, out := range []string{r.stdout, r.stderr} {
		if strings.Contains(out, "ci-secret-value-123") || strings.Contains(out, "access-") {
			t.Errorf("a secret is shown: %q", out)
		}
	}

	ring.Fail(nil)
	w.mcpv(t, "", append(ci, "ping")...) // its token is fine: still in the file
	if r := w.mcpv(t, "", append(ci, "auth", "login")...); r.code != 0 || len(ring.Items()) != 1 {
		t.Fatalf("login again: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "auth", "logout", "-u", srv.URL()); r.code != 0 || len(ring.Items()) != 0 {
		t.Errorf("logout: exit %d, stderr %q, the keychain holds %d items", r.code, r.stderr, len(ring.Items()))
	}

	w.setenv("MCPV_TOKEN_STORE", "vault")
	if r := w.mcpv(t, "", append(ci, "ping")...); r.code != 2 || !strings.Contains(r.stderr, `MCPV_TOKEN_STORE="vault": want auto, keychain or file`) {
		t.Errorf("a bad MCPV_TOKEN_STORE: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A record whose keychain item cannot be read is listed by auth status,
// with why, and not counted as a login.
func TestAuthStatusOfAnUnreadableRecord(t *testing.T) {
	t.Parallel()
	w, srv, ring := keychainWorld(t)
	w.setenv("MCPV_CLIENT_SECRET", "ci-secret-value-123")
	if r := w.mcpv(t, "", "--grant", "client-credentials", "--client-id", "ci-bot", "-u", srv.URL(), "auth", "login"); r.code != 0 {
		t.Fatalf("login: exit %d, stderr %q", r.code, r.stderr)
	}
	for account := range ring.Items() {
		ring.Put(account, `{"access_token":"planted"}`)
	}
	r := w.mcpv(t, "", "auth", "status", "-u", srv.URL())
	if r.code != 5 || !strings.Contains(r.stdout, `"store":"keychain"`) || !strings.Contains(r.stdout, "not the one mcpv wrote") || strings.Contains(r.stdout, "planted") {
		t.Errorf("auth status: exit %d, stdout %q", r.code, r.stdout)
	}
}

// Logout of a record whose secrets are in the keychain, in a run that
// reaches no keychain (or whose keychain fails), removes the record and
// says on stderr which item stays, so that no secret is left behind
// unsaid; the exit code and stdout are logout's.
func TestLogoutSaysTheKeychainItemItLeaves(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"none", "failing", "json"} {
		w, srv, ring := keychainWorld(t)
		w.setenv("MCPV_CLIENT_SECRET", "ci-secret-value-123")
		if r := w.mcpv(t, "", "--grant", "client-credentials", "--client-id", "ci-bot", "-u", srv.URL(), "auth", "login"); r.code != 0 || len(ring.Items()) != 1 {
			t.Fatalf("login: exit %d, stderr %q", r.code, r.stderr)
		}
		if how != "failing" {
			w.env.Keychain = nil
		} else {
			ring.Fail(errors.New("the collection is locked"))
		}
		r := w.mcpv(t, "", "--errors", map[bool]string{true: "json", false: "text"}[how == "json"], "auth", "logout", "-u", srv.URL())
		if how == "json" && !json.Valid([]byte(r.stderr)) {
			t.Errorf("--errors json: stderr %q", r.stderr)
		}
		if r.code != 0 || r.stdout != `{"removed":1,"server":"`+srv.URL()+`"}`+"\n" ||
			!strings.Contains(r.stderr, "the keychain item of") || !strings.Contains(r.stderr, "could not be removed") || strings.Contains(r.stderr, "ci-secret-value-123") {
			t.Errorf("%s: logout: exit %d, stdout %q, stderr %q", how, r.code, r.stdout, r.stderr)
		}
		if len(ring.Items()) != 1 {
			t.Errorf("%s: the keychain holds %d items", how, len(ring.Items()))
		}
	}
}
