package cost

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"testing"
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
