package jsonschema

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// chain builds a schema whose property p is level n of a chain: level 0 is
// bottom, and each level above applies its keyword to `fan` references to
// the level below (wrap, when set, wraps each but the first). Without kept
// verdicts, checking a value walks fan^n paths.
func chain(keyword string, n, fan int, bottom, wrap string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","$defs":{"d0":` + bottom)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"d%d":{%q:[`, i, keyword)
		for j := range fan {
			if j > 0 {
				b.WriteByte(',')
			}
			ref := fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, i-1)
			if wrap != "" && j > 0 {
				ref = strings.Replace(wrap, "REF", ref, 1)
			}
			b.WriteString(ref)
		}
		b.WriteString(`]}`)
	}
	fmt.Fprintf(&b, `},"properties":{"p":{"$ref":"#/$defs/d%d"}}}`, n)
	return b.String()
}

// notChain is a chain of not over allOf of two references: every other
// level passes, so half the levels check both branches.
func notChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"$defs":{"d0":{"type":"string"}`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"d%d":{"not":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}}`, i, i-1, i-1)
	}
	fmt.Fprintf(&b, `},"properties":{"p":{"$ref":"#/$defs/d%d"}}}`, n)
	return b.String()
}

// loopChain is an anyOf chain whose bottom refers back to its top without
// moving into the value: no verdict in it can be kept.
func loopChain(n int) string {
	return chain("anyOf", n, 2, fmt.Sprintf(`{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/d%d"}]}`, n), "")
}

// dynamicChain is an anyOf chain through $dynamicRef.
func dynamicChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"$dynamicAnchor":"d","type":"object","$defs":{"d0":{"$dynamicAnchor":"x","type":"string"}`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"},{"$dynamicRef":"#d"}]}`, i, i-1, i-1)
	}
	fmt.Fprintf(&b, `},"properties":{"p":{"$ref":"#/$defs/d%d"}}}`, n)
	return b.String()
}

