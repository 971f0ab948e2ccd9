//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/godbus/dbus/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zalando/go-keyring"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
)

// secretService is the mcpv binary's world for the Secret Service's test:
// a state directory of its own, the session bus it was given, and a
// browser (curl) that follows the authorization URL back to mcpv.
type secretService struct {
	t     *testing.T
	env   []string
	state string
}

func (s *secretService) mcpv(extra []string, args ...string) (code int, stdout, stderr string) {
	s.t.Helper()
	cmd := exec.Command(mcpvBin, args...)
	cmd.Env = append(append(os.Environ(), s.env...), extra...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// record is the one token file, as it is on disk, and its keychain account.
func (s *secretService) record() (account string, file map[string]any) {
	s.t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.state, "mcpv", "oauth", "*.json"))
	if len(files) != 1 {
		s.t.Fatalf("token files: %q", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil || json.Unmarshal(data, &file) != nil {
		s.t.Fatalf("%s: %v", files[0], err)
	}
	return strings.TrimSuffix(filepath.Base(files[0]), ".json"), file
}

// item is what secret-tool finds for the account: its secret, and whether
// there is one.
func item(t *testing.T, account string) (string, bool) {
	t.Helper()
	out, err := exec.Command("secret-tool", "lookup", "service", "mcpv", "username", account).Output()
	return string(out), err == nil && len(out) > 0
}

// lockLogin locks the login collection, as a screen lock or a user does.
func lockLogin(t *testing.T) {
	t.Helper()
	conn, err := dbus.SessionBus()
	if err != nil {
		t.Fatal(err)
	}
	var locked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	err = conn.Object("org.freedesktop.secrets", "/org/freedesktop/secrets").
		Call("org.freedesktop.Secret.Service.Lock", 0, []dbus.ObjectPath{"/org/freedesktop/secrets/collection/login"}).Store(&locked, &prompt)
	if err != nil || len(locked) != 1 {
		t.Fatalf("locking the login collection: %v (%v, prompt %s)", err, locked, prompt)
	}
}

// Tokens in a real Secret Service (gnome-keyring on a private session
// bus, scripts/keychain.sh): the file holds none, secret-tool finds the
// item, the token serves a call and a refresh, auth status names the
// keychain, logout removes the item. Then as HARDENING.md's enemies
// would: an item another program wrote, a huge one, another local user
// on the bus, the keyring locked, the bus gone: each run still ends, with
// one warning where the keychain failed, and a client-credentials run
// goes on with the file.
func TestTokensInTheSecretService(t *testing.T) {
	if os.Getenv("MCPV_SECRET_SERVICE") != "1" {
		t.Skip("needs a Secret Service on the session bus: scripts/keychain.sh sets MCPV_SECRET_SERVICE=1")
	}
	demo := demoserver.New()
	srv := oauthtest.New(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	srv.Clients["ci-bot"] = "ci-secret-value-123"
	s := &secretService{t: t, state: t.TempDir()}
	s.env = []string{"XDG_STATE_HOME=" + s.state, "MCPV_TOKEN_STORE=auto", "BROWSER=curl -sSL -o /dev/null"}
	url := srv.URL()

	code, out, errs := s.mcpv(nil, "auth", "login", "-u", url)
	if code != 0 || !strings.Contains(errs, "tokens kept in the system's keychain") || !strings.Contains(out, `"store":"keychain"`) {
		t.Fatalf("login: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	account, file := s.record()
	tok, _ := file["token"].(map[string]any)
	if file["secrets"] != "keychain" || tok["access_token"] != "" || tok["refresh_token"] != nil || file["client"].(map[string]any)["client_secret"] != nil {
		t.Errorf("the token file holds secrets: %v", file)
	}
	secret, found := item(t, account)
	var kept struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if !found || json.Unmarshal([]byte(secret), &kept) != nil || !srv.Valid(kept.AccessToken) || kept.RefreshToken == "" {
		t.Fatalf("secret-tool finds no item holding a valid token for %s", account)
	}

	call := []string{"-u", url, "call", "echo", "message=hi", "-q", ".structuredContent.message"}
	if code, out, errs := s.mcpv(nil, call...); code != 0 || out != `"hi"`+"\n" || errs != "" {
		t.Fatalf("a call with the token from the keychain: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	srv.Revoke()
	if code, out, errs := s.mcpv(nil, call...); code != 0 || out != `"hi"`+"\n" || srv.Count("token:refresh_token") != 1 {
		t.Fatalf("refreshed: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if now, _ := item(t, account); now == secret {
		t.Error("the refreshed token is not in the keychain")
	}
	// Two processes at once: one refresh (the refresh token rotates), the
	// other takes its token from the keychain under the store's lock.
	srv.Revoke()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if code, out, errs := s.mcpv(nil, call...); code != 0 || out != `"hi"`+"\n" {
				t.Errorf("two at once: exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
	wg.Wait()
	if n := srv.Count("token:refresh_token"); n != 2 {
		t.Errorf("%d refreshes, want 2", n)
	}
	if code, out, _ := s.mcpv(nil, "auth", "status", "-u", url, "-c"); code != 0 || !strings.Contains(out, `"store":"keychain"`) {
		t.Errorf("auth status: exit %d, stdout %q", code, out)
	}

	// Another local user on the bus: the bus refuses it, so neither the
	// item nor the token file's (none) is theirs to read.
	if os.Geteuid() == 0 {
		cmd := exec.Command("secret-tool", "search", "--all", "service", "mcpv")
		cmd.Env = []string{"DBUS_SESSION_BUS_ADDRESS=" + os.Getenv("DBUS_SESSION_BUS_ADDRESS"), "HOME=/nonexistent"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		b, err := cmd.CombinedOutput()
		if err == nil || strings.Contains(string(b), "access_token") {
			t.Errorf("another user reached the item: %v\n%s", err, b)
		}
		t.Logf("another user's secret-tool: %v: %s", err, bytes.TrimSpace(b))
	}

	// An item another program wrote in mcpv's place, and a huge one: not
	// used, said by auth status, and a command asks for a login.
	for name, planted := range map[string]string{"planted": `{"access_token":"planted-token"}`, "huge": strings.Repeat("x", 1<<20)} {
		// go-keyring, as another Go program would (secret-tool takes 8 KiB at most).
		if err := keyring.Set("mcpv", account, planted); err != nil {
			t.Fatalf("planting the item: %v", err)
		}
		code, out, _ := s.mcpv(nil, "auth", "status", "-u", url, "-c", "-q", ".records[].store_error")
		t.Logf("%s item: auth status: %s", name, strings.TrimSpace(out))
		if code != 5 || !strings.Contains(out, "keychain item") || strings.Contains(out, "planted-token") {
			t.Errorf("%s item: auth status: exit %d, stdout %.300q", name, code, out)
		}
		if code, _, errs := s.mcpv(nil, append([]string{"--auth", "stored"}, call...)...); code != 5 || strings.Contains(errs, "planted-token") {
			t.Errorf("%s item: a call: exit %d, stderr %q", name, code, errs)
		}
	}
	if code, out, errs := s.mcpv(nil, "auth", "logout", "-u", url); code != 0 || !strings.Contains(out, `"removed":1`) {
		t.Fatalf("logout: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, found := item(t, account); found {
		t.Error("logout left the keychain item")
	}

	// Locked, then the bus gone: a client-credentials run still ends well,
	// with one warning, its token in the file; without a bus at all there
	// is no keychain and no warning.
	ci := []string{"--grant", "client-credentials", "--client-id", "ci-bot", "-u", url, "ping"}
	withSecret := []string{"MCPV_CLIENT_SECRET=ci-secret-value-123"}
	if code, _, errs := s.mcpv(withSecret, ci...); code != 0 || errs != "" {
		t.Fatalf("client credentials: exit %d, stderr %q", code, errs)
	}
	if _, found := item(t, account); !found {
		t.Fatal("the client credentials' token is not in the keychain")
	}
	lockLogin(t)
	for name, bus := range map[string][]string{
		"locked":   nil,
		"bus gone": {"DBUS_SESSION_BUS_ADDRESS=unix:path=" + filepath.Join(t.TempDir(), "gone")},
	} {
		srv.Revoke() // a new token, which the keychain cannot keep
		code, _, errs := s.mcpv(append(bus, withSecret...), ci...)
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		t.Logf("%s: exit %d, stderr %q", name, code, errs)
		if code != 0 || len(lines) != 1 || !strings.Contains(lines[0], "mcpv: warning: the keychain cannot be used") {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
		if _, file := s.record(); file["secrets"] != nil {
			t.Errorf("%s: the token went to %v, not the file", name, file["secrets"])
		}
		code, out, errs := s.mcpv(append(bus, withSecret...), "auth", "status", "-u", url, "-c")
		if code != 0 || !strings.Contains(out, `"store":"file"`) {
			t.Errorf("%s: auth status: exit %d, stdout %q, stderr %q", name, code, out, errs)
		}
	}
	code, _, errs = s.mcpv(append(withSecret, "DBUS_SESSION_BUS_ADDRESS="), ci...)
	if code != 0 || errs != "" {
		t.Errorf("no bus: exit %d, stderr %q", code, errs)
	}
}
