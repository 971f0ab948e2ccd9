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

	"github.com/mcpv/mcpv/config"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/redact"
)

// fakeSession answers each step's line from a table keyed by its first
// two words, and records the lines it ran.
type fakeSession struct {
	answers map[string]testfile.Outcome
	ran     []string
	closed  bool
}

func (f *fakeSession) Client(context.Context) (*mcp.Client, error) { return nil, nil }

func (f *fakeSession) Run(_ context.Context, words []string, _ map[string]json.RawMessage, _ io.Writer) testfile.Outcome {
	f.ran = append(f.ran, strings.Join(words, " "))
	return f.answers[strings.Join(words[:2], " ")]
}

func (f *fakeSession) Tool(context.Context, string) (mcp.Tool, error) {
	return mcp.Tool{}, errors.New("no tools")
}

func (f *fakeSession) Close() { f.closed = true }

func readFile(t *testing.T, text string) *testfile.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	o := &testfile.Options{Path: func(p string) string { return p }, Vars: config.Env{Getenv: func(string) string { return "" }, Lookup: func(string) (string, bool) { return "", false }},
		Flags: map[string]testfile.Flag{}, CheckServer: func([]string) error { return nil },
		CheckLine: func([]string, map[string]json.RawMessage) (testfile.Line, error) { return testfile.Line{}, nil }}
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
