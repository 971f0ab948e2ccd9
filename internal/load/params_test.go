package load

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/toolcall"
)

// The CPU a call's template costs an iteration, all told: the input made,
// the expression run within its bounds, the arguments and params written.
// Beside mcpv's CPU a call over HTTP (about 110 µs in
// scripts/bench/load-round2.sh), this is the share a template takes.
func BenchmarkCallParams(b *testing.B) {
	for _, bc := range []struct {
		name  string
		words []string
	}{
		{"same", []string{"call", "greet", "name=x"}},
		{"template", []string{"call", "greet", `name~="x-\(.iteration)"`}},
		{"template-dotted", []string{"call", "greet", `who.name~="x-\(.iteration)"`}},
		{"template-escaped", []string{"call", "greet", `name~="<x> & \(.iteration)"`}}, // what encoding/json escapes
	} {
		b.Run(bc.name, func(b *testing.B) {
			op, err := ParseOp(bc.words, nil)
			if err != nil {
				b.Fatal(err)
			}
			op.args = []byte(`{"name":"x"}`)
			if op.Varies() {
				op.args = []byte(`{}`)
			}
			op.flat = flatTemplates(op.tmpls, op.args)
			op.params = toolcall.Params(op.target, op.args, nil)
			r := &run{cfg: Config{Ops: []Op{op}, Seed: 1}, ctx: context.Background()}
			b.ReportAllocs()
			for k := 0; b.Loop(); k++ {
				if _, _, err := r.params(0, int64(k), k%16); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A varying call's params carry the arguments the templates wrote as they
// are (not checked and encoded again by encoding/json, which would escape
// < and &), beside the tool's name as encoding/json writes it.
func TestCallIterationParams(t *testing.T) {
	op, err := ParseOp([]string{"call", "a<b", `name~="<x> & \(.iteration)"`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	op.args = []byte(`{}`)
	op.flat = flatTemplates(op.tmpls, op.args)
	params, err := op.Params(t.Context(), map[string]any{"iteration": 7})
	if want := `{"name":"a\u003cb","arguments":{"name":"<x> & 7"}}`; err != nil || string(params) != want {
		t.Errorf("params %s, %v, want %s", params, err, want)
	}
}

// An iteration's params of a large row's string are written once, at
// their size: a 100 MiB row is not copied three times over (the value
// encoded, grown into a buffer, copied into the params). Counted in
// bytes allocated, which no machine's speed changes.
func TestLargeValueParamsWrittenOnce(t *testing.T) {
	const size = 8 << 20
	op, err := ParseOp([]string{"call", "search", `q~=.row.q`, `n~=.iteration`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	op.args = []byte(`{}`)
	op.flat = flatTemplates(op.tmpls, op.args)
	in := map[string]any{"iteration": 7, "row": map[string]any{"q": strings.Repeat("x", size)}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	params, err := op.Params(t.Context(), in)
	runtime.ReadMemStats(&after)
	if err != nil || len(params) < size || !strings.HasSuffix(string(params), `","n":7}}`) {
		t.Fatalf("params (%d bytes): %.60s..., %v", len(params), params, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size+size/4 {
		t.Errorf("the params of one %d MiB value allocated %d MiB; want them written once", size>>20, got>>20)
	}
}
