package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/output"
)

// testWorld is a directory of test files and a world whose TEST_BINARY is
// this binary, which serves the go-sdk demo server when MCPV_DEMO is set.
func testWorld(t *testing.T, files map[string]string) (*world, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := newWorld(t)
	w.env.Cwd = dir
	w.setenv("TEST_BINARY", os.Args[0])
	return w, dir
}

const demoServer = "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {MCPV_DEMO: \"1\"}\n"

// Each mistake in a test file is refused before any server starts, with
// its file, line and column and the rule it breaks.
func TestTestFileMistakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
	}{
		{"yaml syntax", "steps: [\n", "t.yaml:2:1: did not find expected node content"},
		{"unknown top-level key", "stepz: []\n", "t.yaml:1:1: unknown key \"stepz\" in the file; did you mean \"steps\"?"},
		{"no steps", demoServer, "t.yaml:1:1: the file has no steps: give steps: with a list of them"},
		{"steps not a list", demoServer + "steps: {ping: }\n", "t.yaml:4:8: steps must be a list, not an object"},
		{"unknown step key", demoServer + "steps:\n  - ping:\n    expct: {}\n", "t.yaml:6:5: unknown key \"expct\" in a step; did you mean \"expect\"?"},
		{"two actions", demoServer + "steps:\n  - ping:\n    info:\n", "t.yaml:6:5: a step does one thing: ping and info are both given"},
		{"no action", demoServer + "steps:\n  - name: nothing\n", "t.yaml:5:5: a step needs what to do"},
		{"unknown command", demoServer + "steps:\n  - run: frobnicate now\n", "t.yaml:5:5: unexpected argument frobnicate"},
		{"bad flag", demoServer + "steps:\n  - call: echo --no-such-flag\n", "t.yaml:5:5: unknown flag --no-such-flag"},
		{"command not for a step", demoServer + "steps:\n  - run: servers\n", "t.yaml:5:5: servers cannot be a test step"},
		{"session flag in a step", demoServer + "steps:\n  - run: ping --timeout 1s\n", "t.yaml:5:5: --timeout shapes the session: give it in the file's server: section"},
		{"server in a step", demoServer + "steps:\n  - run: ping -- ./server\n", "t.yaml:5:5: a step cannot name a server: the file's server: has one"},
		{"bad jq", demoServer + "steps:\n  - ping:\n    expect: {jq: '.a |'}\n", "t.yaml:6:18: jq: unexpected EOF"},
		{"jq in the line", demoServer + "steps:\n  - run: ping -q '.a |'\n", "t.yaml:5:5: jq: unexpected EOF"},
		{"bad regexp", demoServer + "steps:\n  - ping:\n    expect: {matches: '('}\n", "t.yaml:6:23: matches: error parsing regexp"},
		{"bad schema", demoServer + "steps:\n  - ping:\n    expect: {schema: {type: 3}}\n", "t.yaml:6:22: schema: not a usable JSON Schema"},
		{"missing file", demoServer + "steps:\n  - ping:\n    expect: {equals-file: nope.json}\n", "t.yaml:6:27: equals-file: open "},
		{"exit and is-error", demoServer + "steps:\n  - ping:\n    expect: {exit: 3, is-error: true}\n", "t.yaml:6:20: is-error: true means exit 1, not 3"},
		{"capture name", demoServer + "steps:\n  - ping:\n    capture: {a-b: .}\n", "t.yaml:6:15: capture name \"a-b\""},
		{"capture used before it is made", demoServer + "steps:\n  - call: echo message={{x}}\n  - ping:\n    capture: {x: .}\n", "t.yaml:5:11: {{x}}: no step before this one captures \"x\""},
		{"unset variable", demoServer + "steps:\n  - call: echo message=${MCPV_TEST_NOT_SET}\n", "t.yaml:5:11: environment variable MCPV_TEST_NOT_SET is not set"},
		{"bad duration", demoServer + "steps:\n  - ping:\n    within: soon\n", "t.yaml:6:13: within: \"soon\" is not a duration"},
		{"unknown server key", "server: {commmand: [x]}\nsteps:\n  - ping:\n", "t.yaml:1:10: unknown key \"commmand\" in server; did you mean \"command\"?"},
		{"bad server flag value", "server: {command: [x], protocol-era: ancient}\nsteps:\n  - ping:\n", "t.yaml:1:38: server: --protocol-era must be one of"},
		{"two servers", "server: {command: [x], url: 'http://127.0.0.1:1/'}\nsteps:\n  - ping:\n", "t.yaml:1:9: server: give one server: one of command, url, name and session\n"},
		{"no server", "steps:\n  - ping:\n", "t.yaml:1:1: server: no server given: give server: with command, url, name or session"},
		{"two documents", demoServer + "steps:\n  - ping:\n---\nsteps: []\n", "t.yaml:6:1: a test file holds one YAML document"},
		{"not UTF-8", demoServer + "steps:\n  - call: échø message=\xff\n", "t.yaml:5:24: not UTF-8 text: byte 0xff"},
		{"a bad equals-file", demoServer + "steps:\n  - ping:\n    expect: {equals-file: extra.json}\n", "t.yaml:6:27: equals-file: extra.json:2:1: did not find expected"},
		{"stdin for --args", demoServer + "steps:\n  - call: echo --args -\n", "t.yaml:5:5: --args -: a test step has no stdin"},
		{"stdin for an argument", demoServer + "steps:\n  - call: {tool: echo, flags: [message=@-]}\n", "t.yaml:5:5: message=@-: a test step has no stdin"},
		{"stdin for params", demoServer + "steps:\n  - request: ping -\n", "t.yaml:5:5: params -: a test step has no stdin"},
		{"expect on a snapshot", demoServer + "steps:\n  - snapshot: s.json\n    expect: {exit: 0}\n", "t.yaml:5:5: expect: and capture: are for steps that run an mcpv command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, dir := testWorld(t, map[string]string{"t.yaml": tt.file, "extra.json": "[1,\n"})
			r := w.mcpv(t, "", "test", "t.yaml")
			if r.code != exitcode.Usage || r.stdout != "" || !strings.Contains(r.stderr, "mcpv: "+tt.want) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant: mcpv: %s", r.code, r.stdout, r.stderr, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "s.json")); err == nil {
				t.Error("a snapshot was written")
			}
		})
	}
}

