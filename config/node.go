package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// node is one value of a config file with where it was written, so that every
// complaint about it can name a line and column. JSON and YAML files both
// become nodes; only the parts mcpv reads are converted.
type node struct {
	kind      kind
	text      string   // a scalar's value (a number as written)
	members   []member // an object's members, in file order
	items     []*node  // an array's elements
	line, col int
}

type kind int

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

type member struct {
	key string
	val *node
}

// get returns the member called key, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kindObject {
		return nil
	}
	var found *node
	for _, m := range n.members {
		if m.key == key {
			found = m.val // the last one wins, as in encoding/json
		}
	}
	return found
}

// posError is a problem at a place in a file.
type posError struct {
	line, col int
	msg       string
}

func (e *posError) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg) }

func errorAt(n *node, format string, args ...any) error {
	return &posError{line: n.line, col: n.col, msg: fmt.Sprintf(format, args...)}
}

// lineCol turns a byte offset into a 1-based line and column (in characters).
func lineCol(data []byte, off int) (line, col int) {
	return (&cursor{data: data}).at(off)
}

// --- JSON ---

// stripJSONC blanks out // and /* */ comments and trailing commas, which
// VS Code and Cursor accept in their files, keeping every other byte where it
// was so offsets still point at the right line and column.
func stripJSONC(data []byte) []byte {
	out := append([]byte(nil), data...)
	inString := false
	lastComma := -1 // a comma not yet followed by a value
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			lastComma = -1
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			i--
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			lastComma = -1
		}
	}
	return out
}

// checkJSON strips comments and trailing commas from data and checks that
// what is left is one JSON value.
func checkJSON(data []byte) ([]byte, error) {
	if json.Valid(data) {
		return data, nil // plain JSON: nothing to strip
	}
	data = stripJSONC(data)
	if json.Valid(data) {
		return data, nil
	}
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			off := int(syn.Offset)
			if off > 0 {
				off--
			}
			line, col := lineCol(data, off)
			return nil, &posError{line: line, col: col, msg: strings.TrimPrefix(syn.Error(), "json: ")}
		}
		return nil, err
	}
	return data, nil
}

// jsonAt returns the node at path (object keys) in data, which checkJSON has
// passed, or nil when some key is missing. Only that value is converted: a
// large file (~/.claude.json) is skimmed, not decoded whole.
func jsonAt(data []byte, path ...string) (*node, error) {
	v := data
	for _, key := range path {
		if !rawjson.IsObject(v) {
			return nil, nil
		}
		var found []byte
		err := rawjson.ForEachValidMember(v, func(k string, val []byte) error {
			if k == key {
				found = val // the last one wins, as in encoding/json
			}
			return nil
		})
		if err != nil || found == nil {
			return nil, err
		}
		v = found
	}
	base := cap(data) - cap(v) // v is a sub-slice of data
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	return jsonNode(&cursor{data: data}, base, v, dec)
}

// cursor turns offsets into lines and columns, counting on from the last
// offset it was asked about: nodes come in file order, so a large file is
// counted through once, not once per node.
type cursor struct {
	data           []byte
	off, line, col int // the last offset, its line and its column
}

func (c *cursor) at(off int) (line, col int) {
	if off < c.off || c.line == 0 {
		c.off, c.line, c.col = 0, 1, 1
	}
	off = min(off, len(c.data))
	seg := c.data[c.off:off]
	if nl := bytes.LastIndexByte(seg, '\n'); nl >= 0 {
		c.line += bytes.Count(seg, []byte("\n"))
		c.col = utf8.RuneCount(seg[nl+1:]) + 1
	} else {
		c.col += utf8.RuneCount(seg)
	}
	c.off = off
	return c.line, c.col
}

// jsonNode reads the next value from dec, which reads sub, a part of the
// cursor's data that starts at offset base.
func jsonNode(data *cursor, base int, sub []byte, dec *json.Decoder) (*node, error) {
	start := int(dec.InputOffset())
	for start < len(sub) && bytes.IndexByte([]byte(" \t\r\n:,"), sub[start]) >= 0 {
		start++
	}
	line, col := data.at(base + start)
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &node{line: line, col: col}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			n.kind = kindArray
			for dec.More() {
				item, err := jsonNode(data, base, sub, dec)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, item)
			}
		} else {
			n.kind = kindObject
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				val, err := jsonNode(data, base, sub, dec)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{key: kt.(string), val: val})
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.text = kindString, t
	case json.Number:
		n.kind, n.text = kindNumber, t.String()
	case bool:
		n.kind, n.text = kindBool, strconv.FormatBool(t)
	case nil:
		n.kind = kindNull
	}
	return n, nil
}

// --- YAML ---

// parseYAML parses one YAML document into a node.
func parseYAML(data []byte) (*node, error) {
	y, err := yamlnode.Parse(data, yamlnode.Options{What: "a config file", MaxNodes: maxYAMLNodes})
	if err != nil {
		var ye *yamlnode.Error
		if errors.As(err, &ye) {
			return nil, &posError{line: ye.Line, col: ye.Col, msg: ye.Msg}
		}
		return nil, err
	}
	return yamlNode(y), nil
}

// maxYAMLNodes (and two per byte of the file) bound the values a YAML file
// becomes once its aliases are expanded: without a bound, a few hundred
// bytes of aliases of aliases ("billion laughs") expand to 10⁸ values and
// more, and mcpv hangs filling its memory.
const maxYAMLNodes = 100_000

// kinds are the kinds of yamlnode's values.
var kinds = [...]kind{yamlnode.Null: kindNull, yamlnode.Bool: kindBool, yamlnode.Number: kindNumber,
	yamlnode.String: kindString, yamlnode.Array: kindArray, yamlnode.Object: kindObject}

// yamlNode is y as a node: scalars as written.
func yamlNode(y *yamlnode.Node) *node {
	n := &node{kind: kinds[y.Kind], text: y.Text, line: y.Line, col: y.Col}
	for _, it := range y.Items {
		n.items = append(n.items, yamlNode(it))
	}
	for i, k := range y.Keys {
		n.members = append(n.members, member{key: k.Text, val: yamlNode(y.Vals[i])})
	}
	return n
}
