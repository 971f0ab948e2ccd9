package testrun

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest/pipeclient"
)

// specClient is a client of a fixture server of spec.
func specClient(t *testing.T, spec string) *mcp.Client {
	return pipeclient.Client(t, spec, mcp.ClientOptions{})
}

// serverSession is a fakeSession with a live client, for the steps that
// look at the server itself.
type serverSession struct {
	*fakeSession
	client *mcp.Client
}

func (s serverSession) Client(context.Context) (*mcp.Client, error) { return s.client, nil }

// runner is a Runner as the command line makes one, its exit codes and
// hints those of a failure to reach the server.
// knowing is a masker that knows secrets.
func knowing(secrets ...string) *redact.Scrubber {
	s := redact.NewScrubber(nil)
	s.Add(secrets...)
	return s
}

func runner() *Runner {
	return &Runner{Code: func(error) int { return exitcode.Transport }, Hint: func(error) string { return "" }}
}

// runOn runs file text against the server of spec, in a directory of its
// own, and returns the report of the file.
func runOn(t *testing.T, r *Runner, dir, text, spec string) testreport.File {
	t.Helper()
	return runKnowing(t, r, dir, text, spec, nil)
}

// runKnowing is runOn with the run's masker secrets (nil: one that knows
// none).
func runKnowing(t *testing.T, r *Runner, dir, text, spec string, secrets *redact.Scrubber) testreport.File {
	t.Helper()
	path := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f := readFileAt(t, path)
	s := serverSession{&fakeSession{}, specClient(t, spec)}
	return r.Run(t.Context(), Job{File: f, Selected: f.Select(nil), Secrets: secrets, Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return s, nil }})
}

// stepOutcome is what a report says of a step, for comparing.
type stepOutcome struct {
	Status   string
	Failures []string
	Notes    []string
	Details  []string
}

func outcomeOf(s testreport.Step) stepOutcome {
	o := stepOutcome{Status: s.Status.String(), Notes: s.Notes}
	for _, f := range s.Failures {
		o.Failures = append(o.Failures, f.Kind+": "+f.Message)
		o.Details = append(o.Details, f.Details...)
	}
	return o
}

const (
	twoTools = `{"tools":[{"name":"add","description":"adds","inputSchema":{"type":"object","properties":{"a":{"type":"integer","description":"a"}}}},` +
		`{"name":"echo","description":"echoes","inputSchema":{"type":"object"}}]}`
	oneTool = `{"tools":[{"name":"add","description":"adds","inputSchema":{"type":"object","properties":{"a":{"type":"integer","description":"a"}}}}]}`
)

// A snapshot step writes the server's surface the first time, passes
// while it holds, fails on a breaking change naming each, and --update
// accepts the change and rewrites the file.
func TestSnapshotStep(t *testing.T) {
	dir := t.TempDir()
	const file = "steps:\n  - snapshot: s.json\n"
	snap := filepath.Join(dir, "s.json")
	r := runner()

	rep := runOn(t, r, dir, file, twoTools)
	if got := outcomeOf(rep.Steps[0]); got.Status != "passed" || !cmp.Equal(got.Notes, []string{"written to " + snap}) {
		t.Errorf("first run: %+v", got)
	}
	written, err := os.ReadFile(snap)
	if err != nil || !strings.Contains(string(written), `"echo"`) {
		t.Fatalf("the snapshot: %v\n%s", err, written)
	}

	rep = runOn(t, r, dir, file, twoTools)
	if got := outcomeOf(rep.Steps[0]); got.Status != "passed" || len(got.Notes) != 0 {
		t.Errorf("unchanged: %+v", got)
	}

	rep = runOn(t, r, dir, file, oneTool)
	want := stepOutcome{Status: "failed", Failures: []string{"snapshot: 1 breaking change since " + snap + " (mcpv test --update accepts them)"},
		Details: []string{`tool "echo": removed (breaking)`}}
	if d := cmp.Diff(want, outcomeOf(rep.Steps[0])); d != "" {
		t.Errorf("a tool removed (-want +got):\n%s", d)
	}
	if again, _ := os.ReadFile(snap); string(again) != string(written) {
		t.Error("a failing snapshot step rewrote the file")
	}

	r.Update = true
	rep = runOn(t, r, dir, file, oneTool)
	want = stepOutcome{Status: "passed", Notes: []string{"updated " + snap, `accepted: tool "echo": removed (breaking)`}}
	if d := cmp.Diff(want, outcomeOf(rep.Steps[0])); d != "" {
		t.Errorf("--update (-want +got):\n%s", d)
	}
	if updated, _ := os.ReadFile(snap); strings.Contains(string(updated), `"echo"`) {
		t.Errorf("--update left the snapshot as it was:\n%s", updated)
	}
}

