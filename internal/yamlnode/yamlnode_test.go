package yamlnode

import (
	"fmt"
	"strings"
	"testing"
)

// show writes n as compact text with each value's place: {a@1:1: 1@1:4}.
func show(n *Node) string {
	var parts []string
	switch n.Kind {
	case Object:
		for i, k := range n.Keys {
			parts = append(parts, fmt.Sprintf("%s@%d:%d: %s", k.Text, k.Line, k.Col, show(n.Vals[i])))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case Array:
		for _, it := range n.Items {
			parts = append(parts, show(it))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case Bool, Number:
		return fmt.Sprintf("%s@%d:%d", n.JSON, n.Line, n.Col)
	case Null:
		return "null"
	}
	return fmt.Sprintf("%q", n.Text)
}

func TestParse(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"empty", "", "{}"},
		{"scalars", "a: [1, 0x10, +2.5e3, True, ~, s]\n", `{a@1:1: [1@1:5, 16@1:8, 2.5e3@1:14, true@1:22, null, "s"]}`},
		{"merge", "x: &x {a: 1, b: 2}\ny:\n  <<: *x\n  b: 3\n", "{x@1:1: {a@1:8: 1@1:11, b@1:14: 2@1:17}, y@2:1: {a@1:8: 1@1:11, b@4:3: 3@4:6}}"},
		{"merge a list: the first wins", "x: &x {a: 1}\nz: &z {a: 2, c: 3}\ny: {<<: [*x, *z]}\n", "{x@1:1: {a@1:8: 1@1:11}, z@2:1: {a@2:8: 2@2:11, c@2:14: 3@2:17}, y@3:1: {a@1:8: 1@1:11, c@2:14: 3@2:17}}"},
		{"a quoted << is a key", "'<<': 1\n", "{<<@1:1: 1@1:7}"},
		{"a --- at the end", "a: 1\n---\n", "{a@1:1: 1@1:4}"},
		{"UTF-16", "\xff\xfea\x00:\x00 \x001\x00\n\x00", "{a@1:1: 1@1:4}"},
	} {
		n, err := Parse([]byte(tt.in), Options{What: "a file", MaxNodes: 1000})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := show(n); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestParseMistakes(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"syntax", "a: [\n", "2:1: did not find expected node content"},
		{"two documents", "a: 1\n---\nb: 2\n", "2:1: a test file holds one YAML document"},
		{"not UTF-8", "a: 1\nbé: \xff\n", "2:5: not UTF-8 text: byte 0xff"},
		{"duplicate", "a: 1\nb: 2\na: 3\n", `3:1: "a" is already defined on line 1`},
		{"key not a scalar", "[a]: 1\n", "1:1: a key must be a plain string"},
		{"merge of a scalar", "a: {<<: 1}\n", "1:9: << merges a mapping or a list of mappings"},
		{"alias bomb", "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b]\n", "too many values"},
	} {
		_, err := Parse([]byte(tt.in), Options{What: "a test file", MaxNodes: 100})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// MarshalJSON keeps the document as written: members in order, numbers
// as written, big integers exact.
func TestMarshalJSON(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"{zeta: 1, big: 12345678901234567890, f: 1.50}", `{"zeta":1,"big":12345678901234567890,"f":1.50}`},
		{"a: [1, 2.50, -3e2, 0x1F, +7]\nb: {c: null, d: yes, e: \"x\", t: true}\n", `{"a":[1,2.50,-3e2,31,7],"b":{"c":null,"d":"yes","e":"x","t":true}}`},
		{"s: \"<\\u00e9\\n>\"", `{"s":"\u003cé\n\u003e"}`},
	} {
		n, err := Parse([]byte(tt.in), Options{What: "a file"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := n.MarshalJSON()
		if err != nil || string(got) != tt.want {
			t.Errorf("MarshalJSON(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	n, _ := Parse([]byte("a:\n  b: .inf\n"), Options{What: "a file"})
	if _, err := n.MarshalJSON(); err == nil || err.Error() != "2:6: .inf is not a number JSON can hold" {
		t.Errorf("MarshalJSON of .inf: %v", err)
	}
}

func TestGet(t *testing.T) {
	n, err := Parse([]byte("a: 1\nb: [2]\n"), Options{What: "a file", MaxNodes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Get("a"); got == nil || got.JSON != "1" {
		t.Errorf("Get(a) = %v", got)
	}
	if got := n.Get("c"); got != nil {
		t.Errorf("Get(c) = %v, want nil", got)
	}
	if got := n.Get("b").Get("x"); got != nil {
		t.Errorf("Get on an array = %v, want nil", got)
	}
	var none *Node
	if got := none.Get("a"); got != nil {
		t.Errorf("Get on nil = %v, want nil", got)
	}
	// A Node built from JSON may hold a key twice: the last wins.
	dup := &Node{Kind: Object, Keys: []*Node{{Text: "k"}, {Text: "k"}}, Vals: []*Node{{Text: "first"}, {Text: "last"}}}
	if got := dup.Get("k"); got == nil || got.Text != "last" {
		t.Errorf("Get of a key given twice = %v, want the last", got)
	}
}
