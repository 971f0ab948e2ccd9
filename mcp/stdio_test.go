//go:build unix

package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

const testGrace = 200 * time.Millisecond

// startSh starts `/bin/sh -c script` as a stdio server, killed at the end of
// the test.
func startSh(t *testing.T, script string, opts CommandOptions) *CommandTransport {
	t.Helper()
	opts.Path, opts.Args = "/bin/sh", []string{"-c", script}
	if opts.Grace == 0 {
		opts.Grace = testGrace
	}
	tr, err := StartCommand(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // no grace periods
		tr.Close(ctx)
	})
	return tr
}

// readAway reads messages until Read fails, and drops them.
func readAway(tr *CommandTransport) {
	for {
		if _, err := tr.Read(); err != nil {
			return
		}
	}
}

// readAll reads messages until Read fails.
func readAll(t *testing.T, tr *CommandTransport) ([]string, error) {
	t.Helper()
	var msgs []string
	for range 100 {
		m, err := tr.Read()
		if err != nil {
			return msgs, err
		}
		msgs = append(msgs, string(m))
	}
	t.Fatal("Read does not end")
	return nil, nil
}

func TestCommandReadsHugeLine(t *testing.T) {
	testkit.SkipLong(t, "writes 100 MB through a pipe")
	const n = 100 << 20
	prefix, suffix := `{"jsonrpc":"2.0","method":"big","params":{"s":"`, `"}}`
	tr := startSh(t, fmt.Sprintf(`printf '%%s' '%s'; head -c %d /dev/zero | tr '\0' x; printf '%%s\n' '%s'; echo '{"after":1}'`, prefix, n, suffix), CommandOptions{})
	line, err := tr.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(line) != len(prefix)+n+len(suffix) {
		t.Fatalf("line of %d bytes, want %d", len(line), len(prefix)+n+len(suffix))
	}
	if !bytes.HasPrefix(line, []byte(prefix)) || !bytes.HasSuffix(line, []byte(suffix)) ||
		len(bytes.Trim(line[len(prefix):len(line)-len(suffix)], "x")) != 0 {
		t.Errorf("line is not what the server wrote")
	}
	if next, err := tr.Read(); err != nil || string(next) != `{"after":1}` {
		t.Errorf("next Read = %q, %v", next, err)
	}
}

