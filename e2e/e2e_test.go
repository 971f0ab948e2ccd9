//go:build unix && e2e

// Package e2e runs the mcpv binary as a user would: real processes, real
// signals, real pipes. The test binary doubles as the fake server.
package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

var mcpvBin string

func TestMain(m *testing.M) {
	if mcptest.RunIfRequested() || runSquatterIfRequested() {
		return
	}
	os.Exit(mcptest.GuardSuite(func() int { return runSuite(m) }))
}

// runSuite is TestMain's run of the tests: a directory of their own, the mcpv
// they run built into it.
func runSuite(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcpv-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	// Started under nohup, the tests would hand their mcpv a SIGHUP
	// ignored, which it keeps ignored: handled here instead, it is the
	// default again in the processes the tests start.
	if signal.Ignored(syscall.SIGHUP) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
	// What mcpv keeps between runs (the era and lists of each server, the
	// trusted files) stays in the run's own directory: a run starts from
	// nothing, whatever an earlier one (or the user's own mcpv) left in
	// the home directory, which the tests never write to. A test that
	// needs a state directory of its own still sets one.
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	// Tokens in files, never the developer's keychain; the Secret Service's
	// test asks for it on a private bus.
	os.Setenv("MCPV_TOKEN_STORE", "file")
	testkit.WaitMoreAtOnce(parallelTests)
	if mcpvBin, err = buildMcpv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// parallelTests is how many of the package's parallel tests run at once
// unless -parallel says otherwise. They spend their time waiting for
// processes (a server that starts seconds late, a grace period, a
// timeout), not on the CPU: go test's default, the number of CPUs, would
// leave a two-core machine idle while two of them wait.
const parallelTests = 8

// server holds the files through which a fake server reports on itself.
type server struct {
	behaviour, log, pid string
}

func newServer(t *testing.T, behaviour string) *server {
	dir := t.TempDir()
	return &server{behaviour, filepath.Join(dir, "log"), filepath.Join(dir, "pid")}
}

func (s *server) args() []string {
	return []string{
		"--env", mcptest.EnvVar + "=" + s.behaviour,
		"--env", mcptest.EnvLog + "=" + s.log,
		"--env", mcptest.EnvPid + "=" + s.pid,
		"--", os.Args[0],
	}
}

func (s *server) received() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// waitFor polls until the server has received a message containing text.
func (s *server) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(s.received(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("server never received %q; got:\n%s", text, s.received())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gone reports whether the server's process group has no process left.
func (s *server) gone(t *testing.T) bool {
	t.Helper()
	b, err := os.ReadFile(s.pid)
	if err != nil {
		t.Fatalf("server pid: %v", err)
	}
	pid, _ := strconv.Atoi(string(b))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

type run struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

func start(t *testing.T, args ...string) *run {
	t.Helper()
	r := &run{cmd: exec.Command(mcpvBin, args...)}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	return r
}

// wait returns the exit code and how long the wait took.
func (r *run) wait(t *testing.T, bound time.Duration) (int, time.Duration) {
	t.Helper()
	begin := time.Now()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case <-done:
		return r.cmd.ProcessState.ExitCode(), time.Since(begin)
	case <-time.After(bound):
		t.Fatalf("mcpv still running after %v; stderr:\n%s", bound, r.stderr.String())
		return -1, 0
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		behaviour string
		args      []string
		want      int
	}{
		{"success", "plain", []string{"call", "x"}, 0},
		{"tool isError", "tool-error", []string{"call", "x"}, 1},
		{"jq exit status", "plain", []string{"ping", "-e", "-q", ".missing"}, 1},
		{"usage", "plain", []string{"call", "x", "a:={"}, 2},
		{"json-rpc error", "rpc-error", []string{"call", "x"}, 3},
		{"missing capability", "no-tools", []string{"call", "x"}, 3},
		{"server crashed", "crash", []string{"call", "x"}, 4},
		{"unsupported version", "version=2000-01-01", []string{"ping"}, 4},
		{"timeout", "hang", []string{"--timeout", "200ms", "call", "x"}, 124},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, tt.behaviour)
			r := start(t, append(tt.args, s.args()...)...)
			if code, _ := r.wait(t, 20*time.Second); code != tt.want {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.want, r.stderr.String())
			}
		})
	}
}

