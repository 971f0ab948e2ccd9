package testkit

// What the fuzz targets of mcpv's parsers share
// beyond "no panic": a parse of bytes a cloned repository or a server
// wrote allocates no more than a bound per byte of them, so that a small
// hostile file cannot make mcpv's memory grow out of proportion to it;
// and the hostile inputs every parser of JSON or YAML is seeded with
// (aliases of aliases, deep nesting, huge numbers, invalid UTF-8).

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// Allocated is the bytes of heap the process allocates while fn runs. It
// counts every goroutine's: call it where no other test runs (a fuzz
// target's body runs alone, and so do its seeds).
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Bounded runs fn, which parses input of n bytes, and fails t when it
// allocates more than base + perByte×n bytes (not under the race
// detector, whose instrumentation allocates: see Race).
func AllocBounded(t testing.TB, n int, base, perByte uint64, fn func()) {
	t.Helper()
	if Race {
		fn()
		return
	}
	if got, limit := Allocated(fn), base+perByte*uint64(n); got > limit {
		t.Errorf("%d bytes of input allocated %d bytes, more than %d (%d + %d a byte)", n, got, limit, base, perByte)
	}
}

// HostileJSON is hostile JSON texts: nesting ten thousand deep and past any
// decoder's limit, numbers of a thousand digits and past float64's range,
// invalid UTF-8 and escapes of lone surrogates, a NUL, a byte-order mark,
// and a key written twice.
func HostileJSON() [][]byte {
	return [][]byte{
		[]byte(strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001)),
		[]byte(`{"a":` + strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5001)),
		[]byte(`{"n": 1e999999, "m": -` + strings.Repeat("9", 1000) + `, "f": 0.` + strings.Repeat("0", 1000) + `1}`),
		[]byte("{\"a\": \"\xff\xfe\xc3\x28\", \"\xed\xa0\x80\": 1}"),
		[]byte(`{"a": "\ud800\udc00\ud800", "b": "\u0000\u001b[31m\u202e"}`),
		[]byte("\xef\xbb\xbf{\"a\": 1}"),
		[]byte(`{"a": 1, "a": 2}`),
		[]byte("{\"a\": 1}\x00"),
		[]byte(`{"a": 1} {"b": 2}`),
	}
}

// HostileYAML is hostile YAML texts: aliases of aliases that would expand a few
// hundred bytes to billions of values, an alias of itself, deep nesting
// in flow and block style, a key written twice, merge keys, tags, and
// invalid UTF-8.
func HostileYAML() [][]byte {
	var bomb strings.Builder
	bomb.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		bomb.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				bomb.WriteString(", ")
			}
			bomb.WriteString("*a" + string(rune('0'+i-1)))
		}
		bomb.WriteString("]\n")
	}
	var block strings.Builder
	for i := range 2000 {
		block.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return [][]byte{
		[]byte(bomb.String()),
		[]byte("a: &a [*a]\n"),
		[]byte(strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001)),
		[]byte(block.String()),
		[]byte("a: 1\na: 2\n"),
		[]byte("x: &x {a: 1}\ny: {<<: *x, <<: [*x, *x]}\n"),
		[]byte("a: !!binary aGVsbG8=\nb: !custom {x: 1}\nc: !!float 1e999999\n"),
		[]byte("a: \"\xff\xfe\"\n\xc3\x28: 1\n"),
		[]byte("a: 1\n---\nb: 2\n"),
		[]byte("n: " + strings.Repeat("9", 1000) + "\n"),
	}
}

// Seed adds texts, then each set of hostile inputs, to the seeds of f, a
// target of one []byte.
func SeedFuzz(f *testing.F, texts []string, hostile ...[][]byte) {
	for _, s := range texts {
		f.Add([]byte(s))
	}
	for _, set := range hostile {
		for _, b := range set {
			f.Add(b)
		}
	}
}

// Rewrites checks what a format written back must hold: text, written
// from what was read, reads back (rewrite reads it and writes what it
// read) as the same text.
func Rewrites(t testing.TB, text []byte, rewrite func([]byte) ([]byte, error)) {
	t.Helper()
	again, err := rewrite(text)
	if err != nil {
		t.Fatalf("written as\n%s\nit does not read back: %v", text, err)
	}
	if !bytes.Equal(again, text) {
		t.Fatalf("written as\n%s\nthen as\n%s", text, again)
	}
}
