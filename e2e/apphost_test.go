//go:build unix && e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// appFixture writes the spec of a fixture server with an app
// (mcptest.AppSpec) and returns its path.
func appFixture(t *testing.T, variant string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.json")
	if err := os.WriteFile(path, []byte(mcptest.AppSpec(variant)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// appRun is mcpv app --open run with $BROWSER a headless Chromium of its
// own: mcpv opens the page itself, as it would the user's browser.
type appRun struct {
	cmd     *exec.Cmd
	lines   chan map[string]any // stdout, a JSON value each
	stderr  *strings.Builder
	pidFile string
	tmp     string
}

func startApp(t *testing.T, browser, spec string, args ...string) *appRun {
	t.Helper()
	dir := t.TempDir()
	r := &appRun{lines: make(chan map[string]any, 100), stderr: &strings.Builder{}, pidFile: filepath.Join(dir, "browser.pid"), tmp: filepath.Join(dir, "tmp")}
	os.Mkdir(r.tmp, 0o700)
	// The browser in a session of its own, so that the test can end it
	// and everything it started.
	script := filepath.Join(dir, "browser.sh")
	var flags []string
	for _, f := range headless(filepath.Join(dir, "profile")) {
		flags = append(flags, shellwords.Quote(f))
	}
	testkit.WriteScript(t, script, []byte("#!/bin/sh\necho $$ > "+shellwords.Quote(r.pidFile)+"\nexec setsid "+shellwords.Quote(browser)+" "+strings.Join(flags, " ")+
		" \"$1\" >"+shellwords.Quote(filepath.Join(dir, "browser.log"))+" 2>&1\n"), 0o755)
	r.cmd = exec.Command(mcpvBin, append(append([]string{"app"}, args...), "--", os.Args[0])...)
	r.cmd.Env = append(os.Environ(), mcptest.EnvVar+"=spec="+spec, "BROWSER="+script, "TMPDIR="+r.tmp)
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stderr = r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { // ends when mcpv's stdout does
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unreadable": sc.Text()}
			}
			r.lines <- m
		}
		close(r.lines)
	}()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		r.cmd.Wait()
		if b, err := os.ReadFile(r.pidFile); err == nil {
			var pid int
			fmt.Sscan(string(b), &pid)
			if pid > 0 {
				syscall.Kill(-pid, syscall.SIGKILL)
			}
		}
	})
	return r
}

// next returns the next line whose event is one of events, failing after
// two minutes (the browser starts, renders and runs the app in that).
func (r *appRun) next(t *testing.T, events ...string) map[string]any {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case m, ok := <-r.lines:
			if !ok {
				t.Fatalf("mcpv ended before %v; stderr:\n%s", events, r.stderr)
			}
			for _, e := range events {
				if m["event"] == e {
					return m
				}
			}
		case <-deadline:
			t.Fatalf("no %v within two minutes; stderr:\n%s", events, r.stderr)
		}
	}
}

var tokenShape = regexp.MustCompile(`[0-9a-f]{48}`)