func TestCommandLines(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		want     []string
		wantDiag []string
	}{
		{"junk lines skipped with one warning each", `printf 'hello\nnot json either\n{"a":1}\n'`, []string{`{"a":1}`}, []string{
			`warning: skipped a line on the server's stdout that is not JSON: "hello"`,
			`warning: skipped a line on the server's stdout that is not JSON: "not json either"`,
		}},
		{"blank lines and CRLF", `printf '\n\r\n  \t \n{"a":1}\r\n\r\n[{"b":2}]\n'`, []string{`{"a":1}`, `[{"b":2}]`}, nil},
		{"junk with CRLF", `printf 'oops\r\n{"a":1}\r\n'`, []string{`{"a":1}`}, []string{
			`warning: skipped a line on the server's stdout that is not JSON: "oops"`,
		}},
		{"last line without newline", `printf '{"a":1}\n{"b":2}'`, []string{`{"a":1}`, `{"b":2}`}, nil},
		{"warnings stop after ten", `for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "junk $i"; done; echo '{"a":1}'`, []string{`{"a":1}`}, func() []string {
			var w []string
			for i := 1; i <= 10; i++ {
				w = append(w, fmt.Sprintf(`warning: skipped a line on the server's stdout that is not JSON: "junk %d"`, i))
			}
			return append(w, "warning: more non-JSON lines on the server's stdout; no longer reporting them")
		}()},
		{"long junk clipped", `printf '%0300d\n' 0`, nil, []string{
			`warning: skipped a line on the server's stdout that is not JSON: "` + strings.Repeat("0", 200) + `"… (100 more bytes)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var diag bytes.Buffer
			tr := startSh(t, tt.script, CommandOptions{Log: lineLogger(&diag)})
			got, err := readAll(t, tr)
			var te *TransportError
			if !errors.As(err, &te) || te.Op != "server exited" {
				t.Errorf("final Read error = %v, want the server's exit", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			var diagLines []string
			if s := strings.TrimSuffix(diag.String(), "\n"); s != "" {
				diagLines = strings.Split(s, "\n")
			}
			if diff := cmp.Diff(tt.wantDiag, diagLines); diff != "" {
				t.Errorf("Diag (-want +got):\n%s", diff)
			}
		})
	}
}

// A secret the server writes on stderr where a quoted line is clipped is
// masked before the clip (Mask): masked after, its start would show.
func TestCommandStderrMaskedBeforeTheClip(t *testing.T) {
	secret := "sk-live-abcdefghijklmnop1234"
	tr := startSh(t, `printf '%0290d' 0 >&2; echo "`+secret+` and more" >&2; exit 3`,
		CommandOptions{Mask: func(s string) string { return strings.ReplaceAll(s, secret, "***") }})
	_, err := readAll(t, tr)
	var te *TransportError
	if !errors.As(err, &te) || len(te.StderrTail) != 1 {
		t.Fatalf("Read error = %v, want the server's exit with its stderr", err)
	}
	if got := te.StderrTail[0]; strings.Contains(got, "sk-") || !strings.Contains(got, "***") {
		t.Errorf("StderrTail = %q, want the secret masked, not cut", got)
	}
}

func TestCommandExit(t *testing.T) {
	tests := []struct {
		name, script, wantOp string
		wantTail             []string
	}{
		{"status 3 with stderr", `for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "line $i" >&2; done; echo '{"a":1}'; exit 3`,
			"server exited with status 3",
			[]string{"line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9", "line 10", "line 11", "line 12"}},
		{"status 0", `echo bye >&2`, "server exited", []string{"bye"}},
		{"killed", `kill -KILL $$`, "server was killed by signal killed", nil},
		{"terminated", `echo 'going' >&2; kill -TERM $$`, "server was killed by signal terminated", []string{"going"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr mcptest.Buffer
			tr := startSh(t, tt.script, CommandOptions{Stderr: &stderr})
			_, err := readAll(t, tr)
			var te *TransportError
			if !errors.As(err, &te) {
				t.Fatalf("Read error = %v, want a *TransportError", err)
			}
			if te.Op != tt.wantOp || !strings.HasPrefix(err.Error(), tt.wantOp) {
				t.Errorf("error = %q, want it to say %q", err, tt.wantOp)
			}
			if diff := cmp.Diff(tt.wantTail, te.StderrTail); diff != "" {
				t.Errorf("StderrTail (-want +got):\n%s", diff)
			}
			waitFor(t, tr.errDone)
			if len(tt.wantTail) > 0 && !strings.HasSuffix(stderr.String(), tt.wantTail[len(tt.wantTail)-1]+"\n") {
				t.Errorf("Stderr got %q", stderr.String())
			}
		})
	}
}

func TestCommandCloseKillsStubbornGroup(t *testing.T) {
	t.Parallel()
	// The shell and its child sleep ignore SIGTERM and never read stdin;
	// left alone, they would end in an hour.
	tr := startSh(t, `trap '' TERM; sleep 3600 & echo '{"ready":true}'; wait; exit 0`, CommandOptions{})
	if m, err := tr.Read(); err != nil || string(m) != `{"ready":true}` {
		t.Fatalf("Read = %q, %v", m, err)
	}
	pid := tr.Pid()
	start := time.Now()
	if err := tr.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	// Close waits one grace period after closing stdin and one after
	// SIGTERM, then kills: not for the group to end by itself.
	if elapsed < 2*testGrace || elapsed > 30*time.Minute {
		t.Errorf("Close took %v, want at least %v and well short of the hour the group would take", elapsed, 2*testGrace)
	}
	waitFor(t, tr.exited)
	if got, _ := describeExit(tr.waitErr); got != "was killed by signal killed" {
		t.Errorf("server ended as %q, want killed by SIGKILL", got)
	}
	waitGroupGone(t, pid)
	if _, err := tr.Read(); err == nil || !strings.Contains(err.Error(), "connection closed") {
		t.Errorf("Read after Close = %v, want connection closed", err)
	}
	if err := tr.Close(context.Background()); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestCommandCloseIsPoliteFirst(t *testing.T) {
	var stderr mcptest.Buffer
	tr := startSh(t, `read line; echo "$line" >&2; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; read rest || exit 0`, CommandOptions{Stderr: &stderr, Grace: testWait})
	s := NewSession(tr, SessionOptions{})
	if r, err := s.Call(t.Context(), "tools/list", nil); err != nil || string(r) != "{}" {
		t.Fatalf("Call = %s, %v", r, err)
	}
	// The server exits on stdin EOF: Close must not need a signal.
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tr.exited)
	waitFor(t, tr.errDone) // Close does not wait for the stderr copy
	if tr.waitErr != nil {
		t.Errorf("server ended with %v, want a clean exit on stdin EOF", tr.waitErr)
	}
	if got, want := stderr.String(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"; got != want {
		t.Errorf("server read %q, want %q", got, want)
	}
}

// A server that asks its client something once its stdin has closed
// waits for an answer that cannot come (the reference everything server
// holds a minute-long timer on its roots/list): Close sends SIGTERM then,
// without the rest of its grace.
func TestCommandCloseStopsWaitingOnAQuestion(t *testing.T) {
	const grace = time.Hour
	tr := startSh(t, `cat >/dev/null; echo '{"jsonrpc":"2.0","id":7,"method":"roots/list"}'; exec sleep 3600`, CommandOptions{Grace: grace})
	s := NewSession(tr, SessionOptions{})
	start := time.Now()
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= grace/2 {
		t.Errorf("Close took %v: it waited out the grace (%v) of a server that asked a question after its input ended", d, grace)
	}
	waitFor(t, tr.exited)
	if got, _ := describeExit(tr.waitErr); got != "was killed by signal terminated" {
		t.Errorf("server ended as %q, want ended by SIGTERM", got)
	}
}

func TestCommandWriteAfterExit(t *testing.T) {
	tr := startSh(t, `echo gone >&2; exit 5`, CommandOptions{})
	go readAway(tr) // as a session reads; unread, the write waits out ExitDrain
	waitFor(t, tr.exited)
	done := make(chan error, 1)
	go func() { done <- tr.Write(context.Background(), []byte(`{"jsonrpc":"2.0","method":"x"}`)) }()
	err := waitFor(t, done)
	var te *TransportError
	// EPIPE from the server's stdin must not look like a closed stdout of
	// mcpv's own (exit 0): it says how the server ended instead.
	if !errors.As(err, &te) || errors.Is(err, syscall.EPIPE) || !strings.Contains(err.Error(), "exited with status 5") || !strings.Contains(err.Error(), "| gone") {
		t.Errorf("Write = %v, want a TransportError saying the server exited with status 5", err)
	}
}

// A server that closes its stdin and runs on is said to have done so, not
// to have closed its stdout; the wait for its last output is bounded by
// ExitDrain, and ends sooner with the writer's context.
func TestCommandWriteToClosedStdin(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		drain time.Duration
		ctx   func() (context.Context, context.CancelFunc)
		want  string
	}{
		{"no deadline", 10 * time.Millisecond, func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, "server closed its stdin"},
		{"a deadline", time.Hour, func() (context.Context, context.CancelFunc) {
			return context.WithTimeoutCause(context.Background(), 50*time.Millisecond, errors.New("the caller's deadline"))
		}, "the caller's deadline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := startSh(t, `exec 0<&-; echo '{"closed":true}'; exec sleep 60`, CommandOptions{ExitDrain: tt.drain})
			if m, err := tr.Read(); err != nil || string(m) != `{"closed":true}` {
				t.Fatalf("Read = %s, %v", m, err)
			}
			ctx, cancel := tt.ctx()
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- refusedWrite(ctx, tr, []byte(`{"jsonrpc":"2.0","method":"x"}`)) }()
			if err := waitFor(t, done); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write = %v, want %q", err, tt.want)
			}
		})
	}
}

// refusedWrite writes msg to a server that closed its stdin until a
// write fails, and returns that failure: a process another test forks
// holds the pipe's read end from its fork to its exec, and while it does
// a write goes through. A thousand tries bound it.
func refusedWrite(ctx context.Context, tr *CommandTransport, msg []byte) error {
	for range 1000 {
		if err := tr.Write(ctx, msg); err != nil {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// Once a write has found why the server stopped reading, every later write
// says the same at once, with no second wait for the server's last output.
func TestCommandWriteToClosedStdinAgain(t *testing.T) {
	t.Parallel()
	tr := startSh(t, `exec 0<&-; echo '{"closed":true}'; exec sleep 60`, CommandOptions{ExitDrain: 10 * time.Millisecond})
	if m, err := tr.Read(); err != nil || string(m) != `{"closed":true}` {
		t.Fatalf("Read = %s, %v", m, err)
	}
	msg := []byte(`{"jsonrpc":"2.0","method":"x"}`)
	first := refusedWrite(context.Background(), tr, msg)
	if first == nil || !strings.Contains(first.Error(), "server closed its stdin") {
		t.Fatalf("Write = %v, want the server closed its stdin", first)
	}
	if again := tr.Write(context.Background(), msg); again != first {
		t.Errorf("Write again = %v (%p), want the first answer (%p)", again, again, first)
	}
}

// A write blocked on a server that stopped reading ends when its context
// does. The server reads the first 64 KiB of the message, says so, and
// reads no more: the context is cancelled only then, once the write is
// under way and blocked (8 MiB is more than any pipe holds).
func TestCommandWriteHonoursContext(t *testing.T) {
	tr := startSh(t, `head -c 65536 >/dev/null; echo '{"read":65536}'; exec sleep 60`, CommandOptions{})
	cause := errors.New("write took too long")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	big := bytes.Repeat([]byte("x"), 8<<20)
	done := make(chan error, 1)
	go func() { done <- tr.Write(ctx, big) }()
	if m, err := tr.Read(); err != nil || string(m) != `{"read":65536}` {
		t.Fatalf("Read = %s, %v; want the server's word that it stopped reading", m, err)
	}
	select {
	case err := <-done:
		t.Fatalf("Write = %v before its context ended, to a server that reads no more", err)
	default:
	}
	cancel(cause)
	if err := waitFor(t, done); err != cause {
		t.Errorf("Write = %v, want the context's cause", err)
	}
	// The half-written line made the connection unusable: stdin is closed.
	go func() { done <- tr.Write(context.Background(), []byte("{}")) }()
	if err := waitFor(t, done); !errors.Is(err, os.ErrClosed) {
		t.Errorf("second Write = %v, want os.ErrClosed", err)
	}
}

// A write the pipe takes at once sets no watch on its context (the
// watch, which cuts a blocked write, is set only once a write must wait):
// a small message costs the one copy that adds its newline. Counted in
// allocations, never times; a hundred short lines cannot fill the pipe.
func TestCommandWriteUnblockedCostsOneCopy(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's own allocations")
	}
	tr := startSh(t, `echo '{"ready":true}'; exec cat >/dev/null`, CommandOptions{})
	if m, err := tr.Read(); err != nil || string(m) != `{"ready":true}` {
		t.Fatalf("Read = %s, %v", m, err) // its framing known: no early copies kept
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	var err error
	allocs := testing.AllocsPerRun(100, func() {
		if e := tr.Write(ctx, msg); e != nil {
			err = e
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs > 1 {
		t.Errorf("a small write allocates %v times, want 1 (its line)", allocs)
	}
}

// A write whose context has ended before it starts writes nothing and
// leaves stdin as it was: the next write, under a live context, reaches the
// server. (With stdin free, the wait for it and the context's end are
// both ready: this would close stdin in about half of the tries.)
func TestCommandWriteWithEndedContextLeavesStdin(t *testing.T) {
	tr := startSh(t, `read -r line; echo "$line"; exec sleep 60`, CommandOptions{})
	cause := errors.New("timed out before the write")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	for i := range 64 {
		if err := tr.Write(ctx, []byte(`{"cut":true}`)); err != cause {
			t.Fatalf("Write %d under an ended context = %v, want its cause", i, err)
		}
	}
	if err := tr.Write(context.Background(), []byte(`{"after":true}`)); err != nil {
		t.Fatalf("Write after them = %v, want stdin still open", err)
	}
	if m, err := tr.Read(); err != nil || string(m) != `{"after":true}` {
		t.Errorf("server read %s, %v; want only the write made under a live context", m, err)
	}
}

func TestCommandEnvAndDir(t *testing.T) {
	t.Setenv("MCPV_STDIO_TEST", "inherited")
	dir := t.TempDir()
	script := `printf '{"v":"%s","dir":"%s"}\n' "$MCPV_STDIO_TEST" "$(pwd -P)"`
	real, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if real, err = filepath.EvalSymlinks(real); err != nil {
		t.Fatal(err)
	}
	dirReal, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts CommandOptions
		want string
	}{
		{"inherited", CommandOptions{}, `{"v":"inherited","dir":"` + real + `"}`},
		{"explicit", CommandOptions{Env: []string{"MCPV_STDIO_TEST=given"}, Dir: dir}, `{"v":"given","dir":"` + dirReal + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := startSh(t, script, tt.opts).Read()
			if err != nil || string(m) != tt.want {
				t.Errorf("Read = %s, %v; want %s", m, err, tt.want)
			}
		})
	}
}

