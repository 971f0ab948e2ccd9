package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A named tool that cannot be judged (it answers -32021: it needs a
// client capability the check's connections do not declare) is said for
// that tool alone, and named first it keeps no other tool from being
// judged: a result of the other that breaks its outputSchema fails
// tools.structured-result, a retired code it answers fails
// modern.error-codes; the healthy twin passes, saying which tool it could
// not judge and why.
func TestOneToolsTroubleStaysItsOwn(t *testing.T) {
	t.Parallel()
	const (
		gated    = `{"name":"gated","description":"Needs a capability.","inputSchema":{"type":"object"}}`
		shaped   = `{"name":"shaped","description":"Structured.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","description":"N."}}},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`
		needsCap = `"tools/call gated":{"code":-32021,"message":"Missing required client capability"}`
	)
	for _, tc := range []struct {
		name, era, check string
		results, errors  string // the spec's callResults and errors of the defect (its twin has none)
	}{
		{"schema", "", "tools.structured-result", `{"shaped":{"content":[{"type":"text","text":"{\"n\":\"one\"}"}],"structuredContent":{"n":"one"}}}`, ""},
		{"schema", "modern", "tools.structured-result", `{"shaped":{"content":[{"type":"text","text":"{\"n\":\"one\"}"}],"structuredContent":{"n":"one"}}}`, ""},
		{"retired", "modern", "modern.error-codes", "", `,"tools/call shaped":{"code":-32002,"message":"gone"}`},
	} {
		for _, defect := range []bool{true, false} {
			name := tc.name + "/" + tc.era + map[bool]string{true: "/defect", false: "/twin"}[defect]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				change := map[string]string{"tools": "[" + gated + "," + shaped + "]", "errors": "{" + needsCap + "}"}
				if defect && tc.results != "" {
					change["callResults"] = tc.results
				}
				if defect && tc.errors != "" {
					change["errors"] = "{" + needsCap + tc.errors + "}"
				}
				res := runChecks(t, fake{transport: "stdio", era: tc.era, change: change}, "tools", tc.check)
				got := res[tc.check]
				if want := map[bool]Status{true: Failed, false: Passed}[defect]; got.Status != want {
					t.Fatalf("%s: want %s\n%s", tc.check, want, describeResult(got))
				}
				judged := res["tools.result"]
				if defect && tc.errors != "" {
					// shaped refused too: nothing left to judge, each said
					if judged.Status != Skipped || !strings.Contains(judged.Message, "gated") || !strings.Contains(judged.Message, "shaped") {
						t.Fatalf("tools.result: want skipped, naming both tools\n%s", describeResult(judged))
					}
					return
				}
				if judged.Status != Passed || len(judged.Notes) != 1 || !strings.Contains(judged.Notes[0], "gated needs a client capability") {
					t.Fatalf("tools.result: want passed, with one note naming gated\n%s", describeResult(judged))
				}
			})
		}
	}
}

// A named tool that never answers is said for itself, at its call's own
// bound, and the other tool is judged all the same: its broken result
// fails tools.structured-result; its healthy twin passes the other, and
// the check, which cannot tell of the first, is inconclusive naming it,
// not passed. (Timers of a test's clock.)
func TestAToolWithoutAnAnswerStaysItsOwn(t *testing.T) {
	t.Parallel()
	for _, defect := range []bool{true, false} {
		t.Run(map[bool]string{true: "defect", false: "twin"}[defect], func(t *testing.T) {
			t.Parallel()
			change := map[string]string{"mute": `["tools/call slow"]`}
			if defect {
				change["callResults"] = `{"shaped":{"content":[{"type":"text","text":"{\"n\":\"one\"}"}],"structuredContent":{"n":"one"}}}`
			}
			tg, srv := fake{transport: "http", change: change}.targetServer(t)
			clk := mcptest.NewClock()
			const d = DefaultCheckTimeout
			opts := Options{Only: []string{"tools.structured-result"}, Strict: true, Calls: []Call{{Tool: "slow"}, {Tool: "shaped", Words: []string{"n=1"}}},
				afterFunc: func(d time.Duration, f func()) stopper { return clk.AfterFunc(d, f) }}
			ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
			defer cancel()
			reported := make(chan *Report, 1)
			go func() { // the run: ends when its check does
				r, err := Run(ctx, tg, opts)
				if err != nil {
					t.Errorf("Run: %v", err)
				}
				reported <- r
			}()
			if _, err := srv.Wait(ctx, func(r mcptest.HTTPRequest) bool { return r.RPCMethod == "tools/call" }); err != nil {
				t.Fatal(err)
			}
			clk.WaitUntil(t, "the call's own bound running, the check's time standing", func(ts mcptest.Timers) bool {
				return ts.Stopped[d] >= 1 && ts.Running[d] == 1
			})
			clk.Fire(d)
			r := <-reported
			if r == nil {
				return
			}
			got := r.Results[0]
			want, says := Inconclusive, "the call of slow: no answer"
			if defect {
				want, says = Failed, "n"
			}
			if got.Status != want || !strings.Contains(got.Message, says) || !strings.Contains(strings.Join(got.Notes, " "), "not judged: the call of slow") {
				t.Fatalf("want %s, saying %q, slow not judged in a note\n%s", want, says, describeResult(got))
			}
		})
	}
}

// tools.name-case fails a server that serves a tool under its name in
// another case, and is blocked by reading.unknown-tool on a server that
// serves a tool of any name, where a name's case shows nothing.
func TestNameCaseToldFromAnyName(t *testing.T) {
	t.Parallel()
	served := `{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}`
	for _, tc := range []struct {
		name, results string
		want          Status
	}{
		{"served in capitals alone", `{"SLOW":` + served + `,"SHAPED":` + served + `}`, Failed},
		{"served under any name", `{"SLOW":` + served + `,"SHAPED":` + served + `,"mcpv-check-no-such-tool":` + served + `}`, Blocked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runChecks(t, fake{transport: "stdio", change: map[string]string{"callResults": tc.results}}, "tools.name-case")["tools.name-case"]
			if r.Status != tc.want || tc.want == Blocked && r.BlockedBy != "reading.unknown-tool" {
				t.Errorf("%s", describeResult(r))
			}
		})
	}
}

// completion/complete without its argument answered with no values is
// no sure sign of input left unvalidated: reading.completion-inputs warns
// there, and fails an answer with values.
func TestCompletionInputsEmptyAnswerWarns(t *testing.T) {
	t.Parallel()
	change := faults("lenient-complete")
	change["answers"] = `{"completion/complete":{"completion":{"values":[]}}}`
	r := runChecks(t, fake{transport: "stdio", change: change}, "reading.completion-inputs")["reading.completion-inputs"]
	if r.Status != Warned || !strings.Contains(r.Message, "answered with no values") {
		t.Errorf("%s", describeResult(r))
	}
}
