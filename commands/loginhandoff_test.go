package commands

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/testkit"
)

// stopLoginKeepers ends, when the test ends, the login keepers its runs
// handed logins to (their pending files name them).
func stopLoginKeepers(t *testing.T, w *world) {
	t.Cleanup(func() {
		files, _ := filepath.Glob(filepath.Join(w.env.Getenv("XDG_STATE_HOME"), "mcpv", "oauth", "*.pending"))
		for _, f := range files {
			var p oauth.Pending
			data, _ := os.ReadFile(f)
			if json.Unmarshal(data, &p) == nil && p.PID > 0 && !p.Done && p.Error == "" {
				if proc, err := os.FindProcess(p.PID); err == nil {
					proc.Kill()
				}
			}
		}
	})
}

var startLink = regexp.MustCompile(`open (http://127\.0\.0\.1:(\d+)/mcpv-login\?n=[A-Za-z0-9_-]+) in a browser`)

// Without a terminal a command that needs a login exits 5 at once with
// the sign-in link, what to run next and the port to forward, and no
// secret of the flow; the browser comes back to the process that waits
// for it, 'mcpv auth wait' returns once the token is saved, and the next
// command uses it without a login.
func TestLoginHandedOffWithoutTerminal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, opened := authWorld(t, w)
	url := srv.URL()

	r := w.mcpv(t, "", "-u", url, "list-tools")
	m := startLink.FindStringSubmatch(r.stderr)
	if r.code != 5 || m == nil || !strings.Contains(r.stderr, "mcpv auth wait") || !strings.Contains(r.stderr, "ssh -L "+m[2]+":127.0.0.1:"+m[2]+" HOST") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, secret := range []string{"state=", "code_challenge", "verifier", "client_secret"} {
		if strings.Contains(r.stderr, secret) {
			t.Errorf("the hand-off shows %s: %q", secret, r.stderr)
		}
	}
	if _, err := os.Stat(opened); err == nil {
		t.Fatal("a browser was opened without a terminal")
	}

	// The same in JSON, run again: the link that already waits (not a
	// second login on another port), the command that waits, named with
	// its server, the forward.
	j := w.mcpv(t, "", "--errors", "json", "-u", url, "list-tools")
	var f exitcode.Failure
	if err := json.Unmarshal([]byte(j.stderr), &f); err != nil || j.code != 5 || f.Kind != "login-required" || f.Login == nil ||
		f.Login.URL != m[1] || f.Login.Wait != "mcpv auth wait -u "+url || !strings.HasPrefix(f.Login.Forward, "ssh -L "+m[2]+":") {
		t.Fatalf("--errors json: exit %d, stderr %q (%v)", j.code, j.stderr, err)
	}
	// auth wait is bounded by --timeout, as a request is.
	if r := w.mcpv(t, "", "--timeout", "200ms", "auth", "wait", "-u", url); r.code != 124 {
		t.Errorf("auth wait --timeout 200ms: exit %d, stderr %q", r.code, r.stderr)
	}

	// The user signs in: the browser follows the link to the authorization
	// server, which sends it back to the waiting process.
	resp, err := testkit.HTTP(t).Get(f.Login.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the browser ended on HTTP %d", resp.StatusCode)
	}
	waitedAndUsed(t, w, url)
	if n := srv.Count("authorize"); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}
}

// The start page answers only the holder of the link, from this machine,
// under its own host name and from no other page's origin; a callback
// with another state decides nothing; and auth wait without a login
// handed off says so at once.
func TestLoginHandOffRefusesOthers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	url := srv.URL()
	if r := w.mcpv(t, "", "auth", "wait", "-u", url); r.code != 5 || !strings.Contains(r.stderr, "no login is waited for") {
		t.Fatalf("auth wait with nothing handed off: exit %d, stderr %q", r.code, r.stderr)
	}
	r := w.mcpv(t, "", "-u", url, "list-tools")
	m := startLink.FindStringSubmatch(r.stderr)
	if r.code != 5 || m == nil {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	link, base := m[1], "http://127.0.0.1:"+m[2]
	// What another local user can see of the waiting process: its command
	// line names no secret, and the file that names it is the user's alone.
	files, _ := filepath.Glob(filepath.Join(w.env.Getenv("XDG_STATE_HOME"), "mcpv", "oauth", "*.pending"))
	if len(files) != 1 {
		t.Fatalf("pending files: %q", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("the pending file: %v, %v", fi.Mode(), err)
	}
	var p oauth.Pending
	data, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(data, &p); err != nil || p.PID == 0 {
		t.Fatalf("pending %s: %v", data, err)
	}
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID)); err == nil {
		if got := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"); len(got) != 2 || got[1] != loginKeeperArg {
			t.Errorf("the waiting process's command line: %q", got)
		}
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct {
		name, target, host, origin string
		want                       int
	}{
		{"no nonce", base + "/mcpv-login", "", "", http.StatusNotFound},
		{"a wrong nonce", base + "/mcpv-login?n=guess", "", "", http.StatusNotFound},
		{"a foreign origin", link, "", "https://evil.example", http.StatusForbidden},
		{"another host name", link, "rebound.example:" + m[2], "", http.StatusForbidden},
		{"a callback with another state", base + "/callback?code=x&state=forged", "", "", http.StatusBadRequest},
	} {
		req, _ := http.NewRequest("GET", c.target, nil)
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: HTTP %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
	// The holder of the link is sent on to the authorization server.
	resp, err := noRedirect.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, srv.AS.URL+"/authorize?") || !strings.Contains(loc, "state=") {
		t.Errorf("the link: HTTP %d to %q", resp.StatusCode, loc)
	}
	if srv.Count("token:authorization_code") != 0 {
		t.Error("a code was redeemed")
	}
}

