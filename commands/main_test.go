package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/mcp/mcptest/pipeclient"
	"github.com/mcpv/mcpv/output"
)

func TestMain(m *testing.M) {
	if mcptest.RunIfRequested() || pipeclient.RunDemoIfRequested() || runBrowserIfRequested() || runKeeperIfRequested() {
		return
	}
	// The tests run mcpv against servers in processes of their own, and
	// spend most of their time waiting on them.
	testkit.WaitMoreAtOnce(4)
	os.Exit(mcptest.GuardSuite(m.Run))
}

type result struct {
	code           int
	stdout, stderr string
}

// expect checks a run's exit code, its stdout (exactly, unless wantOut is
// ""), and what stdout and stderr hold.
func (r result) expect(t *testing.T, wantCode int, wantOut, outHas, errHas string) {
	t.Helper()
	if r.code != wantCode {
		t.Errorf("exit code = %d, want %d\nstderr: %s", r.code, wantCode, r.stderr)
	}
	if wantOut != "" {
		if d := cmp.Diff(wantOut, r.stdout); d != "" {
			t.Errorf("stdout (-want +got):\n%s", d)
		}
	}
	if !strings.Contains(r.stdout, outHas) {
		t.Errorf("stdout %q does not contain %q", r.stdout, outHas)
	}
	if !strings.Contains(r.stderr, errHas) {
		t.Errorf("stderr %q does not contain %q", r.stderr, errHas)
	}
}

// testEnv is a world of its own for one test: the process's environment
// without mcpv's variables or the user's configuration, a fresh HOME, and
// the test process's working directory. Tests change it, not the process,
// so they can run in parallel.
func testEnv(t *testing.T) connect.Env {
	t.Helper()
	var environ []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "CI" || k == "BROWSER" || k == "NO_COLOR" || k == "GORACE" || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "MCPV_") {
			continue
		}
		environ = append(environ, kv)
	}
	// Some servers are this test binary (the demo server, the browser's
	// stand-ins, the fake where mcptest.Program cannot be built): built
	// with -race, each would sleep a second at exit, and every stdio test
	// would wait for it.
	// Tokens in files: a login keeper this test binary starts is a real
	// mcpv, which would otherwise use the developer's keychain.
	environ = append(environ, "HOME="+t.TempDir(), raceQuick, "MCPV_TOKEN_STORE=file")
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return connect.Env{Environ: environ, Cwd: cwd, GOOS: runtime.GOOS, ExportWait: time.Minute, StartServer: pipeclient.StartServer}
}

// raceQuick keeps a race-enabled server from sleeping at exit.
const raceQuick = "GORACE=atexit_sleep_ms=0"

// with returns env with variables added (or replaced: a later entry wins).
func with(env connect.Env, kv ...string) connect.Env {
	env.Environ = append(slices.Clone(env.Environ), kv...)
	return env
}

// asProcess returns env with its servers started as processes of their
// own, for a test whose subject is the process (its start and exit, its
// stderr, its signals): testEnv serves the fake in the test process where
// it can.
func asProcess(env connect.Env) connect.Env {
	env.StartServer = nil
	return env
}

// without returns env without the variable key.
func without(env connect.Env, key string) connect.Env {
	env.Environ = slices.DeleteFunc(slices.Clone(env.Environ), func(kv string) bool { return strings.HasPrefix(kv, key+"=") })
	return env
}

// mcpv runs the command line in-process with the given stdin, as a pipe
// user would, in a world of the test's own.
func mcpv(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return mcpvIn(t, testEnv(t), stdin, args...)
}

// mcpvIn is mcpv in the world env.
func mcpvIn(t *testing.T, env connect.Env, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	ios := output.NewStreams(strings.NewReader(stdin), &out, &errb)
	code := run(context.Background(), args, ios, env)
	return result{code, out.String(), errb.String()}
}