// A snapshot is written through the run's masker, as every other file of
// the run is: a server that echoes the user's key, as it is and in
// base64, puts neither in the file, and compares equal with it after;
// a snapshot written with the key in it compares equal too, both sides
// masked alike. A server that holds no secret is written as it is.
func TestSnapshotStepMasksSecrets(t *testing.T) {
	const secret = "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
	b64 := base64.StdEncoding.EncodeToString([]byte(secret))
	echoing := `{"tools":[{"name":"t","description":"desc ` + secret + ` b64 ` + b64 + `","inputSchema":{"type":"object","properties":{"a":{"type":"string","default":"` + secret + `"}}}}]}`
	const file = "steps:\n  - snapshot: s.json\n"
	dir := t.TempDir()
	snap := filepath.Join(dir, "s.json")
	r := runner()

	rep := runKnowing(t, r, dir, file, echoing, knowing(secret))
	written, err := os.ReadFile(snap)
	if err != nil || strings.Contains(string(written), secret) || strings.Contains(string(written), b64) || !strings.Contains(string(written), `"desc *** b64 ***"`) {
		t.Fatalf("the snapshot (%+v): %v\n%s", outcomeOf(rep.Steps[0]), err, written)
	}
	rep = runKnowing(t, r, dir, file, echoing, knowing(secret))
	if got := outcomeOf(rep.Steps[0]); got.Status != "passed" || len(got.Notes) != 0 {
		t.Errorf("unchanged: %+v", got)
	}

	// As an mcpv that did not mask wrote it.
	os.WriteFile(snap, []byte(`{"mcpvSnapshot": 1, "tools": [`+strings.TrimSuffix(strings.TrimPrefix(echoing, `{"tools":[`), `]}`)+`], "prompts": [], "resourceTemplates": []}`), 0o600)
	rep = runKnowing(t, r, dir, file, echoing, knowing(secret))
	if got := outcomeOf(rep.Steps[0]); got.Status != "passed" || len(got.Notes) != 0 {
		t.Errorf("a snapshot that holds the key: %+v", got)
	}

	// The same server without the key, and a run that knows none.
	honest := strings.ReplaceAll(strings.ReplaceAll(echoing, secret, "plain"), b64, "cGxhaW4=")
	os.Remove(snap)
	runKnowing(t, r, dir, file, honest, knowing(secret))
	if written, _ := os.ReadFile(snap); !strings.Contains(string(written), `"desc plain b64 cGxhaW4="`) || !strings.Contains(string(written), `"default": "plain"`) {
		t.Errorf("a server with no secret:\n%s", written)
	}
	rep = runKnowing(t, r, dir, file, honest, knowing(secret))
	if got := outcomeOf(rep.Steps[0]); got.Status != "passed" || len(got.Notes) != 0 {
		t.Errorf("a server with no secret, unchanged: %+v", got)
	}
}

