package commands

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/output"
)

// fakeLogged is fake() with the fake's received messages logged to a file.
func fakeLogged(t *testing.T, behaviour string) (tail []string, logPath string) {
	logPath = filepath.Join(t.TempDir(), "received.ndjson")
	return []string{"--env", mcptest.EnvVar + "=" + behaviour, "--env", mcptest.EnvLog + "=" + logPath, "--", fakeProgram()}, logPath
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// logHas waits briefly for the fake to log a line with text: it logs what it
// reads on a goroutine of its own, which may lag behind mcpv's exit.
func logHas(path, text string) bool {
	for deadline := time.Now().Add(testWait); ; time.Sleep(10 * time.Millisecond) {
		if strings.Contains(readLogIfAny(path), text) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// The timeout of a call the server has (and of no request before it: a
// busy machine's slow initialize is no part of it) cancels it on the wire.
func TestTimeoutCancelsOnTheWire(t *testing.T) {
	t.Parallel()
	tail, log := fakeLogged(t, "hang")
	reached := func() bool { return logHas(log, `"method":"tools/call"`) }
	code, stderr := timeoutWhen(t, 300*time.Millisecond, `"method":"tools/call"`, args([]string{"--timeout", "300ms", "call", "x"}, tail), reached)
	if code != 124 {
		t.Fatalf("exit code = %d, want 124; stderr: %s", code, stderr)
	}
	if !strings.Contains(stderr, "mcpv: tools/call: no answer within 300ms") {
		t.Errorf("stderr = %q", stderr)
	}
	if !logHas(log, `"method":"notifications/cancelled","params":{"requestId":`+testkit.RequestID(readLog(t, log), "tools/call")+`,`) {
		t.Errorf("server did not receive the cancellation of the call; it got:\n%s", readLog(t, log))
	}
}

func TestInterruptCancelsOnTheWire(t *testing.T) {
	t.Parallel()
	tail, log := fakeLogged(t, "hang")
	// The trace shows the request as it is handed to the transport; the
	// interrupt waits until the server has it, or there is nothing to cancel.
	reached := func() bool { return logHas(log, `"method":"tools/call"`) }
	code, stderr := interruptWhen(t, `"method":"tools/call"`, args([]string{"call", "x"}, tail), reached)
	if code != 130 {
		t.Fatalf("exit code = %d, want 130; stderr: %s", code, stderr)
	}
	if !logHas(log, `"notifications/cancelled","params":{"requestId":`+testkit.RequestID(readLog(t, log), "tools/call")+`,"reason":"interrupted"}`) {
		t.Errorf("no cancellation on the wire; server got:\n%s", readLog(t, log))
	}
}

// interruptWhen runs mcpv with argv and -v, interrupts it once its trace
// shows want (and ready, when given, holds), and returns its exit code and
// stderr.
func interruptWhen(t *testing.T, want string, argv []string, ready ...func() bool) (int, string) {
	t.Helper()
	return interruptWhenIn(t, testEnv(t), want, argv, ready...)
}

// interruptWhen is interruptWhen in the world env.
func interruptWhenIn(t *testing.T, env connect.Env, want string, argv []string, ready ...func() bool) (int, string) {
	t.Helper()
	return endWhen(t, env, want, argv, func(cancel context.CancelCauseFunc) { cancel(ErrInterrupted) }, ready...)
}

// timeoutWhen is interruptWhen with the timeout d run out in place of the
// interrupt: a --timeout of d, on the test's clock, ends what runs then
// (the requests before it had their answers), however long they took.
// A request's timeout may have stopped between the trace's line and the
// firing (a task's tasks/get answered at once, the next poll not yet
// sent): it runs out on the next request's.
func timeoutWhen(t *testing.T, d time.Duration, want string, argv []string, ready ...func() bool) (int, string) {
	t.Helper()
	clock := mcptest.NewClock()
	return endWhen(t, onClock(testEnv(t), clock), want, argv, func(context.CancelCauseFunc) {
		for clock.Fire(d) == 0 {
			clock.WaitUntil(t, fmt.Sprintf("a timeout of %v running", d), func(ts mcptest.Timers) bool { return ts.Running[d] > 0 })
		}
	}, ready...)
}

// endWhen runs mcpv in env with argv and -v, calls end once its trace
// shows want (and ready, when given, holds), and returns its exit code
// and stderr.
func endWhen(t *testing.T, env connect.Env, want string, argv []string, end func(context.CancelCauseFunc), ready ...func() bool) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	trace := newSignalWriter(want)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"-v"}, argv...), output.NewStreams(strings.NewReader(""), io.Discard, trace), env)
	}()
	select {
	case <-trace.seen:
	case code := <-done:
		t.Fatalf("exit %d before the trace showed %s:\n%s", code, want, trace)
	case <-time.After(testWait):
		t.Fatalf("the trace never showed %s:\n%s", want, trace)
	}
	for _, ok := range ready {
		if !ok() {
			t.Fatalf("the trace showed %s, but the server never got it", want)
		}
	}
	end(cancel)
	select {
	case code := <-done:
		return code, trace.String()
	case <-time.After(testWait):
		t.Fatal("mcpv did not stop")
		return 0, ""
	}
}

