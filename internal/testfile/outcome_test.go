package testfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every expectation of a step is checked against what came of it, and
// each one not met says what was expected and what came.
func TestCheckOutcomes(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"want.yaml": "{a: 1}\n", "schema.json": `{"type":"object","required":["a"]}`})
	rpc := func(code int, msg string) Outcome {
		return Outcome{Code: 3, Err: errors.New(msg), Value: json.RawMessage(fmt.Sprintf(`{"code":%d,"message":%q}`, code, msg)), RPC: &RPCError{code, msg}}
	}
	text := json.RawMessage(`{"content":[{"type":"text","text":"hello there"}]}`)
	for _, tt := range []struct {
		name, expect string
		o            Outcome
		want         []string // kind: message (expected / actual) [details]
	}{
		{"success needs exit 0", "{}", Outcome{Code: 4, Err: errors.New("server gone\x1b[2J")},
			[]string{"exit: the step ended with exit 4: server gone\\x1b[2J (0 / 4)"}},
		{"an exit that fails with a value still checks the value", "{jq: .ok}", Outcome{Code: 1, Value: json.RawMessage(`{"ok":false}`)},
			[]string{"exit: the step ended with exit 1 (0 / 1)", "jq: .ok (true / false)"}},
		{"is-error met", "{is-error: true}", Outcome{Code: 1, IsError: true, Value: text}, nil},
		{"is-error not met", "{is-error: true}", Outcome{Code: 0, Value: text},
			[]string{"is-error: the result's isError is false (true / false)"}},
		{"is-error false, but a tool error", "{is-error: false}", Outcome{Code: 1, IsError: true, Value: text},
			[]string{"is-error: the result's isError is true (false / true)"}},
		{"error-code met", "{error-code: -32602, error-message: '^bad'}", rpc(-32602, "bad params"), nil},
		{"another error-code", "{error-code: -32602}", rpc(-32601, "no such method"),
			[]string{"error-code: another JSON-RPC error: no such method (-32602 / -32601)"}},
		{"no error at all", "{error-code: -32602, error-message: x}", Outcome{Code: 0, Value: json.RawMessage(`{}`)},
			[]string{"error-code: no JSON-RPC error: the step succeeded (exit 0) (-32602 / none)",
				"error-message: no JSON-RPC error: the step succeeded (exit 0) (/x/ / none)"}},
		{"a transport error, not a JSON-RPC one", "{error-message: refused}", Outcome{Code: 4, Err: errors.New("connection refused"), Value: json.RawMessage(`{"message":"connection refused"}`)},
			[]string{"exit: the step ended with exit 4: connection refused (3 / 4)", "error-message: no JSON-RPC error: exit 4: connection refused (/refused/ / none)"}},
		{"error-message not matching", "{error-message: '^not found$'}", rpc(-32002, "resource\nmissing"),
			[]string{`error-message: the error's message does not match (/^not found$/ / "resource\nmissing")`}},
		{"equals, numbers by value", "{equals: {a: 1.0, b: [x]}}", Outcome{Value: json.RawMessage(`{"b":["x"],"a":1}`)}, nil},
		{"equals not met", "{equals: {a: 1}}", Outcome{Value: json.RawMessage(`{"a":2}`)},
			[]string{`equals: the value differs at .a ({"a":1} / {"a":2})`}},
		{"equals-file not met", "{equals-file: want.yaml}", Outcome{Value: json.RawMessage(`[]`)},
			[]string{`equals-file: the value differs from want.yaml at . ({"a":1} / [])`}},
		{"matches a result's text", "{matches: [hello, '^hello there$']}", Outcome{Value: text}, nil},
		{"matches a string", "{matches: wor}", Outcome{Value: json.RawMessage(`"a world"`)}, nil},
		{"matches not met", "{matches: bye}", Outcome{Value: json.RawMessage(`[1,2]`)},
			[]string{`matches: the text does not match (/bye/ / "[1,2]")`}},
		{"schema-file not met", "{schema-file: schema.json}", Outcome{Value: json.RawMessage(`{"b":1}`)},
			[]string{`schema-file: the value breaks the schema at /: missing property 'a' (required) ( / {"b":1})`}},
		{"jq with no output", "{jq: 'empty'}", Outcome{Value: json.RawMessage(`1`)}, []string{"jq: empty (true / no output)"}},
		{"jq that fails", "{jq: '.a.b'}", Outcome{Value: json.RawMessage(`{"a":"s"}`)},
			[]string{`jq: .a.b: jq: expected an object but got: string ("s") (true / )`}},
		{"jq and: the false part", "{jq: '.a == 1 and .b == 2'}", Outcome{Value: json.RawMessage(`{"a":1,"b":3}`)},
			[]string{"jq: .a == 1 and .b == 2 (true / false) [false: .b == 2; .b = 3]"}},
		{"jq on a failed step's error", "{exit: 4, jq: '.message | test(\"gone\")'}", Outcome{Code: 4, Err: errors.New("gone"), Value: json.RawMessage(`{"message":"gone"}`)}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(w.dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml")
			os.WriteFile(path, []byte(server+"steps:\n  - ping:\n    expect: "+tt.expect+"\n"), 0o600)
			f, errs := w.read(filepath.Base(path))
			if errs != "" {
				t.Fatal(errs)
			}
			fs, notes := f.Steps[0].Expect.Check(t.Context(), tt.o, nil, nil)
			var got []string
			for _, f := range fs {
				s := fmt.Sprintf("%s: %s (%s / %s)", f.Kind, f.Message, f.Expected, f.Actual)
				if len(f.Details) > 0 {
					s += " [" + strings.Join(f.Details, "; ") + "]"
				}
				got = append(got, s)
			}
			if d := cmp.Diff(tt.want, got); d != "" || len(notes) > 0 {
				t.Errorf("notes %q; failures (-want +got):\n%s", notes, d)
			}
		})
	}
}