func TestStartCommandFails(t *testing.T) {
	tests := []struct {
		path string
		want error
	}{
		{"/nonexistent/mcpv-server", fs.ErrNotExist},
		{"mcpv-no-such-program-in-path", exec.ErrNotFound},
	}
	for _, tt := range tests {
		_, err := StartCommand(CommandOptions{Path: tt.path})
		var te *TransportError
		if !errors.As(err, &te) || !errors.Is(err, tt.want) || te.Op != fmt.Sprintf("start server %q", tt.path) {
			t.Errorf("StartCommand(%q) = %v, want a TransportError wrapping %v", tt.path, err, tt.want)
		}
	}
}

// A relative command that is not found, in a directory other than
// mcpv's, is said to have been looked for there; one that is there (what
// it needs is missing) or that names no directory is not.
func TestStartCommandNamesItsDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := StartCommand(CommandOptions{Path: "./no-server", Dir: dir})
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasSuffix(err.Error(), "no such file or directory (looked for in "+dir+")") {
		t.Errorf("StartCommand(./no-server in %s) = %v, want it to name the directory", dir, err)
	}
	_, err = StartCommand(CommandOptions{Path: "./no-server"})
	if err == nil || strings.Contains(err.Error(), "looked for in") {
		t.Errorf("StartCommand(./no-server in mcpv's directory) = %v, want no directory named", err)
	}
	_, err = StartCommand(CommandOptions{Path: "/nonexistent/mcpv-server", Dir: dir})
	if err == nil || strings.Contains(err.Error(), "looked for in") {
		t.Errorf("StartCommand(an absolute path) = %v, want no directory named", err)
	}
	script := filepath.Join(dir, "server")
	testkit.WriteScript(t, script, []byte("#!/nonexistent/interpreter\n"), 0o755)
	_, err = StartCommand(CommandOptions{Path: "./server", Dir: dir})
	if err == nil || strings.Contains(err.Error(), "looked for in") {
		t.Errorf("StartCommand(a script whose interpreter is missing) = %v, want no directory named", err)
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 20}
	b.Write([]byte("line1\nli"))
	b.Write([]byte("ne2\r\n\n  \nline3\nline4\n"))
	if diff := cmp.Diff([]string{"line3", "line4"}, b.lines(2)); diff != "" {
		t.Errorf("lines(2) (-want +got):\n%s", diff)
	}
	// Only the last 20 bytes are kept, so the oldest line is cut.
	if diff := cmp.Diff([]string{"e2", "line3", "line4"}, b.lines(10)); diff != "" {
		t.Errorf("lines(10) (-want +got):\n%s", diff)
	}
	long := &tailBuffer{max: 1000}
	long.Write([]byte(strings.Repeat("y", 350) + "\n"))
	if diff := cmp.Diff([]string{strings.Repeat("y", 300) + "… (50 more bytes)"}, long.lines(10)); diff != "" {
		t.Errorf("long line (-want +got):\n%s", diff)
	}
}