// In CI a missing snapshot fails its step, naming the command that
// records it, and writes nothing; a snapshot mcpv cannot read fails as a
// usage mistake unless --update writes it anew. Paths are shown relative
// to the directory mcpv test runs in.
func TestSnapshotStepMissingOrCorrupt(t *testing.T) {
	dir := t.TempDir()
	r := runner()
	r.CI, r.Cwd = true, dir
	rep := runOn(t, r, dir, "steps:\n  - snapshot: s.json\n", oneTool)
	want := stepOutcome{Status: "failed", Failures: []string{"snapshot: s.json does not exist, and a missing snapshot is not written in CI (--ci): record it with 'mcpv test --no-ci " +
		filepath.Join(dir, "t.yaml") + "' and commit it"}}
	if d := cmp.Diff(want, outcomeOf(rep.Steps[0])); d != "" {
		t.Errorf("missing in CI (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a snapshot was written in CI: %v", err)
	}

	os.WriteFile(filepath.Join(dir, "s.json"), []byte("not json"), 0o600)
	rep = runOn(t, r, dir, "steps:\n  - snapshot: s.json\n", oneTool)
	if got := outcomeOf(rep.Steps[0]); got.Status != "failed" || len(got.Failures) != 1 ||
		!strings.HasPrefix(got.Failures[0], "snapshot: s.json is not a snapshot mcpv can read: ") || rep.Steps[0].Exit != exitcode.Usage {
		t.Errorf("corrupt: %+v, exit %d", got, rep.Steps[0].Exit)
	}
	r.Update = true
	rep = runOn(t, r, dir, "steps:\n  - snapshot: s.json\n", oneTool)
	if got := outcomeOf(rep.Steps[0]); got.Status != "passed" || len(got.Notes) != 1 || !strings.HasPrefix(got.Notes[0], "written anew to s.json, which was not a snapshot mcpv can read") {
		t.Errorf("corrupt with --update: %+v", got)
	}
}

// The step --snapshot adds names the flag in the command that records it.
func TestRecordCommand(t *testing.T) {
	if got := recordCommand(&testfile.Step{}, "tests/a b.yaml"); got != "mcpv test --no-ci 'tests/a b.yaml'" {
		t.Errorf("a file's own step: %s", got)
	}
	if got := recordCommand(&testfile.Step{ByFlag: true}, "a.yaml"); got != "mcpv test --no-ci --snapshot a.yaml" {
		t.Errorf("--snapshot's step: %s", got)
	}
}

// A lint step fails on the errors of the specification's rules, notes the
// warnings, and leaves out the rules it ignores; a list it cannot read is
// its failure, with the exit code of the error.
func TestLintStep(t *testing.T) {
	const spec = `{"tools":[{"name":"bad name","inputSchema":{"type":"object"}},{"name":"shape","description":"d","inputSchema":{"type":"array"}}]}`
	rep := runOn(t, runner(), t.TempDir(), "steps:\n  - lint:\n  - lint: {ignore: [tool-name, description]}\n", spec)
	want := stepOutcome{Status: "failed",
		Failures: []string{`lint: tool "bad name": name has characters other than A-Z a-z 0-9 _ - .: ' ' [tool-name]`,
			`lint: tool "shape": inputSchema has type "array"; it must be "object" [input-schema]`},
		Notes: []string{`warning: tool "bad name": has no description [description]`}}
	if d := cmp.Diff(want, outcomeOf(rep.Steps[0])); d != "" {
		t.Errorf("lint (-want +got):\n%s", d)
	}
	want = stepOutcome{Status: "failed", Failures: want.Failures[1:]}
	if d := cmp.Diff(want, outcomeOf(rep.Steps[1])); d != "" {
		t.Errorf("lint ignoring two rules (-want +got):\n%s", d)
	}

}

// A snapshot or lint step on a server that has gone fails, and breaks the
// session: the steps after it are not run.
func TestSurfaceStepOnAServerGone(t *testing.T) {
	for _, step := range []string{"snapshot: s.json", "lint:"} {
		f := readFile(t, "steps:\n  - "+step+"\n  - ping:\n")
		c := specClient(t, oneTool)
		c.Close(context.Background())
		s := serverSession{&fakeSession{}, c}
		rep := runner().Run(t.Context(), Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return s, nil }})
		got := outcomeOf(rep.Steps[0])
		if got.Status != "failed" || len(got.Failures) != 1 || !strings.Contains(got.Failures[0], "could not ") || rep.Steps[0].Exit != exitcode.Transport {
			t.Errorf("%s: %+v, exit %d", step, got, rep.Steps[0].Exit)
		}
		if rep.Steps[1].Reason != "not run: the session broke at step 1" || rep.Err != "the session broke at step 1" {
			t.Errorf("%s: after it: %q; the file: %q", step, rep.Steps[1].Reason, rep.Err)
		}
	}
}

