//go:build unix

package commands

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/output"
)

// runKeeperIfRequested makes this test binary a session keeper, as
// 'mcpv session start' starts mcpv itself: the tests' sessions are real.
func runKeeperIfRequested() bool {
	if len(os.Args) != 2 || os.Args[1] != keeperArg && os.Args[1] != loginKeeperArg {
		return false
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(Main(ctx, os.Args[1:], output.System(), nil, nil))
	return true
}

// sessionWorld is a world with a private directory for session keepers,
// every one of them stopped when the test ends.
func sessionWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t)
	withSessions(t, w)
	return w
}

// withSessions gives w a runtime directory of its own for its sessions,
// which are stopped when the test ends.
func withSessions(t *testing.T, w *world) {
	t.Helper()
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	w.setenv("XDG_RUNTIME_DIR", rt)
	w.setenv("XDG_STATE_HOME", filepath.Join(rt, "state"))
	t.Cleanup(func() {
		w.mcpv(t, "", "session", "stop", "--all")
		os.RemoveAll(rt)
	})
}

// A session name that is not a plain file name is refused, exit 2, by
// every way a command names a session, before any file is touched: the
// NAME.json and NAME.sock it would reach stay.
func TestSessionNameRefusedBeforeAnyFile(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, map[string]string{"t.yaml": "server:\n  session: ../x\nsteps:\n  - ping:\n"})
	rt := filepath.Join(dir, "rt")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	w.setenv("XDG_RUNTIME_DIR", rt)
	victims := []string{filepath.Join(rt, "x.json"), filepath.Join(rt, "x.sock")}
	for _, v := range victims {
		if err := os.WriteFile(v, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		env  string
		args []string
		code int
		want string
	}{
		{"", []string{"--session", "../x", "ping"}, 2, `mcpv: --session: session name "../x"`},
		{"../x", []string{"ping"}, 2, `mcpv: MCPV_SESSION: session name "../x"`},
		{"", []string{"session", "stop", "../x"}, 2, `session name "../x"`},
		{"", []string{"session", "start", "../x", "--", "true"}, 2, `session name "../x"`},
		{"", []string{"test", "t.yaml"}, 2, `session name "../x"`},
	} {
		w := *w
		if tc.env != "" {
			w.setenv("MCPV_SESSION", tc.env)
		}
		r := w.mcpv(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, r.code, r.stdout, r.stderr)
		}
	}
	for _, v := range victims {
		if _, err := os.Stat(v); err != nil {
			t.Errorf("%s was touched: %v", v, err)
		}
	}
}

// A server's requests through a session are answered as one-shot, with
// the session's settings: a modern server's roots request (an input
// request of its tool call) gets the session's --root, given relative to
// where the session started, wherever the command runs; a question gets
// the command's --answer, else the session's.
func TestSessionAnswersServerRequests(t *testing.T) {
	t.Parallel()
	w := sessionWorld(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "proj"), 0o700); err != nil {
		t.Fatal(err)
	}
	start := *w
	start.env.Cwd = dir
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		name := "e" + era[:4]
		r := start.mcpv(t, "", args([]string{"session", "start", name, "--protocol-version", era, "--root", "proj", "--answer", "name=Ada", "--answer", "age=36", "--elicitation", "accept"}, demo())...)
		if r.code != 0 {
			t.Fatalf("%s: session start: exit %d, %q", era, r.code, r.stderr)
		}
		r = w.mcpv(t, "", "--session", name, "call", "roots", "-r", "-q", ".content[0].text")
		if want := `{"roots":[{"name":"proj","uri":"file://` + filepath.Join(dir, "proj") + `"}]}` + "\n"; r.code != 0 || r.stdout != want {
			t.Errorf("%s: roots: exit %d, stdout %q, stderr %q", era, r.code, r.stdout, r.stderr)
		}
		r = w.mcpv(t, "", "--session", name, "call", "ask", "-r", "-q", ".content[0].text | fromjson | .content.name")
		if r.code != 0 || r.stdout != "Ada\n" {
			t.Errorf("%s: the session's answers: exit %d, stdout %q, stderr %q", era, r.code, r.stdout, r.stderr)
		}
		r = w.mcpv(t, "", "--session", name, "call", "ask", "--answer", "name=Bob", "--answer", "age=7", "--elicitation", "accept", "-r", "-q", ".content[0].text | fromjson | .content.name")
		if r.code != 0 || r.stdout != "Bob\n" {
			t.Errorf("%s: the command's answers: exit %d, stdout %q, stderr %q", era, r.code, r.stdout, r.stderr)
		}
		r = w.mcpv(t, "", "--session", name, "--log-level", "debug", "ping")
		if r.code != 2 || !strings.Contains(r.stderr, "mcpv: --log-level shapes the session: give it to 'mcpv session start', not with --session") {
			t.Errorf("%s: --log-level with --session: exit %d, stderr %q", era, r.code, r.stderr)
		}
	}
}

// A session started with the longest connect timeout is waited for, not
// given up at once: the wait, the timeout and half a minute, does not
// wrap round to a negative.
func TestSessionStartWithTheLongestConnectTimeout(t *testing.T) {
	t.Parallel()
	w := sessionWorld(t)
	r := w.mcpv(t, "", args([]string{"session", "start", "long", "--connect-timeout", "2562047h47m"}, demo())...)
	if r.code != 0 {
		t.Errorf("session start: exit %d, %q", r.code, r.stderr)
	}
}