// A file's steps run in one session against the demo server: captures
// flow into later steps (as words, as typed values in args and as jq
// variables), and failures say what was expected and what came.
func TestTestRunsAgainstDemo(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{"t.yaml": demoServer + `steps:
  - call: add a:=40 b:=2
    capture: {n: .structuredContent.sum, text: ".content[0].text"}
  - call: {tool: add, args: {a: "{{n}}", b: 1}}
    expect: {jq: .structuredContent.sum == $n + 1}
  - run: call echo message={{text}}! -r -q .content[0].text
    expect: {equals: "42!"}
  - call: add a:=1 b:=1
    expect: {jq: .structuredContent.sum == 3}
  - call: fail
    expect: {is-error: true, matches: as asked}
`})
	r := w.mcpv(t, "", "test", "--format", "json", "t.yaml")
	if r.code != exitcode.ToolError || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var rep struct {
		Passed bool
		Files  []struct {
			Steps []struct {
				Name     string
				Status   string
				Failures []map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, s := range rep.Files[0].Steps {
		statuses = append(statuses, s.Status)
	}
	if d := cmp.Diff([]string{"passed", "passed", "passed", "failed", "passed"}, statuses); d != "" || rep.Passed {
		t.Fatalf("statuses (-want +got):\n%s\n%s", d, r.stdout)
	}
	want := []map[string]any{{"expectation": "jq", "message": ".structuredContent.sum == 3", "expected": "true", "actual": "false",
		"details": []any{".structuredContent.sum = 2"}}}
	if d := cmp.Diff(want, rep.Files[0].Steps[3].Failures); d != "" {
		t.Errorf("failure (-want +got):\n%s", d)
	}
}

// A test file from a cloned repository may hold jq that never ends or
// grows without end, in an expectation, a step's --jq or a capture: each
// such step fails with a line that names the bound it passed, and the run
// goes on to the next step.
func TestTestJQWithinBounds(t *testing.T) {
	testkit.SkipLong(t, "runs a jq expression to its time bound (testfile.JQBounds)")
	t.Parallel()
	w, _ := testWorld(t, map[string]string{"t.yaml": demoServer + `steps:
  - call: echo message=hi
    expect: {jq: "def f: f; f"}
  - run: call echo message=hi -q "[range(1e9)]"
  - call: echo message=hi
    capture: {big: "[range(1e9)]"}
  - ping:
`})
	r := w.mcpv(t, "", "test", "--format", "json", "t.yaml")
	if r.code != exitcode.ToolError || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var rep struct {
		Files []struct {
			Steps []struct {
				Status   string
				Failures []struct{ Expectation, Message string }
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rep.Files[0].Steps {
		line := s.Status
		for _, f := range s.Failures {
			line += "; " + f.Expectation + ": " + f.Message
		}
		got = append(got, line)
	}
	// Which bound each meets first depends on the machine, and on what
	// the tests beside it allocate (the bound of memory is the process's).
	bound := "the jq expression ran past its bound of "
	want := []string{
		"failed; jq: def f: f; f: " + bound,
		"failed; exit: the step ended with exit 6: " + bound,
		"failed; capture: big: [range(1e9)]: " + bound,
		"passed",
	}
	if len(got) != len(want) {
		t.Fatalf("steps %q, want %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("step %d: %q, want %q...", i+1, got[i], want[i])
		}
	}
}

// --filter runs the matching steps and those whose captures they use;
// --fail-fast starts nothing after the first failure.
func TestTestFilterAndFailFast(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{"t.yaml": demoServer + `steps:
  - name: make
    call: echo message=made
    capture: {m: ".content[0].text"}
  - name: unrelated
    ping:
  - name: use
    run: call echo message={{m}} -r -q .content[0].text
    expect: {equals: made}
  - name: fails
    call: fail
  - name: after
    ping:
`})
	r := w.mcpv(t, "", "test", "--filter", "t/use$", "t.yaml")
	if r.code != 0 || !strings.Contains(r.stdout, "✓ make") || !strings.Contains(r.stdout, "✓ use") || strings.Contains(r.stdout, "unrelated") {
		t.Errorf("--filter: exit %d:\n%s", r.code, r.stdout)
	}
	r = w.mcpv(t, "", "test", "--fail-fast", "t.yaml")
	if r.code != 1 || !strings.Contains(r.stdout, "✗ fails") || !strings.Contains(r.stdout, "○ after  skipped: not run: --fail-fast, after an earlier failure") {
		t.Errorf("--fail-fast: exit %d:\n%s", r.code, r.stdout)
	}
	if r := w.mcpv(t, "", "test", "--filter", "nothing-matches", "t.yaml"); r.code != exitcode.Usage {
		t.Errorf("a filter that matches nothing: exit %d", r.code)
	}
}

// mcpv test names no server itself and prints a report, not a result:
// server selection and the result's output flags are refused; other
// session flags apply to every file.
func TestTestCommandLine(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{"t.yaml": demoServer + "steps:\n  - info: -q .protocolVersion\n    expect: {equals: \"2025-11-25\"}\n"})
	for _, args := range [][]string{{"test", "-u", "http://127.0.0.1:1/", "t.yaml"}, {"test", "-q", ".", "t.yaml"}, {"test", "t.yaml", "--", "server"}, {"test", "nope.yaml"}, {"test"}} {
		if r := w.mcpv(t, "", args...); r.code != exitcode.Usage {
			t.Errorf("%q: exit %d, want 2; stderr %q", args, r.code, r.stderr)
		}
	}
	if r := w.mcpv(t, "", "test", "--protocol-era", "legacy", "t.yaml"); r.code != 0 {
		t.Errorf("--protocol-era legacy for every file: exit %d:\n%s", r.code, r.stdout)
	}
	if r := w.mcpv(t, "", "test", "t.yaml"); r.code != 1 || !strings.Contains(r.stdout, `actual:   "2026-07-28"`) {
		t.Errorf("in the modern era: exit %d:\n%s", r.code, r.stdout)
	}
}

// The JSON Schema of the format knows every session flag of the grammar
// as a key of a server section (internal/testfile checks the rest).
func TestTestFileSchema(t *testing.T) {
	data, err := os.ReadFile("../docs/mcpv-test.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs struct {
			Server struct{ Properties map[string]any }
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	server := []string{"command", "name", "headers"}
	for name := range sessionFlags.Get() {
		server = append(server, name)
	}
	slices.Sort(server)
	if d := cmp.Diff(server, slices.Sorted(maps.Keys(schema.Defs.Server.Properties))); d != "" {
		t.Errorf("server keys (-parser +schema):\n%s", d)
	}
}

// The refusals of a batch line read right in a test file.
func TestStepMessages(t *testing.T) {
	lines := &lineParser{lines: map[string]*parsedLine{}}
	for line, want := range map[string]string{
		"watch x":           "watch cannot be a test step",
		"ping --timeout 1s": "--timeout shapes the session: give it in the file's server: section",
		"ping --help":       "--help and --version are not available in a test step",
	} {
		_, err := lines.parse(line)
		if err == nil || stepMessage(err) != want {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

var durations = regexp.MustCompile(`\b[0-9][0-9.]*(µs|ms|s)\b`)

// The text report: a block per file, the failures under their step, the
// summary; the same in colour when asked.
func TestTextReport(t *testing.T) {
	w, _ := testWorld(t, map[string]string{"t.yaml": demoServer + "name: demo\nsteps:\n  - ping:\n  - call: add a:=1 b:=1\n    expect: {jq: .structuredContent.sum == 3}\n  - ping:\n    skip: not now\n"})
	r := w.mcpv(t, "", "test", "t.yaml")
	got := durations.ReplaceAllString(r.stdout, "T")
	want := `t.yaml demo ("${TEST_BINARY}")
  ✓ ping  T
  ✗ call add a:=1 b:=1  T
      jq: .structuredContent.sum == 3
        expected: true
        actual:   false
        .structuredContent.sum = 2
  ○ ping  skipped: not now
  FAIL 1 passed, 1 failed, 1 skipped  T

FAIL 1 passed, 1 failed, 1 skipped (1 file, T)
`
	want = strings.ReplaceAll(want, `"${TEST_BINARY}"`, os.Args[0])
	if d := cmp.Diff(want, got); d != "" || r.code != 1 {
		t.Errorf("exit %d; report (-want +got):\n%s", r.code, d)
	}
	r = w.mcpv(t, "", "test", "--color", "always", "t.yaml")
	if !strings.Contains(r.stdout, "\x1b[31m✗\x1b[0m call add") || !strings.Contains(r.stdout, "\x1b[32m✓\x1b[0m ping") {
		t.Errorf("no colour:\n%q", r.stdout)
	}
}

// A secret a file expands into its server's command or URL is masked in
// the reports' name of the server, in every format.
func TestTestReportsMaskTheServersSecrets(t *testing.T) {
	t.Parallel()
	const secret = "supersecrettoken123"
	w, _ := testWorld(t, map[string]string{
		"a.yaml": "server:\n  command: [\"${TEST_BINARY}\", \"${API_TOKEN}\"]\n  env: {MCPV_DEMO: \"1\"}\nsteps:\n  - ping:\n",
		"b.yaml": "server:\n  url: http://127.0.0.1:1/${API_TOKEN}/mcp\n  connect-timeout: 5s\nsteps:\n  - ping:\n",
	})
	w.setenv("API_TOKEN", secret)
	for _, format := range []string{"text", "junit", "json", "tap"} {
		r := w.mcpv(t, "", "test", "--format", format, "a.yaml", "b.yaml")
		if r.code != exitcode.Transport || strings.Contains(r.stdout+r.stderr, secret) || !strings.Contains(r.stdout, redact.Mask) {
			t.Errorf("--format %s: exit %d, stderr %q; report:\n%s", format, r.code, r.stderr, r.stdout)
		}
	}
}

// Without FILE, the *.mcpv.yaml files here run, and the files of
// ./mcpv-tests; other YAML files are not test files.
func TestTestDefaultFiles(t *testing.T) {
	t.Parallel()
	ping := demoServer + "steps:\n  - ping:\n"
	w, dir := testWorld(t, map[string]string{"smoke.mcpv.yaml": ping, "compose.yaml": "services: {}\n"})
	if r := w.mcpv(t, "", "trust", "smoke.mcpv.yaml"); r.code != 0 { // found files run once trusted
		t.Fatalf("trust: exit %d, stderr %q", r.code, r.stderr)
	}
	r := w.mcpv(t, "", "test")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "smoke.mcpv.yaml ") || !strings.Contains(r.stdout, "(1 file, ") {
		t.Errorf("exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}
	if err := os.Mkdir(filepath.Join(dir, testfile.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, testfile.Dir, "more.yaml"), []byte(ping), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := w.mcpv(t, "", "trust", testfile.Dir+"/more.yaml"); r.code != 0 {
		t.Fatalf("trust: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "test"); r.code != 0 || !strings.Contains(r.stdout, "(2 files, ") {
		t.Errorf("with ./mcpv-tests: exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}
	empty := newWorld(t)
	empty.env.Cwd = t.TempDir()
	r = empty.mcpv(t, "", "test")
	if r.code != exitcode.Usage || strings.Count(r.stderr, "(see ") != 1 || !strings.Contains(r.stderr, "NAME.mcpv.yaml") {
		t.Errorf("no files: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A call whose tool is a captured value is checked against the tool it
// called, not the placeholder the file was checked with.
func TestTestToolFromACapture(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{"t.yaml": demoServer + `steps:
  - call: echo message=add
    capture: {tool: .structuredContent.message}
  - call: '{{tool}} a:=1 b:=2'
    expect: {output-schema: true}
  - lint:
    skip: the demo server's own lint is not this test's
  - call: '{{tool}} a:=1 b:=2'
`})
	r := w.mcpv(t, "", "test", "--lint", "t.yaml")
	if r.code != 0 || strings.Contains(r.stdout, "✗") {
		t.Errorf("exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}
}

// closedPipe is a stdout whose reader went away.
type closedPipe struct{}

func (closedPipe) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// A closed stdout ends no run: every file runs, and the exit code is the
// run's verdict.
func TestTestClosedStdout(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{
		"a.yaml": demoServer + "steps:\n  - ping:\n",
		"b.yaml": demoServer + "steps:\n  - call: fail\n",
	})
	for _, format := range []string{"text", "junit"} {
		var errb bytes.Buffer
		ios := output.NewStreams(strings.NewReader(""), closedPipe{}, &errb)
		if code := run(context.Background(), []string{"test", "--parallel", "1", "--format", format, "a.yaml", "b.yaml"}, ios, w.env); code != exitcode.ToolError || errb.String() != "" {
			t.Errorf("--format %s: exit %d, want 1; stderr %q", format, code, errb.String())
		}
	}
}

// --output takes the text report too, and a path that cannot be written
// is refused before any server starts.
func TestTestOutputFile(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, map[string]string{
		"t.yaml":    demoServer + "steps:\n  - ping:\n",
		"gone.yaml": "server: {command: [./no-such-server]}\nsteps:\n  - ping:\n",
	})
	r := w.mcpv(t, "", "test", "--output", "report.txt", "t.yaml")
	data, err := os.ReadFile(filepath.Join(dir, "report.txt"))
	if r.code != 0 || r.stdout != "" || err != nil || !strings.HasPrefix(string(data), "t.yaml ") || !strings.Contains(string(data), "\nPASS 1 passed") {
		t.Errorf("exit %d, stdout %q, file %q (%v)", r.code, r.stdout, data, err)
	}
	for _, format := range []string{"text", "junit"} {
		r := w.mcpv(t, "", "test", "--format", format, "--output", "no/such/dir/report", "gone.yaml")
		if r.code != exitcode.Usage || r.stdout != "" || !strings.HasPrefix(r.stderr, "mcpv: --output: ") {
			t.Errorf("--format %s, an --output that cannot be made: exit %d, stdout %q, stderr %q", format, r.code, r.stdout, r.stderr)
		}
	}
}

// A test file's server runs in the file's directory: a relative command
// that is not there is said to have been looked for there, not where mcpv
// was started.
func TestTestServerNotFoundNamesItsDirectory(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, nil)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "gone.yaml"), []byte("server: {command: [./no-such-server]}\nsteps:\n  - ping:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := w.mcpv(t, "", "test", "sub/gone.yaml")
	want := "no such file or directory (looked for in " + filepath.Join(dir, "sub") + ")"
	if r.code != exitcode.Transport || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d, stdout %q; want 4 and %q", r.code, r.stdout, want)
	}
}

// What a server sends reaches the text report escaped: a failure's
// message and details stay on their lines, without escape sequences.
func TestTestFailureTextEscaped(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{"t.yaml": demoServer + `steps:
  - call: "echo message=\"\e[2J\e]0;owned\a\nFAKE ✓ passed\""
    expect:
      jq: error(.structuredContent.message)
  - call: "echo message=\"\e[31mred\nline\""
    expect:
      jq: .structuredContent.message == "x"
`})
	r := w.mcpv(t, "", "test", "t.yaml")
	if r.code != exitcode.ToolError || strings.ContainsAny(r.stdout, "\x1b\a") || strings.Contains(r.stdout, "\nFAKE") || strings.Contains(r.stdout, "\nline") {
		t.Errorf("exit %d:\n%q", r.code, r.stdout)
	}
	if !strings.Contains(r.stdout, `\x1b[2J\x1b]0;owned\x07\nFAKE ✓ passed`) || !strings.Contains(r.stdout, `.structuredContent.message = "\u001b[31mred\nline"`) {
		t.Errorf("the server's text is not shown escaped:\n%s", r.stdout)
	}
}

// A snapshot file mcpv cannot read fails its step, naming the file;
// --update writes it anew, even when the server has nothing to list.
func TestTestCorruptSnapshot(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, map[string]string{
		"t.yaml": "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": no-tools}\nsteps:\n  - snapshot: s.json\n",
		"s.json": "{not a snapshot",
	})
	r := w.mcpv(t, "", "test", "t.yaml")
	if r.code != exitcode.ToolError || !strings.Contains(r.stdout, "snapshot: s.json is not a snapshot mcpv can read: ") {
		t.Errorf("exit %d:\n%s", r.code, r.stdout)
	}
	r = w.mcpv(t, "", "test", "--update", "t.yaml")
	data, _ := os.ReadFile(filepath.Join(dir, "s.json"))
	if _, err := surface.ParseSnapshot(data); r.code != 0 || err != nil {
		t.Errorf("--update: exit %d, the snapshot: %v:\n%s", r.code, err, r.stdout)
	}
	if r := w.mcpv(t, "", "test", "t.yaml"); r.code != 0 {
		t.Errorf("after --update: exit %d:\n%s", r.code, r.stdout)
	}
}

// Anchors may stand under x- keys, and a mapping may merge them (<<);
// a mistake in a merged mapping is reported where it was written.
func TestTestMergeKeys(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{
		"t.yaml": demoServer + `x-sum: &sum {a: 40, b: 1}
x-checked: &checked
  expect: {jq: .structuredContent.sum == 42}
steps:
  - <<: *checked
    call: {tool: add, args: {<<: *sum, b: 2}}
  - <<: [*checked]
    name: merged from a list
    call: {tool: add, args: {<<: *sum, a: 41}}
`,
		"bad.yaml": demoServer + "x-step: &step\n  expct: {}\nsteps:\n  - <<: *step\n    ping:\n",
	})
	if r := w.mcpv(t, "", "test", "t.yaml"); r.code != 0 || !strings.Contains(r.stdout, "✓ merged from a list") {
		t.Errorf("exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}
	if r := w.mcpv(t, "", "test", "bad.yaml"); r.code != exitcode.Usage || !strings.Contains(r.stderr, `mcpv: bad.yaml:5:3: unknown key "expct" in a step`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// After Ctrl-C, a file that had not started opens no session: its steps
// are not run, and it does not fail.
func TestTestInterruptedBeforeStart(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{"t.yaml": demoServer + "steps:\n  - ping:\n  - info:\n"})
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrInterrupted)
	for _, format := range []string{"text", "junit"} {
		var out, errb bytes.Buffer
		code := run(ctx, []string{"test", "--format", format, "t.yaml"}, output.NewStreams(strings.NewReader(""), &out, &errb), w.env)
		if code != exitcode.Interrupt || strings.Contains(out.String(), "✗") || strings.Contains(out.String(), "FAIL") || strings.Contains(out.String(), "<error") {
			t.Errorf("--format %s: exit %d, stderr %q:\n%s", format, code, errb.String(), out.String())
		}
		if format == "text" && (!strings.Contains(out.String(), "○ info  skipped: not run: interrupted") || !strings.HasPrefix(lastLine(out.String()), "INTERRUPTED ")) {
			t.Errorf("report:\n%s", out.String())
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// waitForFile waits until path exists: a fake server has started.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

// A step Ctrl-C stopped is an error in JUnit (and not ok in TAP), so that
// CI sees an interrupted run as one that did not pass.
func TestTestInterruptedStepIsAnError(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"junit", "tap"} {
		w, dir := testWorld(t, map[string]string{"t.yaml": "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": hang, " + mcptest.EnvPid + ": pid}\n" +
			"steps:\n  - run: request tools/call '{\"name\":\"x\"}'\n  - ping:\n"})
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() {
			waitForFile(t, filepath.Join(dir, "pid"))
			time.Sleep(300 * time.Millisecond)
			cancel(ErrInterrupted)
		}()
		var out, errb bytes.Buffer
		code := run(ctx, []string{"test", "--format", format, "t.yaml"}, output.NewStreams(strings.NewReader(""), &out, &errb), w.env)
		got := out.String()
		switch {
		case code != exitcode.Interrupt:
			t.Errorf("--format %s: exit %d, stderr %q", format, code, errb.String())
		case format == "junit" && (!strings.Contains(got, `errors="1"`) || !strings.Contains(got, `<error message="interrupted (Ctrl-C)" type="interrupted">`)):
			t.Errorf("junit:\n%s", got)
		case format == "tap" && (!strings.Contains(got, "    not ok 1 - request tools/call") || !strings.Contains(got, "\nnot ok 1 - t\n")):
			t.Errorf("tap:\n%s", got)
		}
	}
}

// A lint step checks the results of the call steps after it against their
// tools' outputSchema, as --lint does.
func TestTestLintStepChecksResults(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{"t.yaml": "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": 'typed=\"three\"'}\n" +
		"steps:\n  - call: typed\n  - lint:\n  - call: typed\n"})
	r := w.mcpv(t, "", "test", "--format", "json", "t.yaml")
	var rep struct {
		Files []struct {
			Steps []struct {
				Status   string
				Failures []struct{ Expectation, Message string }
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Files) != 1 || len(rep.Files[0].Steps) != 3 {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	steps := rep.Files[0].Steps
	if steps[0].Status != "passed" {
		t.Errorf("the call before the lint step was checked: %+v", steps[0])
	}
	if f := steps[2].Failures; steps[2].Status != "failed" || len(f) != 1 || f[0].Expectation != "lint" || !strings.HasSuffix(f[0].Message, "[structured-result]") ||
		strings.HasPrefix(f[0].Message, "error: ") {
		t.Errorf("the call after the lint step: %+v", steps[2])
	}
}

// Step names are clipped; JUnit attributes show controls escaped, as the
// text report does.
func TestTestNamesInReports(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100_000)
	w, _ := testWorld(t, map[string]string{"t.yaml": demoServer + "steps:\n  - call: echo message=" + long + "\n  - name: \"bell\\a \\e[31mred\"\n    ping:\n"})
	r := w.mcpv(t, "", "test", "t.yaml")
	for line := range strings.Lines(r.stdout) {
		if len(line) > 1000 {
			t.Errorf("a line of %d bytes: %.80q…", len(line), line)
		}
	}
	if !strings.Contains(r.stdout, "✓ call echo message=xxx") || !strings.Contains(r.stdout, "x…  ") {
		t.Errorf("report:\n%.2000s", r.stdout)
	}
	r = w.mcpv(t, "", "test", "--format", "junit", "t.yaml")
	if !strings.Contains(r.stdout, `<testcase name="bell\x07 \x1b[31mred"`) {
		t.Errorf("junit:\n%.3000s", r.stdout)
	}
}

// A second Ctrl-C kills the test servers at once, as it does a command's.
func TestTestSecondInterruptKillsServers(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process groups are a unix matter here")
	}
	t.Parallel()
	w, dir := testWorld(t, map[string]string{"t.yaml": "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": 'ignore-exit,hang', " + mcptest.EnvPid + ": pid}\n" +
		"steps:\n  - run: request tools/call '{\"name\":\"x\"}'\n"})
	// An orderly shutdown of this server, which ignores it, would take two
	// hours: the test ends long before only if the second Ctrl-C kills.
	w.env.Grace = time.Hour
	ctx, cancel := context.WithCancelCause(context.Background())
	var servers mcp.ProcessGroups
	killed := make(chan time.Time, 1)
	go func() {
		waitForFile(t, filepath.Join(dir, "pid"))
		time.Sleep(200 * time.Millisecond)
		cancel(ErrInterrupted) // the first Ctrl-C: an orderly shutdown, which this server ignores
		time.Sleep(200 * time.Millisecond)
		killed <- time.Now()
		servers.Kill() // the second
	}()
	var out, errb bytes.Buffer
	code := runWith(ctx, []string{"test", "t.yaml"}, output.NewStreams(strings.NewReader(""), &out, &errb), w.env, &servers, nil)
	if d := time.Since(<-killed); code != exitcode.Interrupt || d >= w.env.Grace {
		t.Errorf("exit %d, %v after the second Ctrl-C (the orderly shutdown takes %v)", code, d, 2*w.env.Grace)
	}
}
