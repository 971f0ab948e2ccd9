//go:build unix && e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
	"github.com/mcpv/mcpv/internal/testkit"
)

// The authorization server scripts/device-as.sh builds: zitadel/oidc's
// example OpenID Provider with a device client (scripts/device-as/main.go
// says which client and user).
const (
	deviceClientID     = "mcpv-device"
	deviceClientSecret = "mcpv-device-secret"
	deviceUser         = "mcpv-user"
	devicePassword     = "mcpv-password"
)

// startDeviceAS starts the authorization server that scripts/device-as.sh
// built (MCPV_DEVICE_AS names it) on a free loopback port, and returns
// its issuer.
func startDeviceAS(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("MCPV_DEVICE_AS")
	if bin == "" {
		t.Skip("MCPV_DEVICE_AS names no authorization server: MCPV_DEVICE_AS=$(bash scripts/device-as.sh) runs this test")
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	logs := filepath.Join(t.TempDir(), "device-as.log")
	logFile, err := os.Create(logs)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logFile.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logs)
			t.Logf("the authorization server's log:\n%s", b)
		}
	})
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- line
		io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-first:
		issuer, ok := strings.CutPrefix(strings.TrimSpace(line), "issuer ")
		if !ok {
			b, _ := os.ReadFile(logs)
			t.Fatalf("the authorization server said %q, not its issuer:\n%s", line, b)
		}
		return issuer
	case <-time.After(2 * time.Minute): // a hang guard
		b, _ := os.ReadFile(logs)
		t.Fatalf("the authorization server did not start:\n%s", b)
		return ""
	}
}

// protectedByDeviceAS is an MCP server (the demo server) behind a bearer
// guard whose protected-resource metadata names issuer as its
// authorization server and the scopes openid and profile, and which takes
// only the tokens issuer's userinfo endpoint takes as the test's user's:
// tokens that server issued, for that user, and still holds valid.
func protectedByDeviceAS(t *testing.T, issuer string) *oauthtest.Server {
	t.Helper()
	var md struct {
		UserinfoEndpoint string `json:"userinfo_endpoint"`
	}
	resp, err := testkit.HTTP(t).Get(issuer + ".well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	if err != nil || md.UserinfoEndpoint == "" {
		t.Fatalf("the authorization server's metadata names no userinfo endpoint: %v", err)
	}
	demo := demoserver.New()
	srv := oauthtest.New(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	srv.AuthServer = issuer
	srv.Scopes = []string{"openid", "profile"}
	srv.Verify = func(token string) bool {
		req, _ := http.NewRequest(http.MethodGet, md.UserinfoEndpoint, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := testkit.HTTP(t).Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var info struct {
			Sub  string `json:"sub"`
			User string `json:"preferred_username"`
		}
		return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&info) == nil && info.Sub != "" && info.User == deviceUser
	}
	return srv
}

// deviceWorld is what one login's mcpv processes share: a state
// directory, and a config file naming the server "zitadel" with the
// device client (its secret from the environment, as a user would keep it).
type deviceWorld struct {
	env []string
}

func newDeviceWorld(t *testing.T, srv *oauthtest.Server) *deviceWorld {
	t.Helper()
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.yaml")
	err := os.WriteFile(config, fmt.Appendf(nil, `servers:
  zitadel:
    url: %s
    oauth:
      client_id: %s
      client_secret: ${MCPV_E2E_DEVICE_SECRET}
`, srv.URL(), deviceClientID), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	return &deviceWorld{env: append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "MCPV_CONFIG="+config,
		"MCPV_E2E_DEVICE_SECRET="+deviceClientSecret, "BROWSER=")}
}

// mcpv runs mcpv to its end (a hang guard of two minutes) and returns its
// exit code, stdout and stderr.
func (w *deviceWorld) mcpv(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	r := &run{cmd: exec.Command(mcpvBin, args...)}
	r.cmd.Env = append(w.env, env...)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	code, _ := r.wait(t, 2*time.Minute)
	return code, r.stdout.String(), r.stderr.String()
}

// loginLine is the line of a device login that says where to go and
// which code to enter.
var loginLine = regexp.MustCompile(`to log in, open (\S+) and enter the code (\S+)`)

// deviceLogin starts `mcpv auth login --device -s zitadel` and returns
// the link and code it shows, and a function that waits for its end (a
// hang guard of two minutes) and returns its exit code, stdout and stderr.
func (w *deviceWorld) deviceLogin(t *testing.T) (link, code string, end func() (int, string, string)) {
	t.Helper()
	cmd := exec.Command(mcpvBin, "auth", "login", "--device", "-s", "zitadel")
	cmd.Env = w.env
	var stdout strings.Builder
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	var mu sync.Mutex
	var stderr strings.Builder
	shown := make(chan []string, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			mu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := loginLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case shown <- m[1:]:
				default:
				}
			}
		}
	}()
	done := make(chan error, 1)
	go func() {
		<-read // the pipe is read to its end before Wait closes it
		done <- cmd.Wait()
	}()
	said := func() string { mu.Lock(); defer mu.Unlock(); return stderr.String() }
	select {
	case m := <-shown:
		link, code = m[0], m[1]
	case <-done:
		t.Fatalf("auth login --device ended (exit %d) without a code:\n%s", cmd.ProcessState.ExitCode(), said())
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatalf("auth login --device showed no code:\n%s", said())
	}
	return link, code, func() (int, string, string) {
		select {
		case <-done:
			return cmd.ProcessState.ExitCode(), stdout.String(), said()
		case <-time.After(2 * time.Minute): // a hang guard
			t.Fatalf("auth login --device did not end:\n%s", said())
			return -1, "", ""
		}
	}
}