// A session start refused because the name is held leaves the running
// keeper's log as it was.
func TestSessionStartRefusedKeepsLog(t *testing.T) {
	t.Parallel()
	w := sessionWorld(t)
	dir, root := w.env.SessionDir()
	if err := safedir.MkdirAll(root, dir); err != nil {
		t.Fatal(err)
	}
	lk, err := os.OpenFile(filepath.Join(dir, "s.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Close()
	if err := syscall.Flock(int(lk.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil { // as a running keeper holds it
		t.Fatal(err)
	}
	logDir, logRoot := w.env.SessionLogDir()
	if err := safedir.MkdirAll(logRoot, logDir); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(logDir, "s.log")
	if err := os.WriteFile(logPath, []byte("the running keeper's line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := w.mcpv(t, "", args([]string{"session", "start", "s"}, demo())...)
	if r.code == 0 || !strings.Contains(r.stderr, `session "s" is already running`) {
		t.Errorf("session start: exit %d, stderr %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(logPath); !strings.HasPrefix(string(b), "the running keeper's line\n") {
		t.Errorf("the log: %q", b)
	}
}

// A session's --sampling-cmd runs where the session started, as its
// --root is found there, whichever directory a command runs in.
func TestSessionSamplingCmdRunsInSessionDir(t *testing.T) {
	t.Parallel()
	w := sessionWorld(t)
	a, b := t.TempDir(), t.TempDir()
	start := *w
	start.env.Cwd = a
	sampler := `printf '{"role":"assistant","content":{"type":"text","text":"%s"},"model":"m"}' "$(pwd -P)"`
	if r := start.mcpv(t, "", args([]string{"session", "start", "s", "--sampling-cmd", sampler}, demo())...); r.code != 0 {
		t.Fatalf("session start: exit %d, %q", r.code, r.stderr)
	}
	call := *w
	call.env.Cwd = b
	r := call.mcpv(t, "", "--session", "s", "call", "sample", "prompt=where", "-r", "-q", ".content[0].text | fromjson | .content.text")
	want, _ := filepath.EvalSymlinks(a)
	if r.code != 0 || r.stdout != want+"\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want %s", r.code, r.stdout, r.stderr, want)
	}
}

// Only a keeper makes the session directory: a command naming a session,
// session list and session stop find none and make none. A directory
// others may write to is refused before any socket in it is spoken to.
func TestSessionAttachMakesNoDirectory(t *testing.T) {
	t.Parallel()
	w := sessionWorld(t)
	dir, _ := w.env.SessionDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--session", "s", "ping"}, 4, `no session "s" is running`},
		{[]string{"session", "stop", "s"}, 3, `no session "s" is running`},
		{[]string{"session", "list"}, 0, `{"sessions":[]}`},
	} {
		r := w.mcpv(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, r.code, r.stdout, r.stderr)
		}
		if _, err := os.Lstat(dir); !os.IsNotExist(err) {
			t.Fatalf("%v made %s: %v", tc.args, dir, err)
		}
	}
	if err := os.Mkdir(dir, 0o770); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o770); err != nil { // whatever the umask
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--session", "s", "ping"}, {"session", "list"}, {"session", "stop", "s"}, {"session", "stop", "--all"}} {
		r := w.mcpv(t, "", args...)
		if r.code == 0 || !strings.Contains(r.stderr, "the state directory "+dir) {
			t.Errorf("%v, a directory others may write to: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// A session's server inherits the environment of its start, as a one-shot
// command's inherits its: a secret there that the server writes on stderr
// or in a log message, or quotes in the error that refuses the session, is
// masked in the session's log, and a command that attaches from another
// environment masks it on its stderr and in its trace.
func TestSessionMasksTheInheritedEnvironment(t *testing.T) {
	t.Parallel()
	w := sessionWorld(t)
	const secret = "sk-inherited-0123456789"
	start := *w
	start.setenv("MY_API_KEY", secret)
	if r := start.mcpv(t, "", args([]string{"session", "start", "s"}, fake("echo=log,stderr-env=MY_API_KEY"))...); r.code != 0 {
		t.Fatalf("session start: exit %d, %q", r.code, r.stderr)
	}
	tracePath := filepath.Join(t.TempDir(), "t.jsonl")
	r := w.mcpv(t, "", "--session", "s", "--trace", tracePath, "call", "x", "--no-validate", "env=MY_API_KEY")
	if r.code != 0 || strings.Contains(r.stderr, secret) || !strings.Contains(r.stderr, "MY_API_KEY=***\n") {
		t.Errorf("the call: exit %d, stderr %q", r.code, r.stderr)
	}
	if b, err := os.ReadFile(tracePath); err != nil || strings.Contains(string(b), secret) || !strings.Contains(string(b), "MY_API_KEY=***") {
		t.Errorf("the trace (%v): %s", err, b)
	}
	// Why a session did not open, in the server's words, is logged masked.
	refusing := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		x.Reply(x.Error(-32000, "refused: you are "+secret))
		return true
	})
	if r := start.mcpv(t, "", "session", "start", "r", "-u", refusing.URL); r.code == 0 || strings.Contains(r.stderr, secret) {
		t.Errorf("session start r: exit %d, stderr %q", r.code, r.stderr)
	}
	w.mcpv(t, "", "session", "stop", "s")
	logDir, _ := w.env.SessionLogDir()
	for name, wants := range map[string][]string{"s": {"server[error]: MY_API_KEY=***\n", "xxx***"}, "r": {"refused: you are ***\n"}} {
		b, err := os.ReadFile(filepath.Join(logDir, name+".log"))
		if err != nil || strings.Contains(string(b), secret) {
			t.Errorf("%s.log (%v): %s", name, err, b[max(0, len(b)-300):])
		}
		for _, want := range wants {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s.log has no %q: %s", name, want, b[max(0, len(b)-300):])
			}
		}
	}
}
