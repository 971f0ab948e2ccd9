package testfile

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mcpv/mcpv/internal/config"
)

// readFile reads a test file's text with the command line's checks stubbed:
// every server section and step line is accepted.
func readFile(t testing.TB, text string) *File {
	t.Helper()
	return readFileLines(t, text, Line{})
}

// readFileLines is readFile with every step line read as line.
func readFileLines(t testing.TB, text string, line Line) *File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	o := &Options{Path: func(p string) string { return p }, Vars: config.Env{Getenv: func(string) string { return "" }, Lookup: func(string) (string, bool) { return "", false }},
		Environ: []string{"WHO=ada"}, Flags: map[string]Flag{}, CheckServer: func([]string) error { return nil },
		CheckLine: func([]string, map[string]json.RawMessage) (Line, error) { return line, nil }}
	f, errs := Read(o, path)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	return f
}

// The jq expressions of a file are compiled when it is read, with the
// captures before them as variables, and run with each run's values.
func TestQueriesCompiledOnce(t *testing.T) {
	f := readFile(t, "steps:\n  - ping:\n    capture: {a: .x, b: '$a + 1'}\n  - ping:\n    expect: {jq: '. == $b and $ENV.WHO == \"ada\"'}\n")
	first, second := f.Steps[0], f.Steps[1]
	if first.Captures[1].query.filter == nil || second.Expect.jq[0].filter == nil {
		t.Fatal("a query was not compiled when the file was read")
	}
	for _, x := range []int{1, 7} {
		caps := map[string]json.RawMessage{}
		if fs := first.Capture(context.Background(), json.RawMessage(fmt.Sprintf(`{"x":%d}`, x)), caps); len(fs) > 0 {
			t.Fatal(fs)
		}
		if fs, _ := second.Expect.Check(context.Background(), Outcome{Value: json.RawMessage(strconv.Itoa(x + 1))}, caps, nil); len(fs) > 0 {
			t.Errorf("x=%d: %+v (caps %s)", x, fs, caps)
		}
		if fs, _ := second.Expect.Check(context.Background(), Outcome{Value: json.RawMessage(`0`)}, caps, nil); len(fs) != 1 {
			t.Errorf("x=%d: a wrong value passed", x)
		}
	}
}

// BenchmarkCheckJQ checks a step's jq expectation: the expression is not
// compiled again for each check.
func BenchmarkCheckJQ(b *testing.B) {
	f := readFile(b, "steps:\n  - ping:\n    capture: {n: .n}\n  - ping:\n    expect: {jq: '.structuredContent.sum == $n and (.content | length) == 1'}\n")
	caps := map[string]json.RawMessage{"n": json.RawMessage(`5`)}
	o := Outcome{Value: json.RawMessage(`{"content":[{"type":"text","text":"5"}],"structuredContent":{"sum":5}}`)}
	for b.Loop() {
		if fs, _ := f.Steps[1].Expect.Check(context.Background(), o, caps, nil); len(fs) > 0 {
			b.Fatal(fs)
		}
	}
}
