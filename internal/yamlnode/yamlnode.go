// Package yamlnode reads one YAML document into values that remember where
// they were written, for the files mcpv reads whose every mistake names a
// line and a column: config files and mcpv test files, and for YAML a
// server writes (a skill's SKILL.md frontmatter), within the same bounds.
//
// Aliases are expanded (within a budget: a few bytes of aliases of aliases
// would otherwise expand beyond memory) and merge keys (<<: *anchor) are
// applied; a merged member keeps the place it was written. A key given twice
// in one mapping, a key that is no scalar and a second document are
// mistakes.
package yamlnode

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// Kind is what a value is.
type Kind int

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Noun names a kind in a sentence: "want an object, found an array".
func (k Kind) Noun() string {
	return [...]string{Null: "null", Bool: "a boolean", Number: "a number", String: "a string", Array: "an array", Object: "an object"}[k]
}

// Node is one value of a document and where it was written (1-based).
type Node struct {
	Kind Kind
	// Text is a scalar as written.
	Text string
	// JSON is a boolean or number as JSON text: true or false, a number
	// as written when it is JSON already, else its value; "" for a number
	// JSON cannot hold (.inf, .nan).
	JSON string
	// Keys and Vals are an object's members in the order written, merged
	// members where their merge key was; Keys are strings.
	Keys, Vals []*Node
	Items      []*Node // an array's elements
	Line, Col  int
}

// Get returns the value of the member called key, or nil when n is nil or
// no object. Parse refuses a key given twice; of a Node built another way
// (from JSON) that holds one, the last wins, as in encoding/json.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	var found *Node
	for i, k := range n.Keys {
		if k.Text == key {
			found = n.Vals[i]
		}
	}
	return found
}

// Error is a mistake at a place in the document.
type Error struct {
	Line, Col int
	Msg       string
}

// Error quotes the file's own words, made safe for a terminal.
func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, safetext.Line(e.Msg)) }

// ErrorAt is a mistake at n's place in the document.
func ErrorAt(n *Node, format string, args ...any) error {
	return &Error{Line: n.Line, Col: n.Col, Msg: fmt.Sprintf(format, args...)}
}

// Options bound and name a document.
type Options struct {
	// What the document is, for messages: "a test file".
	What string
	// MaxNodes, and two per byte of the data, bound the values the
	// document becomes once its aliases are expanded. A document without
	// aliases makes at most about one and a half values per byte.
	MaxNodes int
}

// maxDepth bounds how deeply values nest (an alias loop nests for ever).
const maxDepth = 100

// Parse reads data, which holds one YAML document; an empty document is
// an empty object.
func Parse(data []byte, o Options) (*Node, error) {
	if err := checkUTF8(data); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &Node{Kind: Object, Line: 1, Col: 1}, nil
		}
		return nil, loadError(err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, loadError(err)
	case !emptyDocument(&next):
		return nil, &Error{Line: next.Line, Col: max(next.Column, 1), Msg: o.What + " holds one YAML document"}
	}
	c := &converter{budget: o.MaxNodes + 2*len(data)}
	return c.node(&doc, 0)
}

// emptyDocument reports a document with nothing in it, as a "---" at the
// end of a file makes.
func emptyDocument(doc *yaml.Node) bool {
	if len(doc.Content) == 0 {
		return true
	}
	n := doc.Content[0]
	return len(doc.Content) == 1 && n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" && n.Anchor == ""
}

func loadError(err error) error {
	if le, ok := errors.AsType[*yaml.LoadError](err); ok && le.Mark.Line > 0 {
		return &Error{Line: le.Mark.Line, Col: max(le.Mark.Column, 1), Msg: le.Message}
	}
	return &Error{Line: 1, Col: 1, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
}

// checkUTF8 finds the first byte that is not UTF-8, which the YAML reader
// reports without a place. A document with a UTF-16 byte-order mark is
// UTF-16, which the reader takes.
func checkUTF8(data []byte) error {
	if bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || utf8.Valid(data) {
		return nil
	}
	line, start := 1, 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return &Error{Line: line, Col: utf8.RuneCount(data[start:i]) + 1, Msg: fmt.Sprintf("not UTF-8 text: byte 0x%02x", data[i])}
		case r == '\n':
			line, start = line+1, i+1
		}
		i += size
	}
	return nil
}

// converter turns yaml.Nodes into Nodes, within its budget.
type converter struct{ budget int }

func (c *converter) node(y *yaml.Node, depth int) (*Node, error) {
	if depth > maxDepth {
		return nil, &Error{Line: y.Line, Col: y.Column, Msg: "nested too deeply (or an alias loop)"}
	}
	if c.budget--; c.budget < 0 {
		return nil, &Error{Line: y.Line, Col: y.Column, Msg: "too many values: aliases expand the file beyond what mcpv reads"}
	}
	n := &Node{Line: y.Line, Col: y.Column}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &Node{Kind: Object, Line: 1, Col: 1}, nil
		}
		return c.node(y.Content[0], depth+1)
	case yaml.AliasNode:
		return c.node(y.Alias, depth+1)
	case yaml.SequenceNode:
		n.Kind = Array
		for _, it := range y.Content {
			item, err := c.node(it, depth+1)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, item)
		}
	case yaml.MappingNode:
		n.Kind = Object
		if err := c.members(n, y, depth); err != nil {
			return nil, err
		}
	case yaml.ScalarNode:
		scalar(n, y)
	}
	return n, nil
}