// Without a terminal, where no browser can be opened and the server
// offers the device grant, a command that needs a login exits 5 at once
// with the link and the code (in JSON as login.url and login.code), and
// the host the link leads to when it is not the authorization server's;
// a process of mcpv's polls for it, a command run again shows the same
// code and note, and 'mcpv auth wait' returns once the user has approved
// it.
func TestDeviceLoginHandedOff(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, opened := authWorld(t, w)
	srv.Device = true
	srv.DeviceAnswer = func(a map[string]any) {
		a["verification_uri_complete"] = "https://login.example/activate?user_code=" + a["user_code"].(string)
	}
	const note = "the link leads to login.example, not to the authorization server 127.0.0.1"
	w.setenv("BROWSER", "")
	w.setenv("SSH_CONNECTION", "10.0.0.1 50000 10.0.0.2 22")
	url := srv.URL()
	r := w.mcpv(t, "", "--errors", "json", "-u", url, "list-tools")
	var f exitcode.Failure
	if err := json.Unmarshal([]byte(r.stderr), &f); err != nil || r.code != 5 || f.Login == nil || !strings.HasPrefix(f.Login.Code, "WDJB-") ||
		!strings.Contains(f.Login.URL, "/activate") || f.Login.Forward != "" || f.Login.Wait != "mcpv auth wait -u "+url || !strings.Contains(f.Message, note) {
		t.Fatalf("exit %d, stderr %q (%v)", r.code, r.stderr, err)
	}
	again := w.mcpv(t, "", "-u", url, "list-tools")
	if again.code != 5 || !strings.Contains(again.stderr, "enter the code "+f.Login.Code) || !strings.Contains(again.stderr, note) || srv.Count("device") != 1 {
		t.Errorf("run again: exit %d, stderr %q, %d device codes asked", again.code, again.stderr, srv.Count("device"))
	}
	srv.Approve(f.Login.Code)
	waitedAndUsed(t, w, url)
	if _, err := os.Stat(opened); err == nil || srv.Count("authorize") != 0 {
		t.Error("a browser flow was started")
	}
}

// waitedAndUsed runs auth wait for url's login once its user has signed
// in (a hang guard of a minute), then a command that uses the token.
func waitedAndUsed(t *testing.T, w *world, url string) {
	t.Helper()
	done := make(chan result, 1)
	go func() { done <- w.mcpv(t, "", "auth", "wait", "-u", url) }()
	select {
	case r := <-done:
		if r.code != 0 || !strings.Contains(r.stdout, `"usable":true`) {
			t.Fatalf("auth wait: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("auth wait did not return after the login")
	}
	if r := w.mcpv(t, "", "-u", url, "list-tools", "-r", "-q", ".tools[0].name"); r.code != 0 || r.stdout == "" {
		t.Fatalf("the next command: exit %d, stderr %q", r.code, r.stderr)
	}
}

// An authorization server that never answers holds no login past
// --timeout: auth login --device ends with exit 124, naming the endpoint
// and the flag.
func TestDeviceLoginBoundedByTimeout(t *testing.T) {
	testkit.SkipLong(t, "waits for --timeout")
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	srv.Device, srv.Hostile = true, map[string]string{"/device": "stall"}
	done := make(chan result, 1)
	go func() { done <- w.mcpv(t, "", "auth", "login", "--device", "--timeout", "1s", "-u", srv.URL()) }()
	select {
	case r := <-done:
		if r.code != 124 || !strings.Contains(r.stderr, "/device did not answer within 1s (--timeout)") {
			t.Errorf("exit %d, stderr %q; want 124 and the endpoint that did not answer", r.code, r.stderr)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("auth login --device did not end")
	}
}

// The line a device login shows on a terminal names the host its link
// leads to when it is not the authorization server's.
func TestDeviceLineSaysWhereItLeads(t *testing.T) {
	dc := oauth.DeviceCode{UserCode: "WDJB-0001", VerificationURI: "https://microsoft.com/devicelogin", Elsewhere: "the link leads to microsoft.com, not to the authorization server login.microsoftonline.com"}
	if line := deviceLine(dc); !strings.Contains(line, "note: "+dc.Elsewhere) {
		t.Errorf("%q does not say where the link leads", line)
	}
}
