package toolargs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// refChain is a schema whose property p1 is a chain of n levels of keyword,
// each over two references to the level below, ending in bottom: 2^n paths.
func refChain(keyword string, n int, bottom string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","$defs":{"d0":` + bottom)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"d%d":{%q:[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, keyword, i-1, i-1)
	}
	fmt.Fprintf(&b, `},"properties":{"p1":{"$ref":"#/$defs/d%d"}}}`, n)
	return b.String()
}

// costlySchemas are schemas whose naive typing walks 2^40 paths, or loops.
var costlySchemas = []string{
	refChain("anyOf", 40, `{"type":"integer"}`),
	refChain("oneOf", 40, `{"type":"object","properties":{"a":{"type":"boolean"}}}`),
	refChain("allOf", 40, `{"type":"string"}`),
	`{"type":"object","$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"integer"}]}},"properties":{"p1":{"$ref":"#/$defs/a"}}}`,
}

// Typing by a schema looks at each of its subschemas once: chains of
// references that fan out, or loop, are typed at once, as a list as long as
// the chain.
func TestTypingCostlySchemas(t *testing.T) {
	tests := []struct {
		schema string
		words  []string
		want   string
	}{
		{costlySchemas[0], []string{"p1=007"}, `{"p1":7}`},
		{costlySchemas[1], []string{"p1.a=true"}, `{"p1":{"a":true}}`},
		{costlySchemas[2], []string{"p1=007"}, `{"p1":"007"}`},
		{costlySchemas[3], []string{"p1=1"}, `{"p1":1}`},
	}
	for _, tt := range tests {
		got, err := Build(t.Context(), tt.words, nil, Options{Schema: json.RawMessage(tt.schema)})
		if err != nil || string(got) != tt.want {
			t.Errorf("Build(%q) = %s, %v; want %s", tt.words, got, err, tt.want)
		}
	}
	if _, err := Build(t.Context(), []string{"p1=x"}, nil, Options{Schema: json.RawMessage(costlySchemas[0])}); err == nil || err.Error() != `argument p1: "x" is not an integer` {
		t.Errorf("a wrong value: %v", err)
	}
}

// Typing and checking end when their context does.
func TestTypingAndCheckingHonourTheContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("interrupted")
	cancel(stop)
	if _, err := Build(ctx, []string{"p1=1"}, nil, Options{Schema: json.RawMessage(costlySchemas[0])}); !errors.Is(err, stop) {
		t.Errorf("Build: %v", err)
	}
	v, err := Compile(t.Context(), json.RawMessage(costlySchemas[2]))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(ctx, json.RawMessage(`{"p1":"s"}`)); !errors.Is(err, stop) {
		t.Errorf("Validate: %v", err)
	}
	if err := v.Validate(t.Context(), json.RawMessage(`{"p1":"s"}`)); err != nil {
		t.Errorf("Validate, valid: %v", err)
	}
	var viol *Violation
	if err := v.Validate(t.Context(), json.RawMessage(`{"p1":1}`)); !errors.As(err, &viol) || viol.Pointer != "/p1" || viol.Rule != "type" {
		t.Errorf("Validate, invalid: %v", err)
	}
}

// A check that loops back on itself too often ends with a *CostError.
func TestCheckingALoopEndsWithCostError(t *testing.T) {
	loop := refChain("anyOf", 40, `{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/d40"}]}`)
	v, err := Compile(t.Context(), json.RawMessage(loop))
	if err != nil {
		t.Fatal(err)
	}
	var ce *CostError
	if err := v.Validate(t.Context(), json.RawMessage(`{"p1":"s"}`)); !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "checking a value against it would take more than ") {
		t.Errorf("Validate: %v", err)
	}
}

// BenchmarkTypingCostly types one key=value by each costly schema.
func BenchmarkTypingCostly(b *testing.B) {
	words := []string{"p1=1", "p1.a=true", "p1=1", "p1=1"}
	for i, name := range []string{"anyOf-chain", "oneOf-chain", "allOf-chain", "loop"} {
		b.Run(name, func(b *testing.B) {
			opts := Options{Schema: json.RawMessage(costlySchemas[i])}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Build(b.Context(), []string{words[i]}, nil, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