// testWait bounds every wait for something that should happen; it only
// fires when the code under test is broken (a minute: a busy machine may
// take ten seconds to start a server).
const testWait = time.Minute

func readLogIfAny(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func TestConnectTimeout(t *testing.T) {
	unixOnly(t, "a server that never answers: sleep")
	t.Parallel()
	// sleep never answers initialize.
	r := mcpv(t, "", "--connect-timeout", "200ms", "ping", "--", "sleep", "30")
	if r.code != 124 || !strings.Contains(r.stderr, "the server did not answer within 200ms of its start (--connect-timeout); it wrote nothing at all: if it is still starting, give it longer with --connect-timeout") {
		t.Fatalf("code %d, stderr %q", r.code, r.stderr)
	}
}

func TestServerIgnoringShutdownIsKilled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	env := testEnv(t)
	env.Grace = 200 * time.Millisecond // 2 s by default
	start := time.Now()
	r := mcpvIn(t, env, "", "--env", mcptest.EnvVar+"=ignore-exit", "--env", mcptest.EnvPid+"="+pidFile, "ping", "--", os.Args[0])
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	// close stdin, a grace, SIGTERM (ignored), a grace, SIGKILL: the
	// server, which ignores the first two, was given both.
	if d := time.Since(start); d < 2*env.Grace {
		t.Errorf("shutdown took %v, less than two graces of %v", d, env.Grace)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL was sent before mcpv returned; the wait for its end is one
	// grace, which a loaded machine can outlast before the kernel reaps it.
	pid, _ := strconv.Atoi(string(b))
	for guard := time.Now().Add(testWait); processExists(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(guard) {
			t.Fatalf("the server (pid %d) is still there %v after mcpv returned", pid, testWait)
		}
	}
}

// blockingReader is a stdin that is open and silent, as in many CI jobs.
// blockingReader is a stdin that never answers, and says when it is read.
type blockingReader struct{ read chan struct{} }

func (r blockingReader) Read([]byte) (int, error) {
	close(r.read)
	select {}
}

// TestSilentStdinIsNotRead: a call that takes no input from stdin never
// reads it, so a stdin that never answers does not hold it. Told by the
// read itself, not by a time a busy machine can miss.
func TestSilentStdinIsNotRead(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	stdin := blockingReader{read: make(chan struct{})}
	ios := output.NewStreams(stdin, &out, &errb)
	done := make(chan int)
	go func() {
		done <- run(context.Background(), args([]string{"call", "x", "a=1"}, fake("plain")), ios, testEnv(t))
	}()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("code %d: %s", code, errb.String())
		}
	case <-stdin.read:
		t.Fatal("mcpv read its stdin, which nothing asked of it")
	}
}

func TestArgsFromStdinWhenAsked(t *testing.T) {
	t.Parallel()
	tail, log := fakeLogged(t, "plain")
	r := mcpv(t, `{"b": [1, 2], "a": "x"}`, args([]string{"call", "x", "--args", "-", "a:=7"}, tail)...)
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	if got := readLog(t, log); !strings.Contains(got, `"params":{"name":"x","arguments":{"b":[1,2],"a":7},"_meta":{"progressToken":"mcpv-1"}}`) {
		t.Errorf("server got:\n%s", got)
	}
}

