package uritemplate

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseErrors(t *testing.T) {
	for tmpl, want := range map[string]string{
		"file:///{path":                       "has a { at byte 8 that is never closed",
		"file:///}":                           "has a } at byte 8 with no { before it",
		"file:///{=x}":                        `has an expression {=x} that starts with '=', an operator RFC 6570 reserves`,
		"a{}":                                 "has an expression {} that is empty",
		"a{x:0}":                              `has an expression {x:0} that has a prefix modifier ":0" that is not 1 to 9999`,
		"a{x:10000}":                          `has a prefix modifier ":10000" that is not 1 to 9999`,
		"a{x^}":                               `has a variable name "x^" with '^'`,
		"a{x.}":                               `has a variable name "x." with '.'`,
		"a{x,}":                               "has a variable without a name",
		"a b{x}":                              `holds ' ' outside an expression`,
		"100%/{x}":                            "has a % at byte 3 not followed by two hexadecimal digits",
		"a{x}\xff":                            "is not valid UTF-8",
		"{" + strings.Repeat("a", 120) + "^}": "{" + strings.Repeat("a", 100) + "… (21 more bytes)}",
	} {
		_, err := Parse(tmpl)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", tmpl, err, want)
		}
	}
	for _, ok := range []string{"", "plain", "file:///{+path}", "{/list*,path:4}", "{?x,y,empty}", "{a.b%20c}", "ünï/{x}", "x%20y{#frag}", "it's/{x}"} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
}

// TestMatch reads back the expansions of RFC 6570's own examples
// (section 3.2) and of the templates MCP servers publish.
func TestMatch(t *testing.T) {
	for _, c := range []struct {
		tmpl, uri string
		want      map[string]any // nil: no match
	}{
		{"{var}", "value", map[string]any{"var": "value"}},
		{"{hello}", "Hello%20World%21", map[string]any{"hello": "Hello World!"}},
		{"{half}", "50%25", map[string]any{"half": "50%"}},
		{"{+path}/here", "/foo/bar/here", map[string]any{"path": "/foo/bar"}},
		{"{x,y}", "1024,768", map[string]any{"x": "1024", "y": "768"}},
		{"{list}", "red,green,blue", map[string]any{"list": "red,green,blue"}},
		{"{list*}", "red,green,blue", map[string]any{"list": []any{"red", "green", "blue"}}},
		{"{keys*}", "semi=%3B,dot=.,comma=%2C", map[string]any{"keys": map[string]any{"semi": ";", "dot": ".", "comma": ","}}},
		{"{#path:6}/here", "#/foo/b/here", map[string]any{"path": "/foo/b"}},
		{"X{.var}", "X.value", map[string]any{"var": "value"}},
		{"X{.x,y}", "X.1024.768", map[string]any{"x": "1024", "y": "768"}},
		{"{/var,x}/here", "/value/1024/here", map[string]any{"var": "value", "x": "1024"}},
		{"{/list*}", "/red/green/blue", map[string]any{"list": []any{"red", "green", "blue"}}},
		{"{;x,y}", ";x=1024;y=768", map[string]any{"x": "1024", "y": "768"}},
		{"{;x,y,empty}", ";x=1024;y=768;empty", map[string]any{"x": "1024", "y": "768", "empty": ""}},
		{"{?x,y}", "?x=1024&y=768", map[string]any{"x": "1024", "y": "768"}},
		{"{?x,y,empty}", "?x=1024&y=768&empty=", map[string]any{"x": "1024", "y": "768", "empty": ""}},
		{"?fixed=yes{&x}", "?fixed=yes&x=1024", map[string]any{"x": "1024"}},
		{"{?list*}", "?list=red&list=green", map[string]any{"list": []any{"red", "green"}}},
		{"{?keys*}", "?semi=%3B&dot=.", map[string]any{"keys": map[string]any{"semi": ";", "dot": "."}}},
		{"{&who}", "&who=fred", map[string]any{"who": "fred"}},
		// What MCP servers publish.
		{"repo://{owner}/{repo}/issues/{n}", "repo://mcpv/mcpv/issues/46", map[string]any{"owner": "mcpv", "repo": "mcpv", "n": "46"}},
		{"file:///{path}", "file:///a/b", nil}, // a simple value holds no /
		{"file:///{+path}", "file:///a/b%20c", map[string]any{"path": "a/b c"}},
		{"demo://items/{id}", "demo://items/42", map[string]any{"id": "42"}},
		{"demo://items/{id}", "demo://items/", map[string]any{"id": ""}},
		{"demo://items/{id}", "demo://items/42/x", nil},
		{"demo://items/{id}", "demo://other/42", nil},
		{"search{?q,limit}", "search?q=a%20b&limit=10", map[string]any{"q": "a b", "limit": "10"}},
		{"search{?q,limit}", "search?limit=5", map[string]any{"limit": "5"}},
		{"search{?q,limit}", "search", map[string]any{}},
		{"weather://{city}", "weather://Zürich", map[string]any{"city": "Zürich"}},
		{"a.b{x}", "aXb1", nil}, // literals are literal, not patterns
	} {
		tm, err := Parse(c.tmpl)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.tmpl, err)
		}
		got, ok := tm.Match(c.uri)
		if c.want == nil {
			if ok {
				t.Errorf("%s matched %s: %v", c.tmpl, c.uri, got)
			}
			continue
		}
		if !ok {
			t.Errorf("%s did not match %s", c.tmpl, c.uri)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s on %s (-want +got):\n%s", c.tmpl, c.uri, d)
		}
	}
}

