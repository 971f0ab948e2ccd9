package testfile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/toolargs"
)

// The expansion of a file's text: variables when the file is read,
// captures when the step runs, neither inside the other's values.
func TestTestExpand(t *testing.T) {
	env := map[string]string{"A": "a", "EMPTY": "", "API_TOKEN": "s3cret-value", "BRACES": "{{x}}"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	getenv := func(k string) string { return env[k] }
	var secrets []string
	x := &expander{env: config.Env{Getenv: getenv, Lookup: lookup, Home: "/home/ada"}, folder: "/work/tests",
		known: map[string]bool{"x": true}, secrets: &secrets}
	caps := map[string]json.RawMessage{"x": json.RawMessage(`"${A}"`)}
	for _, tt := range []struct{ in, want, err string }{
		{"${A}-${env:A}", "a-a", ""},
		{"${EMPTY:-d}${MISSING:-e}", "de", ""},
		{"${EMPTY}", "", ""},
		{"${MISSING}", "", "environment variable MISSING is not set"},
		{"${A", "", "unterminated ${"},
		{"${a b}", "", "mcpv cannot expand ${a b}"},
		{"{{ x }}/{{x}}", "${A}/${A}", ""},
		{"${BRACES}", "{{x}}", ""},
		{"{{y}}", "", `{{y}}: no step before this one captures "y"`},
		{"{x} {{ not a name }}", "{x} {{ not a name }}", ""},
		{"${API_TOKEN}", "s3cret-value", ""},
		// As in config files: the file's directory and the home directory.
		{"${workspaceFolder}/a ${userHome}", "/work/tests/a /home/ada", ""},
		// {{{{ is a literal {{.
		{"{{{{x}} {{{{ y }} {{x}}", "{{x}} {{ y }} ${A}", ""},
		{"{{{{{{x}}", "{{${A}", ""},
	} {
		tm, err := x.expand(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case tt.err == "" && tm.fill(caps) != tt.want:
			t.Errorf("%q: %q, want %q", tt.in, tm.fill(caps), tt.want)
		}
	}
	if !slices.Equal(secrets, []string{"s3cret-value"}) {
		t.Errorf("secrets %q", secrets)
	}
	root, fe := ParseYAML([]byte(`{n: "{{x}}", s: "v={{x}}", l: [1, "{{x}}"], z: null}`), "a test file")
	if fe != nil {
		t.Fatal(fe)
	}
	p := &fileParser{file: "t"}
	j := p.jsonTemplate(root, x)
	caps["x"] = json.RawMessage(`{"k":[1,2]}`)
	if got, want := string(j.render(caps)), `{"n":{"k":[1,2]},"s":"v={\"k\":[1,2]}","l":[1,{"k":[1,2]}],"z":null}`; got != want {
		t.Errorf("render: %s, want %s", got, want)
	}
}

func TestJSONDiff(t *testing.T) {
	for _, tt := range []struct {
		a, b, path string
		same       bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2.0],"a":1e0}`, "", true},
		{`{"a":{"b c":1}}`, `{"a":{"b c":2}}`, `.a."b c"`, false},
		{`[1,2]`, `[1]`, `.[1]`, false},
		{`{"a":1}`, `{"a":1,"b":null}`, ".b", false},
		{`"x"`, `1`, ".", false},
		{`123456789012345678901234567890`, `123456789012345678901234567891`, ".", false},
	} {
		path, same := jsonDiff(json.RawMessage(tt.a), json.RawMessage(tt.b))
		if path != tt.path || same != tt.same {
			t.Errorf("%s vs %s: %q %v, want %q %v", tt.a, tt.b, path, same, tt.path, tt.same)
		}
	}
}

// The JSON Schema of the format knows every step command and expectation
// the parser knows (commands checks the server section's flags); the
// example files are valid against it, and a file with a misspelt key is
// not.
func TestTestFileSchema(t *testing.T) {
	data, err := os.ReadFile("../../docs/mcpv-test.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs map[string]struct {
			Properties map[string]any
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	keys := func(def string) []string {
		var ks []string
		for k := range schema.Defs[def].Properties {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	steps := slices.Sorted(slices.Values(stepKeys))
	if d := cmp.Diff(steps, keys("step")); d != "" {
		t.Errorf("step keys (-parser +schema):\n%s", d)
	}
	if d := cmp.Diff(slices.Sorted(slices.Values(expectKeys)), keys("expect")); d != "" {
		t.Errorf("expectations (-parser +schema):\n%s", d)
	}
	v, err := toolargs.Compile(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../e2e/testdata/test/*/*.yaml")
	examples, _ := filepath.Glob("../../examples/*.mcpv.yaml")
	files = append(files, examples...)
	compat, _ := filepath.Glob("../../e2e/compat/*.yaml")
	if len(compat) < 10 {
		t.Errorf("%d test files in e2e/compat/, want the suite's (at least 10)", len(compat))
	}
	files = append(files, compat...)
	for _, f := range files {
		if strings.Contains(f, "/bad/") {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, fe := ParseYAML(text, "a test file")
		if fe != nil {
			t.Fatalf("%s: %v", f, fe)
		}
		if violation := v.Validate(context.Background(), nodeJSON(n)); violation != nil {
			t.Errorf("%s: %v", f, violation)
		}
	}
	n, _ := ParseYAML([]byte("steps:\n  - call: echo\n    expct: {}\n"), "a test file")
	if v.Validate(context.Background(), nodeJSON(n)) == nil {
		t.Error("a misspelt key is valid against the schema")
	}
}

// A jq comparison's details show the parts that are not constants.
func TestJQDetails(t *testing.T) {
	t.Parallel()
	c := &checker{}
	for _, tt := range []struct {
		expr, value string
		details     []string
	}{
		{`["a", "b"] == .`, `["a"]`, []string{`. = ["a"]`}},
		{`.n == {"a": [1, -2, null, true, "s"]}`, `{"n":1}`, []string{`.n = 1`}},
		{`.n >= .m`, `{"n":1,"m":2}`, []string{`.n = 1`, `.m = 2`}},
		{`"\(.n)" == "2"`, `{"n":1}`, []string{`"\(.n)" = "1"`}},
	} {
		f := c.jq(context.Background(), compileQuery(tt.expr, nil, nil, JQBounds), json.RawMessage(tt.value))
		if f == nil {
			t.Errorf("%s: no failure", tt.expr)
			continue
		}
		if d := cmp.Diff(tt.details, f.Details); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.expr, d)
		}
	}
}
