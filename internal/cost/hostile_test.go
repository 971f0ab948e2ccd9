package cost

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testkit"
)

// hostileTool is a tool whose description is desc, as a server would list
// it (desc's JSON text made by the encoder).
func hostileTool(t testing.TB, desc string, schema string) json.RawMessage {
	d, err := json.Marshal(desc)
	if err != nil {
		t.Fatal(err)
	}
	return json.RawMessage(`{"name":"x","description":` + string(d) + `,"inputSchema":` + schema + `}`)
}

// A description of 100 MiB, as one unbroken word and as prose, is counted
// in time and memory in proportion to it: the word in 64 KiB chunks
// (at most one token more per chunk than a whole count), the prose
// exactly; what the count allocates beyond the text is bounded.
func TestHostileDescriptionIsCountedWithinBounds(t *testing.T) {
	testkit.SkipLong(t, "counts 100 MiB descriptions")
	if testkit.Race {
		t.Skip("its bounds are of a run without the race detector, whose instrumentation allocates and takes ten times as long: .ci/run's guards run it so")
	}
	o200k, _ := Get("o200k")
	for _, c := range []struct {
		name string
		unit string
	}{
		{"one word", "abcdefgh"},
		{"prose", "Read the file at the given path and return its lines. "},
	} {
		desc := strings.Repeat(c.unit, (100<<20)/len(c.unit))
		ct := &Counter{Encoding: o200k, As: "openai"}
		tools := []json.RawMessage{hostileTool(t, desc, `{"type":"object"}`)}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		items, err := ct.Server("", surface.Server{Snapshot: surface.Snapshot{Tools: tools}})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		one, _ := o200k.Count(c.unit)
		two, _ := o200k.Count(c.unit + c.unit)
		if want := one + (len(desc)/len(c.unit)-1)*(two-one); c.name == "prose" && items[0].Description != want {
			t.Errorf("%s: %d tokens, want %d", c.name, items[0].Description, want)
		} else if items[0].Description < len(desc)/16 || items[0].Description > len(desc) {
			t.Errorf("%s: %d tokens for %d bytes", c.name, items[0].Description, len(desc))
		}
		if grown := after.TotalAlloc - before.TotalAlloc; !testkit.Race && grown > 6*uint64(len(desc)) {
			t.Errorf("%s: counting allocated %d MiB for a %d MiB description", c.name, grown>>20, len(desc)>>20)
		}
	}
}

// A schema 10,000 levels deep and a description of invalid UTF-8 are
// counted, not refused: the schema's text as sent, the bytes read as a
// reader of runes reads them.
func TestHostileSchemaAndBytes(t *testing.T) {
	o200k, _ := Get("o200k")
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 10000) + `{}` + strings.Repeat(`}}`, 10000)
	ct := &Counter{Encoding: o200k, As: "anthropic"}
	items, err := ct.Server("", surface.Server{Snapshot: surface.Snapshot{Tools: []json.RawMessage{
		hostileTool(t, "deep", deep),
		json.RawMessage("{\"name\":\"bytes\",\"description\":\"\xff\xfe caf\xc3 \\u001b[31m\u202e\",\"inputSchema\":{}}"),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := o200k.Count(deep); items[0].Tokens <= n {
		t.Errorf("deep schema: %d tokens, its schema alone has %d", items[0].Tokens, n)
	}
	if items[1].Tokens == 0 || items[1].Description == 0 {
		t.Errorf("invalid UTF-8: %+v", items[1])
	}
	text, _ := ct.Text(Tool, json.RawMessage("{\"name\":\"\xff\"}"))
	if !utf8.Valid(text) {
		t.Errorf("the text counted is not UTF-8: %q", text)
	}
}
