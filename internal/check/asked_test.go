package check

import (
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// What a connection that declares elicitation, sampling and roots answers
// the server is a result its revision's schema has: an elicitation
// declined, a sampled message, a list of roots.
func TestAnswersAreResults(t *testing.T) {
	for _, version := range schemaRevisions {
		sc := schemaOf(version)
		for _, method := range []string{"elicitation/create", "sampling/createMessage", "roots/list", "ping"} {
			def := sc.resultDef(method)
			if def == "" && method == "ping" && version == mcp.ModernVersion {
				continue // 2026-07-28 has no ping
			}
			if def == "" {
				t.Errorf("%s: the schema has no result of %s", version, method)
				continue
			}
			if why := sc.validate(def, clientAnswer(method)); why != "" {
				t.Errorf("%s: the answer to %s is no %s: %s", version, method, def, why)
			}
		}
	}
}

// A server that asks without end is answered a bounded number of times,
// and the report says how many were left; one whose form is 20,000
// properties and one of them 5,000 objects deep is judged, and fails.
func TestHostileAsks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault, id string
		want      Status
		said      string
	}{
		{"asks-loop", "asks.elicitation", Passed, "left unanswered"},
		{"asks-huge-schema", "asks.elicitation", Failed, `property "deep"`},
		{"asks-js-url", "asks.elicitation-url", Passed, ""},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			r := runChecks(t, fake{transport: "stdio", change: faults("asks", tc.fault)}, tc.id)[tc.id]
			if r.Status != tc.want || !strings.Contains(describeResult(r), tc.said) {
				t.Errorf("want %s saying %q: %s", tc.want, tc.said, describeResult(r))
			}
		})
	}
}
