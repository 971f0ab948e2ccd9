package check

import (
	"testing"
)

// edgeCase is a correct server at the edge of a MUST check's scope: what
// the requirement's sentence does not cover, which the check must not
// fail.
type edgeCase struct {
	name   string
	fake   fake
	change map[string]string
	id     string
	want   Status
}

var edgeCases = []edgeCase{
	// The rule is about methods a server does not implement: one of the
	// 2026-07-28 era that still serves ping (and the era's other former
	// methods) breaks nothing.
	{name: "a modern server answering ping", fake: httpModern, change: faults("removed-methods-served"), id: "modern.removed-methods", want: Passed},
}

// A correct server at the edge of a MUST's scope is not failed by it.
func TestEdgesOfMusts(t *testing.T) {
	for _, tc := range edgeCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.fake
			f.change = merge(f.change, tc.change)
			r := runChecks(t, f, tc.id)[tc.id]
			if r.Status != tc.want {
				t.Errorf("want %s: %s", tc.want, describeResult(r))
			}
		})
	}
}
