package loaddata

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A template is a path into the row when it is .row and keys alone.
func TestRowPath(t *testing.T) {
	for expr, want := range map[string][]string{
		".row.text": {"text"}, ` .row.a["b c"].d `: {"a", "b c", "d"}, ".row": nil, ".row.a | length": nil,
		".row.a[0]": nil, ".rows.a": nil, `.row["a\"b"]`: {`a"b`}, ".row.a1": {"a1"}, ".iteration": nil,
	} {
		if got := rowPath(expr); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", expr, got, want)
		}
	}
}

// Lookup finds a path's value in a large row where it is: a long
// string's place, escapes and all, for it to be streamed, any other scalar
// decoded, and nothing it cannot find plainly (the row is then read
// whole), nor a long string that is not valid UTF-8.
func TestLookup(t *testing.T) {
	long := strings.Repeat("y", 1<<20)
	esc := `"` + long + `\n\"\u00e9 <&> 中文 😀\\"`
	row := `{"a" : {"n": -1.5e3, "s": "h\u00e9", "esc": ` + esc + `, "x": [1, {"}": "]"}]},` + ` "b\u0074": "` + long + `", "bad": "` + long + "\xff\xe4\xb8" + `", "t": true}`
	s, err := Read("r.jsonl", strings.NewReader(row+"\n"), int64(len(row)+1), InOrder, 0)
	if err != nil || !s.Large(0) {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path     []string
		ok       bool
		streamed bool
		value    any
	}{
		{[]string{"bt"}, true, true, nil},
		{[]string{"a", "n"}, true, false, "-1.5e3"}, // as jq reads it from the whole row
		{[]string{"a", "s"}, true, false, "hé"},
		{[]string{"t"}, true, false, true},
		{[]string{"a", "esc"}, true, true, nil},
		{[]string{"bad"}, false, false, nil},
		{[]string{"a", "x"}, false, false, nil},
		{[]string{"nope"}, false, false, nil},
		{[]string{"t", "k"}, false, false, nil},
	} {
		f, ok, err := s.Lookup(0, c.path)
		if err != nil || ok != c.ok || f.Streamed != c.streamed || !c.streamed && fmt.Sprint(f.Value) != fmt.Sprint(c.value) {
			t.Errorf("%q: %+v, %v, %v", c.path, f, ok, err)
		}
		if f.Streamed && row[f.Off:f.Off+f.N] != map[bool]string{false: `"` + long + `"`, true: esc}[c.path[0] == "a"] {
			t.Errorf("%q: the place %d+%d is not the string", c.path, f.Off, f.N)
		}
	}
}
