package audit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testkit"
)

// An audit of a tool whose description is of megabytes allocates at most
// three times what the description grew by: the item's bytes are the
// caller's, and the audit makes its decoded text and the cost counter's
// text of it, no more (15.5× when the description was unquoted twice and
// encoded twice to be counted, decoded into two copies, and every tool's
// purpose made whole for each parameter: mcpv audit of 60 MiB peaked at
// 397 MB). What is made once
// whatever the size (the tokenizer's table, the views of the first MiB)
// is left out by auditing a description of 1 MiB first.
func TestAuditAllocatesAtMostThreeTimesTheDescription(t *testing.T) {
	testkit.SkipLong(t, "a description of 60 MiB (.ci/run runs it without the race detector)")
	if testkit.Race {
		t.Skip("the race detector's instrumentation allocates beside what is counted")
	}
	item := func(n int) json.RawMessage {
		unit := "Reads a file from the disk and returns its lines.\n"
		raw, _ := json.Marshal(map[string]any{"name": "big", "description": strings.Repeat(unit, n/len(unit)+1)[:n],
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string", "description": "The file."}}}})
		return raw
	}
	allocated := func(raw json.RawMessage) uint64 {
		s := surface.Server{Name: "big", Snapshot: surface.Snapshot{Tools: []json.RawMessage{raw}}}
		var got []Finding
		n := testkit.Allocated(func() { got = Audit([]Target{{Surface: s}}) })
		if !has(got, RuleCostlyDescription, Low) {
			t.Fatalf("no costly-description finding:\n%s", describe(got))
		}
		return n
	}
	const small, large = 1 << 20, 8 << 20
	allocated(item(small)) // what is made once
	base := allocated(item(small))
	grown := allocated(item(large))
	if per := float64(grown-base) / (large - small); per > 3 {
		t.Errorf("a description %d MiB longer allocated %.1f MiB more (%.2f× as much)", (large-small)>>20, float64(grown-base)/(1<<20), per)
	}
}