// fake returns the argument tail that starts this test binary as a fake server.
func fake(behaviour string) []string {
	return []string{"--env", mcptest.EnvVar + "=" + behaviour, "--", fakeProgram()}
}

// fakeProgram is the program that serves the fake: in the quick tier the
// test binary, whose fakes run in process but for the few whose process
// is the subject, which spares the build of mcptest.Program (seconds of
// linking before the package's first run); in the long tier, whose tests
// start hundreds, mcptest.Program.
func fakeProgram() string {
	if testkit.LongTier {
		return mcptest.Program()
	}
	return os.Args[0]
}

func args(a ...[]string) []string {
	var out []string
	for _, x := range a {
		out = append(out, x...)
	}
	return out
}

// world is where a test runs mcpv: the environment and working directory it
// sees, which the test changes as it goes.
type world struct{ env connect.Env }

func newWorld(t *testing.T) *world { return &world{env: testEnv(t)} }

func (w *world) setenv(key, value string) { w.env = with(w.env, key+"="+value) }

func (w *world) unsetenv(key string) { w.env = without(w.env, key) }

func (w *world) mcpv(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return mcpvIn(t, w.env, stdin, args...)
}

// signalWriter collects what is written to it and closes seen once that
// contains want.
type signalWriter struct {
	want string
	seen chan struct{}

	mu   sync.Mutex // guards buf and done
	buf  strings.Builder
	done bool
}

func newSignalWriter(want string) *signalWriter {
	return &signalWriter{want: want, seen: make(chan struct{})}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.done && w.want != "" && strings.Contains(w.buf.String(), w.want) {
		w.done = true
		close(w.seen)
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestVersionLine(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-23T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	v, c, d := stamp("", "", "", bi)
	if got := versionLine(v, c, d, "go1.26.8", "linux/amd64"); got != "mcpv v1.4.0 (commit 0123456789ab-dirty, built 2026-11-23T10:00:00Z, go1.26.8 linux/amd64)" {
		t.Errorf("from build info: %s", got)
	}
	v, c, d = stamp("v2.0.0", "feedbeef", "2026-12-01T00:00:00Z", bi) // -ldflags win
	if got := versionLine(v, c, d, "go1.26.8", "windows/arm64"); got != "mcpv v2.0.0 (commit feedbeef, built 2026-12-01T00:00:00Z, go1.26.8 windows/arm64)" {
		t.Errorf("from -ldflags: %s", got)
	}
	v, c, d = stamp("", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}})
	if got := versionLine(v, c, d, "go1.26.8", "darwin/arm64"); got != "mcpv dev (go1.26.8 darwin/arm64)" {
		t.Errorf("nothing known: %s", got)
	}
}

// A run whose signals are still being set up writes nothing, and starts
// and reaches no server, until they are: what parsing prints (the version,
// help) and what a command does wait, and then go on.
func TestNothingBeforeSignalsAreHandled(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{
		{"--version"},
		{"list-tools", "--help"},
		{"help", "exit-codes"},
		{"ping", "--", filepath.Join(t.TempDir(), "no-such-server")},
		{"--no-such-flag"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			signals := make(chan struct{})
			out, errw := newSignalWriter(""), newSignalWriter("")
			done := make(chan int, 1)
			go func() {
				done <- runWith(context.Background(), args, output.NewStreams(strings.NewReader(""), out, errw), w.env, nil, signals)
			}()
			select {
			case code := <-done:
				t.Fatalf("exit %d before the signals were handled", code)
			case <-time.After(50 * time.Millisecond):
			}
			if out.String() != "" || errw.String() != "" {
				t.Fatalf("written before the signals were handled: %q, %q", out, errw)
			}
			close(signals)
			<-done
			if out.String() == "" && errw.String() == "" {
				t.Error("nothing written once they were")
			}
		})
	}
}

// run is Main in a world of its own: the environment, working directory
// and streams are all given.
func run(ctx context.Context, args []string, ios *output.Streams, env connect.Env) int {
	return runWith(ctx, args, ios, env, nil, nil)
}