// A session whose server wrote lines that are not JSON-RPC on its stdout
// gets the stray-output warning on its last lint step that ran, unless
// that step ignores the rule, counted, masked, and capped in its count.
func TestStrayOutputNoted(t *testing.T) {
	for _, tt := range []struct {
		name, lint string
		lines      int
		want       []string
	}{
		{"one line", "lint:", 1, []string{"warning: the server's stdout: output that is not JSON-RPC, 1 times (first: skipped a line on the server's stdout that is not JSON: token=***) [stray-output]"}},
		{"a flood", "lint:", 12, []string{"warning: the server's stdout: output that is not JSON-RPC, more than 10 times (first: skipped a line on the server's stdout that is not JSON: token=***) [stray-output]"}},
		{"ignored", "lint: {ignore: [stray-output]}", 3, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := readFile(t, "steps:\n  - "+tt.lint+"\n  - ping:\n")
			s := serverSession{&fakeSession{answers: map[string]testfile.Outcome{}}, specClient(t, oneTool)}
			j := Job{File: f, Selected: f.Select(nil), Secrets: knowing("s3cret"), Open: func(_ *redact.Scrubber, log *slog.Logger) (Session, error) {
				for range tt.lines {
					log.Warn("skipped a line on the server's stdout that is not JSON: token=s3cret")
				}
				log.With("k", "v").WithGroup("g").Info("another message")
				return pingSession{s}, nil
			}}
			rep := runner().Run(t.Context(), j)
			if d := cmp.Diff(tt.want, rep.Steps[0].Notes); d != "" {
				t.Errorf("the lint step's notes (-want +got):\n%s", d)
			}
			if len(rep.Steps[1].Notes) != 0 {
				t.Errorf("a step other than lint noted it: %q", rep.Steps[1].Notes)
			}
			if strings.Contains(rep.Stderr, "s3cret") || !strings.Contains(rep.Stderr, "another message") {
				t.Errorf("the file's stderr: %q", rep.Stderr)
			}
		})
	}
}

// pingSession answers a ping step.
type pingSession struct{ serverSession }

func (p pingSession) Run(ctx context.Context, words []string, caps map[string]json.RawMessage, stderr io.Writer) testfile.Outcome {
	return testfile.Outcome{Value: json.RawMessage(`{}`)}
}

// Under --lint (or after a lint step) a tool's result is checked against
// its outputSchema, unless the step checks it itself.
func TestCallResultLinted(t *testing.T) {
	f := readFileCalls(t, "steps:\n  - call: measure\n  - call: measure\n    expect: {output-schema: true}\n")
	tool := mcp.Tool{Name: "measure", OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}
	tool.Raw = json.RawMessage(`{"name":"measure","inputSchema":{"type":"object"},"outputSchema":` + string(tool.OutputSchema) + `}`)
	result := json.RawMessage(`{"content":[],"structuredContent":{"n":"many"}}`)
	s := &toolSession{fakeSession: &fakeSession{answers: map[string]testfile.Outcome{
		"call measure": {Value: result, Raw: result, Tool: "measure", Structured: json.RawMessage(`{"n":"many"}`)},
	}}, tool: tool}
	r := runner()
	r.Lint = true
	rep := r.Run(t.Context(), Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) { return s, nil }})
	first, second := outcomeOf(rep.Steps[0]), outcomeOf(rep.Steps[1])
	if len(first.Failures) != 1 || !strings.HasPrefix(first.Failures[0], "lint: ") || !strings.Contains(first.Failures[0], "[structured-result]") {
		t.Errorf("linted: %+v", first)
	}
	if len(second.Failures) != 1 || !strings.HasPrefix(second.Failures[0], "output-schema: structuredContent breaks the outputSchema at /n") {
		t.Errorf("its own output-schema expectation, once: %+v", second)
	}
}

// toolSession knows one tool's definition.
type toolSession struct {
	*fakeSession
	tool mcp.Tool
}

func (s *toolSession) Tool(_ context.Context, name string) (mcp.Tool, error) {
	if name != s.tool.Name {
		return mcp.Tool{}, errors.New("no such tool")
	}
	return s.tool, nil
}
