//go:build unix && e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

var update = flag.Bool("update", false, "rewrite the golden reports of mcpv test")

// go generate ./... refreshes the golden reports (testdata/test).
//
//go:generate go test -run ^TestTestCommand -update .

// fixtureServer is a program that serves the spec file named by its one
// argument: this test binary as the fake server, with spec=FILE.
func fixtureServer(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture-server")
	script := "#!/bin/sh\n" + mcptest.EnvVar + "=spec=\"$1\" exec " + shellwords.Quote(os.Args[0]) + "\n"
	testkit.WriteScript(t, path, []byte(script), 0o755)
	return path
}

// copyDir copies the test files of testdata/test/NAME into a directory of
// the test's own, where snapshots may be written.
func copyDir(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "test", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// mcpvTest runs mcpv test in dir with the environment extra.
func mcpvTest(t *testing.T, dir string, extra []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(mcpvBin, append([]string{"test"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "CI=") // not in CI mode: a first run writes its snapshot
	cmd.Env = append(cmd.Env, extra...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("mcpv test still running after 60s; stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// Times and dates vary from run to run; the goldens have T in their place.
var (
	lineTime    = regexp.MustCompile(`(  |, |after )[0-9.]+(ns|µs|ms|s|m[0-9.]+s)(\)?)$`)
	summaryTime = regexp.MustCompile(`, [0-9.]+(ns|µs|ms|s|m[0-9.]+s)\)$`)
	afterTime   = regexp.MustCompile(`cancelled after [0-9.]+(µs|ms|s)`)
	xmlTime     = regexp.MustCompile(`(time|timestamp)="[^"]*"`)
	jsonTime    = regexp.MustCompile(`"(durationMs|duration_ms)":[0-9.]+`)
	tapTime     = regexp.MustCompile(`duration_ms: [0-9.]+`)
)

// normalize puts T for times and dates, and names for the paths of this
// run: pairs of path and name.
func normalize(s string, paths ...string) string {
	for i := 0; i+1 < len(paths); i += 2 {
		s = strings.ReplaceAll(s, paths[i], paths[i+1])
	}
	s = tapTime.ReplaceAllString(s, "duration_ms: 0")
	s = afterTime.ReplaceAllString(s, "cancelled after T")
	s = xmlTime.ReplaceAllString(s, `$1="T"`)
	s = jsonTime.ReplaceAllString(s, `"$1":0`)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = summaryTime.ReplaceAllString(l, ", T)")
		lines[i] = lineTime.ReplaceAllString(l, "${1}T$3")
	}
	return strings.Join(lines, "\n")
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "test", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go generate ./e2e writes it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("e2e/%s is stale; go generate ./e2e rewrites it if the change is intended (-golden +got):\n%s", filepath.ToSlash(path), d)
	}
}

// A suite of test files that uses every kind of step and expectation
// passes against the go-sdk demo server, over stdio and over Streamable
// HTTP, and each report format says so.
func TestTestCommandPasses(t *testing.T) {
	testkit.SkipLong(t, "a whole suite over stdio and HTTP in every report format")
	t.Parallel()
	demo := demoBin(t)
	srv := exec.Command(demo, "-http", "127.0.0.1:0")
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	line := make([]byte, 200)
	n, _ := io.ReadAtLeast(stderr, line, len("demo-server: listening on http://1"))
	_, url, ok := strings.Cut(strings.TrimSpace(string(line[:n])), "listening on ")
	if !ok {
		t.Fatalf("the demo server said %q", line[:n])
	}
	dir := copyDir(t, "pass")
	env := []string{"DEMO_SERVER=" + demo, "DEMO_URL=" + url + "/mcp", "USER_NAME="}
	code, stdout, errs := mcpvTest(t, dir, env, "demo.yaml", "http.yaml")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q; report:\n%s", code, errs, stdout)
	}
	if !strings.HasPrefix(lastLine(stdout), "PASS 21 passed, 0 failed, 1 skipped (2 files, ") {
		t.Errorf("summary %q; report:\n%s", lastLine(stdout), stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "demo.snapshot.json")); err != nil {
		t.Errorf("the snapshot was not written: %v", err)
	}
	for _, format := range []string{"junit", "tap", "json"} {
		code, stdout, errs := mcpvTest(t, dir, env, "--format", format, "--parallel", "2", ".")
		if code != 0 || errs != "" {
			t.Fatalf("--format %s: exit %d, stderr %q; report:\n%s", format, code, errs, stdout)
		}
		switch format {
		case "junit":
			var suites struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Suites   []struct {
					Name  string `xml:"name,attr"`
					Cases []struct {
						Name string `xml:"name,attr"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal([]byte(stdout), &suites); err != nil || suites.Tests != 22 || suites.Failures != 0 || len(suites.Suites) != 2 {
				t.Errorf("junit: %v, %+v", err, suites)
			}
		case "tap":
			if !strings.HasPrefix(stdout, "TAP version 14\n1..2\n# Subtest: demo over stdio\n    1..18\n") || strings.Contains(stdout, "not ok") ||
				!strings.HasSuffix(stdout, "ok 2 - demo over HTTP\n") {
				t.Errorf("tap:\n%s", stdout)
			}
		case "json":
			var r struct {
				Passed bool
				Counts map[string]int
			}
			if err := json.Unmarshal([]byte(stdout), &r); err != nil || !r.Passed || r.Counts["passed"] != 21 || r.Counts["skipped"] != 1 {
				t.Errorf("json: %v, %+v", err, r)
			}
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// A suite in which each kind of expectation fails once reports each
// failure exactly as the goldens have it, in every format, and exits 1.
func TestTestCommandFailures(t *testing.T) {
	testkit.SkipLong(t, "a whole failing suite in every report format")
	t.Parallel()
	demo := demoBin(t)
	dir := copyDir(t, "fail")
	env := []string{"DEMO_SERVER=" + demo}
	for _, f := range []struct{ format, golden string }{{"text", "fail.txt"}, {"junit", "fail.xml"}, {"tap", "fail.tap"}, {"json", "fail.json"}} {
		code, stdout, stderr := mcpvTest(t, dir, env, "--format", f.format, "expectations.yaml")
		if code != 1 || stderr != "" {
			t.Errorf("--format %s: exit %d, stderr %q", f.format, code, stderr)
		}
		golden(t, f.golden, normalize(stdout, demo, "DEMO_SERVER"))
	}
}

// A file whose server cannot start comes first in the exit code: 4 here,
// though the other file has a failed step; the report shows both.
func TestTestCommandUnreachableServer(t *testing.T) {
	testkit.SkipLong(t, "builds the demo server, which no other quick test needs")
	t.Parallel()
	demo := demoBin(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("server: {command: [\"${DEMO_SERVER}\"]}\nsteps:\n  - call: add a:=1 b:=1\n    expect: {jq: .structuredContent.sum == 3}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("server: {command: [./no-such-server]}\nsteps:\n  - ping:\n"), 0o644)
	code, stdout, _ := mcpvTest(t, dir, []string{"DEMO_SERVER=" + demo}, "a.yaml", "b.yaml")
	if code != 4 {
		t.Errorf("exit %d, want 4", code)
	}
	got := normalize(stdout, demo, "DEMO_SERVER")
	for _, want := range []string{"  ✗ call add a:=1 b:=1  T\n      jq: .structuredContent.sum == 3\n", "b.yaml (./no-such-server)\n  ✗ exit 4: ",
		"  ○ ping  skipped: not run: the session could not be opened\n", "FAIL 0 passed, 1 failed, 1 skipped (2 files, 1 not run to the end, T)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
}

// A snapshot is taken; the fixture server's tools change in ways that
// break clients, and the next run fails naming each breaking change;
// --update accepts them, and the run after passes.
func TestTestCommandSnapshot(t *testing.T) {
	testkit.SkipLong(t, "a snapshot taken, broken, updated and run again")
	t.Parallel()
	fixture := fixtureServer(t)
	dir := copyDir(t, "snapshot")
	spec := filepath.Join(dir, "spec.json")
	use := func(name string) {
		data, err := os.ReadFile(filepath.Join("..", "internal", "surface", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(spec, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"FIXTURE_SERVER=" + fixture, "FIXTURE_SPEC=" + spec}
	use("good-v1.json")
	code, stdout, stderr := mcpvTest(t, dir, env, "surface.yaml")
	if code != 0 || !strings.Contains(stdout, "written to surface.snapshot.json") {
		t.Fatalf("first run: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "surface.snapshot.json"))
	use("good-v2-breaking.json")
	code, stdout, _ = mcpvTest(t, dir, env, "surface.yaml")
	if code != 1 {
		t.Errorf("after the breaking change: exit %d, want 1", code)
	}
	golden(t, "snapshot.txt", normalize(stdout, fixture, "FIXTURE_SERVER", spec, "FIXTURE_SPEC"))
	if after, _ := os.ReadFile(filepath.Join(dir, "surface.snapshot.json")); !bytes.Equal(before, after) {
		t.Error("a failing snapshot step rewrote the snapshot")
	}
	if code, stdout, _ = mcpvTest(t, dir, env, "--update", "surface.yaml"); code != 0 || !strings.Contains(stdout, "updated surface.snapshot.json") {
		t.Errorf("--update: exit %d:\n%s", code, stdout)
	}
	if code, stdout, _ = mcpvTest(t, dir, env, "surface.yaml"); code != 0 {
		t.Errorf("after --update: exit %d:\n%s", code, stdout)
	}
}

// --lint against a server with a fault planted for each rule finds every
// one of them, and the result of a call that breaks its outputSchema.
func TestTestCommandLint(t *testing.T) {
	t.Parallel()
	fixture := fixtureServer(t)
	dir := copyDir(t, "lint")
	spec, err := filepath.Abs(filepath.Join("..", "internal", "surface", "testdata", "bad.json"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := mcpvTest(t, dir, []string{"FIXTURE_SERVER=" + fixture, "FIXTURE_SPEC=" + spec}, "--lint", "bad.yaml")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, rule := range []string{"tool-name", "input-schema", "output-schema", "structured-result", "pagination", "capabilities", "list", "description"} {
		if !strings.Contains(stdout, "["+rule+"]") {
			t.Errorf("no finding of rule %s", rule)
		}
	}
	golden(t, "lint.txt", normalize(stdout, fixture, "FIXTURE_SERVER", spec, "FIXTURE_SPEC"))
}

// A file with mistakes is refused before any server starts: each mistake
// is FILE:LINE:COLUMN: message, and the exit code is 2.
func TestTestCommandBadFile(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, "bad")
	code, stdout, stderr := mcpvTest(t, dir, nil, "mistakes.yaml")
	if code != 2 || stdout != "" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	golden(t, "bad.txt", stderr)
	if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
		t.Error("the server was started")
	}
}

// interruptedTest runs mcpv test in dir, presses Ctrl-C once inFlight has
// seen the server receive the step to interrupt, and checks that mcpv
// exits 130.
func interruptedTest(t *testing.T, dir string, inFlight *server, args ...string) *run {
	t.Helper()
	r := &run{cmd: exec.Command(mcpvBin, append([]string{"test"}, args...)...)}
	r.cmd.Dir = dir
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	inFlight.waitFor(t, `"method":"tools/call"`)
	r.cmd.Process.Signal(os.Interrupt)
	if code, _ := r.wait(t, 10*time.Second); code != 130 {
		t.Errorf("exit %d, want 130; stderr:\n%s", code, r.stderr.String())
	}
	return r
}

// hangingServer is the server section of a test file for a fake server
// that never answers tools/call and logs what it receives.
func hangingServer(s *server) string {
	return fmt.Sprintf("server:\n  command: [%q]\n  env: {%s: %q, %s: %q, %s: %q}\n",
		os.Args[0], mcptest.EnvVar, s.behaviour, mcptest.EnvLog, s.log, mcptest.EnvPid, s.pid)
}

// Ctrl-C stops the step in flight (cancelled on the wire), the server
// ends, the report says what ran, and the exit code is 130.
func TestTestCommandInterrupt(t *testing.T) {
	t.Parallel()
	srv := newServer(t, "hang")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "slow.yaml"), []byte(hangingServer(srv)+"steps:\n  - ping:\n  - call: x n:=1\n  - ping:\n"), 0o644)
	r := interruptedTest(t, dir, srv, "slow.yaml")
	got := normalize(r.stdout.String())
	if !strings.Contains(got, "  ✓ ping  T\n  ○ call x n:=1  skipped: interrupted\n  ○ ping  skipped: not run: interrupted\n") ||
		!strings.HasPrefix(lastLine(got), "INTERRUPTED ") || !strings.Contains(lastLine(got), " 0 failed, ") {
		t.Errorf("report:\n%s", got)
	}
	srv.waitFor(t, `"method":"notifications/cancelled"`)
	if !srv.gone(t) {
		t.Error("the server outlived mcpv test")
	}
}

// A server whose tools/list never ends (it sends one cursor again and
// again) fails the snapshot step, but the session goes on: the lint step
// after it reports the rule that is broken, the last step runs, and the
// exit code is 1, not 4.
func TestTestCommandEndlessListing(t *testing.T) {
	t.Parallel()
	fixture := fixtureServer(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "spec.json"), []byte(`{"capabilities": {"tools": {}}, "repeatCursor": ["tools/list"],
		"tools": [{"name": "a", "description": "A tool.", "inputSchema": {"type": "object"}}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "t.yaml"), []byte("server: {command: [\"${FIXTURE_SERVER}\", spec.json]}\nsteps:\n  - snapshot: t.snapshot.json\n  - lint:\n  - ping:\n"), 0o644)
	code, stdout, _ := mcpvTest(t, dir, []string{"FIXTURE_SERVER=" + fixture}, "t.yaml")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := normalize(stdout, fixture, "FIXTURE_SERVER")
	for _, want := range []string{"  ✗ snapshot t.snapshot.json  T\n      snapshot: could not list the server's surface: tools/list: ",
		"  ✗ lint  T\n", "so the list never ends [pagination]\n", "  ✓ ping  T\n", "FAIL 1 passed, 2 failed (1 file, T)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "t.snapshot.json")); err == nil {
		t.Error("a snapshot of the unfinished listing was written")
	}
}

// After Ctrl-C, a file that had not started yet starts no server: its
// steps are not run, and it does not fail.
func TestTestCommandInterruptBeforeAFile(t *testing.T) {
	t.Parallel()
	srv := newServer(t, "hang")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(hangingServer(srv)+"steps:\n  - call: x n:=1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("server: {command: [sh, -c, 'echo started > started; "+mcptest.EnvVar+"=plain exec \""+os.Args[0]+"\"']}\nsteps:\n  - ping:\n"), 0o644)
	r := interruptedTest(t, dir, srv, "--parallel", "1", "--format", "junit", "a.yaml", "b.yaml")
	var suites struct {
		Errors int `xml:"errors,attr"`
		Suites []struct {
			Name    string `xml:"name,attr"`
			Errors  int    `xml:"errors,attr"`
			Skipped int    `xml:"skipped,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(r.stdout.Bytes(), &suites); err != nil || suites.Errors != 1 || len(suites.Suites) != 2 ||
		suites.Suites[0].Errors != 1 || suites.Suites[1].Errors != 0 || suites.Suites[1].Skipped != 1 {
		t.Errorf("%v: %+v\n%s", err, suites, r.stdout.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
		t.Error("the second file's server was started after Ctrl-C")
	}
}

// A step that expects the tool's outputSchema is not checked against it a
// second time by --lint: one violation, one failure.
func TestTestCommandOutputSchemaOnce(t *testing.T) {
	t.Parallel()
	fixture := fixtureServer(t)
	dir := t.TempDir()
	spec, err := filepath.Abs(filepath.Join("..", "internal", "surface", "testdata", "bad.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "t.yaml"), []byte("server: {command: [\"${FIXTURE_SERVER}\", \"${FIXTURE_SPEC}\"]}\nsteps:\n  - call: report\n    expect: {output-schema: true}\n"), 0o644)
	code, stdout, _ := mcpvTest(t, dir, []string{"FIXTURE_SERVER=" + fixture, "FIXTURE_SPEC=" + spec}, "--lint", "t.yaml")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := normalize(stdout, fixture, "FIXTURE_SERVER", spec, "FIXTURE_SPEC")
	if !strings.Contains(got, "output-schema: structuredContent breaks the outputSchema at /count") || strings.Contains(got, "[structured-result]") {
		t.Errorf("the step should fail once, on output-schema:\n%s", got)
	}
}
