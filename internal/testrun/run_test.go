package testrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/mcp"
)

// fakeSession answers each step's line from a table keyed by its first
// two words, and records the lines it ran.
type fakeSession struct {
	answers map[string]testfile.Outcome
	ran     []string
	closed  bool

	clientErr     error             // Client's error
	onClient      func()            // called as the session opens
	onRun         map[string]func() // called as a step's line (its first two words) runs
	stderr        map[string]string // what a step's line writes on stderr
	waitForCancel string            // the line that runs until its context ends
}

func (f *fakeSession) Client(context.Context) (*mcp.Client, error) {
	if f.onClient != nil {
		f.onClient()
	}
	return nil, f.clientErr
}

func (f *fakeSession) Run(ctx context.Context, words []string, _ map[string]json.RawMessage, stderr io.Writer) testfile.Outcome {
	f.ran = append(f.ran, strings.Join(words, " "))
	key := strings.Join(words[:min(2, len(words))], " ")
	if run := f.onRun[key]; run != nil {
		run()
	}
	io.WriteString(stderr, f.stderr[key])
	if key == f.waitForCancel {
		<-ctx.Done()
		return testfile.Outcome{Code: 1, Err: context.Cause(ctx)} // whatever it ends with, the budget says 124
	}
	return f.answers[key]
}

func (f *fakeSession) Tool(context.Context, string) (mcp.Tool, error) {
	return mcp.Tool{}, errors.New("no tools")
}

func (f *fakeSession) Close() { f.closed = true }

func readFile(t *testing.T, text string) *testfile.File {
	t.Helper()
	return readFileAt(t, writeFile(t, text))
}

// readFileCalls is readFile with every step's line taken as a tool call.
func readFileCalls(t *testing.T, text string) *testfile.File {
	t.Helper()
	return readFileLine(t, writeFile(t, text), testfile.Line{Calls: true})
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// readFileAt reads the test file at path, every server section and step
// line accepted as the command line would.
func readFileAt(t *testing.T, path string) *testfile.File {
	t.Helper()
	return readFileLine(t, path, testfile.Line{})
}

func readFileLine(t *testing.T, path string, line testfile.Line) *testfile.File {
	t.Helper()
	o := &testfile.Options{Path: func(p string) string { return p }, Vars: config.Env{Getenv: func(string) string { return "" }, Lookup: func(string) (string, bool) { return "", false }},
		Flags: map[string]testfile.Flag{}, CheckServer: func([]string) error { return nil },
		CheckLine: func([]string, map[string]json.RawMessage) (testfile.Line, error) { return line, nil }}
	f, errs := testfile.Read(o, path)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	return f
}

type stepResult struct {
	Name, Status, Reason string
}

func results(rep testreport.File) []stepResult {
	var out []stepResult
	for _, s := range rep.Steps {
		out = append(out, stepResult{s.Name, s.Status.String(), s.Reason})
	}
	return out
}

// A file's steps run in one session, without a server: captures fill the
// lines after them, a step whose capture failed is skipped, and a session
// that breaks skips the rest, naming the step.
func TestRunSteps(t *testing.T) {
	f := readFile(t, "steps:\n  - call: make\n    capture: {id: .id}\n  - call: use {{id}}\n  - call: bad\n    capture: {x: '.x // empty'}\n  - call: need {{x}}\n  - call: broken\n  - ping:\n")
	fake := &fakeSession{answers: map[string]testfile.Outcome{
		"call make":   {Value: json.RawMessage(`{"id":"a b"}`)},
		"call use":    {Value: json.RawMessage(`{}`)},
		"call bad":    {Value: json.RawMessage(`{}`)},
		"call broken": {Code: 4, Err: errors.New("server closed the connection")},
	}}
	r := &Runner{Code: func(error) int { return 4 }, Hint: func(error) string { return "" }}
	j := Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return fake, nil }}
	rep := r.Run(context.Background(), j)
	want := []stepResult{
		{"call make", "passed", ""}, {"call use {{id}}", "passed", ""}, {"call bad", "failed", ""},
		{"call need {{x}}", "skipped", "not run: it uses {{x}}, which step 3 did not capture"},
		{"call broken", "failed", ""}, {"ping", "skipped", "not run: the session broke at step 5"},
	}
	if d := cmp.Diff(want, results(rep)); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"call make", "call use a b", "call bad", "call broken"}, fake.ran); d != "" {
		t.Errorf("lines run (-want +got):\n%s", d)
	}
	if rep.Code != 4 || rep.Err != "the session broke at step 5" || !fake.closed {
		t.Errorf("file: exit %d, %q, closed %v", rep.Code, rep.Err, fake.closed)
	}
}