// output-schema checks the result's structuredContent against the tool's
// own outputSchema, and says why when it cannot.
func TestCheckOutputSchema(t *testing.T) {
	t.Parallel()
	f := readFileLines(t, server+"steps:\n  - call: t\n    expect: {output-schema: true}\n", Line{Calls: true})
	e := f.Steps[0].Expect
	result := json.RawMessage(`{"content":[],"structuredContent":{"n":1}}`)
	schema := func(s string, err error) func() (json.RawMessage, error) {
		return func() (json.RawMessage, error) { return json.RawMessage(s), err }
	}
	for _, tt := range []struct {
		name   string
		o      Outcome
		schema func() (json.RawMessage, error)
		want   string
	}{
		{"valid", Outcome{Raw: result, Value: result, Structured: json.RawMessage(`{"n":1}`)}, schema(`{"type":"object"}`, nil), ""},
		{"breaks it", Outcome{Raw: result, Value: result, Structured: json.RawMessage(`{"n":1}`)}, schema(`{"type":"object","properties":{"n":{"type":"string"}}}`, nil),
			"structuredContent breaks the outputSchema at /n: got number, want string (type)"},
		{"no result", Outcome{Value: json.RawMessage(`"text"`)}, schema(`{}`, nil), "no result to check"},
		{"no schema", Outcome{Raw: result, Value: result, Structured: json.RawMessage(`{}`)}, schema(``, nil), "the tool declares no outputSchema"},
		{"the tool not found", Outcome{Raw: result, Value: result}, schema(``, errors.New("no tool t")), "could not get the tool's outputSchema: no tool t"},
		{"no structuredContent", Outcome{Raw: result, Value: result}, schema(`{"type":"object"}`, nil), "the result has no structuredContent"},
		{"an unusable schema", Outcome{Raw: result, Value: result, Structured: json.RawMessage(`{}`)}, schema(`{"type":7}`, nil),
			"the tool's outputSchema cannot be used: "},
	} {
		fs, _ := e.Check(t.Context(), tt.o, nil, tt.schema)
		var got string
		if len(fs) > 0 {
			got = fs[0].Message
		}
		if !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A capture that fails, or gives no value, is the step's failure; the
// value a capture keeps is its expression's first output.
func TestCaptureFailures(t *testing.T) {
	t.Parallel()
	f := readFile(t, server+"steps:\n  - ping:\n    capture: {first: '.[]', none: 'empty', bad: '.a.b'}\n")
	caps := map[string]json.RawMessage{}
	fs := f.Steps[0].Capture(context.Background(), json.RawMessage(`[{"a":"s"},2]`), caps)
	var got []string
	for _, f := range fs {
		got = append(got, f.Kind+": "+f.Message)
	}
	want := []string{"capture: none: empty gave no value", `capture: bad: .a.b: jq: expected an object but got: array ([{"a":"s"},2])`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if string(caps["first"]) != `{"a":"s"}` || len(caps) != 1 {
		t.Errorf("caps %s", caps)
	}
}

// Without FILE, mcpv test finds the *.mcpv.yaml files here and every YAML
// file in ./mcpv-tests; a directory named stands for its YAML files; a
// file named runs as it is.
func TestFind(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"a.mcpv.yaml": "", "b.mcpv.yml": "", "c.yaml": "", "notes.txt": "",
		"mcpv-tests/x.yaml": "", "mcpv-tests/y.yml": "", "mcpv-tests/z.json": "", "suite/s.yaml": "", "empty/readme": ""})
	path := func(p string) string { return filepath.Join(w.dir, p) }
	found, err := Find(nil, path)
	if d := cmp.Diff([]string{"a.mcpv.yaml", "b.mcpv.yml", "mcpv-tests/x.yaml", "mcpv-tests/y.yml"}, found); d != "" || err != nil {
		t.Errorf("by itself: %v (-want +got):\n%s", err, d)
	}
	found, err = Find([]string{"c.yaml", "suite"}, path)
	if d := cmp.Diff([]string{"c.yaml", "suite/s.yaml"}, found); d != "" || err != nil {
		t.Errorf("named: %v (-want +got):\n%s", err, d)
	}
	if _, err := Find([]string{"empty"}, path); err == nil || err.Error() != "empty has no .yaml or .yml test files" {
		t.Errorf("an empty directory: %v", err)
	}
	if _, err := Find([]string{"nope.yaml"}, path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file not there: %v", err)
	}
	if _, err := Find(nil, func(p string) string { return filepath.Join(w.dir, "empty", p) }); !errors.Is(err, ErrNoFiles) {
		t.Errorf("nothing to find: %v", err)
	}
	for path, want := range map[string]bool{"a.mcpv.yaml": true, "dir/b.mcpv.yml": true, "mcpv-tests/x.yaml": true, "x.yaml": false,
		"a.mcpv.json": false, "mcpv-tests/x.json": false, "mcpv-tests/sub/x.yaml": false} {
		if Findable(path) != want {
			t.Errorf("Findable(%s) = %v", path, !want)
		}
	}
}

// A filter selects steps by FILE-NAME/STEP-NAME, and brings along the
// steps whose captures they use; --snapshot and --lint put their steps
// first in a file that has none.
func TestSelectAndAddFirst(t *testing.T) {
	t.Parallel()
	f := readFile(t, "name: suite\n"+server+"steps:\n  - call: make\n    capture: {id: .id}\n  - call: other\n  - call: use {{id}}\n    name: use it\n  - lint:\n")
	if d := cmp.Diff([]bool{true, false, true, false}, f.Select(regexp.MustCompile(`^suite/use`))); d != "" {
		t.Errorf("a filter (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]bool{true, true, true, true}, f.Select(nil)); d != "" {
		t.Errorf("no filter (-want +got):\n%s", d)
	}
	f.AddFirst(true, true)
	var names []string
	for i, s := range f.Steps {
		names = append(names, fmt.Sprintf("%d %s", s.Index, s.Name))
		if i == 0 && (s.Snapshot != filepath.Join(f.Dir, "t.snapshot.json") || !s.ByFlag) {
			t.Errorf("the snapshot step: %+v", s)
		}
	}
	if d := cmp.Diff([]string{"1 snapshot t.snapshot.json", "2 call make", "3 call other", "4 use it", "5 lint"}, names); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
}

// A step's exit is what its expectations imply when none is given.
func TestWantExit(t *testing.T) {
	t.Parallel()
	f := readFile(t, server+"steps:\n  - ping:\n  - ping:\n    expect: {is-error: true}\n  - ping:\n    expect: {error-code: 1}\n  - ping:\n    expect: {error-message: x}\n  - ping:\n    expect: {exit: 5}\n")
	var got []int
	for _, s := range f.Steps {
		got = append(got, s.Expect.WantExit())
	}
	if d := cmp.Diff([]int{0, 1, 3, 3, 5}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
