package commands

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// callArguments are the arguments of each tools/call the fake received,
// in order, as compact JSON.
func callArguments(t *testing.T, log string) []string {
	t.Helper()
	var out []string
	for line := range strings.SplitSeq(readLog(t, log), "\n") {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Method == "tools/call" {
			out = append(out, string(m.Params.Arguments))
		}
	}
	return out
}

// Each iteration sends the values its templates make from its number, its
// session and its row of the data file, taken in order.
func TestLoadTemplatesAndData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "rows.jsonl")
	os.WriteFile(jsonl, []byte(`{"q":"alpha","n":1}`+"\n\n"+`{"q":"beta","n":2}`+"\n"), 0o644)
	tail, log := fakeLogged(t, "plain")
	r := mcpv(t, "", args([]string{"load", "call", "x", "fixed=1", `text~="\(.row.q)-\(.iteration)"`, "n~=.row.n * 10", "deep.s~=.session", "-n", "4",
		"--data", jsonl, "--format", "json", "-q", ".data"}, tail)...)
	r.expect(t, 0, `{"file":"`+jsonl+`","order":"sequential","rows":2}`+"\n", "", "")
	want := []string{
		`{"fixed":"1","text":"alpha-0","n":10,"deep":{"s":0}}`,
		`{"fixed":"1","text":"beta-1","n":20,"deep":{"s":0}}`,
		`{"fixed":"1","text":"alpha-2","n":10,"deep":{"s":0}}`,
		`{"fixed":"1","text":"beta-3","n":20,"deep":{"s":0}}`,
	}
	if got := callArguments(t, log); !slices.Equal(got, want) {
		t.Errorf("the server got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// CSV: each row an object of its columns' strings.
	csv := filepath.Join(dir, "rows.csv")
	os.WriteFile(csv, []byte("q,lang\n\"a, b\",en\nc,fr\n"), 0o644)
	tail, log = fakeLogged(t, "plain")
	r = mcpv(t, "", args([]string{"load", "call", "x", "q~=.row.q", "lang~=.row.lang", "-n", "3", "--data", csv}, tail)...)
	r.expect(t, 0, "", "", "")
	if got := callArguments(t, log); !slices.Equal(got, []string{`{"q":"a, b","lang":"en"}`, `{"q":"c","lang":"fr"}`, `{"q":"a, b","lang":"en"}`}) {
		t.Errorf("the server got %q", got)
	}
}

// At random, rows and .random come from the seed and the iteration alone:
// the same seed sends the same values, another seed others.
func TestLoadDataAtRandom(t *testing.T) {
	t.Parallel()
	jsonl := filepath.Join(t.TempDir(), "rows.jsonl")
	var rows []string
	for i := range 100 {
		rows = append(rows, fmt.Sprintf(`%s{"i":%d}`, strings.Repeat(" ", i%3), i))
	}
	os.WriteFile(jsonl, []byte(strings.Join(rows, "\n")), 0o644)
	sent := func(seed string) []string {
		tail, log := fakeLogged(t, "plain")
		r := mcpv(t, "", args([]string{"load", "call", "x", "i~=.row.i", "r~=.random", "-n", "20", "--data", jsonl, "--data-order", "random", "--seed", seed, "--threshold", "errors==0"}, tail)...)
		r.expect(t, 0, "", "", "")
		return callArguments(t, log)
	}
	a, b, c := sent("7"), sent("7"), sent("8")
	if !slices.Equal(a, b) || slices.Equal(a, c) || len(a) != 20 {
		t.Errorf("seed 7 twice:\n%q\n%q\nseed 8:\n%q", a, b, c)
	}
	if slices.Equal(a[:10], a[10:]) {
		t.Errorf("the rows taken at random repeat: %q", a)
	}
}

// Mistakes in templates and data files are found before any server
// starts, or before the run on the first session: exit 2.
func TestLoadTemplateMistakes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"a\":1}\nnot json\n"), 0o644)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	badCSV := filepath.Join(dir, "bad.csv")
	os.WriteFile(badCSV, []byte("a,b\n1,2,3\n"), 0o644)
	huge := filepath.Join(dir, "huge.jsonl")
	if f, err := os.Create(huge); err == nil {
		f.Truncate(200 << 20) // sparse: no disk used
		f.Close()
	}
	nowhere := []string{"--", "/nonexistent/server"}
	for _, tc := range []struct {
		args   []string
		errHas string
	}{
		{[]string{"call", "x", "n~=.iteration +"}, "argument n: jq:"},
		{[]string{"call", "x", "~=1"}, "want key~=EXPR"},
		{[]string{"call", "x", "n~=1", "--data", bad}, "bad.jsonl:2: not a JSON value"},
		{[]string{"call", "x", "n~=1", "--data", empty}, "no rows"},
		{[]string{"call", "x", "n~=1", "--data", badCSV}, "wrong number of fields"},
		{[]string{"call", "x", "n~=1", "--data", huge}, "huge.jsonl:1: not a JSON value"}, // at its first byte, not read whole
		{[]string{"call", "x", "n~=1", "--data", filepath.Join(dir, "missing.jsonl")}, "no such file"},
	} {
		r := mcpv(t, "", args([]string{"load"}, tc.args, nowhere)...)
		r.expect(t, 2, "", "", tc.errHas)
	}
	// A template that fails, or that gives nothing, on the first session:
	// nothing is measured.
	for _, tc := range []struct{ arg, errHas string }{
		{`n~=error("no")`, "argument n: jq: error: no"},
		{"n~=empty", "gave no value"},
	} {
		r := mcpv(t, "", args([]string{"load", "call", "x", tc.arg, "-n", "5"}, fake("plain"))...)
		r.expect(t, 2, "", "", tc.errHas)
	}
	r := mcpv(t, "", args([]string{"load", "call", "x", "n~=.iteration | if . == 2 then until(false; .) end", "-n", "4", "--format", "json",
		"-q", "[.ok, .error_kinds[0].phase, .error_kinds[0].kind]", "--compact"}, fake("plain"))...)
	r.expect(t, 0, `[3,"template","template"]`+"\n", "", "")
}

// A template from a cloned repository's mix file that never ends, or
// allocates without end, is stopped at its bound: on the first session,
// nothing is measured (exit 2); in the run, that iteration is an error.
func TestLoadTemplatesWithinBounds(t *testing.T) {
	testkit.SkipLong(t, "templates that run until their bound of a second")
	t.Parallel()
	for _, tc := range []struct{ arg, errHas string }{
		{"n~=def f: f; f", "ran past its bound of"}, // time, or memory under -race
		{"n~=[range(1e12)] | length", "ran past its bound"},
	} {
		r := mcpv(t, "", args([]string{"load", "call", "x", tc.arg, "-n", "5"}, fake("plain"))...)
		r.expect(t, 2, "", "", tc.errHas)
	}
}