// countingWriter checks a large stdout without keeping it.
type countingWriter struct {
	n          int
	head, tail []byte
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if len(c.head) < 64 {
		c.head = append(c.head, p[:min(len(p), 64-len(c.head))]...)
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 64 {
		c.tail = append([]byte(nil), c.tail[len(c.tail)-64:]...)
	}
	c.n += len(p)
	return len(p), nil
}

func TestHundredMegabyteResult(t *testing.T) {
	testkit.SkipLong(t, "a 100 MiB result through mcpv")
	t.Parallel()
	const size = 100 << 20
	s := newServer(t, fmt.Sprintf("big=%d", size))
	cmd := exec.Command(mcpvBin, append([]string{"call", "big", "--no-validate"}, s.args()...)...)
	var out countingWriter
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v; stderr:\n%s", err, errb.String())
	}
	prefix, suffix := `{"content":[{"type":"text","text":"xxx`, `xxx"}]}`+"\n"
	if want := len(`{"content":[{"type":"text","text":""}]}`) + size + 1; out.n != want {
		t.Errorf("stdout has %d bytes, want %d", out.n, want)
	}
	if !bytes.HasPrefix(out.head, []byte(prefix)) || !bytes.HasSuffix(out.tail, []byte(suffix)) {
		t.Errorf("stdout starts %q and ends %q", out.head, out.tail)
	}
}

func TestAuthRequiredIsExit5(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer scope="mcp:read"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer ts.Close()
	r := start(t, "-u", ts.URL, "ping")
	if code, _ := r.wait(t, 10*time.Second); code != 5 || !strings.Contains(r.stderr.String(), `scope="mcp:read"`) {
		t.Errorf("exit code %d, want 5; stderr:\n%s", code, r.stderr.String())
	}
}

func TestCtrlC(t *testing.T) {
	t.Parallel()
	s := newServer(t, "hang")
	r := start(t, append([]string{"call", "slow", "--no-validate"}, s.args()...)...)
	s.waitFor(t, `"tools/call"`)
	r.cmd.Process.Signal(os.Interrupt)
	code, took := r.wait(t, 10*time.Second)
	if code != 130 {
		t.Errorf("exit code %d, want 130; stderr:\n%s", code, r.stderr.String())
	}
	// The fake logs what it reads on a goroutine of its own: allow it a
	// moment. The call's id is found by its method: a server slow to start
	// is pinged before initialize, which moves it.
	s.waitFor(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+testkit.RequestID(s.received(), "tools/call")+`,"reason":"interrupted"}}`)
	if !s.gone(t) {
		t.Error("the server outlived mcpv")
	}
	t.Logf("exit after Ctrl-C took %v", took)
}

// Closing the terminal (SIGHUP) shuts down as Ctrl-C does: the request is
// cancelled on the wire and the server ends in order, on every Unix.
func TestHangUpShutsDownInOrder(t *testing.T) {
	t.Parallel()
	s := newServer(t, "hang")
	r := start(t, append([]string{"call", "slow", "--no-validate"}, s.args()...)...)
	s.waitFor(t, `"tools/call"`)
	r.cmd.Process.Signal(syscall.SIGHUP)
	if code, _ := r.wait(t, 10*time.Second); code != 130 {
		t.Errorf("exit code %d, want 130; stderr:\n%s", code, r.stderr.String())
	}
	s.waitFor(t, `"method":"notifications/cancelled"`)
	if !s.gone(t) {
		t.Error("the server outlived mcpv")
	}
}

