package load

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/loaddata"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// calls are the tools/call params the fake received, in order.
func calls(t *testing.T, srv *mcptest.HTTPServer) []struct {
	Name      string
	Arguments map[string]any
} {
	t.Helper()
	var out []struct {
		Name      string
		Arguments map[string]any
	}
	for _, r := range srv.Requests() {
		if r.RPCMethod != "tools/call" {
			continue
		}
		var m struct {
			Params struct {
				Name      string
				Arguments map[string]any
			}
		}
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Params)
	}
	return out
}

// Each iteration takes its row of the data file in order, and its
// templates see it: one session, so the server gets them in that order,
// beside the arguments typed once.
func TestDataRowsReachTheServerInOrder(t *testing.T) {
	ss, srv := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: time.Millisecond}})
	rows := "{\"n\": 1}\n{\"n\": 2}\n\n{\"n\": 3}\n"
	data, err := loaddata.Read("rows.jsonl", strings.NewReader(rows), int64(len(rows)), loaddata.InOrder, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), Config{Plan: Plan{Concurrency: 1, Count: 6}, Ops: []Op{op(t, "call", "x", "n~=.row.n", "k~=.iteration", "m=hi")},
		Open: ss.open, ReadFile: os.ReadFile, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 6 || res.Data == nil || res.Data.Rows != 3 || res.Data.Order != "sequential" {
		t.Fatalf("ok %d, data %+v, errors %+v", res.OK, res.Data, res.ErrorKinds)
	}
	var ns []float64
	for i, c := range calls(t, srv) {
		if c.Arguments["m"] != "hi" || c.Arguments["k"] != float64(i) {
			t.Errorf("call %d: %v", i, c.Arguments)
		}
		ns = append(ns, c.Arguments["n"].(float64))
	}
	if want := []float64{1, 2, 3, 1, 2, 3}; !slices.Equal(ns, want) {
		t.Errorf("rows sent %v, want %v", ns, want)
	}
}

