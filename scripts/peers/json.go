package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// node is a JSON value that keeps its members' order, as Python's json
// module and a model read them.
type node struct {
	kind byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	keys []string
	vals []*node // an object's values, an array's items
	str  string  // a string; a number's or a bool's text
}

func parse(data []byte) (*node, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	n, err := parseNode(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data")
	}
	return n, nil
}

func parseNode(d *json.Decoder) (*node, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	return parseFrom(d, t)
}

func parseFrom(d *json.Decoder, t json.Token) (*node, error) {
	switch v := t.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := &node{kind: 'o'}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				val, err := parseNode(d)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
				n.vals = append(n.vals, val)
			}
			_, err := d.Token()
			return n, err
		case '[':
			n := &node{kind: 'a'}
			for d.More() {
				val, err := parseNode(d)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, val)
			}
			_, err := d.Token()
			return n, err
		}
	case string:
		return &node{kind: 's', str: v}, nil
	case json.Number:
		return &node{kind: 'n', str: v.String()}, nil
	case bool:
		return &node{kind: 'b', str: strconv.FormatBool(v)}, nil
	case nil:
		return &node{kind: 'z'}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", t)
}

// get is an object's member (nil when it has none).
func (n *node) get(key string) *node {
	if n == nil || n.kind != 'o' {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// text is a string member's value ("" when absent or no string).
func (n *node) text(key string) string {
	if v := n.get(key); v != nil && v.kind == 's' {
		return v.str
	}
	return ""
}

// without is an object less one member.
func (n *node) without(key string) *node {
	out := &node{kind: 'o'}
	for i, k := range n.keys {
		if k != key {
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, n.vals[i])
		}
	}
	return out
}

// pyDumps writes a value as Python's json.dumps does by default
// (ensure_ascii, separators ", " and ": "), or with indent when indent > 0.
func pyDumps(n *node, indent int) string {
	var b strings.Builder
	pyWrite(&b, n, indent, 0)
	return b.String()
}

func pyWrite(b *strings.Builder, n *node, indent, depth int) {
	nl := func(d int) {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", indent*d))
	}
	switch n.kind {
	case 'o', 'a':
		open, close := "{", "}"
		if n.kind == 'a' {
			open, close = "[", "]"
		}
		if len(n.vals) == 0 {
			b.WriteString(open + close)
			return
		}
		b.WriteString(open)
		for i, v := range n.vals {
			if i > 0 {
				if indent > 0 {
					b.WriteByte(',')
				} else {
					b.WriteString(", ")
				}
			}
			if indent > 0 {
				nl(depth + 1)
			}
			if n.kind == 'o' {
				pyString(b, n.keys[i])
				b.WriteString(": ")
			}
			pyWrite(b, v, indent, depth+1)
		}
		if indent > 0 {
			nl(depth)
		}
		b.WriteString(close)
	case 's':
		pyString(b, n.str)
	case 'n':
		b.WriteString(n.str)
	case 'b':
		b.WriteString(n.str)
	default:
		b.WriteString("null")
	}
}

// pyString is Python's py_encode_basestring_ascii: every character outside
// ' '..'~' escaped, \uXXXX in lower case, surrogate pairs past the BMP.
func pyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r >= ' ' && r <= '~':
				b.WriteRune(r)
			case r == utf8.RuneError:
				b.WriteString(`\ufffd`)
			case r > 0xffff:
				r -= 0x10000
				fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			default:
				fmt.Fprintf(b, `\u%04x`, r)
			}
		}
	}
	b.WriteByte('"')
}

// leaves writes every value of a JSON tree as "path: value", a line each
// (a string as it is, so a model's text reads as written), leaving out
// base64 blobs; the members' names stand in the paths.
func leaves(b *strings.Builder, n *node, path string) {
	if n == nil {
		return
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch n.kind {
	case 'o':
		for i, k := range n.keys {
			if k == "blob" {
				continue
			}
			leaves(b, n.vals[i], join(k))
		}
	case 'a':
		for i, v := range n.vals {
			leaves(b, v, join(strconv.Itoa(i)))
		}
	case 's':
		fmt.Fprintf(b, "%s: %s\n", path, n.str)
	case 'z':
		fmt.Fprintf(b, "%s: null\n", path)
	default:
		fmt.Fprintf(b, "%s: %s\n", path, n.str)
	}
}
