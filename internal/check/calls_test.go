package check

import (
	"strings"
	"testing"
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
