package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Allocated counts what its function allocates: a megabyte made shows,
// and so does nothing made.
func TestAllocated(t *testing.T) {
	var keep []byte
	if n := Allocated(func() { keep = make([]byte, 1<<20) }); n < 1<<20 {
		t.Errorf("a 1 MiB slice counted as %d bytes", n)
	}
	if n := Allocated(func() {}); n > 64<<10 {
		t.Errorf("nothing counted as %d bytes", n)
	}
	_ = keep
}

// Bounded fails a test that allocates past its bound, and only then.
func TestBounded(t *testing.T) {
	if Race {
		t.Skip("the race detector's instrumentation allocates: AllocBounded measures nothing under it")
	}
	var keep []byte
	inner := &testing.T{}
	over := &recorder{TB: inner}
	AllocBounded(over, 10, 1<<10, 10, func() { keep = make([]byte, 1<<20) })
	if !over.failed || !strings.Contains(over.msg, "10 bytes of input allocated") {
		t.Errorf("1 MiB for 10 bytes within 1 KiB + 10 a byte: failed %v, %q", over.failed, over.msg)
	}
	under := &recorder{TB: inner}
	AllocBounded(under, 1<<20, 0, 2, func() { keep = make([]byte, 1<<20) })
	if under.failed {
		t.Errorf("1 MiB for 1 MiB within 2 a byte failed: %q", under.msg)
	}
	_ = keep
}

type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Errorf(format string, args ...any) {
	if !r.failed { // the first, as a Fatalf that stops would leave it
		r.msg = fmt.Sprintf(format, args...)
	}
	r.failed = true
}

// The hostile texts are what they say: nesting as deep as said, numbers
// that are JSON however large, UTF-8 that is not, a bomb of nine levels.
func TestHostileInputs(t *testing.T) {
	js := HostileJSON()
	if d := bytes.Count(js[0], []byte("[")); d != 10_001 {
		t.Errorf("the deep array nests %d deep", d)
	}
	if utf8.Valid(js[3]) {
		t.Errorf("the invalid UTF-8 is valid: %q", js[3])
	}
	if !json.Valid(js[2]) {
		t.Errorf("the huge numbers are no JSON: %.80q", js[2])
	}
	ys := HostileYAML()
	if !strings.Contains(string(ys[0]), "a9: &a9 [*a8, *a8") {
		t.Errorf("the alias bomb has no ninth level:\n%s", ys[0])
	}
}

// Rewrites fails what reads back as other text, or not at all, and
// passes what reads back the same.
func TestRewrites(t *testing.T) {
	inner := &testing.T{}
	for _, tc := range []struct {
		rewrite func([]byte) ([]byte, error)
		fails   string
	}{
		{func(b []byte) ([]byte, error) { return b, nil }, ""},
		{func(b []byte) ([]byte, error) { return append(b, ' '), nil }, "then as"},
		{func(b []byte) ([]byte, error) { return nil, fmt.Errorf("no") }, "it does not read back: no"},
	} {
		r := &recorder{TB: inner}
		Rewrites(r, []byte(`{"a":1}`), tc.rewrite)
		if r.failed != (tc.fails != "") || !strings.Contains(r.msg, tc.fails) {
			t.Errorf("failed %v, %q; want %q", r.failed, r.msg, tc.fails)
		}
	}
}