// A hangup that mcpv was started with ignored (nohup) stays ignored: the
// call goes on, and SIGTERM still ends it in order. A SIGINT ignored (as
// a shell ignores it in a script's background job) is handled all the
// same: the script that sends it asks for the orderly end.
func TestIgnoredSignals(t *testing.T) {
	testkit.SkipLong(t, "a second of a signal not acted on")
	t.Parallel()
	for _, tc := range []struct {
		name    string
		sig     syscall.Signal
		handled bool
	}{{"HUP", syscall.SIGHUP, false}, {"INT", syscall.SIGINT, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "hang")
			// trap "" sets the signal ignored, and exec keeps it so.
			args := append([]string{"-c", `trap "" ` + tc.name + `; exec "$0" "$@"`, mcpvBin, "call", "slow", "--no-validate"}, s.args()...)
			r := &run{cmd: exec.Command("sh", args...)}
			r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
			if err := r.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.cmd.Process.Kill() })
			s.waitFor(t, `"tools/call"`)
			done := make(chan error, 1)
			go func() { done <- r.cmd.Wait() }()
			r.cmd.Process.Signal(tc.sig)
			if tc.handled {
				select {
				case <-done:
					if code := r.cmd.ProcessState.ExitCode(); code != 130 {
						t.Errorf("exit %d after SIG%s, want 130; stderr:\n%s", code, tc.name, r.stderr.String())
					}
					s.waitFor(t, `"method":"notifications/cancelled"`)
				case <-time.After(time.Minute):
					t.Fatalf("SIG%s, ignored when mcpv started, did not end it", tc.name)
				}
				return
			}
			select {
			case <-done:
				t.Fatalf("SIG%s ended mcpv started with it ignored: exit %d; stderr:\n%s", tc.name, r.cmd.ProcessState.ExitCode(), r.stderr.String())
			case <-time.After(time.Second): // what a handled signal takes is far less
			}
			if strings.Contains(s.received(), "notifications/cancelled") {
				t.Errorf("the call was cancelled; the server got:\n%s", s.received())
			}
			r.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
				if code := r.cmd.ProcessState.ExitCode(); code != 130 {
					t.Errorf("exit %d after SIGTERM, want 130; stderr:\n%s", code, r.stderr.String())
				}
			case <-time.After(time.Minute):
				t.Fatal("SIGTERM did not end mcpv")
			}
		})
	}
}

// A second Ctrl-C ends mcpv at once, and with it every process of the
// server's group: the server's own children too.
func TestSecondCtrlCKillsAtOnce(t *testing.T) {
	t.Parallel()
	s := newServer(t, "hang,ignore-exit,grandchild")
	r := start(t, append([]string{"call", "slow", "--no-validate"}, s.args()...)...)
	s.waitFor(t, `"tools/call"`)
	r.cmd.Process.Signal(os.Interrupt)
	s.waitFor(t, `notifications/cancelled`) // the first Ctrl-C has been handled
	r.cmd.Process.Signal(os.Interrupt)
	if code, _ := r.wait(t, 10*time.Second); code != 130 {
		t.Errorf("exit code %d, want 130", code)
	}
	if !s.gone(t) {
		t.Error("the server outlived mcpv")
	}
	// The graceful path closes stdin, waits, then sends SIGTERM, which the
	// server would have logged; killed at once, it never got that far.
	if strings.Contains(s.received(), `{"fake":"SIGTERM"}`) {
		t.Errorf("the second Ctrl-C went the graceful way; the server got:\n%s", s.received())
	}
}

func TestServerDiesWithKilledMcpv(t *testing.T) {
	testkit.SkipLong(t, "waits for a killed mcpv's server to follow it")
	t.Parallel()
	s := newServer(t, "hang,ignore-exit")
	r := start(t, append([]string{"call", "slow", "--no-validate"}, s.args()...)...)
	s.waitFor(t, `"tools/call"`)
	r.cmd.Process.Kill()
	r.wait(t, 5*time.Second)
	if !s.gone(t) {
		t.Error("the server outlived a killed mcpv")
	}
}