func TestDescribeExit(t *testing.T) {
	run := func(script string) error { return exec.Command("/bin/sh", "-c", script).Run() }
	tests := []struct {
		err  error
		want string
	}{
		{nil, "exited"},
		{run("exit 3"), "exited with status 3"},
		{run("kill -KILL $$"), "was killed by signal killed"},
		{run("kill -INT $$"), "was killed by signal interrupt"},
		{errors.New("wait: no child processes"), "exited: wait: no child processes"},
	}
	for _, tt := range tests {
		if got, _ := describeExit(tt.err); got != tt.want {
			t.Errorf("describeExit(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// What the server wrote before it exited is all delivered, however long
// the session takes with a message: a slow reader is no grandchild.
func TestCommandSlowReaderAfterExit(t *testing.T) {
	t.Parallel()
	// The second line is written, and the server exits, only once the first
	// has been read: it is in the pipe, not in the reader's buffer.
	tr := startSh(t, `echo '{"a":1}'; read go; echo '{"b":2}'`, CommandOptions{ExitDrain: 20 * time.Millisecond})
	if first, err := tr.Read(); err != nil || string(first) != `{"a":1}` {
		t.Fatalf("first Read = %q, %v", first, err)
	}
	if err := tr.Write(t.Context(), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	<-tr.exited
	time.Sleep(100 * time.Millisecond) // busy with the first message, long past the drain wait
	if next, err := tr.Read(); err != nil || string(next) != `{"b":2}` {
		t.Errorf("second Read = %q, %v; want the line written before the exit", next, err)
	}
	if _, err := tr.Read(); err == nil {
		t.Error("a Read after the end succeeded")
	}
}

func TestCommandMaxMessage(t *testing.T) {
	for _, tt := range []struct{ name, script string }{
		{"line", `printf '{"a":"'; head -c 300000 /dev/zero | tr '\0' x; printf '"}\n'; sleep 5`},
		{"junk line", `head -c 300000 /dev/zero | tr '\0' x; echo; sleep 5`},
		{"framed body", `printf 'Content-Length: 300000\r\n\r\n'; sleep 5`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := startSh(t, tt.script, CommandOptions{MaxMessage: 256 << 10})
			_, err := tr.Read()
			var se *MessageSizeError
			if !errors.As(err, &se) {
				t.Fatalf("Read = %v, want a MessageSizeError", err)
			}
		})
	}
}