// TestAppHostPage: mcpv app --open in a real browser (headless Chromium,
// MCPV_BROWSER, run by scripts/browser.sh). mcpv opens its host page
// through $BROWSER; the app from the fixture server renders, receives its
// tool's input and result, and calls a tool back with what it could reach:
// not the host page's DOM, storage, origin or API, and no token; a tool
// the model alone may call is refused it, and so is one that changes
// things, with no one to ask; then it asks to end, and mcpv exits 0.
func TestAppHostPage(t *testing.T) {
	browser := os.Getenv("MCPV_BROWSER")
	if browser == "" {
		t.Skip("MCPV_BROWSER names no Chromium: run scripts/browser.sh")
	}
	r := startApp(t, browser, appFixture(t, "valid"), "show", "city=Paris", "--open")
	// What the app does comes in the order mcpv hears of it, which is not
	// always the order it was done in: the record to its end, by event,
	// and the tool calls by tool.
	byEvent := map[string][]map[string]any{}
	calls := map[string]map[string]any{}
	for {
		m := r.next(t, "tool-result", "ui/initialize", "ui/notifications/initialized", "tools/call", "ui/message", "ui/notifications/size-changed", "host/torn-down")
		e := m["event"].(string)
		if e == "host/torn-down" {
			break
		}
		byEvent[e] = append(byEvent[e], m)
		if e == "tools/call" {
			p, _ := m["params"].(map[string]any)
			calls[fmt.Sprint(p["name"])] = m
		}
	}
	for _, e := range []string{"tool-result", "ui/initialize", "ui/notifications/initialized"} {
		if len(byEvent[e]) != 1 {
			t.Errorf("%s: %v", e, byEvent[e])
		}
	}
	if got := byEvent["tool-result"]; len(got) == 1 && fmt.Sprint(got[0]["arguments"]) != "map[city:Paris]" {
		t.Errorf("the tool's call: %v", got)
	}
	if got := byEvent["ui/initialize"]; len(got) == 1 {
		if p, _ := got[0]["params"].(map[string]any); p["protocolVersion"] != "2026-01-26" {
			t.Errorf("ui/initialize: %v", got)
		}
	}
	if len(calls) != 3 {
		t.Fatalf("the app's tool calls: %v", calls)
	}
	errOf := func(m map[string]any) string { s, _ := m["error"].(string); return s }
	if !strings.Contains(errOf(calls["secret_admin"]), `"secret_admin" is not callable by apps`) {
		t.Errorf("a tool of the model alone: %v", calls["secret_admin"])
	}
	if !strings.Contains(errOf(calls["write_note"]), `"write_note" changes things`) {
		t.Errorf("a tool that changes things, no one to ask: %v", calls["write_note"])
	}
	record := calls["record"]
	if errOf(record) != "" {
		t.Fatalf("the app's call back: %v", record)
	}
	b, _ := json.Marshal(record)
	if tokenShape.Match(b) {
		t.Errorf("the app reached something like the token: %s", b)
	}
	var got struct {
		Params struct {
			Arguments struct {
				Input  map[string]any `json:"input"`
				Text   string         `json:"text"`
				Probes struct {
					Rendered, Origin, Href, Referrer, Forbidden, Write string
					ParentDOM, Storage                                 bool
					TopHref, Cookie, HostFetch                         any
					DeclaredFetch, UndeclaredFetch                     string
					Violations                                         []string
					Listed                                             []string
				} `json:"probes"`
				HostInfo         map[string]any `json:"hostInfo"`
				HostCapabilities map[string]any `json:"hostCapabilities"`
			} `json:"arguments"`
		} `json:"params"`
	}
	json.Unmarshal(b, &got)
	a, p := got.Params.Arguments, got.Params.Arguments.Probes
	switch {
	case fmt.Sprint(a.Input) != "map[city:Paris]" || a.Text != "sunny" || p.Rendered != "rendered: sunny":
		t.Errorf("the app was not given its input and result: %s", b)
	case p.Origin != "null" || p.ParentDOM || p.Storage || p.TopHref != nil || p.Referrer != "" || p.Href != "about:srcdoc":
		t.Errorf("the app reached beyond its frame: %s", b)
	case p.HostFetch != nil && p.HostFetch != "blocked":
		t.Errorf("the app reached the host page's API: %s", b)
	case p.UndeclaredFetch != "failed" || !slices.Contains(p.Violations, "https://undeclared.test/") ||
		slices.ContainsFunc(p.Violations, func(u string) bool { return strings.HasPrefix(u, "https://api.test") }):
		// api.test, which the app declared, fails for want of a network,
		// not by the policy; undeclared.test is the policy's to refuse.
		t.Errorf("the app's policy (connectDomains https://api.test) was not the frame's: %s", b)
	case fmt.Sprint(p.Listed) != "[record show write_note]":
		t.Errorf("tools/list gave the app %v", p.Listed)
	case a.HostInfo["name"] != "mcpv" || a.HostCapabilities["serverTools"] == nil:
		t.Errorf("ui/initialize's answer: %s", b)
	}
	if size := byEvent["ui/notifications/size-changed"]; len(size) != 1 || fmt.Sprint(size[0]["params"]) != "map[height:120 width:300]" {
		t.Errorf("size: %v", size)
	}
	if msg := byEvent["ui/message"]; len(msg) != 1 || !strings.Contains(fmt.Sprint(msg[0]["params"]), "done") {
		t.Errorf("message: %v", msg)
	}
	if err := r.cmd.Wait(); err != nil {
		t.Errorf("mcpv app --open: %v\n%s", err, r.stderr)
	}
	if tokenShape.MatchString(r.stderr.String()) {
		t.Errorf("the token is on stderr: %s", r.stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(r.tmp, "mcpv-app-*")); len(left) != 0 {
		t.Errorf("the file that opened the page is left: %v", left)
	}
}

// TestAppHostPageInterrupted: Ctrl-C while the app runs asks the app to
// end (ui/resource-teardown) and exits 130.
func TestAppHostPageInterrupted(t *testing.T) {
	browser := os.Getenv("MCPV_BROWSER")
	if browser == "" {
		t.Skip("MCPV_BROWSER names no Chromium: run scripts/browser.sh")
	}
	r := startApp(t, browser, appFixture(t, "stay"), "show", "--open")
	r.next(t, "ui/notifications/initialized")
	r.cmd.Process.Signal(os.Interrupt)
	r.next(t, "host/teardown")
	r.next(t, "host/torn-down")
	err := r.cmd.Wait()
	if code := exitCode(err); code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, r.stderr)
	}
}

// TestAppHostPageCrowded: an app that sends more requests at once than
// the page keeps in flight, none of which the server answers, has the
// one beyond the bound refused at once, and the page's own messages
// still reach mcpv past those held (the refusal's record, the app's log,
// and, at Ctrl-C, the end of the app): mcpv exits 130 with the app torn
// down, not after its wait for a page that cannot answer.
func TestAppHostPageCrowded(t *testing.T) {
	browser := os.Getenv("MCPV_BROWSER")
	if browser == "" {
		t.Skip("MCPV_BROWSER names no Chromium: run scripts/browser.sh")
	}
	r := startApp(t, browser, appFixture(t, "crowd"), "show", "--open")
	for _, want := range []string{"host/refused", "notifications/message"} {
		m := r.next(t, want, "tools/call")
		if m["event"] != want || !strings.Contains(fmt.Sprint(m["params"]), "too many requests in flight") {
			t.Fatalf("want %s of the request beyond the bound, got %v", want, m)
		}
	}
	r.cmd.Process.Signal(os.Interrupt)
	if m := r.next(t, "host/torn-down", "tools/call"); m["event"] != "host/torn-down" {
		t.Errorf("a held call was answered: %v", m)
	}
	if code := exitCode(r.cmd.Wait()); code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, r.stderr)
	}
}
