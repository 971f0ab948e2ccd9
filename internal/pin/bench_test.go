package pin

import (
	"encoding/json"
	"fmt"
	"strings"
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

// BenchmarkCanonical writes the canonical form of a list of 1,000 tools,
// keys out of order, and of a schema nested 3,000 properties deep, which
// must cost about its size, not its size times its depth.
func BenchmarkCanonical(b *testing.B) {
	var tools []string
	for i := range 1000 {
		tools = append(tools, fmt.Sprintf(`{"name":"t%d","description":"Tool %d.","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"A query."},"n":{"type":"integer"}},"required":["q"]}}`, i, i))
	}
	for _, tc := range []struct{ name, doc string }{
		{"1000 tools", `{"tools":[` + strings.Join(tools, ",") + `]}`},
		{"3000 deep", deepSchema(3000)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.doc)))
			for b.Loop() {
				if _, err := Canonical([]byte(tc.doc)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
