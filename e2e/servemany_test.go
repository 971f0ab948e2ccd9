//go:build unix && e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// gatewayWorld is a home with an mcpv catalog of servers (name: entry as
// JSON), and the environment that points mcpv at it.
func gatewayWorld(t *testing.T, servers map[string]string) []string {
	t.Helper()
	home := t.TempDir()
	var b strings.Builder
	b.WriteString("servers:\n")
	for name, entry := range servers {
		b.WriteString("  " + name + ": " + entry + "\n")
	}
	dir := filepath.Join(home, ".config", "mcpv")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "servers.yaml"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// fakeEntry is a catalog entry of the fake server with behaviour.
func fakeEntry(behaviour string) string {
	return `{"command": ` + jsonString(os.Args[0]) + `, "env": {"` + mcptest.EnvVar + `": ` + jsonString(behaviour) + `}}`
}

// TestServeManyStdio: mcpv's own client, through mcpv serve in front of
// two config servers on stdin and stdout, lists every server's tools
// (its walk follows the pages across them), calls each, and reads a
// resource by its URI.
func TestServeManyStdio(t *testing.T) {
	t.Parallel()
	env := gatewayWorld(t, map[string]string{"demo": `{"command": ` + jsonString(demoBin(t)) + `}`, "fake": fakeEntry("plain")})
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(mcpvBin, append(args, "--", mcpvBin, "serve", "-s", "demo", "-s", "fake")...)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	tools := run("list-tools", "-r", "-q", "[.tools[].name] | join(\" \")")
	if !strings.HasPrefix(tools, "demo__add demo__ask") || !strings.Contains(tools, "fake__") {
		t.Errorf("tools: %s", tools)
	}
	if got := run("call", "demo__echo", "message=through", "-r", "-q", ".structuredContent.message"); got != "through" {
		t.Errorf("demo__echo: %s", got)
	}
	if got := run("read", "demo://readme", "-r", "-q", ".contents[0].uri"); got != "demo://readme" {
		t.Errorf("read: %s", got)
	}
	if got := run("read", "fake://a", "-r", "-q", ".contents[0].text"); got != "A" {
		t.Errorf("read of the fake's resource: %s", got)
	}
}

// TestServeManyHTTP: serve --http in front of two servers: together at
// the endpoint, each alone at its path (the same answers as a serve of
// it alone would give), /healthz naming them with the token; one that
// dies is marked down (degraded) and the other answers on; SIGTERM ends
// serve with every server stopped.
func TestServeManyHTTP(t *testing.T) {
	t.Parallel()
	// bad starts once: tried again, it exits at once, so that it stays
	// down for /healthz to say so, however long the checks take.
	once := filepath.Join(t.TempDir(), "started")
	bad := `{"command": "/bin/sh", "args": ["-c", "[ -e \"$1\" ] && exit 1; : > \"$1\"; exec \"$2\"", "sh", ` + jsonString(once) + `, ` + jsonString(os.Args[0]) + `], "env": {"` + mcptest.EnvVar + `": "crash"}}`
	env := gatewayWorld(t, map[string]string{"demo": `{"command": ` + jsonString(demoBin(t)) + `}`, "bad": bad})
	cmd := exec.Command(mcpvBin, "serve", "--http", "127.0.0.1:0", "-s", "demo", "-s", "bad")
	cmd.Env = env
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	log := &lineLog{}
	url, token := log.follow(t, stderr)
	auth := "Authorization: Bearer " + token
	mcpv := func(args ...string) (string, error) {
		out, err := exec.Command(mcpvBin, args...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if got, err := mcpv("-u", url, "-H", auth, "list-tools", "-r", "-q", "[.tools[].name] | join(\" \")"); err != nil || !strings.Contains(got, "demo__echo") || !strings.Contains(got, "bad__") {
		t.Errorf("tools together: %s %v", got, err)
	}
	if got, err := mcpv("-u", url+"/demo", "-H", auth, "call", "echo", "message=alone", "-r", "-q", ".structuredContent.message"); err != nil || got != "alone" {
		t.Errorf("demo alone: %s %v", got, err)
	}
	base := strings.TrimSuffix(url, "/mcp")
	health := func() (int, string) {
		req, _ := http.NewRequest(http.MethodGet, base+"/healthz", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := testkit.HTTP(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if _, err := mcpv("-u", url, "-H", auth, "call", "bad__x"); err == nil {
		t.Error("a call that kills its server succeeded")
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, body := health()
		if code == http.StatusOK && strings.Contains(body, `"degraded"`) && strings.Contains(body, `"name":"bad","state":"down"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthz never said bad was down: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got, err := mcpv("-u", url, "-H", auth, "call", "demo__echo", "message=on", "-r", "-q", ".structuredContent.message"); err != nil || got != "on" {
		t.Errorf("demo with bad down: %s %v", got, err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCode(err); code != 130 {
			t.Errorf("SIGTERM: exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not end on SIGTERM")
	}
	if n := strings.Count(log.String(), `server "bad" is down`); n != 1 {
		t.Errorf("bad's going down said %d times:\n%s", n, log)
	}
}

// lineLog keeps serve's stderr as it comes.
type lineLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// follow reads r into the log, on a goroutine of its own (which ends at
// r's end), and returns the URL serve serves at and the token it
// printed, once it has said them.
func (l *lineLog) follow(t *testing.T, r io.Reader) (url, token string) {
	t.Helper()
	got := make(chan [2]string, 1)
	go func() {
		lines := bufio.NewScanner(r)
		var tok string
		sent := false
		for lines.Scan() {
			line := lines.Text()
			l.mu.Lock()
			l.b.WriteString(line + "\n")
			l.mu.Unlock()
			if v, ok := strings.CutPrefix(line, "mcpv: clients must send Authorization: Bearer "); ok {
				tok = v
			}
			if v, ok := strings.CutPrefix(line, "mcpv: serving at "); ok && !sent {
				got <- [2]string{v, tok}
				sent = true
			}
		}
		if !sent {
			close(got)
		}
	}()
	select {
	case v, ok := <-got:
		if !ok {
			t.Fatalf("serve ended without saying where:\n%s", l)
		}
		return v[0], v[1]
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not say where within 30s:\n%s", l)
	}
	return "", ""
}

// TestServeManyTokens: serve --http in front of two servers with the
// clients of --http-tokens (a token from a variable, one from a file of
// the user's alone) and two --http-token values: each client sees what
// its token is given and nothing else (a tool or a server its view
// leaves out is not there), the values see everything, no token is made
// up, and a token file others may read is refused before serving.
func TestServeManyTokens(t *testing.T) {
	t.Parallel()
	env := gatewayWorld(t, map[string]string{"demo": `{"command": ` + jsonString(demoBin(t)) + `}`, "fake": fakeEntry("plain")})
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	write("desk.token", "desk-t0ken-value\n", 0o600)
	tokens := write("clients.yaml", `clients:
  ci:
    token_env: GATEWAY_CI_TOKEN
    servers: [demo]
    guard: {allow_tools: ["demo__echo"]}
  desk:
    token_file: desk.token
`, 0o600)
	env = append(env, "GATEWAY_CI_TOKEN=ci-t0ken-value")
	cmd := exec.Command(mcpvBin, "serve", "--http", "127.0.0.1:0", "-s", "demo", "-s", "fake",
		"--http-tokens", tokens, "--http-token", "one-t0ken-value", "--http-token", "two-t0ken-value")
	cmd.Env, cmd.Dir = env, dir
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	log := &lineLog{}
	url, made := log.follow(t, stderr)
	if made != "" {
		t.Errorf("serve made up a token beside the clients': %s", made)
	}
	mcpv := func(token string, args ...string) (string, int) {
		t.Helper()
		out, err := exec.Command(mcpvBin, append([]string{"-H", "Authorization: Bearer " + token}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), exitCode(err)
	}
	names := []string{"-r", "-q", `[.tools[].name] | join(" ")`}
	if got, code := mcpv("ci-t0ken-value", append([]string{"-u", url, "list-tools"}, names...)...); code != 0 || got != "demo__echo" {
		t.Errorf("ci's tools: %d %s", code, got)
	}
	for _, tok := range []string{"desk-t0ken-value", "one-t0ken-value", "two-t0ken-value"} {
		if got, code := mcpv(tok, append([]string{"-u", url, "list-tools"}, names...)...); code != 0 || !strings.Contains(got, "demo__add") || !strings.Contains(got, "fake__") {
			t.Errorf("%s's tools: %d %s", tok, code, got)
		}
	}
	if got, code := mcpv("ci-t0ken-value", "-u", url, "call", "--no-validate", "demo__add", "a=1", "b=2"); code != 3 || !strings.Contains(got, "unknown tool") {
		t.Errorf("ci calling a tool its view leaves out: %d %s", code, got)
	}
	if got, code := mcpv("ci-t0ken-value", "-u", url+"/fake", "list-tools"); code == 0 {
		t.Errorf("ci at the path of a server it does not see: %s", got)
	}
	if got, code := mcpv("wrong-t0ken-value", "-u", url, "list-tools"); code != 5 {
		t.Errorf("an unknown token: %d %s", code, got)
	}
	for _, secret := range []string{"ci-t0ken-value", "desk-t0ken-value", "one-t0ken-value"} {
		if strings.Contains(log.String(), secret) {
			t.Errorf("serve's stderr holds a token:\n%s", log)
		}
	}
	// A token file others may read is refused, before any server starts.
	os.Chmod(filepath.Join(dir, "desk.token"), 0o644)
	bad := exec.Command(mcpvBin, "serve", "--http", "127.0.0.1:0", "-s", "demo", "-s", "fake", "--http-tokens", tokens)
	bad.Env, bad.Dir = env, dir
	out, err := bad.CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), `client "desk": token_file`) || strings.Count(string(out), "\n") != 1 {
		t.Errorf("a token file others may read: exit %d:\n%s", code, out)
	}
}
