package testreport

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// run is a run of three files: one with a step of each status, one whose
// server could not be reached, one stopped by Ctrl-C; names and a failure
// hold what a server or a file may put there (escapes, # and \).
func run() []File {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return []File{
		{Path: "a.yaml", Name: "demo \x1b[2J", Named: true, Server: "./server", Started: at, Took: 1500 * time.Millisecond, Stderr: "ready\nbye\n",
			Steps: []Step{
				{Index: 1, Name: "ping", Line: 4, Status: Passed, Took: 2 * time.Millisecond, Notes: []string{"written to s.json"}},
				{Index: 2, Name: "call add #1 \\ x", Line: 5, Status: Failed, Took: 3500 * time.Microsecond, Exit: 0,
					Failures: []Failure{{Kind: "jq", Message: ".sum == 3", Expected: "true", Actual: "false", Details: []string{".sum = 2\x07"}}, {Kind: "exit", Message: "exit 0, want 1"}}},
				{Index: 3, Name: "info", Line: 7, Status: Skipped, Reason: "not now"},
			}},
		{Path: "b.yaml", Name: "b", Server: "http://127.0.0.1:1/", Code: 4, Err: "server/discover: connection refused", Started: at,
			Steps: []Step{{Index: 1, Name: "ping", Line: 3, Status: Skipped, Reason: "not run: the session could not be opened"}}},
		{Path: "c.yaml", Name: "c", Server: "./server", Interrupted: true, Started: at,
			Steps: []Step{{Index: 1, Name: "slow", Line: 3, Status: Skipped, Reason: "interrupted", Interrupted: true}}},
	}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	text := &Text{W: &b}
	for _, f := range run() {
		if err := text.File(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := text.Summary(run(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	want := `a.yaml demo \x1b[2J (./server)
  ✓ ping  2ms
      written to s.json
  ✗ call add #1 \ x  4ms
      jq: .sum == 3
        expected: true
        actual:   false
        .sum = 2\x07
      exit: exit 0, want 1
  ○ info  skipped: not now
  stderr (the last lines):
    | ready
    | bye
  FAIL 1 passed, 1 failed, 1 skipped  1.5s

b.yaml (http://127.0.0.1:1/)
  ✗ exit 4: server/discover: connection refused
  ○ ping  skipped: not run: the session could not be opened
  FAIL 0 passed, 0 failed, 1 skipped  0s

c.yaml (./server)
  ○ slow  skipped: interrupted
  INTERRUPTED 0 passed, 0 failed, 1 skipped  0s

FAIL 1 passed, 1 failed, 3 skipped (3 files, 1 not run to the end, 2s)
`
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("text report (-want +got):\n%s", d)
	}
	b.Reset()
	(&Text{W: &b, Color: true}).File(run()[0])
	if !strings.Contains(b.String(), "\x1b[31m✗\x1b[0m call add") || !strings.Contains(b.String(), "\x1b[32m✓\x1b[0m ping") {
		t.Errorf("no colour:\n%q", b.String())
	}
}

func TestJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := Tests.JUnit(&b, run(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if got.Tests != 6 || got.Failures != 1 || got.Errors != 2 || len(got.Suites) != 3 {
		t.Fatalf("totals %d tests, %d failures, %d errors, %d suites", got.Tests, got.Failures, got.Errors, len(got.Suites))
	}
	a := got.Suites[0]
	if a.Name != `demo \x1b[2J` || a.Timestamp != "2026-01-02T03:04:05" || a.Time != "1.500" || a.Skipped != 1 || a.SystemErr == nil {
		t.Errorf("suite a: %+v", a)
	}
	if f := a.Cases[1].Failure; f == nil || f.Type != "jq" || f.Message != "jq: .sum == 3 (and 1 more)" || !strings.Contains(f.Text, `.sum = 2\x07`) {
		t.Errorf("failure %+v", f)
	}
	if c := got.Suites[1].Cases[0]; c.Name != "session" || c.Error == nil || c.Error.Type != "exit 4" {
		t.Errorf("the unreachable server: %+v", c)
	}
	if c := got.Suites[2].Cases[0]; c.Error == nil || c.Error.Type != "interrupted" {
		t.Errorf("the interrupted step: %+v", c)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Error("controls in the XML")
	}
}

func TestTAP(t *testing.T) {
	var b bytes.Buffer
	if err := Tests.TAP(&b, run()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"TAP version 14\n1..3\n# Subtest: demo \\\\x1b[2J\n    1..3\n    ok 1 - ping\n    not ok 2 - call add \\#1 \\\\ x\n      ---\n",
		"      message: \"jq: .sum == 3 (and 1 more)\"\n",
		"    ok 3 - info # SKIP not now\nnot ok 1 - demo \\\\x1b[2J\n  ---\n  message: \"a.yaml: 1 passed, 1 failed, 1 skipped\"\n",
		"not ok 2 - b\n  ---\n  exit: 4\n  message: \"server/discover: connection refused\"\n",
		"    not ok 1 - slow\n", "not ok 3 - c\n  ---\n  message: \"c.yaml: interrupted (Ctrl-C): 0 passed, 0 failed, 1 skipped\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// A step that passed with a warning (a lint finding) shows it in TAP, as
// the other formats do; its other notes stay in the text report.
func TestTAPWarnings(t *testing.T) {
	files := run()
	files[0].Steps[0].Notes = append(files[0].Steps[0].Notes, "warning: the server's stdout: output that is not JSON-RPC [stray-output]")
	var b bytes.Buffer
	if err := Tests.TAP(&b, files); err != nil {
		t.Fatal(err)
	}
	want := "    ok 1 - ping\n      ---\n      at: {\"file\":\"a.yaml\",\"line\":4}\n" +
		"      notes: [\"warning: the server's stdout: output that is not JSON-RPC [stray-output]\"]\n      severity: \"comment\"\n      ...\n    not ok 2"
	if out := b.String(); !strings.Contains(out, want) {
		t.Errorf("no %q in:\n%s", want, out)
	}
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := Tests.JSON(&b, run(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	var got jsonReport
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := jsonCounts{Files: 3, Passed: 1, Failed: 1, Skipped: 3}
	if got.Passed || got.Counts != want || got.DurationMs != 2000 || len(got.Files) != 3 {
		t.Fatalf("report %+v", got)
	}
	step := got.Files[0].Steps[1]
	if step.Status != "failed" || step.Index != 2 || step.Line != 5 || step.DurationMs != 3.5 || len(step.Failures) != 2 || step.Failures[0]["expected"] != "true" {
		t.Errorf("step %+v", step)
	}
	if f := got.Files[1]; f.Exit != 4 || f.Passed || f.Error == "" {
		t.Errorf("file b %+v", f)
	}
}

func TestCode(t *testing.T) {
	files := run()
	if got := Code(files); got != 4 {
		t.Errorf("Code = %d, want 4 (the first file whose server could not be reached)", got)
	}
	if got := Code(files[:1]); got != 1 {
		t.Errorf("Code = %d, want 1 (a step failed)", got)
	}
	if got := Code(files[2:]); got != 0 {
		t.Errorf("Code = %d, want 0", got)
	}
}

// Finish writes the text summary where the text report goes, and a
// report of another format where the report goes: the --output file,
// else stdout.
func TestFinish(t *testing.T) {
	files := run()
	var stdout bytes.Buffer
	if err := Finish(&Output{Stdout: &stdout}, &Text{W: &stdout}, "text", files, time.Second); err != nil || !strings.HasPrefix(stdout.String(), "FAIL 1 passed, 1 failed, 3 skipped (3 files") {
		t.Errorf("text: %v, %q", err, stdout.String())
	}
	stdout.Reset()
	if err := Finish(&Output{Stdout: &stdout}, nil, "tap", files, time.Second); err != nil || !strings.HasPrefix(stdout.String(), "TAP version 14\n") {
		t.Errorf("tap alone: %v, %q", err, stdout.String())
	}
	stdout.Reset()
	f, err := os.Create(filepath.Join(t.TempDir(), "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dest := &Output{Stdout: &stdout, File: f}
	textOut, _ := dest.Text("json")
	if err := Finish(dest, &Text{W: textOut}, "json", files, time.Second); err != nil {
		t.Fatal(err)
	}
	written, _ := os.ReadFile(f.Name())
	if !strings.HasPrefix(stdout.String(), "FAIL ") || !json.Valid(written) {
		t.Errorf("json to a file: stdout %q, file %q", stdout.String(), written)
	}
	if err := Finish(&Output{Stdout: failingWriter{}}, nil, "junit", files, time.Second); err == nil || !strings.HasPrefix(err.Error(), "writing the report: ") {
		t.Errorf("a report that cannot be written: %v", err)
	}
}

// The JSON report as the tests read it back.
type jsonReport struct {
	Passed     bool       `json:"passed"`
	Counts     jsonCounts `json:"counts"`
	DurationMs float64    `json:"durationMs"`
	Files      []struct {
		File   string `json:"file"`
		Passed bool   `json:"passed"`
		Exit   int    `json:"exit"`
		Error  string `json:"error"`
		Steps  []struct {
			Index      int              `json:"index"`
			Line       int              `json:"line"`
			Status     string           `json:"status"`
			DurationMs float64          `json:"durationMs"`
			Failures   []map[string]any `json:"failures"`
		} `json:"steps"`
	} `json:"files"`
}

type jsonCounts struct {
	Files   int `json:"files"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A suite other than mcpv test's (mcpv check's areas of checks) names its
// groups and items in its words, carries its header, shows a step's level
// and a warned step as passing with its warning.
func TestSuiteOfChecks(t *testing.T) {
	suite := Suite{Name: "mcpv check", Group: "area", Groups: "areas", Item: "check", Items: "checks",
		Header: [][2]string{{"server", "./srv"}, {"version", "2025-11-25"}}}
	fail := Failure{Kind: "SHOULD", Message: "answered -32603", Sent: `{"method":"x"}`, Received: "error -32603", Requires: `"-32601 ..." (JSON-RPC 2.0 §5.1)`}
	files := []File{{Path: "jsonrpc", Name: "JSON-RPC", Named: true, Steps: []Step{
		{Index: 1, ID: "jsonrpc.a", Name: "jsonrpc.a  a holds", Tag: "MUST", Ref: "2025-11-25 basic", Status: Passed},
		{Index: 2, ID: "jsonrpc.b", Name: "jsonrpc.b  b holds", Tag: "SHOULD", Ref: "JSON-RPC 2.0 §5.1", Status: Warned, Failures: []Failure{fail}},
	}}}
	var b bytes.Buffer
	text := &Text{W: &b, Suite: suite}
	text.File(files[0])
	text.Summary(files, time.Second)
	for _, want := range []string{"jsonrpc JSON-RPC\n", "  ! jsonrpc.b  b holds  [SHOULD]  0s\n", "        sent:     {\"method\":\"x\"}\n",
		"        requires: \"-32601 ...\" (JSON-RPC 2.0 §5.1)\n", "  ok 1 passed, 0 failed, 1 warned  0s\n", "PASS 1 passed, 0 failed, 1 warned (1 area, 1s)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text: no %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := suite.JSON(&b, files, time.Second); err != nil {
		t.Fatal(err)
	}
	want := `{"server":"./srv","version":"2025-11-25","passed":true,"counts":{"areas":1,"passed":1,"failed":0,"skipped":0,"warned":1},"durationMs":1000,"areas":[{"area":"jsonrpc","name":"JSON-RPC","passed":true,"durationMs":0,"checks":[` +
		`{"index":1,"id":"jsonrpc.a","name":"jsonrpc.a  a holds","level":"MUST","ref":"2025-11-25 basic","status":"passed","durationMs":0},` +
		`{"index":2,"id":"jsonrpc.b","name":"jsonrpc.b  b holds","level":"SHOULD","ref":"JSON-RPC 2.0 §5.1","status":"warned","durationMs":0,"failures":[{"expectation":"SHOULD","message":"answered -32603","received":"error -32603","requires":"\"-32601 ...\" (JSON-RPC 2.0 §5.1)","sent":"{\"method\":\"x\"}"}]}],` +
		`"counts":{"failed":0,"passed":1,"skipped":0,"warned":1}}]}` + "\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("json (-want +got):\n%s", d)
	}
	b.Reset()
	if err := suite.JUnit(&b, files, time.Second); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "mcpv check" || got.Failures != 0 || got.Suites[0].Properties[1].Value != "2025-11-25" ||
		got.Suites[0].Cases[1].SystemOut == nil || !strings.Contains(got.Suites[0].Cases[1].SystemOut.Text, "warning: SHOULD: answered -32603") {
		t.Errorf("junit: %s", b.String())
	}
	b.Reset()
	if err := suite.TAP(&b, files); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "    ok 2 - jsonrpc.b  b holds\n      ---\n") || !strings.Contains(out, `severity: "warn"`) || !strings.Contains(out, "ok 1 - JSON-RPC\n") {
		t.Errorf("tap:\n%s", out)
	}
}

// A check blocked by another's defect and one that ran out of time are
// counted apart in every format: blocked names what it waits on, and
// an inconclusive one keeps the run from passing without failing it.
func TestBlockedAndInconclusive(t *testing.T) {
	suite := Suite{Name: "mcpv check", Group: "area", Groups: "areas", Item: "check", Items: "checks"}
	files := []File{{Path: "lists", Name: "Lists", Named: true, Steps: []Step{
		{Index: 1, ID: "lists.a", Name: "lists.a  a", Tag: "MUST", Status: Passed},
		{Index: 2, ID: "lists.b", Name: "lists.b  b", Tag: "SHOULD", Status: Blocked, Reason: "by lists.shape: the listing broke", BlockedBy: "lists.shape"},
		{Index: 3, ID: "lists.c", Name: "lists.c  c", Tag: "MUST", Status: Inconclusive, Reason: "no answer within 15s (--check-timeout)"},
	}}}
	var b bytes.Buffer
	text := &Text{W: &b, Suite: suite}
	text.File(files[0])
	text.Summary(files, time.Second)
	for _, want := range []string{"  ⊘ lists.b  b  [SHOULD]  blocked: by lists.shape: the listing broke\n",
		"  ? lists.c  c  [MUST]  inconclusive: no answer within 15s (--check-timeout)\n",
		"  INCONCLUSIVE 1 passed, 0 failed, 1 blocked, 1 inconclusive  0s\n", "INCONCLUSIVE 1 passed, 0 failed, 1 blocked, 1 inconclusive (1 area, 1s)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text: no %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := suite.JSON(&b, files, time.Second); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"passed":false,"counts":{"areas":1,"passed":1,"failed":0,"skipped":0,"blocked":1,"inconclusive":1}`,
		`"status":"blocked","reason":"by lists.shape: the listing broke","blockedBy":"lists.shape"`, `"status":"inconclusive"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("json: no %s in\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := suite.JUnit(&b, files, time.Second); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if c := got.Suites[0].Cases; got.Failures != 0 || got.Suites[0].Skipped != 2 || c[1].Skipped == nil || !strings.HasPrefix(c[1].Skipped.Message, "blocked: ") || c[2].Skipped == nil || !strings.HasPrefix(c[2].Skipped.Message, "inconclusive: ") {
		t.Errorf("junit: %s", b.String())
	}
	b.Reset()
	if err := suite.TAP(&b, files); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "    ok 2 - lists.b  b # SKIP blocked: by lists.shape: the listing broke\n") || !strings.Contains(out, "    not ok 3 - lists.c  c # TODO inconclusive: no answer within 15s (--check-timeout)\n") {
		t.Errorf("tap:\n%s", out)
	}
}

// A text report told which steps to show writes those alone, with the
// counts of every step, and leaves out a file with none to show.
func TestTextOnly(t *testing.T) {
	suite := Suite{Name: "mcpv check", Group: "area", Groups: "areas", Item: "check", Items: "checks"}
	files := []File{
		{Path: "lists", Name: "Lists", Named: true, Steps: []Step{
			{Index: 1, ID: "lists.a", Name: "lists.a  a", Tag: "MUST", Status: Passed},
			{Index: 2, ID: "lists.b", Name: "lists.b  b", Tag: "MUST", Status: Failed, Failures: []Failure{{Kind: "MUST", Message: "broken"}}},
		}},
		{Path: "http", Name: "HTTP", Named: true, Steps: []Step{{Index: 1, ID: "http.a", Name: "http.a  a", Tag: "MUST", Status: Skipped, Reason: "applies to HTTP servers"}}},
	}
	var b bytes.Buffer
	text := &Text{W: &b, Suite: suite, Only: func(s Step) bool { return s.Status == Failed }}
	for _, f := range files {
		text.File(f)
	}
	text.Summary(files, time.Second)
	out := b.String()
	for _, want := range []string{"lists Lists\n", "  ✗ lists.b  b  [MUST]", "  FAIL 1 passed, 1 failed  0s\n", "FAIL 1 passed, 1 failed, 1 skipped (2 areas, 1s)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "lists.a") || strings.Contains(out, "http") {
		t.Errorf("a step or a file not chosen is shown:\n%s", out)
	}
}