// TestDeviceLoginAgainstZitadel runs mcpv's device login (RFC 8628)
// against a real authorization server built from the Go module proxy
// (zitadel/oidc's example OpenID Provider, scripts/device-as.sh), a
// confidential client with its secret in a config entry: the user opens
// the provider's pages, enters the code, signs in and allows (or denies),
// as a person on another device would; the token mcpv stores is one the
// provider issued, and a command uses it.
func TestDeviceLoginAgainstZitadel(t *testing.T) {
	t.Parallel()
	issuer := startDeviceAS(t)
	srv := protectedByDeviceAS(t, issuer)

	t.Run("allowed", func(t *testing.T) {
		t.Parallel()
		w := newDeviceWorld(t, srv)
		link, code, end := w.deviceLogin(t)
		if !strings.HasPrefix(link, strings.TrimSuffix(issuer, "/")) {
			t.Errorf("the link %s is not the authorization server's", link)
		}
		if said := deviceUserAnswers(t, link, code, "allowed"); !strings.Contains(said, "Device authorization allowed") {
			t.Fatalf("the provider's last page: %q", said)
		}
		exit, stdout, stderr := end()
		if exit != 0 || !strings.Contains(stdout, `"usable":true`) || !strings.Contains(stderr, "authorized at "+issuer) {
			t.Fatalf("auth login --device: exit %d, stdout %q, stderr:\n%s", exit, stdout, stderr)
		}
		if strings.Contains(stdout+stderr, deviceClientSecret) {
			t.Errorf("the output shows the client secret:\n%s%s", stdout, stderr)
		}
		exit, stdout, stderr = w.mcpv(t, nil, "-s", "zitadel", "call", "echo", "message=hi", "-q", ".structuredContent.message")
		if exit != 0 || strings.TrimSpace(stdout) != `"hi"` {
			t.Fatalf("a call with the token: exit %d, stdout %q, stderr:\n%s", exit, stdout, stderr)
		}
		exit, stdout, _ = w.mcpv(t, nil, "-s", "zitadel", "auth", "token")
		if token := strings.TrimSpace(stdout); exit != 0 || !srv.Verify(token) {
			t.Errorf("auth token: exit %d; the provider does not take the token it printed", exit)
		}
		if srv.Verify("not-a-token-of-the-provider") {
			t.Error("the resource takes a token the provider never issued")
		}
	})

	t.Run("denied", func(t *testing.T) {
		t.Parallel()
		w := newDeviceWorld(t, srv)
		link, code, end := w.deviceLogin(t)
		if said := deviceUserAnswers(t, link, code, "denied"); !strings.Contains(said, "Device authorization denied") {
			t.Fatalf("the provider's last page: %q", said)
		}
		exit, stdout, stderr := end()
		if exit != 5 || stdout != "" || !strings.Contains(stderr, "refused") {
			t.Fatalf("auth login --device, denied: exit %d, stdout %q, stderr:\n%s", exit, stdout, stderr)
		}
		if exit, _, stderr := w.mcpv(t, nil, "-s", "zitadel", "auth", "status"); exit != 5 {
			t.Errorf("auth status after a refusal: exit %d, stderr:\n%s", exit, stderr)
		}
	})

	// A wrong secret: the provider refuses the client before any code is
	// shown, and mcpv says so with the provider's error, the secret unsaid.
	t.Run("wrong secret", func(t *testing.T) {
		t.Parallel()
		w := newDeviceWorld(t, srv)
		exit, stdout, stderr := w.mcpv(t, []string{"MCPV_E2E_DEVICE_SECRET=not-the-secret-4711"}, "auth", "login", "--device", "-s", "zitadel")
		if exit != 5 || stdout != "" || !strings.Contains(stderr, "unauthorized_client") || strings.Contains(stderr, "enter the code") ||
			strings.Contains(stderr, "not-the-secret-4711") {
			t.Fatalf("auth login --device with a wrong secret: exit %d, stdout %q, stderr:\n%s", exit, stdout, stderr)
		}
	})

	// Without a terminal, over ssh with no browser, a command that needs
	// the login exits 5 at once with the link and the code (in JSON); a
	// process of mcpv's polls the provider, and the auth wait the hint
	// names returns once the user has allowed.
	t.Run("handed off", func(t *testing.T) {
		t.Parallel()
		w := newDeviceWorld(t, srv)
		ssh := []string{"SSH_CONNECTION=10.0.0.1 50000 10.0.0.2 22"}
		exit, _, stderr := w.mcpv(t, ssh, "--errors", "json", "-s", "zitadel", "list-tools")
		var f exitcode.Failure
		if err := json.Unmarshal([]byte(stderr), &f); err != nil || exit != 5 || f.Login == nil || f.Login.Code == "" ||
			!strings.HasPrefix(f.Login.URL, strings.TrimSuffix(issuer, "/")) || f.Login.Wait != "mcpv auth wait -u "+srv.URL() {
			t.Fatalf("exit %d, stderr %q (%v)", exit, stderr, err)
		}
		if strings.Contains(stderr, deviceClientSecret) {
			t.Errorf("the hand-off shows the client secret: %s", stderr)
		}
		if said := deviceUserAnswers(t, f.Login.URL, f.Login.Code, "allowed"); !strings.Contains(said, "Device authorization allowed") {
			t.Fatalf("the provider's last page: %q", said)
		}
		// The command the hint names, as a script would run it.
		if exit, stdout, stderr := w.mcpv(t, ssh, strings.Fields(f.Login.Wait)[1:]...); exit != 0 || !strings.Contains(stdout, `"usable":true`) {
			t.Fatalf("%s: exit %d, stdout %q, stderr:\n%s", f.Login.Wait, exit, stdout, stderr)
		}
		exit, stdout, stderr := w.mcpv(t, ssh, "-s", "zitadel", "list-tools", "-r", "-q", ".tools[].name")
		if exit != 0 || !strings.Contains(stdout, "echo") {
			t.Fatalf("list-tools with the token: exit %d, stdout %q, stderr:\n%s", exit, stdout, stderr)
		}
	})
}

