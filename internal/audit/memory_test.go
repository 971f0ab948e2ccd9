package audit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testkit"
)

// bigTool is a tool whose description is n bytes of paragraphs.
func bigTool(n int) json.RawMessage {
	unit := "Reads a file from the disk and returns its lines.\nLit un fichier du disque et rend ses lignes.\n\n"
	raw, _ := json.Marshal(map[string]any{"name": "big", "description": strings.Repeat(unit, n/len(unit)+1)[:n],
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string", "description": "The file."}}}})
	return raw
}

// perByte is what auditing a surface of one tool whose description is
// 7 MiB longer allocates more, a byte of the description: read, which
// prepare makes of a tool as bigTool makes it, reads the audit's targets
// (what it allocates is counted). What is made once whatever the size
// (the tokenizer's table, the views of the first MiB) is left out by
// auditing a description of 1 MiB first.
func perByte(t *testing.T, prepare func(json.RawMessage) (read func() []Target)) float64 {
	t.Helper()
	if testkit.Race {
		t.Skip("the race detector's instrumentation allocates beside what is counted")
	}
	allocated := func(n int) uint64 {
		read := prepare(bigTool(n))
		var got []Finding
		allocs := testkit.Allocated(func() { got = Audit(read()) })
		if !has(got, RuleCostlyDescription, Low) {
			t.Fatalf("no costly-description finding:\n%s", describe(got))
		}
		return allocs
	}
	const small, large = 1 << 20, 8 << 20
	allocated(small) // what is made once
	base := allocated(small)
	return float64(allocated(large)-base) / (large - small)
}

// An audit of a tool whose description is of megabytes allocates at most
// three times what the description grew by: the item's bytes are the
// caller's, and the audit makes its decoded text and the cost counter's
// text of it, no more (15.5× when the description was unquoted twice and
// encoded twice to be counted, decoded into two copies, and every tool's
// purpose made whole for each parameter: mcpv audit of 60 MiB peaked at
// 397 MB).
func TestAuditAllocatesAtMostThreeTimesTheDescription(t *testing.T) {
	testkit.SkipLong(t, "a description of 8 MiB (.ci/run runs it without the race detector)")
	if per := perByte(t, func(raw json.RawMessage) func() []Target {
		return func() []Target {
			return []Target{{Surface: surface.Server{Name: "big", Snapshot: surface.Snapshot{Tools: []json.RawMessage{raw}}}}}
		}
	}); per > 3 {
		t.Errorf("a description 7 MiB longer allocated %.2f× as much more", per)
	}
}

// A saved surface costs what a live one costs, and the file: the audit
// of a pin file, read as mcpv audit FILE reads it, allocates at most
// 2.5 times the description beside what the audit of the same tool from
// a server allocates: the file read whole, and the definition it holds
// made canonical (12.6× when each definition's string with escapes, a
// paragraph break say, was unquoted and encoded again through
// encoding/json's growing buffer to be made canonical, though a pin file
// holds it canonical already: mcpv audit of a pin of 60 MiB peaked at
// 396 MB, where that of the same tool from a snapshot took 201).
func TestAuditOfASavedSurfaceAllocatesAsALiveOne(t *testing.T) {
	testkit.SkipLong(t, "descriptions of 8 MiB (.ci/run runs it without the race detector)")
	live := perByte(t, func(raw json.RawMessage) func() []Target {
		return func() []Target {
			return []Target{{Surface: surface.Server{Name: "big", Snapshot: surface.Snapshot{Tools: []json.RawMessage{raw}}}}}
		}
	})
	saved := perByte(t, func(raw json.RawMessage) func() []Target {
		p, err := pin.Record("big", surface.Server{Snapshot: surface.Snapshot{Tools: []json.RawMessage{raw}}})
		if err != nil {
			t.Fatal(err)
		}
		file := (&pin.File{Servers: []*pin.Server{p}}).Marshal()
		return func() []Target {
			// read as a file is: into a buffer of its size
			sf, err := pin.ReadSurfaceFile("pins.json", func(string) ([]byte, error) { return bytes.Clone(file), nil })
			if err != nil {
				t.Fatal(err)
			}
			return []Target{{Surface: sf.Servers[0], Source: "pins.json", Lines: sf.Lines}}
		}
	})
	if saved-live > 2.5 {
		t.Errorf("a description 7 MiB longer allocated %.2f× as much more from a pin file, %.2f× from a server", saved, live)
	}
}