// Under fail-fast, the first failure stops every file's later steps.
func TestRunFailFast(t *testing.T) {
	f := readFile(t, "steps:\n  - call: bad\n    expect: {exit: 3}\n  - ping:\n")
	fake := &fakeSession{answers: map[string]testfile.Outcome{"call bad": {Value: json.RawMessage(`{}`)}}}
	r := &Runner{FailFast: true, Code: func(error) int { return 4 }, Hint: func(error) string { return "" }}
	j := Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return fake, nil }}
	first := r.Run(context.Background(), j)
	second := r.Run(context.Background(), j)
	if got := results(first); got[0].Status != "failed" || got[1].Reason != "not run: --fail-fast, after an earlier failure" {
		t.Errorf("first file: %+v", got)
	}
	if got := results(second); got[0].Reason != "not run: --fail-fast, after an earlier failure" {
		t.Errorf("second file: %+v", got)
	}
}

// A file's stderr keeps its last lines, whole, and says that some are gone.
func TestTailBuffer(t *testing.T) {
	tail := &tailBuffer{max: 20}
	tail.Write([]byte("short\n"))
	if got := tail.String(); got != "short\n" {
		t.Errorf("under max: %q", got)
	}
	for i := range 10 {
		fmt.Fprintf(tail, "line %d\n", i)
	}
	if got, want := tail.String(), "…\nline 8\nline 9\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A file whose session cannot be opened, or whose server cannot be
// reached, reports why (masked, with the hint the command line adds) and
// skips its steps.
func TestRunSessionNotOpened(t *testing.T) {
	f := readFile(t, "steps:\n  - ping:\n  - call: x\n")
	r := &Runner{Code: func(error) int { return 5 }, Hint: func(error) string { return " (try --auth auto)" }}
	rep := r.Run(t.Context(), Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) {
		return nil, errors.New("--header: open h.txt: no such file")
	}})
	want := []stepResult{{"ping", "skipped", "not run: the session could not be opened"}, {"call x", "skipped", "not run: the session could not be opened"}}
	if d := cmp.Diff(want, results(rep)); d != "" || rep.Code != 5 || rep.Err != "--header: open h.txt: no such file" {
		t.Errorf("open failing: exit %d, %q; steps (-want +got):\n%s", rep.Code, rep.Err, d)
	}

	fake := &fakeSession{clientErr: errors.New("401 for token s3cret\nthe server's stderr")}
	rep = r.Run(t.Context(), Job{File: f, Selected: f.Select(nil), Secrets: knowing("s3cret"),
		Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return fake, nil }})
	if d := cmp.Diff(want, results(rep)); d != "" || rep.Code != 5 || rep.Err != "401 for token *** (try --auth auto)" || !fake.closed {
		t.Errorf("unreachable: exit %d, %q, closed %v; steps (-want +got):\n%s", rep.Code, rep.Err, fake.closed, d)
	}
}

// Ctrl-C before a file starts skips all of it; while a server starts, the
// first step stands for the interruption; during a step, that step is
// skipped as interrupted and the rest are not run.
func TestRunInterrupted(t *testing.T) {
	f := readFile(t, "steps:\n  - ping:\n  - call: slow\n  - ping:\n")
	r := runner()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rep := r.Run(ctx, Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) {
		t.Error("a session was opened after Ctrl-C")
		return nil, nil
	}})
	if !rep.Interrupted || len(rep.Steps) != 3 || rep.Steps[0].Reason != "not run: interrupted" || rep.Steps[0].Interrupted {
		t.Errorf("before the start: %+v", rep)
	}

	ctx, cancel = context.WithCancel(t.Context())
	starting := &fakeSession{clientErr: context.Canceled, onClient: cancel}
	rep = r.Run(ctx, Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return starting, nil }})
	if !rep.Interrupted || rep.Code != 0 || !rep.Steps[0].Interrupted || rep.Steps[1].Interrupted || rep.Steps[2].Reason != "not run: interrupted" {
		t.Errorf("while the server starts: %+v", rep)
	}

	ctx, cancel = context.WithCancel(t.Context())
	during := &fakeSession{answers: map[string]testfile.Outcome{"ping": {Value: json.RawMessage(`{}`)}, "call slow": {Code: 130, Err: context.Canceled}},
		onRun: map[string]func(){"call slow": cancel}}
	rep = r.Run(ctx, Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return during, nil }})
	want := []stepResult{{"ping", "passed", ""}, {"call slow", "skipped", "interrupted"}, {"ping", "skipped", "not run: interrupted"}}
	if d := cmp.Diff(want, results(rep)); d != "" || !rep.Interrupted || !rep.Steps[1].Interrupted || rep.Steps[2].Interrupted {
		t.Errorf("during a step: interrupted %v; steps (-want +got):\n%s", rep.Interrupted, d)
	}
}