// members fills n with the members of mapping y. A member given in the
// mapping itself wins over a merged one; of merged mappings, the first
// that has a key gives it, as YAML's merge keys have it.
func (c *converter) members(n *Node, y *yaml.Node, depth int) error {
	given := map[string]int{} // key -> line, of the members written in y
	for i := 0; i+1 < len(y.Content); i += 2 {
		k := y.Content[i]
		if k.Kind != yaml.ScalarNode {
			return &Error{Line: k.Line, Col: k.Column, Msg: "a key must be a plain string"}
		}
		if isMerge(k) {
			continue
		}
		if at, dup := given[k.Value]; dup {
			return &Error{Line: k.Line, Col: k.Column, Msg: fmt.Sprintf("%q is already defined on line %d", k.Value, at)}
		}
		given[k.Value] = k.Line
	}
	merged := map[string]bool{}
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		if !isMerge(k) {
			val, err := c.node(v, depth+1)
			if err != nil {
				return err
			}
			n.Keys = append(n.Keys, &Node{Kind: String, Text: k.Value, Line: k.Line, Col: k.Column})
			n.Vals = append(n.Vals, val)
			continue
		}
		from, err := c.merged(v, depth)
		if err != nil {
			return err
		}
		for _, m := range from {
			for j, mk := range m.Keys {
				if _, mine := given[mk.Text]; mine || merged[mk.Text] {
					continue
				}
				merged[mk.Text] = true
				n.Keys = append(n.Keys, mk)
				n.Vals = append(n.Vals, m.Vals[j])
			}
		}
	}
	return nil
}

// merged is what a merge key's value brings: a mapping, or a list of them.
func (c *converter) merged(v *yaml.Node, depth int) ([]*Node, error) {
	val, err := c.node(v, depth+1)
	if err != nil {
		return nil, err
	}
	list := []*Node{val}
	if val.Kind == Array {
		list = val.Items
	}
	for _, m := range list {
		if m.Kind != Object {
			return nil, &Error{Line: m.Line, Col: m.Col, Msg: "<< merges a mapping or a list of mappings"}
		}
	}
	return list, nil
}

// isMerge reports the merge key, <<, written plain.
func isMerge(k *yaml.Node) bool { return k.ShortTag() == "!!merge" }

func scalar(n *Node, y *yaml.Node) {
	n.Text = y.Value
	switch y.ShortTag() {
	case "!!null":
		n.Kind = Null
	case "!!bool":
		n.Kind = Bool
		b, err := strconv.ParseBool(strings.ToLower(y.Value))
		if err != nil {
			var v bool
			if y.Decode(&v) == nil {
				b = v
			}
		}
		n.JSON = strconv.FormatBool(b)
	case "!!int", "!!float":
		n.Kind, n.JSON = Number, number(y)
	default:
		n.Kind = String
	}
}

var jsonNumber = &lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
}}

// number is a YAML number as JSON text: kept as written when it is JSON
// already (integers of any size stay exact), else decoded; "" when JSON
// cannot hold it.
func number(y *yaml.Node) string {
	if text := strings.TrimPrefix(y.Value, "+"); jsonNumber.Get().MatchString(text) {
		return text
	}
	if y.ShortTag() == "!!int" {
		var i int64
		if err := y.Decode(&i); err == nil {
			return strconv.FormatInt(i, 10)
		}
	}
	var f float64
	if err := y.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// MarshalJSON is the node as JSON as it was written: members in the order
// written, numbers as written (an integer of any size stays exact). A
// number JSON cannot hold (.inf, .nan) is an *Error at its place.
func (n *Node) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := n.WriteJSON(&b, nil); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteJSON writes the node as MarshalJSON makes it; str, if set, writes
// each string in its place.
func (n *Node) WriteJSON(b *bytes.Buffer, str func(b *bytes.Buffer, n *Node)) error {
	switch n.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(n.JSON)
	case Number:
		if n.JSON == "" {
			return &Error{Line: n.Line, Col: n.Col, Msg: fmt.Sprintf("%s is not a number JSON can hold", n.Text)}
		}
		b.WriteString(n.JSON)
	case String:
		if str != nil {
			str(b, n)
		} else {
			writeString(b, n.Text)
		}
	case Array:
		b.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := it.WriteJSON(b, str); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		for i, k := range n.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k.Text)
			b.WriteByte(':')
			if err := n.Vals[i].WriteJSON(b, str); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	}
	return nil
}

// writeString writes s as a JSON string.
func writeString(b *bytes.Buffer, s string) { b.Write(rawjson.AppendString(b.AvailableBuffer(), s)) }