func TestUsageErrorsStartNoServer(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "started")
	server := []string{"--", "sh", "-c", "touch " + marker}
	badJSON := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(badJSON, []byte("{nope"), 0o644)
	tests := []struct {
		args   []string
		errHas string
	}{
		{[]string{"call"}, "expected"},
		{[]string{"call", "x", "novalue"}, "want key=value"},
		{[]string{"call", "x", "a:={bad"}, "not valid JSON"},
		{[]string{"get-prompt", "p", "a:=1"}, "prompt arguments are strings"},
		{[]string{"-q", ".[", "ping"}, "jq:"},
		{[]string{"--env", "NOEQUALS", "ping"}, "KEY=VALUE"},
		{[]string{"--bogus", "ping"}, "unknown flag"},
		{[]string{"-r", "ping"}, "need --jq"},
		{[]string{"--pretty", "-c", "ping"}, "can't be used together"},
		{[]string{"--color", "sometimes", "ping"}, "must be one of"},
		{[]string{"request", "x/y", "[1]"}, "want a JSON object"},
		{[]string{"request", "x/y", "{"}, "not valid JSON"},
		{[]string{"call", "x", "--args", "@/nonexistent/file"}, "no such file"},
		{[]string{"call", "x", "--args", "-", "m=@-"}, "both want stdin"},
		{[]string{"call", "x", "m=@/nonexistent/file"}, "no such file"},
		{[]string{"call", "x", "m:=@" + badJSON}, "not valid JSON"},
	}
	for _, tt := range tests {
		r := mcpv(t, "", append(tt.args, server...)...)
		if r.code != 2 || !osText(r.stderr, tt.errHas) {
			t.Errorf("%q: code %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.errHas)
		}
		if strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 && !strings.Contains(r.stderr, "jq") {
			t.Errorf("%q: stderr is not one line: %q", tt.args, r.stderr)
		}
	}
	if r := mcpv(t, "", "ping"); r.code != 2 || !strings.Contains(r.stderr, "no server given") {
		t.Errorf("no server: code %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a usage error started the server")
	}
}

func TestServerNotFound(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", "ping", "--", "/nonexistent/mcp-server")
	if r.code != 4 || !strings.Contains(r.stderr, `start server "/nonexistent/mcp-server"`) {
		t.Fatalf("code %d, stderr %q", r.code, r.stderr)
	}
}

// A server that exits at once is said to have, and what it wrote on its
// stderr is shown once: as it came, or, with --quiet, quoted in the error.
func TestServerExitsAtOnce(t *testing.T) {
	unixOnly(t, "servers written in sh")
	t.Parallel()
	server := []string{"--", "sh", "-c", "echo 'cannot open database' >&2; exit 7"}
	r := mcpv(t, "", args([]string{"ping"}, server)...)
	if r.code != 4 || r.stderr != "cannot open database\nmcpv: server exited with status 7\n" {
		t.Fatalf("code %d, stderr %q", r.code, r.stderr)
	}
	r = mcpv(t, "", args([]string{"--quiet", "ping"}, server)...)
	if r.code != 4 || r.stderr != "mcpv: server exited with status 7\nlast lines of the server's stderr:\n  | cannot open database\n" {
		t.Fatalf("--quiet: code %d, stderr %q", r.code, r.stderr)
	}
}

func TestServerExitWhileGrandchildHoldsStdout(t *testing.T) {
	unixOnly(t, "servers written in sh")
	testkit.SkipLong(t, "waits out the grace for a stdout a grandchild holds")
	t.Parallel()
	start := time.Now()
	r := mcpv(t, "", "--connect-timeout", "1h", "ping", "--", "sh", "-c", "sleep 3600 & echo 'fatal: no config' >&2; exit 3")
	if r.code != 4 || !strings.Contains(r.stderr, "exited with status 3") || strings.Count(r.stderr, "fatal: no config") != 1 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if took := time.Since(start); took >= 30*time.Minute { // the grandchild holds it for an hour
		t.Errorf("took %v: mcpv waited on the grandchild's stdout", took)
	}
}

// A server that never answers initialize, ignores stdin's end and SIGTERM
// is stopped soon after --connect-timeout or Ctrl-C: the full grace periods
// (2 s + 2 s by default) are for servers that got through start-up. Here
// they are an hour each, and the server sleeps an hour.
func TestStartUpEndsPromptly(t *testing.T) {
	unixOnly(t, "servers written in sh")
	testkit.SkipLong(t, "a server that holds stdout, stopped twice during start-up")
	t.Parallel()
	env := testEnv(t)
	env.Grace = time.Hour
	stubborn := []string{"--", "/bin/sh", "-c", `trap "" TERM; echo started >&2; sleep 3600`}
	start := time.Now()
	r := mcpvIn(t, env, "", append([]string{"--connect-timeout", "300ms", "ping"}, stubborn...)...)
	if r.code != 124 || !strings.Contains(r.stderr, "the server did not answer within 300ms of its start (--connect-timeout)") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if took := time.Since(start); took >= env.Grace/2 {
		t.Errorf("--connect-timeout 300ms ended mcpv after %v", took)
	}
	start = time.Now()
	code, stderr := interruptWhenIn(t, env, `-> {"jsonrpc":"2.0","id":1,`, append([]string{"ping"}, stubborn...)) // the first request
	if code != 130 {
		t.Errorf("Ctrl-C during start-up: exit %d, stderr %q", code, stderr)
	}
	if took := time.Since(start); took >= env.Grace/2 {
		t.Errorf("Ctrl-C during start-up ended mcpv after %v", took)
	}
}