// mcpv | head: the reader leaves after 10 bytes of an answer of 2 MB, far
// past what a pipe holds, and mcpv's writes fail with EPIPE.
func TestClosedPipeIsSuccess(t *testing.T) {
	t.Parallel()
	s := newServer(t, "big=2000000")
	script := fmt.Sprintf(`%q "$@" | head -c 10 >/dev/null; exit ${PIPESTATUS[0]}`, mcpvBin)
	cmd := exec.Command("bash", append([]string{"-c", script, "mcpv", "call", "x"}, s.args()...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcpv | head: %v\n%s", err, out)
	}
	if len(out) > 0 {
		t.Errorf("unexpected output: %s", out)
	}
}

func TestHelpIntoClosedPipe(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // every write to w now fails with EPIPE
	var stderr strings.Builder
	cmd := exec.Command(mcpvBin, "--help")
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	w.Close()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("mcpv --help into a closed pipe: %v, stderr %q", err, stderr.String())
	}
}

func TestSilentOpenStdin(t *testing.T) {
	t.Parallel()
	s := newServer(t, "plain")
	r := &run{cmd: exec.Command(mcpvBin, append([]string{"list-tools"}, s.args()...)...)}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	pr, pw, _ := os.Pipe() // open, never written, never closed until the end
	defer pw.Close()
	r.cmd.Stdin = pr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	t.Cleanup(func() { r.cmd.Process.Kill() })
	if code, _ := r.wait(t, 15*time.Second); code != 0 {
		t.Fatalf("exit %d: %s", code, r.stderr.String())
	}
}

// A server that floods mcpv with requests (here 300,000 pings before it
// reads again) is answered, and mcpv's memory stays bounded: its answers
// wait in a bounded outbox and its handlers are capped. It runs alone, not
// beside the package's parallel tests: with them the race-built fake
// server reads slowly and the peak measures the machine's load (158 MB
// beside them, 65-70 MB alone), not mcpv's bound.
func TestServerRequestFloodInBoundedMemory(t *testing.T) {
	testkit.SkipLong(t, "30 s alone")
	s := newServer(t, "plain,ping-flood=300000")
	r := start(t, append([]string{"call", "x", "-q", ".content[0].text"}, s.args()...)...)
	if code, _ := r.wait(t, 60*time.Second); code != 0 || r.stdout.String() != "\"ok\"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, r.stdout.String(), r.stderr.String())
	}
	peak := r.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	t.Logf("peak RSS %d KiB", peak)
	if peak > 200<<10 {
		t.Errorf("peak RSS %d MiB for a flood of pings; it should stay bounded", peak>>10)
	}
}

// Every "In a script" block of the README and of the guides in docs/guide
// runs as printed, against the demo server, and reports the real exit
// codes.
func TestReadmeScript(t *testing.T) {
	testkit.SkipLong(t, "every script block of the README and the guides")
	want := map[string]struct{ stdout, stderr string }{
		"README.md": {
			stdout: "no deploy tool\n",
			stderr: "mcpv: the tool reported an error: failed: disk\nfailed (exit 1): failed: disk\n",
		},
		"docs/guide/exit-codes.md": {
			stdout: "ok\nthe tool reported an error\na mistake in the command\nthe server refused\n" +
				"the server could not be started or reached\nthe filter does not fit the result\nno answer in time\n",
		},
	}
	guides, err := filepath.Glob("../docs/guide/*.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(demoBin(t), filepath.Join(dir, "demo-server")); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, file := range append([]string{"../README.md"}, guides...) {
		md, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(filepath.ToSlash(file), "../")
		_, rest, ok := strings.Cut(string(md), "In a script:\n\n```sh\n")
		if !ok {
			continue
		}
		script, _, ok := strings.Cut(rest, "```")
		w, expected := want[name]
		if !ok || !expected {
			t.Errorf("%s has an \"In a script\" block that TestReadmeScript does not expect (closed: %v)", name, ok)
			continue
		}
		found[name] = true
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(mcpvBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("the script failed: %v\nstderr: %s", err, stderr.String())
			}
			if stdout.String() != w.stdout {
				t.Errorf("stdout %q, want %q", stdout.String(), w.stdout)
			}
			if stderr.String() != w.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), w.stderr)
			}
		})
	}
	for name := range want {
		if !found[name] {
			t.Errorf("no \"In a script\" block in %s", name)
		}
	}
}

