package testfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/jq"
)

// A test file's jq expressions are someone else's (a cloned repository's):
// one that never ends, or grows without end, fails its step within the
// file's bounds, with a line that says which bound it passed; the run
// goes on.
func TestJQWithinBounds(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	body := server + "steps:\n  - ping:\n" +
		"    expect: {jq: ['def f: f; f', '[range(1e9)] | length > 0', '.ok']}\n" +
		"    capture: {big: '[range(1e9)]', ok: '.ok'}\n"
	if err := os.WriteFile(filepath.Join(w.dir, "bounded.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	o := w.options()
	o.JQBounds = jq.Bounds{Time: 200 * time.Millisecond, Alloc: 64 << 20}
	f, errs := Read(o, "bounded.yaml")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	value := json.RawMessage(`{"ok":true}`)
	fs, _ := f.Steps[0].Expect.Check(t.Context(), Outcome{Value: value}, nil, nil)
	var got []string
	for _, f := range fs {
		got = append(got, f.Kind+": "+f.Message)
	}
	caps := map[string]json.RawMessage{}
	for _, f := range f.Steps[0].Capture(t.Context(), value, caps) {
		got = append(got, f.Kind+": "+f.Message)
	}
	// Which bound each meets first depends on the machine, and on what
	// the tests beside it allocate (the bound of memory is the process's).
	want := []string{
		"jq: def f: f; f: the jq expression ran past its bound of ",
		"jq: [range(1e9)] | length > 0: the jq expression ran past its bound of ",
		"capture: big: [range(1e9)]: the jq expression ran past its bound of ",
	}
	if len(got) != len(want) {
		t.Fatalf("failures %q, want %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("failure %d: %q, want %q...", i, got[i], want[i])
		}
	}
	if string(caps["ok"]) != "true" {
		t.Errorf("the capture after the bounded one: %s", caps)
	}

	// Options that say nothing give JQBounds.
	f, errs = Read(w.options(), "bounded.yaml")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := f.Steps[0].Expect.jq[0].bounds; got != JQBounds {
		t.Errorf("bounds %+v, want %+v", got, JQBounds)
	}
}

// The help says what the bounds are.
func TestHelpGivesTheJQBounds(t *testing.T) {
	if want := fmt.Sprintf("may run for %s and allocate %d MiB", JQBounds.Time, JQBounds.Alloc>>20); !strings.Contains(Reference, want) {
		t.Errorf("Reference does not say %q", want)
	}
}