func TestNames(t *testing.T) {
	tm, _ := Parse("x{a,b}/{+a}{?c*}")
	if d := cmp.Diff([]string{"a", "b", "c"}, tm.Names()); d != "" {
		t.Error(d)
	}
}

// TestMatchPathological: templates that send a backtracking matcher into
// exponential time (adjacent expressions, each able to take any part of
// the URI) match a long URI that almost fits in far less than a second;
// a template past the bounds is not matched against, and says why.
func TestMatchPathological(t *testing.T) {
	adjacent := strings.Repeat("{+a}", MaxVars)
	long := strings.Repeat("x", MaxURI-1) + "!"
	for _, tmpl := range []string{adjacent + "$", strings.Repeat("{a}{+b}{/c*}{?d*}", MaxVars/4) + "$"} {
		tm, err := Parse(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		if err := tm.Matchable(); err != nil {
			t.Fatalf("%d variables: %v", MaxVars, err)
		}
		start := time.Now()
		if _, ok := tm.Match(long); ok {
			t.Errorf("matched a URI without the final literal")
		}
		// Exponential time here would outlast the test by ages: the bound
		// is far above a linear match however busy the machine.
		if d := time.Since(start); d > time.Minute {
			t.Errorf("one match took %v", d)
		}
	}
	tm, _ := Parse(strings.Repeat("{a}", MaxVars+1))
	if err := tm.Matchable(); err == nil || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("Matchable: %v", err)
	}
	if _, ok := tm.Match("x"); ok {
		t.Error("a template past the bound matched")
	}
	tm, _ = Parse("{+a}")
	if _, ok := tm.Match(strings.Repeat("x", MaxURI+1)); ok {
		t.Error("a URI past the bound matched")
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("demo://{a}/{+b}{?c,d*}", "demo://x/y/z?c=1&d=2")
	f.Add("{/list*,path:4}", "/red/green/blue/%2Ffoo")
	f.Fuzz(func(t *testing.T, tmpl, uri string) {
		tm, err := Parse(tmpl)
		if err != nil {
			return
		}
		tm.Match(uri) // never panics
	})
}

func BenchmarkMatchWorst(b *testing.B) {
	tm, _ := Parse(strings.Repeat("{a}{+b}{/c*}{?d*}", MaxVars/4) + "$")
	long := strings.Repeat("x", MaxURI-1) + "!"
	for b.Loop() {
		tm.Match(long)
	}
}
