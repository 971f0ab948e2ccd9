package load

import (
	"context"
	"testing"
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
			op.params = op.callParams(op.args)
			r := &run{cfg: Config{Ops: []Op{op}, Seed: 1}, ctx: context.Background()}
			b.ReportAllocs()
			for k := 0; b.Loop(); k++ {
				if _, err := r.params(0, int64(k), k%16); err != nil {
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
