package output

// Benchmarks of printing a large tools/call result, with and without a jq
// filter. Each checks its output once before timing.
//
//	go test ./output -run XXX -bench . -benchmem -count=5

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/jq"
)

// largeResult is a ~20 MB tools/call result as a server sends it (compact).
type largeResult struct {
	name      string
	raw       []byte
	items     int    // content items
	firstText string // the first item's text
	firstLen  int    // its length
}

type textItem struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// newLargeResult builds a result of n text items sharing ~20 MB of text;
// the text has newlines and quotes, so the JSON has escapes to decode.
func newLargeResult(name string, n int) largeResult {
	line := `A line of "tool output", with some escapes to decode.` + "\n"
	text := strings.Repeat(line, (20<<20)/n/len(line)+1)
	content := make([]textItem, n)
	for i := range content {
		content[i] = textItem{Type: "text", Text: text}
	}
	raw, err := json.Marshal(struct {
		Content []textItem `json:"content"`
		IsError bool       `json:"isError"`
	}{content, false})
	if err != nil {
		panic(err)
	}
	return largeResult{name: name, raw: raw, items: n, firstText: text, firstLen: len(text)}
}

func largeResults() []largeResult {
	return []largeResult{
		newLargeResult("items", 20_000), // ~1 KB each
		newLargeResult("text", 1),
	}
}

// BenchmarkFilterLargeResult runs --jq over a large result: Printer.Print
// decodes it for gojq, runs the filter and prints its output, a number or
// (first-text-raw, with -r) the first text block.
func BenchmarkFilterLargeResult(b *testing.B) {
	for _, r := range largeResults() {
		for _, f := range []struct {
			name, expr string
			raw        bool // jq -r
			want       func(largeResult) string
		}{
			{"first-text-length", `.content[0].text | length`, false, func(r largeResult) string { return fmt.Sprintf("%d\n", r.firstLen) }},
			{"all-texts-count", `[.content[] | .text] | length`, false, func(r largeResult) string { return fmt.Sprintf("%d\n", r.items) }},
			{"first-text-raw", `.content[0].text`, true, func(r largeResult) string { return r.firstText + "\n" }},
		} {
			b.Run(r.name+"/"+f.name, func(b *testing.B) {
				filter, err := jq.Compile(f.expr, nil)
				if err != nil {
					b.Fatal(err)
				}
				var out bytes.Buffer
				if err := (&Printer{Out: &out, Filter: filter, Format: Format{Raw: f.raw}}).Print(r.raw); err != nil {
					b.Fatal(err)
				}
				if got, want := out.String(), f.want(r); got != want {
					b.Fatalf("%s printed %.80q…, want %.80q…", f.expr, got, want)
				}
				p := &Printer{Out: io.Discard, Filter: filter, Format: Format{Raw: f.raw}}
				b.ReportAllocs()
				b.SetBytes(int64(len(r.raw)))
				for b.Loop() {
					if err := p.Print(r.raw); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPrintLargeResult prints the same results without a filter
// (compact, as mcpv does when stdout is not a terminal).
func BenchmarkPrintLargeResult(b *testing.B) {
	for _, r := range largeResults() {
		b.Run(r.name, func(b *testing.B) {
			var out bytes.Buffer
			if err := (&Printer{Out: &out}).Print(r.raw); err != nil {
				b.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), append(r.raw, '\n')) {
				b.Fatalf("printed %d bytes, want the %d-byte result and a newline", out.Len(), len(r.raw))
			}
			p := &Printer{Out: io.Discard}
			b.ReportAllocs()
			b.SetBytes(int64(len(r.raw)))
			for b.Loop() {
				if err := p.Print(r.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