// A template that fails for an iteration fails that iteration, counted
// as a template error, and the run goes on; one that fails for the
// sample iteration fails the run before anything is sent.
func TestTemplateErrorsAreCounted(t *testing.T) {
	ss, srv := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: time.Millisecond}})
	res, err := Run(t.Context(), Config{Plan: Plan{Concurrency: 1, Count: 4}, Ops: []Op{op(t, "call", "x", `n~=if .iteration % 2 == 1 then error("odd") else .iteration end`)},
		Open: ss.open, ReadFile: os.ReadFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 2 || res.Errors != 2 || len(res.ErrorKinds) != 1 || res.ErrorKinds[0].Phase != "template" || !strings.Contains(res.ErrorKinds[0].Example, "odd") {
		t.Errorf("ok %d, errors %d: %+v", res.OK, res.Errors, res.ErrorKinds)
	}
	if n := len(calls(t, srv)); n != 2 {
		t.Errorf("%d calls sent, want the 2 whose template held", n)
	}
	if _, err := Run(t.Context(), Config{Plan: Plan{Concurrency: 1, Count: 4}, Ops: []Op{op(t, "call", "x", `n~=error("never")`)},
		Open: ss.open, ReadFile: os.ReadFile}); err == nil || !strings.Contains(err.Error(), "never") {
		t.Errorf("a template that always fails: %v", err)
	}
}

// A scenario's pass runs its steps in order on one session: what a step
// captures fills the next step's words, each step is timed under its
// name, a step whose expectation fails ends the pass as an expectation
// error naming it, and think times come before the steps.
func TestScenarioPasses(t *testing.T) {
	ss, srv := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: time.Millisecond}})
	list := op(t, "list-tools")
	list.Name = "find the tool"
	call := op(t, "call", "PLACEHOLDER", "n~=.iteration")
	call.Name = "call it"
	steps := []Step{
		{Op: list, Done: func(_ context.Context, result json.RawMessage, err error, caps map[string]json.RawMessage) error {
			var r struct{ Tools []struct{ Name string } }
			if err != nil || json.Unmarshal(result, &r) != nil || len(r.Tools) == 0 {
				return &ExpectationError{Message: "no tool listed"}
			}
			caps["tool"] = json.RawMessage(r.Tools[0].Name)
			return nil
		}},
		{Op: call, Think: [2]time.Duration{time.Millisecond, 2 * time.Millisecond},
			Words: func(caps map[string]json.RawMessage) []string {
				return []string{"call", string(caps["tool"]), "n~=.iteration"}
			},
			Done: func(_ context.Context, _ json.RawMessage, err error, _ map[string]json.RawMessage) error {
				return err
			}},
	}
	res, err := Run(t.Context(), Config{Plan: Plan{Concurrency: 1, Count: 3}, Steps: steps, Scenario: "find and call", Open: ss.open, ReadFile: os.ReadFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scenario != "find and call" || res.OK != 3 || res.Errors != 0 || len(res.Operations) != 2 {
		t.Fatalf("scenario %q, ok %d, errors %+v, operations %+v", res.Scenario, res.OK, res.ErrorKinds, res.Operations)
	}
	for i, name := range []string{"find the tool", "call it"} {
		if o := res.Operations[i]; o.Name != name || o.OK != 3 || o.Latency == nil || o.Latency.Count != 3 {
			t.Errorf("step %d: %+v", i, o)
		}
	}
	for i, c := range calls(t, srv) {
		if c.Name != "x" || c.Arguments["n"] != float64(i) {
			t.Errorf("call %d: %+v", i, c)
		}
	}

	// A step that fails its expectation ends the pass there.
	steps[0].Done = func(context.Context, json.RawMessage, error, map[string]json.RawMessage) error {
		return &ExpectationError{Message: "step 1 (find the tool): not what was expected"}
	}
	res, err = Run(t.Context(), Config{Plan: Plan{Concurrency: 1, Count: 2}, Steps: steps, Open: ss.open, ReadFile: os.ReadFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 0 || res.Errors != 2 || len(res.ErrorKinds) != 1 || res.ErrorKinds[0].Kind != "expectation" || res.ErrorKinds[0].Operation != "find the tool" {
		t.Errorf("ok %d, errors %+v", res.OK, res.ErrorKinds)
	}
}

// think draws a pause within its bounds, the same for the same seed,
// iteration and step, and a fixed one when the bounds are one.
func TestThink(t *testing.T) {
	lo, hi := 10*time.Millisecond, 20*time.Millisecond
	seen := map[time.Duration]bool{}
	for k := range int64(50) {
		d := think(7, k, 1, [2]time.Duration{lo, hi})
		if d < lo || d >= hi || d != think(7, k, 1, [2]time.Duration{lo, hi}) {
			t.Fatalf("iteration %d: %v", k, d)
		}
		seen[d] = true
	}
	if len(seen) < 25 {
		t.Errorf("50 draws gave %d pauses", len(seen))
	}
	if d := think(7, 3, 0, [2]time.Duration{lo, lo}); d != lo {
		t.Errorf("a fixed pause: %v", d)
	}
}

// A prompt's operation is checked against the arguments the prompt
// declares before the run, and its templates give each iteration's.
func TestPromptOperation(t *testing.T) {
	spec := t.TempDir() + "/spec.json"
	if err := os.WriteFile(spec, []byte(`{"prompts":[{"name":"greet","arguments":[{"name":"who","required":true},{"name":"n"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ss := fakeServer(t, "spec="+spec)
	res := runLoad(t, ss, Plan{Concurrency: 1, Count: 3}, op(t, "get-prompt", "greet", "who=Ada", "n~=.iteration"))
	if res.OK != 3 || res.Errors != 0 || res.Operations[0].Name != "get-prompt greet" {
		t.Errorf("ok %d, errors %+v, operations %+v", res.OK, res.ErrorKinds, res.Operations)
	}
	if _, err := Run(t.Context(), Config{Plan: Plan{Concurrency: 1, Count: 1}, Ops: []Op{op(t, "get-prompt", "greet")}, Open: ss.open}); err == nil || !strings.Contains(err.Error(), "who") {
		t.Errorf("a required argument left out: %v", err)
	}
	n := op(t, "get-prompt", "greet", "who~=.iteration")
	params, err := n.Params(t.Context(), map[string]any{"iteration": 7})
	if err != nil || string(params) != `{"name":"greet","arguments":{"who":"7"}}` {
		t.Errorf("a prompt's argument from a number: %s, %v", params, err)
	}
}

// The servers' log messages are counted by level (past the levels kept,
// as "other"), those a full queue dropped counted too, the examples
// masked, clipped and made safe; the report shows them most first.
func TestLogsSummary(t *testing.T) {
	var l Logs
	if l.summary(nil) != nil {
		t.Error("a summary of nothing")
	}
	note := func(level, data string) {
		p, _ := json.Marshal(map[string]any{"level": level, "logger": "db", "data": data})
		l.Note(p)
	}
	note("info", "connected with token sk-secret")
	note("info", "again")
	note("error", "\x1b[31mfailed\x1b[0m "+strings.Repeat("x", 1000))
	l.Note(json.RawMessage(`{"data": {"structured": true}}`))
	for i := range maxLogLevels + 2 {
		note("level"+strings.Repeat("x", i), "many")
	}
	l.Dropped(5, 2)
	s := l.summary(func(s string) string { return strings.ReplaceAll(s, "sk-secret", "****") })
	if s.Count != int64(4+maxLogLevels+2+5) || s.Dropped != 5 {
		t.Errorf("count %d, dropped %d", s.Count, s.Dropped)
	}
	if s.Levels["info"] != 2 || s.Levels["error"] != 1 || s.Levels["none"] != 1 || s.Levels["other"] == 0 {
		t.Errorf("levels %v", s.Levels)
	}
	if by := s.byCount(); by[0] != "other" && by[0] != "info" {
		t.Errorf("by count: %v", by)
	}
	joined := ""
	for _, e := range s.Examples {
		joined += e.Level + " " + e.Logger + " " + e.Message + "\n"
	}
	if strings.Contains(joined, "sk-secret") || strings.Contains(joined, "\x1b") || !strings.Contains(joined, "more bytes)") || len(s.Examples) != maxLogExamples {
		t.Errorf("examples:\n%s", joined)
	}
	res := &Result{Version: Version, Logs: s, Histogram: []Bucket{}}
	var b strings.Builder
	if err := res.WriteText(&b); err != nil || !strings.Contains(b.String(), "info") || strings.Contains(b.String(), "sk-secret") {
		t.Errorf("the report: %v\n%s", err, b.String())
	}
}

// A long run's timeline is halved by merging neighbours: counts and
// spans add, the maxima are the larger, the middle percentiles weighed by
// what each point counted; an odd last point stays.
func TestTimelineHalves(t *testing.T) {
	tl := []TimePoint{
		{T: 1, Span: 1, OK: 1, Errors: 1, P50: 10, P90: 20, P99: 30, Max: 40},
		{T: 2, Span: 1, OK: 3, P50: 20, P90: 40, P99: 50, Max: 45},
		{T: 3, Span: 1, Errors: 2},
		{T: 4, Span: 1},
		{T: 5, Span: 1, OK: 1, P50: 1},
	}
	got := halve(tl)
	want := []TimePoint{
		{T: 2, Span: 2, OK: 4, Errors: 1, P50: 17.5, P90: 35, P99: 50, Max: 45},
		{T: 4, Span: 2, Errors: 2},
		{T: 5, Span: 1, OK: 1, P50: 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("halved:\n%+v\nwant\n%+v", got, want)
	}
}

// The report of a search shows each step with what it crossed, and the
// highest rate that held, or that none did.
func TestSearchReport(t *testing.T) {
	s := &Search{MaxRate: 200, Limits: []string{"p99<100ms"}, StepSeconds: 5, Note: "mcpv's own sessions were all busy",
		Curve: []SearchPoint{{Rate: 100, Achieved: 100, P50: 2, P99: 10, Held: true}, {Rate: 400, Achieved: 250, P99: 300, ErrorRate: 0.1, Crossed: []string{"p99 300ms > 100ms"}}}}
	res := &Result{Version: Version, Search: s, Histogram: []Bucket{}}
	var b strings.Builder
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"held p99<100ms", "crossed: p99 300ms > 100ms", "the highest rate that held: 200/s", "(mcpv's own sessions were all busy)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
	s.MaxRate = 0
	b.Reset()
	res.WriteText(&b)
	if !strings.Contains(b.String(), "no rate held") {
		t.Errorf("no rate held:\n%s", b.String())
	}
}
