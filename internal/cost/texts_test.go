package cost

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/surface"
)

var writeTexts = flag.String("write-texts", "", "write the texts the tiktokenCount counts are taken for, as JSON lines, to this file")

// TestWriteTexts writes the texts of testdata/tiktoken.jsonl, for
// scripts/tiktoken-tiktokenCount.sh to count with OpenAI's tiktoken.
func TestWriteTexts(t *testing.T) {
	if *writeTexts == "" {
		t.Skip("-write-texts FILE not given")
	}
	f, err := os.Create(*writeTexts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	texts := append([]string(nil), samples...)
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		texts = append(texts, randomText(r))
	}
	for _, s := range texts {
		if err := enc.Encode(map[string]string{"text": s}); err != nil {
			t.Fatal(err)
		}
	}
}

// tiktokenCount is a text with OpenAI's tiktoken's counts.
type tiktokenCount struct {
	Text   string `json:"text"`
	O200k  int    `json:"o200k_base"`
	CL100k int    `json:"cl100k_base"`
}

func readReferences(t *testing.T) []tiktokenCount {
	data, err := os.ReadFile("testdata/tiktoken.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var refs []tiktokenCount
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var r tiktokenCount
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	return refs
}

// TestCountsAgreeWithTiktoken: every count of testdata/tiktoken.jsonl,
// taken with OpenAI's own tiktoken (scripts/tiktoken-tiktokenCount.sh), is
// mcpv's.
func TestCountsAgreeWithTiktoken(t *testing.T) {
	refs := readReferences(t)
	if len(refs) < 1000 {
		t.Fatalf("only %d tiktokenCount texts", len(refs))
	}
	wrong := 0
	for _, r := range refs {
		for _, c := range []struct {
			e    *Encoding
			want int
		}{{Encodings[0], r.O200k}, {Encodings[1], r.CL100k}} {
			got, err := c.e.Count(r.Text)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				wrong++
				if wrong < 10 {
					t.Errorf("%s %q: %d tokens, tiktoken counts %d", c.e.Name, r.Text, got, c.want)
				}
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%d counts of %d differ", wrong, 2*len(refs))
	}
}

var (
	writeSnapshot = flag.String("write-bench-snapshot", "", "write an mcpv test snapshot of 1,000 tools to this file, for scripts/bench/cost.sh")
	benchFrom     = flag.String("bench-from", "", "with -write-bench-snapshot: a directory of real servers' listings (JSON files with a tools list) to draw the tools from")
)

// TestWriteBenchSnapshot writes the input of scripts/bench/cost.sh: 1,000
// tools, drawn in turn from the listings of -bench-from (renamed so that
// no two share a name), or made by benchTools when it is not given.
func TestWriteBenchSnapshot(t *testing.T) {
	if *writeSnapshot == "" {
		t.Skip("-write-bench-snapshot FILE not given")
	}
	var pool []json.RawMessage
	if *benchFrom != "" {
		files, _ := filepath.Glob(filepath.Join(*benchFrom, "*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var l struct {
				Tools []json.RawMessage `json:"tools"`
			}
			if json.Unmarshal(data, &l) == nil {
				pool = append(pool, l.Tools...)
			}
		}
	}
	if len(pool) == 0 {
		pool = benchTools(1000)
	}
	tools := make([]json.RawMessage, 1000)
	for i := range tools {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(pool[i%len(pool)], &m); err != nil {
			t.Fatal(err)
		}
		m["name"], _ = json.Marshal(fmt.Sprintf("t%04d_%s", i, str(pool[i%len(pool)], "name")))
		tools[i], _ = json.Marshal(m)
	}
	data, _ := json.Marshal(map[string]any{"mcpvSnapshot": 1, "tools": tools, "prompts": []any{}, "resourceTemplates": []any{}})
	if err := os.WriteFile(*writeSnapshot, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tools drawn from %d", len(tools), len(pool))
}

// benchTools are n tools of the shape real servers list: a description of
// a few sentences, and a schema of a handful of described properties.
func benchTools(n int) []json.RawMessage {
	r := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("read write list search create update delete the a file files repository issue pull request branch commit user message channel page database table row query result results from to with for by in of and or return returns optional required path name id limit offset cursor maximum number string content text format JSON markdown")
	sentence := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.ToUpper(w[0][:1]) + strings.Join(w, " ")[1:] + "."
	}
	out := make([]json.RawMessage, n)
	for i := range out {
		props := map[string]any{}
		for j := range 2 + r.IntN(5) {
			props[fmt.Sprintf("p%d", j)] = map[string]any{"type": []string{"string", "integer", "boolean"}[r.IntN(3)], "description": sentence(6 + r.IntN(10))}
		}
		desc := ""
		for range 1 + r.IntN(4) {
			desc += sentence(8+r.IntN(14)) + " "
		}
		out[i], _ = json.Marshal(map[string]any{"name": fmt.Sprintf("tool_%d", i), "description": strings.TrimSpace(desc),
			"inputSchema": map[string]any{"type": "object", "properties": props, "required": []string{"p0"}}})
	}
	return out
}

// BenchmarkCost1000Tools is what counting 1,000 tools costs once the
// vocabulary is read (BenchmarkLoad is the reading).
func BenchmarkCost1000Tools(b *testing.B) {
	o200k, _ := Get("o200k")
	if err := o200k.loadNow(); err != nil {
		b.Fatal(err)
	}
	s := surface.Server{Snapshot: surface.Snapshot{Tools: benchTools(1000)}}
	b.ResetTimer()
	for range b.N {
		ct := &Counter{Encoding: o200k, As: "openai"}
		if _, err := ct.Server("", s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad is reading o200k_base's vocabulary, once per run of cost.
func BenchmarkLoad(b *testing.B) {
	for range b.N {
		e := Encoding{Name: "o200k_base", at: o200kAt}
		if err := e.loadNow(); err != nil {
			b.Fatal(err)
		}
	}
}

// Load reads the vocabulary now, so that the first Count does not.
func (e *Encoding) loadNow() error {
	_, err := e.ranks()
	return err
}