// A step with a time budget that is still running when it runs out is
// cancelled, fails as over budget with exit 124, and the file goes on.
func TestRunStepOverBudget(t *testing.T) {
	f := readFile(t, "steps:\n  - call: slow\n    within: 20ms\n  - ping:\n")
	fake := &fakeSession{answers: map[string]testfile.Outcome{"ping": {Value: json.RawMessage(`{}`)}}, waitForCancel: "call slow"}
	rep := runner().Run(t.Context(), Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return fake, nil }})
	slow := rep.Steps[0]
	if slow.Status != testreport.Failed || slow.Exit != 124 || len(slow.Failures) != 1 || slow.Failures[0].Kind != "within" ||
		slow.Failures[0].Message != "the step was still running when its budget ran out: cancelled" || slow.Failures[0].Expected != "20ms" ||
		!strings.HasPrefix(slow.Failures[0].Actual, "more (cancelled after ") {
		t.Errorf("over budget: %+v", slow)
	}
	if rep.Steps[1].Status != testreport.Passed {
		t.Errorf("the step after it: %+v", rep.Steps[1])
	}
}

// A skipped step is reported with its reason; a step whose capture was
// never made, its capturing step skipped, is not run and says so; the
// progress line names each step as it starts.
func TestRunSkipsAndProgress(t *testing.T) {
	f := readFile(t, "steps:\n  - call: make\n    capture: {id: .id}\n    skip: not today\n  - call: use {{id}}\n  - ping:\n")
	fake := &fakeSession{answers: map[string]testfile.Outcome{"ping": {Value: json.RawMessage(`{}`)}}}
	var shown []string
	r := runner()
	r.Progress = func(file, step string) { shown = append(shown, filepath.Base(file)+": "+step) }
	rep := r.Run(t.Context(), Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return fake, nil }})
	want := []stepResult{{"call make", "skipped", "not today"}, {"call use {{id}}", "skipped", "not run: it uses {{id}}, which no step before it captured"},
		{"ping", "passed", ""}}
	if d := cmp.Diff(want, results(rep)); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"t.yaml: starting the server", "t.yaml: ping"}, shown); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
}

// What a step wrote on stderr goes to the file's stderr, and a failed step
// keeps it as notes; secrets are masked in failures and notes alike.
func TestRunStepStderrAndSecrets(t *testing.T) {
	f := readFile(t, "steps:\n  - call: leak\n    expect: {jq: '.v == \"fine\"'}\n")
	fake := &fakeSession{answers: map[string]testfile.Outcome{"call leak": {Value: json.RawMessage(`{"v":"s3cret"}`)}},
		stderr: map[string]string{"call leak": "warning: used s3cret\nsecond line\n"}}
	rep := runner().Run(t.Context(), Job{File: f, Selected: f.Select(nil), Secrets: knowing("s3cret"),
		Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return fake, nil }})
	st := rep.Steps[0]
	if d := cmp.Diff([]string{"stderr: warning: used ***", "stderr: second line"}, st.Notes); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
	if len(st.Failures) != 1 || strings.Contains(fmt.Sprint(st.Failures), "s3cret") || !strings.Contains(st.Failures[0].Details[0], "***") {
		t.Errorf("failures %+v", st.Failures)
	}
	if rep.Stderr != "warning: used ***\nsecond line\n" {
		t.Errorf("the file's stderr %q", rep.Stderr)
	}
}
