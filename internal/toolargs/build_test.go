package toolargs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Schemas as real servers write them.
const (
	searchSchema = `{"type":"object","properties":{
		"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":100},
		"score":{"type":"number"},"exact":{"type":"boolean"},"zip":{"type":"string"},
		"tags":{"type":"array","items":{"type":"string"}},
		"ids":{"type":"array","items":{"type":"integer"}},
		"filter":{"type":"object","properties":{"since":{"type":"integer"},"owner":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}}},
		"sort":{"type":"string","enum":["asc","desc"]},
		"level":{"enum":[1,2,3]},
		"cursor":{"type":["string","null"]},
		"page":{"anyOf":[{"type":"integer"},{"type":"null"}]},
		"when":{"oneOf":[{"type":"integer"},{"type":"string","format":"date"}]},
		"meta":{"type":"object"},
		"legacy":{"type":"string","nullable":true},
		"a.b":{"type":"integer"}
	},"required":["query"]}`
	refSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"properties":{"user":{"$ref":"#/$defs/user"},"users":{"type":"array","items":{"$ref":"#/$defs/user"}}},
		"$defs":{"user":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"},"admin":{"type":"boolean"}}}}}`
	draft7Schema = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
		"properties":{"n":{"type":"number"},"point":{"$ref":"#/definitions/p"}},"definitions":{"p":{"type":"object","properties":{"x":{"type":"number"}}}},"additionalProperties":false}`
)

func TestBuild(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		words  []string
		base   string
		want   string
		err    string
	}{
		{"typed scalars", searchSchema, []string{"query=mcp", "limit=10", "score=1.50", "exact=true", "zip=007"},
			"", `{"query":"mcp","limit":10,"score":1.50,"exact":true,"zip":"007"}`, ""},
		{"integer keeps any size, drops leading zeros", searchSchema, []string{"limit=0012345678901234567890"}, "", `{"limit":12345678901234567890}`, ""},
		{"number shortest form", searchSchema, []string{"score=+.5"}, "", `{"score":0.5}`, ""},
		{"repeated key builds an array", searchSchema, []string{"tags=a", "tags=b"}, "", `{"tags":["a","b"]}`, ""},
		{"single value for an array", searchSchema, []string{"ids=7"}, "", `{"ids":[7]}`, ""},
		{"array literal", searchSchema, []string{`ids=[1, 2]`}, "", `{"ids":[1,2]}`, ""},
		{"typed array items", searchSchema, []string{"ids=1", "ids=02"}, "", `{"ids":[1,2]}`, ""},
		{"dotted keys nest", searchSchema, []string{"filter.since=2024", "filter.owner=007", "filter.labels=x"},
			"", `{"filter":{"since":2024,"owner":"007","labels":["x"]}}`, ""},
		{"a dotted property name stays whole", searchSchema, []string{"a.b=5"}, "", `{"a.b":5}`, ""},
		{"enum of strings", searchSchema, []string{"sort=desc"}, "", `{"sort":"desc"}`, ""},
		{"enum of numbers", searchSchema, []string{"level=2"}, "", `{"level":2}`, ""},
		{"nullable by type array", searchSchema, []string{"cursor=null"}, "", `{"cursor":null}`, ""},
		{"nullable string keeps text", searchSchema, []string{"cursor=abc"}, "", `{"cursor":"abc"}`, ""},
		{"anyOf integer or null", searchSchema, []string{"page=3"}, "", `{"page":3}`, ""},
		{"oneOf integer or date", searchSchema, []string{"when=2024-01-02"}, "", `{"when":"2024-01-02"}`, ""},
		{"oneOf integer first", searchSchema, []string{"when=17"}, "", `{"when":17}`, ""},
		{"OpenAPI nullable", searchSchema, []string{"legacy=null"}, "", `{"legacy":null}`, ""},
		{"object literal", searchSchema, []string{`meta={"a": 1}`}, "", `{"meta":{"a":1}}`, ""},
		{"raw JSON never guesses", searchSchema, []string{`limit:="10"`, `zip:=7`}, "", `{"limit":"10","zip":7}`, ""},
		{"unknown key is a string", searchSchema, []string{"other=12"}, "", `{"other":"12"}`, ""},
		{"escaped at sign", searchSchema, []string{`query=\@home`}, "", `{"query":"@home"}`, ""},
		{"base then words", searchSchema, []string{"limit=5", "filter.owner=me"}, `{"query":"q","limit":1,"filter":{"since":1}}`,
			`{"query":"q","limit":5,"filter":{"since":1,"owner":"me"}}`, ""},
		{"$ref followed", refSchema, []string{"user.id=7", "user.name=42", "user.admin=false"}, "", `{"user":{"id":7,"name":"42","admin":false}}`, ""},
		{"array of objects by JSON", refSchema, []string{`users=[{"id":1}]`}, "", `{"users":[{"id":1}]}`, ""},
		{"draft-07 definitions", draft7Schema, []string{"n=3", "point.x=1.5"}, "", `{"n":3,"point":{"x":1.5}}`, ""},
		{"optional array wraps one value", `{"type":"object","properties":{"tags":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]}}}`,
			[]string{"tags=foo"}, "", `{"tags":["foo"]}`, ""},
		{"integer written as a whole number", `{"type":"object","properties":{"n":{"type":"integer"}}}`, []string{"n=1.0"}, "", `{"n":1.0}`, ""},
		{"integer refuses a fraction", `{"type":"object","properties":{"n":{"type":"integer"}}}`, []string{"n=1.5"}, "", "", `"1.5" is not an integer`},
		{"no underscores in numbers", searchSchema, []string{"score=1_000"}, "", "", `"1_000" is not a number`},
		{"no schema: strings", "", []string{"a=1", "b=true"}, "", `{"a":"1","b":"true"}`, ""},
		{"not an integer", searchSchema, []string{"limit=ten"}, "", "", `argument limit: "ten" is not an integer`},
		{"not a number", searchSchema, []string{"score=NaN"}, "", "", `argument score: "NaN" is not a number`},
		{"not a boolean", searchSchema, []string{"exact=yes"}, "", "", `argument exact: "yes" is not a boolean`},
		{"not in the enum", searchSchema, []string{"level=9"}, "", "", `argument level: "9" matches none`},
		{"leaf then parent", searchSchema, []string{"filter=x", "filter.since=1"}, "", "", "already has a value"},
		{"bad raw JSON", searchSchema, []string{"limit:={"}, "", "", "not valid JSON"},
		{"bad raw JSON quoted whole characters", searchSchema, []string{"limit:={" + strings.Repeat("a", 71) + "éé"}, "", "", `aé…": the value`},
		{"no key", searchSchema, []string{"=x"}, "", "", "with a key"},
		{"no equals", searchSchema, []string{"query"}, "", "", "want key=value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Build(t.Context(), tt.words, json.RawMessage(tt.base), Options{Schema: json.RawMessage(tt.schema)})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q (got %s)", err, tt.err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, string(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestBuildFilesAndStdin(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/body.txt", []byte("line 1\nline 2\n"), 0o644)
	os.WriteFile(dir+"/q.json", []byte(`{"x": [1, 2]}`), 0o644)
	stdinReads := 0
	opts := Options{
		Schema:   json.RawMessage(searchSchema),
		ReadFile: os.ReadFile,
		Stdin:    func() ([]byte, error) { stdinReads++; return []byte("from stdin"), nil },
	}
	got, err := Build(t.Context(), []string{"query=@" + dir + "/body.txt", "meta:=@" + dir + "/q.json", "zip=@-"}, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"query":"line 1\nline 2\n","meta":{"x":[1,2]},"zip":"from stdin"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := Build(t.Context(), []string{"query=@-", "zip=@-"}, nil, opts); err == nil || !strings.Contains(err.Error(), "only once") {
		t.Errorf("second @-: %v", err)
	}
	if stdinReads != 2 {
		t.Errorf("stdin read %d times, want once per Build", stdinReads)
	}
	if _, err := Build(t.Context(), []string{"query=@" + dir + "/missing"}, nil, opts); err == nil {
		t.Error("a missing file was not an error")
	}
	if got, _ := Build(t.Context(), []string{"query=x"}, nil, Options{Stdin: func() ([]byte, error) { t.Fatal("stdin read"); return nil, nil }}); string(got) != `{"query":"x"}` {
		t.Errorf("got %s", got)
	}
}

func TestNoCoerce(t *testing.T) {
	got, err := Build(t.Context(), []string{"limit=10", "ids=1", "a.b=2"}, nil, Options{Schema: json.RawMessage(searchSchema), NoCoerce: true})
	if err != nil || string(got) != `{"limit":"10","ids":"1","a.b":"2"}` {
		t.Errorf("got %s, %v", got, err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		schema, value string
		want          string // "" = valid
	}{
		{searchSchema, `{"query":"q","limit":10}`, ""},
		{searchSchema, `{"limit":10}`, `/: missing property 'query' (required)`},
		{searchSchema, `{"query":"q","limit":1000}`, `/limit: got 1000, want at most 100 (maximum)`},
		{`{"properties":{"n":{"maximum":300000000}}}`, `{"n":300000001}`, `/n: got 300000001, want at most 300000000 (maximum)`},
		{`{"properties":{"n":{"minimum":0.5}}}`, `{"n":0.25}`, `/n: got 0.25, want at least 0.5 (minimum)`},
		{`{"properties":{"n":{"exclusiveMaximum":1e10}}}`, `{"n":12345678901.5}`, `/n: got 12345678901.5, want less than 10000000000 (exclusiveMaximum)`},
		{`{"properties":{"n":{"exclusiveMinimum":-2}}}`, `{"n":-3}`, `/n: got -3, want more than -2 (exclusiveMinimum)`},
		{`{"properties":{"n":{"multipleOf":0.01}}}`, `{"n":0.123}`, `/n: got 0.123, want a multiple of 0.01 (multipleOf)`},
		{`{"properties":{"s":{"maxLength":3}}}`, `{"s":"abcdef"}`, `/s: got 6 characters, want at most 3 (maxLength)`},
		{`{"properties":{"a":{"minItems":2}}}`, `{"a":[1]}`, `/a: got 1 items, want at least 2 (minItems)`},
		{`{"properties":{"s":{"enum":[1000000,2]}}}`, `{"s":3}`, `/s: value must be one of 1000000, 2 (enum)`},
		{searchSchema, `{"query":"q","filter":{"since":"x"}}`, `/filter/since: got string, want integer (type)`},
		{draft7Schema, `{"n":1,"extra":true}`, `additionalProperties`},
		{refSchema, `{"user":{"id":"x"}}`, `/user/id: got string, want integer (type)`},
	}
	for _, tt := range tests {
		v, err := Compile(t.Context(), json.RawMessage(tt.schema))
		if err != nil {
			t.Fatal(err)
		}
		err = v.Validate(t.Context(), json.RawMessage(tt.value))
		var viol *Violation
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.value, err)
		case tt.want != "" && (!errors.As(err, &viol) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: err = %v, want %q", tt.value, err, tt.want)
		case tt.want != "" && strings.Count(err.Error(), viol.Rule) != 1:
			t.Errorf("%s: err = %v names its rule more than once", tt.value, err)
		}
	}
}

func TestCompileRefusesRemoteAndBadSchemas(t *testing.T) {
	for _, s := range []string{
		`{"$ref":"file:///etc/passwd"}`,
		`{"$ref":"https://example.com/schema.json"}`,
		`{"type":"object","properties":{"a":{"type":"no-such-type"}}}`,
		`{"type":`,
	} {
		if _, err := Compile(t.Context(), json.RawMessage(s)); err == nil {
			t.Errorf("%s compiled", s)
		}
	}
}

func FuzzBuild(f *testing.F) {
	for _, w := range []string{"a=1", "a.b=2", "a:=[1]", `a=\@x`, "a=", ".=.", "a..b=1", "a:=@", "x.y.z=null", "p1=1", "p1.a=true", "p1=null"} {
		f.Add(w, "ids=3")
	}
	// Each pair is typed by a real schema and by the costly ones, whose
	// naive typing walks 2^40 paths or loops.
	f.Fuzz(func(t *testing.T, w1, w2 string) {
		for _, schema := range append([]string{searchSchema}, costlySchemas...) {
			got, err := Build(t.Context(), []string{w1, w2}, nil, Options{Schema: json.RawMessage(schema)})
			if err == nil && !json.Valid(got) {
				t.Fatalf("Build(%q, %q) = %s: not JSON", w1, w2, got)
			}
		}
	})
}

// A schema nested deeper than MaxDepth is not compiled (that took minutes
// at a few thousand levels): the caller is told which limit was hit. One
// within the limit compiles in little time, and Compile gives up when its
// context ends.
func TestSchemaDepthIsBounded(t *testing.T) {
	deep := func(n int) json.RawMessage {
		return json.RawMessage(strings.Repeat(`{"type":"object","properties":{"a":`, n) + `{"type":"string"}` + strings.Repeat(`}}`, n))
	}
	_, err := Compile(t.Context(), deep(2000))
	var le *LimitError
	if !errors.As(err, &le) || le.Depth != 4001 || !strings.Contains(err.Error(), "nests 4001 levels deep, more than the 128 mcpv checks") {
		t.Errorf("2000 levels: %v", err)
	}
	v, err := Compile(t.Context(), deep(MaxDepth/2-1))
	if err != nil {
		t.Fatalf("within the limit: %v", err)
	}
	if err := v.Validate(t.Context(), json.RawMessage(`{"a":{"a":1}}`)); err == nil {
		t.Error("a wrong value passed")
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("interrupted")
	cancel(stop)
	if _, err := Compile(ctx, deep(10)); !errors.Is(err, stop) {
		t.Errorf("with its context ended: %v", err)
	}
}

// TestNeedsSchema: only key:=JSON words with plain keys (or none at all)
// build the same arguments with or without the schema.
func TestNeedsSchema(t *testing.T) {
	for _, tc := range []struct {
		words    []string
		noCoerce bool
		want     bool
	}{
		{nil, false, false},
		{[]string{"n:=1", `s:="x"`, "f:=@args.json"}, false, false},
		{[]string{"n:=1", "m=2"}, false, true},
		{[]string{"n:=1", "m=2"}, true, false},
		{[]string{"a.b:=1"}, false, true},
		{[]string{"a.b=1"}, true, true},
		{[]string{"text=@README.md"}, false, true},
		{[]string{"text=@README.md"}, true, false},
	} {
		if got := NeedsSchema(tc.words, tc.noCoerce); got != tc.want {
			t.Errorf("NeedsSchema(%q, noCoerce %v) = %v, want %v", tc.words, tc.noCoerce, got, tc.want)
		}
		// What it promises: without the schema the arguments come out as
		// they would with it.
		if tc.want || len(tc.words) == 0 || strings.Contains(strings.Join(tc.words, " "), "@") {
			continue
		}
		schema := json.RawMessage(`{"type":"object","properties":{"a.b":{"type":"string"},"m":{"type":"string"},"n":{"type":"string"}}}`)
		with, err1 := Build(t.Context(), tc.words, nil, Options{Schema: schema, NoCoerce: tc.noCoerce})
		without, err2 := Build(t.Context(), tc.words, nil, Options{NoCoerce: tc.noCoerce})
		if err1 != nil || err2 != nil || string(with) != string(without) {
			t.Errorf("%q: with the schema %s (%v), without %s (%v)", tc.words, with, err1, without, err2)
		}
	}
}