func wideEnum(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"array","items":{"enum":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString(`]}}`)
	return b.String()
}

// costly are the worst shapes found, built at depth n (small: a depth with
// the same verdicts, cheap for any validator), each with a value it accepts
// and one it refuses (the keyword the refusal names).
var costly = []struct {
	name           string
	build          func(n int) string
	n, small       int
	valid, invalid string
	keyword        string
}{
	{"anyOf chain", func(n int) string { return chain("anyOf", n, 2, `{"type":"string"}`, "") }, 40, 2, `{"p":"s"}`, `{"p":1}`, "type"},
	{"allOf chain", func(n int) string { return chain("allOf", n, 2, `{"type":"string"}`, "") }, 40, 2, `{"p":"s"}`, `{"p":1}`, "type"},
	{"oneOf chain", func(n int) string {
		return chain("oneOf", n, 2, `{"type":"string"}`, `{"allOf":[{"not":REF},{"type":"integer"}]}`)
	}, 40, 2, `{"p":"s"}`, `{"p":true}`, "type"},
	{"not chain", notChain, 60, 2, `{"p":"s"}`, `{"p":1}`, "not"},
	{"$ref fan-out", func(n int) string { return chain("allOf", n, 10, `{"type":"string"}`, "") }, 12, 2, `{"p":"s"}`, `{"p":1}`, "type"},
	{"$dynamicRef chain", dynamicChain, 30, 2, `{"p":"s"}`, `{"p":1}`, "type"},
	{"unevaluated chain", func(n int) string {
		return strings.Replace(chain("anyOf", n, 2, `{"type":"object","properties":{"a":true}}`, ""), `"type":"object",`, `"type":"object","unevaluatedProperties":false,`, 1)
	}, 40, 2, `{"p":{"a":1}}`, `{"p":1}`, "type"},
	{"wide enum", wideEnum, 10000, 10000, `[9999,5000]`, `[1,10000]`, "enum"},
}

// However a schema applies one subschema to one value again and again, a
// check costs at most the number of subschemas times the number of values:
// each of these took 2^40 steps or more before.
func TestCostlySchemasAreQuick(t *testing.T) {
	for _, c := range costly {
		t.Run(c.name, func(t *testing.T) {
			s := mustCompile(t, c.build(c.n))
			if err := s.Validate([]byte(c.valid)); err != nil {
				t.Errorf("valid %s: %v", c.valid, err)
			}
			err := s.Validate([]byte(c.invalid))
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Keyword != c.keyword {
				t.Errorf("invalid %s: %v, want a violation of %s", c.invalid, err, c.keyword)
			}
		})
	}
}

// A schema whose references loop back without moving into the value has
// verdicts that cannot be kept: built to be exponential, its check ends
// with a *CostError, and at once when the context has ended.
func TestLoopingSchemaEndsWithCostError(t *testing.T) {
	s := mustCompile(t, loopChain(40))
	if err := s.Validate([]byte(`{"p":1}`)); err != nil {
		t.Errorf("an integer, found at the first loop: %v", err)
	}
	err := s.Validate([]byte(`{"p":"s"}`))
	var ce *CostError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "checking a value against it would take more than") {
		t.Errorf("a string: %v, want a *CostError", err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("interrupted")
	cancel(stop)
	if err := s.ValidateContext(ctx, []byte(`{"p":"s"}`)); !errors.Is(err, stop) {
		t.Errorf("with its context ended: %v", err)
	}
	small := mustCompile(t, loopChain(3))
	if err := small.Validate([]byte(`{"p":"s"}`)); err == nil || errors.As(err, &ce) {
		t.Errorf("a small loop: %v, want a violation", err)
	}
}

// An ordinary check keeps no verdict, even over many values and a
// definition used from two places: a large result holds no memo per item.
func TestOrdinaryChecksKeepNothing(t *testing.T) {
	s := mustCompile(t, `{"type":"array","items":{"$ref":"#/$defs/i"},"$defs":{"i":{"type":"object","properties":{"a":{"$ref":"#/$defs/s"},"b":{"$ref":"#/$defs/s"}}},"s":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`)
	value := "[" + strings.TrimSuffix(strings.Repeat(`{"a":"x","b":null},`, 10000), ",") + "]"
	v, err := parse([]byte(value))
	if err != nil {
		t.Fatal(err)
	}
	r := newRun(t.Context(), s.nodes)
	if err := s.run(r, &v); err != nil || r.memo != nil {
		t.Errorf("%v, %d verdicts kept", err, len(r.memo))
	}
}

// itemsChain is an anyOf chain of n levels used as an array's items,
// beside strings: an integer item passes on the first path, a string item
// fails all 2^n of them before the string branch takes it.
func itemsChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"$defs":{"d0":{"type":"integer"}`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i-1, i-1)
	}
	fmt.Fprintf(&b, `},"type":"array","items":{"anyOf":[{"$ref":"#/$defs/d%d"},{"type":"string"}]}}`, n)
	return b.String()
}

// items is a JSON array of first and then n-1 times rest.
func items(first, rest string, n int) string {
	return "[" + first + strings.Repeat(","+rest, n-1) + "]"
}

// One costly item costs no other item its allowance: verdicts are kept on
// the value visited often, the string, and nowhere else, and the many
// integers cost their plain walk each.
func TestOneCostlyItemKeepsVerdictsOnItsOwn(t *testing.T) {
	s := mustCompile(t, itemsChain(40))
	const n = 40000
	v, err := parse([]byte(items(`"s"`, "1", n)))
	if err != nil {
		t.Fatal(err)
	}
	r := newRun(t.Context(), s.nodes)
	if err := s.run(r, &v); err != nil {
		t.Fatal(err)
	}
	if len(r.memo) > s.nodes || r.steps > 100*n { // about two steps a level for an integer
		t.Errorf("%d verdicts kept (the schema has %d subschemas), %d steps for %d items", len(r.memo), s.nodes, r.steps, n)
	}
}

// A value whose every item is costly keeps verdicts on each, up to
// maxKept bytes: then the check ends with a *CostError, having held no
// more.
func TestManyCostlyItemsEndWithCostError(t *testing.T) {
	s := mustCompile(t, itemsChain(40))
	v, err := parse([]byte(items(`"s"`, `"s"`, 20000)))
	if err != nil {
		t.Fatal(err)
	}
	r := newRun(t.Context(), s.nodes)
	err = s.run(r, &v)
	var ce *CostError
	if !errors.As(err, &ce) || r.kept > maxKept {
		t.Errorf("%v, want a *CostError; %d bytes of verdicts kept", err, r.kept)
	}
	few := mustCompile(t, itemsChain(40))
	if err := few.Validate([]byte(items(`"s"`, `"s"`, 100))); err != nil {
		t.Errorf("a hundred strings: %v", err)
	}
}

// fanOut is an array whose every item is checked against n references to
// one subschema: about n steps an item, none of them loops, nothing kept.
func fanOut(n int) string {
	return `{"$defs":{"d":{"type":"integer"}},"type":"array","items":{"allOf":[` +
		strings.TrimSuffix(strings.Repeat(`{"$ref":"#/$defs/d"},`, n), ",") + `]}}`
}

// An honest-looking schema (21 KB) against a big value (2 MB) walks a
// billion steps: the absolute budget ends it, and at its figure, not
// past it.
func TestStepBudgetEndsABigCheck(t *testing.T) {
	testkit.SkipLong(t, "walks the whole budget")
	s := mustCompile(t, fanOut(1000))
	var ce *CostError
	if err := s.Validate([]byte(items("1", "1", 1_000_000))); !errors.As(err, &ce) || ce.Steps > 1<<26+ctxEvery {
		t.Errorf("%v, want a *CostError after at most 2^26 steps", err)
	}
}

// BenchmarkCostly validates the worst shapes: the invalid value, which
// walks the most.
func BenchmarkCostly(b *testing.B) {
	for _, c := range costly {
		b.Run(strings.ReplaceAll(c.name, " ", "-"), func(b *testing.B) {
			s := mustCompile(b, c.build(c.n))
			b.ReportAllocs()
			for b.Loop() {
				if s.Validate([]byte(c.invalid)) == nil {
					b.Fatal("valid")
				}
			}
		})
	}
	b.Run("items-one-string-then-40k-integers", func(b *testing.B) {
		s := mustCompile(b, itemsChain(40))
		value := []byte(items(`"s"`, "1", 40000))
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Validate(value); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("items-100k-strings-to-cost-error", func(b *testing.B) {
		s := mustCompile(b, itemsChain(40))
		value := []byte(items(`"s"`, `"s"`, 100000))
		b.ReportAllocs()
		for b.Loop() {
			var ce *CostError
			if !errors.As(s.Validate(value), &ce) {
				b.Fatal("no cost error")
			}
		}
	})
	b.Run("allOf-1000-refs-over-1M-items-to-cost-error", func(b *testing.B) {
		s := mustCompile(b, fanOut(1000))
		value := []byte(items("1", "1", 1_000_000))
		b.ReportAllocs()
		for b.Loop() {
			var ce *CostError
			if !errors.As(s.Validate(value), &ce) {
				b.Fatal("no cost error")
			}
		}
	})
	b.Run("loop-to-cost-error", func(b *testing.B) {
		s := mustCompile(b, loopChain(40))
		b.ReportAllocs()
		for b.Loop() {
			var ce *CostError
			if !errors.As(s.Validate([]byte(`{"p":"s"}`)), &ce) {
				b.Fatal("no cost error")
			}
		}
	})
}
