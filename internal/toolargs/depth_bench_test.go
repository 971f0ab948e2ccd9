package toolargs

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// deepSchema nests n object schemas, each under property a.
func deepSchema(n int) json.RawMessage {
	return json.RawMessage(strings.Repeat(`{"type":"object","properties":{"a":`, n) + `{"type":"string"}` + strings.Repeat(`}}`, n))
}

// BenchmarkCompileDeepest is the deepest schema Compile accepts, compiled
// each time (a fresh memo).
func BenchmarkCompileDeepest(b *testing.B) {
	s := deepSchema(MaxDepth/2 - 1)
	for b.Loop() {
		var m schemaMemo
		if _, err := m.get(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileRefused is a schema far too deep, refused before any work.
func BenchmarkCompileRefused(b *testing.B) {
	s := deepSchema(4900)
	for b.Loop() {
		if _, err := Compile(b.Context(), s); err == nil {
			b.Fatal("compiled")
		}
	}
}

// wideSchema has n properties, each an object of one integer property.
func wideSchema(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `":{"type":"object","properties":{"a":{"type":"integer"}}}`)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}

// BenchmarkCompileWide is a large flat schema, which the depth bound must
// not slow down, compiled each time (a fresh memo).
func BenchmarkCompileWide(b *testing.B) {
	s := wideSchema(2000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		var m schemaMemo
		if _, err := m.get(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileAgain is the same schema again, as a batch calling one
// tool compiles it: the depth bound and the memo.
func BenchmarkCompileAgain(b *testing.B) {
	s := wideSchema(2000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := Compile(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
}
