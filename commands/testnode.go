package commands

// The nodes of a test file: YAML (or JSON, which is YAML) read into values
// that remember where they were written, so that every complaint about a
// file names its line and column, and that turn into JSON with numbers as
// written.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

type tkind int

const (
	tnull tkind = iota
	tbool
	tnumber
	tstring
	tarray
	tobject
)

// tkinds are the kinds of yamlnode's values.
var tkinds = [...]tkind{yamlnode.Null: tnull, yamlnode.Bool: tbool, yamlnode.Number: tnumber,
	yamlnode.String: tstring, yamlnode.Array: tarray, yamlnode.Object: tobject}

func (k tkind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "a list", "a mapping"}[k]
}

// tnode is one value of a test file and where it was written.
type tnode struct {
	kind      tkind
	text      string // a scalar as written; a number's JSON text
	keys      []*tnode
	vals      []*tnode // an object's members, in file order, beside keys
	items     []*tnode
	line, col int
}

// fileError is a mistake at a place in a test file.
type fileError struct {
	file      string
	line, col int
	msg       string
}

func (e *fileError) Error() string {
	if e.line == 0 { // about the file as a whole, which msg names
		return e.msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.file, e.line, e.col, e.msg)
}

// fileErrors are every mistake found in the test files.
type fileErrors []*fileError

// maxTestNodes bounds the values a test file may become once YAML aliases
// are expanded (see yamlnode.Options).
const maxTestNodes = 200_000

// parseTestYAML reads a test file, or a file it names (what says which:
// "a test file"); a mistake is a fileError without its file.
func parseTestYAML(data []byte, what string) (*tnode, *fileError) {
	y, err := yamlnode.Parse(data, yamlnode.Options{What: what, MaxNodes: maxTestNodes})
	if err != nil {
		fe := &fileError{line: 1, col: 1, msg: err.Error()}
		var ye *yamlnode.Error
		if errors.As(err, &ye) {
			fe.line, fe.col, fe.msg = ye.Line, ye.Col, ye.Msg
		}
		return nil, fe
	}
	return testNode(y)
}

// testNode is y as a tnode: booleans and numbers as JSON text.
func testNode(y *yamlnode.Node) (*tnode, *fileError) {
	n := &tnode{kind: tkinds[y.Kind], text: y.Text, line: y.Line, col: y.Col}
	switch y.Kind {
	case yamlnode.Bool:
		n.text = y.JSON
	case yamlnode.Number:
		if y.JSON == "" {
			return nil, &fileError{line: y.Line, col: y.Col, msg: fmt.Sprintf("%s is not a number JSON can hold", y.Text)}
		}
		n.text = y.JSON
	}
	for _, it := range y.Items {
		item, err := testNode(it)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, item)
	}
	for i, k := range y.Keys {
		v, err := testNode(y.Vals[i])
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, &tnode{kind: tstring, text: k.Text, line: k.Line, col: k.Col})
		n.vals = append(n.vals, v)
	}
	return n, nil
}

// get returns the member called key, or nil.
func (n *tnode) get(key string) *tnode {
	for i, k := range n.keys {
		if k.text == key {
			return n.vals[i]
		}
	}
	return nil
}

// scalar reports a bool, number or string (not null).
func (n *tnode) scalar() bool { return n.kind == tbool || n.kind == tnumber || n.kind == tstring }

// json is the node as JSON: numbers as written, keys in file order.
func (n *tnode) json() json.RawMessage {
	var b bytes.Buffer
	n.writeJSON(&b, nil)
	return b.Bytes()
}

// writeJSON writes the node as JSON; str, if set, writes each string.
func (n *tnode) writeJSON(b *bytes.Buffer, str func(b *bytes.Buffer, n *tnode)) {
	switch n.kind {
	case tnull:
		b.WriteString("null")
	case tbool, tnumber:
		b.WriteString(n.text)
	case tstring:
		if str != nil {
			str(b, n)
		} else {
			b.Write(mustJSON(n.text))
		}
	case tarray:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.writeJSON(b, str)
		}
		b.WriteByte(']')
	case tobject:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(mustJSON(k.text))
			b.WriteByte(':')
			n.vals[i].writeJSON(b, str)
		}
		b.WriteByte('}')
	}
}

// fileParser gathers the mistakes of one file.
type fileParser struct {
	file string
	errs fileErrors
}

func (p *fileParser) errorf(n *tnode, format string, args ...any) {
	p.errs = append(p.errs, &fileError{file: p.file, line: n.line, col: n.col, msg: fmt.Sprintf(format, args...)})
}

// members walks an object's members, refusing keys that are not in known
// (with the nearest known one) and values of the wrong kind is up to fn.
func (p *fileParser) members(n *tnode, what string, known []string, fn func(key string, k, v *tnode)) {
	if n.kind != tobject {
		p.errorf(n, "%s must be a mapping, not %s", what, n.kind)
		return
	}
	for i, k := range n.keys {
		if !slices.Contains(known, k.text) {
			p.errorf(k, "unknown key %q in %s%s", k.text, what, suggest.DidYouMean(k.text, known))
			continue
		}
		fn(k.text, k, n.vals[i])
	}
}

// str returns a string value (a number or boolean as written, which YAML
// users write unquoted), or reports that n is not one.
func (p *fileParser) str(n *tnode, what string) (string, bool) {
	if !n.scalar() {
		p.errorf(n, "%s must be a string, not %s", what, n.kind)
		return "", false
	}
	return n.text, true
}

// strs returns a list of strings; one string is a list of one.
func (p *fileParser) strs(n *tnode, what string) ([]string, bool) {
	if n.scalar() {
		return []string{n.text}, true
	}
	if n.kind != tarray {
		p.errorf(n, "%s must be a string or a list of strings, not %s", what, n.kind)
		return nil, false
	}
	var out []string
	ok := true
	for _, it := range n.items {
		s, good := p.str(it, what+" item")
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}
