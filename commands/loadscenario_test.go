package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

func writeScenario(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A scenario's steps run in order on each virtual user's session, what
// one step captures filling the next one's words, and each is timed:
// against a fake whose calls take 20 ms, each call step takes at least
// that, and a pass at least the two calls.
func TestLoadScenario(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: 20 * time.Millisecond}})
	scenario := writeScenario(t, `
steps:
  - list-tools:
    capture: {tool: '.tools[0].name'}
  - name: first call
    call: '{{tool}} n=1'
    expect: {jq: '.content[0].text == "ok"'}
    capture: {said: '.content[0].text'}
  - call: x said={{said}}
  - ping:
    skip: not this time
`)
	r := mcpv(t, "", "load", "--scenario", scenario, "-c", "2", "-n", "6", "--format", "json", "-u", srv.URL)
	r.expect(t, 0, "", "", "")
	var res struct {
		Scenario   string `json:"scenario"`
		OK, Errors int64
		Latency    struct {
			Count int64
			P50   float64
		} `json:"latency_ms"`
		Operations []struct {
			Name    string
			OK      int64
			Latency struct {
				Count int64
				P50   float64
			} `json:"latency_ms"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Scenario != "scenario" || res.OK != 6 || res.Errors != 0 || res.Latency.Count != 6 || len(res.Operations) != 3 {
		t.Fatalf("report %s; want 6 passes of 3 steps", r.stdout)
	}
	if res.Latency.P50 < 40 {
		t.Errorf("a pass took %vms (p50); want at least the two calls' 40ms", res.Latency.P50)
	}
	for i, want := range []string{"list-tools", "first call", "call x said={{said}}"} {
		op := res.Operations[i]
		if op.Name != want || op.OK != 6 || op.Latency.Count != 6 {
			t.Errorf("step %d: %+v; want %q, 6 times", i+1, op, want)
		}
		if i > 0 && op.Latency.P50 < 20 {
			t.Errorf("step %q took %vms (p50); want 20ms or more", want, op.Latency.P50)
		}
	}
	// What the second step captured reached the third: the server got it.
	calls := 0
	for _, req := range srv.Requests() {
		if req.RPCMethod == "tools/call" && strings.Contains(string(req.Body), `"said":"ok"`) {
			calls++
		}
	}
	if calls != 6 {
		t.Errorf("%d calls carried the captured value; want 6", calls)
	}
}

// A step that fails ends its pass, and the error names the step: an
// expectation not met, or the server's error.
func TestLoadScenarioErrorsNameTheStep(t *testing.T) {
	t.Parallel()
	scenario := writeScenario(t, `
steps:
  - ping:
  - name: wrong text
    call: x
    expect: {jq: '.content[0].text == "nope"'}
  - call: x
`)
	r := mcpv(t, "", args([]string{"load", "--scenario", scenario, "-n", "3", "--format", "json", "-q",
		"[.ok, .errors, .error_kinds[0].operation, .error_kinds[0].kind, .operations[2].ok]", "--compact"}, fake("plain"))...)
	r.expect(t, 0, `[0,3,"wrong text","expectation",0]`+"\n", "", "")
	r = mcpv(t, "", args([]string{"load", "--scenario", scenario, "-n", "2"}, fake("plain"))...)
	r.expect(t, 0, "", "expectation in wrong text  jq: ", "")

	// A server error in a step without expectations keeps its kind.
	scenario = writeScenario(t, "steps:\n  - ping:\n  - call: x\n")
	r = mcpv(t, "", args([]string{"load", "--scenario", scenario, "-n", "2", "--format", "json", "-q",
		"[.error_kinds[] | [.operation, .kind]]", "--compact"}, fake("rpc-error"))...)
	r.expect(t, 0, `[["call x","JSON-RPC -32602"]]`+"\n", "", "")
}

// A think: pause comes before its step; a pass's latency leaves it out.
// The pause is a second: a pass that counted it would take a second or
// more, where two pings take a thousandth of it on a machine at rest and
// a loaded machine's stall is far less than the whole.
func TestLoadScenarioThinkTime(t *testing.T) {
	testkit.SkipLong(t, "waits its scenario's think time")
	t.Parallel()
	scenario := writeScenario(t, "steps:\n  - ping:\n  - ping:\n    think: 1s\n")
	r := mcpv(t, "", args([]string{"load", "--scenario", scenario, "-n", "2", "--format", "json", "-q", "[.elapsed_s, .latency_ms.max]", "--compact"}, fake("plain"))...)
	var got []float64
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got) != 2 {
		t.Fatalf("%s (%v, stderr %s)", r.stdout, err, r.stderr)
	}
	if got[0] < 2 {
		t.Errorf("2 passes took %vs; want at least two pauses of 1s", got[0])
	}
	// Counted, a pass's pause would leave less of the run than its own
	// latency once both pauses are taken out, however slow the machine.
	if got[1] > got[0]*1000-2000 {
		t.Errorf("a pass's latency is %vms of a run of %vs with two pauses of 1s: the pause is counted", got[1], got[0])
	}
}

// What load cannot run, and a file's own mistakes, are found before any
// server starts: exit 2, naming the line.
func TestLoadScenarioMistakes(t *testing.T) {
	t.Parallel()
	nowhere := []string{"--", "/nonexistent/server"}
	for _, tc := range []struct{ file, errHas string }{
		{"steps:\n  - snapshot: s.json\n", "snapshot, lint and cost steps are mcpv test's"},
		{"steps:\n  - call: x -q .content\n", "-q: a scenario's step takes no options"},
		{"steps:\n  - info:\n", `unknown operation "info"`},
		{"steps:\n  - ping:\n    think: soon\n", "scenario.yaml:3:12: think:"},
		{"steps:\n  - ping:\n    think: 2s..1s\n", "MIN no more than MAX"},
		{"steps:\n  - call: x n={{nothing}}\n", "no step before this one captures"},
		{"steps:\n  - ping:\n    skip: all\n", "no step to run"},
	} {
		r := mcpv(t, "", args([]string{"load", "--scenario", writeScenario(t, tc.file)}, nowhere)...)
		r.expect(t, 2, "", "", tc.errHas)
	}
}

// A scenario from a cloned repository reads files only in its own tree,
// as a test file does: the paths it writes are refused before any server
// starts, and one a capture makes is refused as the step runs, nothing
// sent.
func TestLoadScenarioFilesStayInTheirTree(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "id_rsa"), []byte("PRIVATE KEY"), 0o600)
	nowhere := []string{"--", "/nonexistent/server"}
	for _, step := range []string{
		"call: x text=@/proc/self/environ",
		"call: x text=@../id_rsa",
		"call: {tool: x, flags: [--args, '@" + filepath.Join(outside, "id_rsa") + "']}",
	} {
		dir := filepath.Join(outside, "repo")
		os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, "scenario.yaml")
		os.WriteFile(path, []byte("steps:\n  - "+step+"\n"), 0o644)
		r := mcpv(t, "", args([]string{"load", "--scenario", path}, nowhere)...)
		r.expect(t, 2, "", "", "leads out of")
	}
	scenario := writeScenario(t, `
steps:
  - ping:
    capture: {p: '"/proc/self/environ"'}
  - call: x text=@{{p}}
`)
	tail, log := fakeLogged(t, "plain")
	r := mcpv(t, "", args([]string{"load", "--scenario", scenario, "-n", "2", "--format", "json", "-q",
		"[.ok, .error_kinds[0].phase, .error_kinds[0].operation]", "--compact"}, tail)...)
	r.expect(t, 0, `[0,"template","call x text=@{{p}}"]`+"\n", "", "")
	if calls := callArguments(t, log); len(calls) != 0 {
		t.Errorf("the server got %q", calls)
	}
}

// A scenario from a cloned repository names the environment only once the
// user has trusted it: until then a ${VAR} is a mistake naming its line
// (nothing starts, nothing is sent), and a capture of $ENV gets nothing,
// so neither puts a token in the arguments the server receives. Once
// trusted, the same file expands as a test file does.
func TestLoadScenarioEnvironmentNeedsTrust(t *testing.T) {
	t.Parallel()
	const token = "ghp_scenarioSecret1234567890"
	w, dir := testWorld(t, map[string]string{
		"named.yaml":    "steps:\n  - ping:\n  - call: x message=${GITHUB_TOKEN}\n",
		"captured.yaml": "steps:\n  - ping:\n    capture: {t: '$ENV.GITHUB_TOKEN // \"none\"', e: '[env[]] | length'}\n  - call: x message={{t}} n={{e}}\n",
	})
	w.setenv("GITHUB_TOKEN", token)
	tail, log := fakeLogged(t, "plain")
	run := func(file string) result {
		return w.mcpv(t, "", args([]string{"load", "--scenario", filepath.Join(dir, file), "-n", "1", "--format", "json", "-q", ".ok"}, tail)...)
	}
	r := run("named.yaml")
	r.expect(t, 2, "", "", "named.yaml:3:11: ${GITHUB_TOKEN}: a scenario names the environment only once trusted; review it, then run: mcpv trust ")
	r = run("captured.yaml")
	r.expect(t, 0, "1\n", "", "")
	calls := callArguments(t, log)
	if len(calls) != 1 || strings.Contains(calls[0], token) || !strings.Contains(calls[0], `"message":"none"`) || !strings.Contains(calls[0], `"n":"0"`) {
		t.Errorf("the server got %q; want a call without the token, which $ENV did not show", calls)
	}
	if r := w.mcpv(t, "", "trust", filepath.Join(dir, "named.yaml")); r.code != 0 {
		t.Fatalf("trust: exit %d, %s", r.code, r.stderr)
	}
	r = run("named.yaml")
	r.expect(t, 0, "1\n", "", "")
	if calls := callArguments(t, log); len(calls) != 2 || !strings.Contains(calls[1], token) {
		t.Errorf("the server got %q; want the trusted file's token in the second call", calls)
	}
}

// A scenario with templates is a test file too: mcpv test runs it once,
// each template evaluated for a first iteration (.row null, .iteration
// 0), where it read query~ as an argument's name; a template that fails
// is a mistake in the file, naming its line, before any server starts.
func TestScenarioTemplatesUnderTest(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, map[string]string{
		"browse.yaml": demoServer + "steps:\n  - call: echo 'message~=.row.q // \"row \\(.iteration)\"'\n    expect: {jq: '.content[0].text == \"row 0\"'}\n" +
			"  - get-prompt: greet 'name~=\"Ada\"'\n    expect: {jq: '.messages[0].content.text | contains(\"Ada\")'}\n",
		"broken.yaml": demoServer + "steps:\n  - ping:\n  - call: echo 'message~=error(\"no\")'\n",
	})
	r := w.mcpv(t, "", "test", filepath.Join(dir, "browse.yaml"))
	r.expect(t, 0, "", "PASS 2 passed, 0 failed", "")
	r = w.mcpv(t, "", "test", filepath.Join(dir, "broken.yaml"))
	r.expect(t, 2, "", "", "broken.yaml:6:5: argument message: jq: error: no")
}
