package uritemplate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	library "github.com/yosida95/uritemplate/v3"
)

// Why mcpv reads templates itself rather than through
// github.com/yosida95/uritemplate/v3, the library the go-sdk uses: on URIs
// that MCP servers serve, it reads values that mcpv must read otherwise.
// Each case is one where the library is wrong for mcpv and this package is
// right; the day the library reads one as this package does, this test
// fails and the choice is worth making again.
func TestWhatTheLibraryReadsOtherwise(t *testing.T) {
	for _, c := range []struct {
		why, tmpl, uri string
		want           map[string]any // this package's reading (RFC 6570, section 3.2)
	}{
		{"an exploded associative array is not matched at all",
			"{keys*}", "semi=%3B,dot=.,comma=%2C", map[string]any{"keys": map[string]any{"semi": ";", "dot": ".", "comma": ","}}},
		{"an exploded associative array in a query is not matched at all",
			"res://x{?keys*}", "res://x?semi=%3B&dot=.", map[string]any{"keys": map[string]any{"semi": ";", "dot": "."}}},
		{"a prefix modifier is kept in the variable's name (path:6)",
			"{#path:6}/here", "#/foo/b/here", map[string]any{"path": "/foo/b"}},
		{"a path parameter given with no value is lost",
			"res://x{;x,y,empty}", "res://x;x=1024;y=768;empty", map[string]any{"x": "1024", "y": "768", "empty": ""}},
		{"a value outside ASCII (an IRI, as servers publish) is not matched",
			"weather://{city}", "weather://Zürich", map[string]any{"city": "Zürich"}},
	} {
		tm, err := Parse(c.tmpl)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.tmpl, err)
		}
		got, ok := tm.Match(c.uri)
		if !ok || !cmp.Equal(c.want, got) {
			t.Errorf("%s on %s: %v %v; want %v", c.tmpl, c.uri, ok, got, c.want)
		}
		lt, err := library.New(c.tmpl)
		if err != nil {
			continue // refusing it is another way of reading it otherwise
		}
		if theirs := libraryValues(lt.Match(c.uri)); theirs != nil && cmp.Equal(c.want, theirs) {
			t.Errorf("the library now reads %s on %s as mcpv does (%s, no longer): reconsider it", c.tmpl, c.uri, c.why)
		}
	}
}

// libraryValues is the library's match in this package's shape; nil for
// no match.
func libraryValues(vs library.Values) map[string]any {
	if vs == nil {
		return nil
	}
	out := map[string]any{}
	for name, v := range vs {
		switch v.T {
		case library.ValueTypeString:
			out[name] = v.String()
		case library.ValueTypeList:
			var l []any
			for _, s := range v.List() {
				l = append(l, s)
			}
			out[name] = l
		case library.ValueTypeKV:
			kv := map[string]any{}
			pairs := v.KV()
			for i := 0; i+1 < len(pairs); i += 2 {
				kv[pairs[i]] = pairs[i+1]
			}
			out[name] = kv
		}
	}
	return out
}
