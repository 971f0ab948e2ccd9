package pin

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpv/mcpv/internal/surface"
)

// BenchmarkCompareReplaced compares a pin of 2,000 tools with a server
// that replaced every one of them: each new tool is looked for among the
// pinned ones as a look-alike and a rename, which must cost the list's
// length, not its square.
func BenchmarkCompareReplaced(b *testing.B) {
	tools := func(prefix string) []json.RawMessage {
		var out []json.RawMessage
		for i := range 2000 {
			out = append(out, json.RawMessage(fmt.Sprintf(`{"name":"%s_%d","description":"Tool %d of %s.","inputSchema":{"type":"object"}}`, prefix, i, i, prefix)))
		}
		return out
	}
	old := surface.Server{HasIdentity: true, Snapshot: surface.Snapshot{Tools: tools("old")}}
	p, err := Record("s", old)
	if err != nil {
		b.Fatal(err)
	}
	live := surface.Server{HasIdentity: true, Snapshot: surface.Snapshot{Tools: tools("new")}}
	for b.Loop() {
		if moves := p.Compare(live); len(moves) != 4000 {
			b.Fatalf("%d moves", len(moves))
		}
	}
}