// --version says what a release build was stamped with.
func TestVersionOfARelease(t *testing.T) {
	t.Parallel()
	bin := releaseBin(t)
	out, err := exec.Command(bin, "--version").Output()
	want := fmt.Sprintf("mcpv v%s (commit %s, built %s, %s %s/%s)\n", snapshotVersion, snapshotCommit[:12], snapshotDate, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if err != nil || string(out) != want {
		t.Errorf("release build: %q, %v; want %q", out, err, want)
	}
}

// A build in a checkout and 'go run .' (which stamps no revision) say the
// same version; the build adds its revision and that revision's time when
// the go command stamped one.
func TestVersionOfACheckout(t *testing.T) {
	t.Parallel()
	built, _ := exec.Command(mcpvBin, "--version").Output()
	run := exec.Command("go", "run", ".", "--version")
	run.Dir = ".."
	ran, err := run.Output()
	if err != nil || !strings.HasPrefix(string(ran), "mcpv dev (") || !strings.HasPrefix(string(built), "mcpv dev (") {
		t.Errorf("go run . --version: %q (%v); the built binary: %q; want both to begin \"mcpv dev (\"", ran, err, built)
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not a git checkout: no revision to stamp")
	}
	if fi, err := os.Stat("../.git"); err != nil || !fi.IsDir() {
		t.Skip("the checkout's .git is not a directory (a linked worktree): go build stamps no revision from it")
	}
	if !strings.Contains(string(built), "(commit "+string(head[:12])) || !strings.Contains(string(built), ", built 20") {
		t.Errorf("checkout build: %q, want the revision %s and its time", built, head[:12])
	}
}

// Ctrl-C in the middle of a load run: the report of what was measured,
// exit 130, and every server the run started gone.
func TestLoadCtrlC(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the servers through /proc")
	}
	t.Parallel()
	s := newServer(t, "delay=5ms")
	r := start(t, append([]string{"load", "call", "x", "-c", "8", "-d", "1h"}, s.args()...)...)
	for strings.Count(s.received(), `"tools/call"`) < 50 {
		s.waitFor(t, `"tools/call"`)
		time.Sleep(10 * time.Millisecond)
	}
	r.cmd.Process.Signal(os.Interrupt)
	code, took := r.wait(t, 20*time.Second)
	if code != 130 {
		t.Errorf("exit code %d, want 130; stderr:\n%s", code, r.stderr.String())
	}
	if !strings.Contains(r.stdout.String(), "(interrupted)") || !strings.Contains(r.stdout.String(), "session close") {
		t.Errorf("stdout has no report of the run:\n%s", r.stdout.String())
	}
	if !strings.HasSuffix(r.stderr.String(), "mcpv: interrupted\n") {
		t.Errorf("stderr %q; want it to end with the interrupt", r.stderr.String())
	}
	deadline := time.Now().Add(10 * time.Second)
	for left := withEnv(s.log); len(left) > 0; left = withEnv(s.log) {
		if time.Now().After(deadline) {
			t.Fatalf("servers %v outlived mcpv load", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("exit after Ctrl-C took %v", took)
}

// withEnv lists the processes whose environment holds text.
func withEnv(text string) []string {
	var pids []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if env, err := os.ReadFile(d + "/environ"); err == nil && strings.Contains(string(env), text) {
			pids = append(pids, filepath.Base(d))
		}
	}
	return pids
}