// deviceUserAnswers is the person on another device, in a browser of
// their own (a cookie jar): they open link, enter code where the page
// asks for one, sign in as the example's user, and press the button of
// answer ("allowed" or "denied") on the consent page. It returns the text
// of the last page.
func deviceUserAnswers(t *testing.T, link, code, answer string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: time.Minute}
	page, at := browse(t, browser, http.MethodGet, link, nil)
	if strings.Contains(page, `name="user_code"`) && !regexp.MustCompile(`name="user_code" value="[^"]`).MatchString(page) {
		page, at = submit(t, browser, page, at, url.Values{"user_code": {code}})
	}
	if !strings.Contains(page, `name="password"`) {
		t.Fatalf("no sign-in page after the code at %s:\n%s", at, page)
	}
	page, at = submit(t, browser, page, at, url.Values{"username": {deviceUser}, "password": {devicePassword}})
	button := regexp.MustCompile(`location\.href='([^']*action=` + answer + `)'`).FindStringSubmatch(page)
	if button == nil {
		t.Fatalf("no %s button on the consent page at %s:\n%s", answer, at, page)
	}
	page, _ = browse(t, browser, http.MethodGet, resolve(t, at, button[1]), nil)
	return page
}

var (
	formTag     = regexp.MustCompile(`<form\b[^>]*>`)
	formAction  = regexp.MustCompile(`\baction="([^"]*)"`)
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)
)

// submit posts the page's form, its hidden fields and fields, as a
// browser would: to its action, resolved against the page's URL (the
// page's own URL when it has none).
func submit(t *testing.T, browser *http.Client, page, at string, fields url.Values) (string, string) {
	t.Helper()
	tag := formTag.FindString(page)
	if tag == "" {
		t.Fatalf("no form on the page at %s:\n%s", at, page)
	}
	target := at
	if m := formAction.FindStringSubmatch(tag); m != nil {
		target = resolve(t, at, m[1])
	}
	form := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
		form.Set(m[1], m[2])
	}
	for k, v := range fields {
		form[k] = v
	}
	return browse(t, browser, http.MethodPost, target, form)
}

// browse requests a page (following redirects) and returns its text and
// the URL it was found at.
func browse(t *testing.T, browser *http.Client, method, target string, form url.Values) (string, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %s\n%s", method, target, resp.Status, b)
	}
	return string(b), resp.Request.URL.String()
}

func resolve(t *testing.T, base, ref string) string {
	t.Helper()
	b, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Parse(ref)
	if err != nil {
		t.Fatal(err)
	}
	return r.String()
}
