package config

// Reading the JSON config files (with the comments and trailing commas VS
// Code and Cursor accept) into yamlnode's values, which YAML files become
// too, so that every complaint names a line and column.

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

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
	err := json.Unmarshal(data, new(json.RawMessage)) // fails: data is not valid
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return nil, err
	}
	off := max(int(syn.Offset)-1, 0)
	line, col := (&cursor{data: data}).at(off) // 1-based, the column in characters
	return nil, &yamlnode.Error{Line: line, Col: col, Msg: strings.TrimPrefix(syn.Error(), "json: ")}
}

// jsonAt returns the node at path (object keys) in data, which checkJSON has
// passed, or nil when some key is missing. Only that value is converted: a
// large file (~/.claude.json) is skimmed, not decoded whole.
func jsonAt(data []byte, path ...string) (*yamlnode.Node, error) {
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
// cursor's data that starts at offset base. Booleans and numbers keep
// their JSON text in both Text and JSON, as yamlnode's do.
func jsonNode(data *cursor, base int, sub []byte, dec *json.Decoder) (*yamlnode.Node, error) {
	line, col := nextAt(data, base, sub, dec)
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &yamlnode.Node{Line: line, Col: col}
	switch t := tok.(type) {
	case json.Delim:
		n.Kind = yamlnode.Object
		if t == '[' {
			n.Kind = yamlnode.Array
		}
		for dec.More() {
			// An item, or an object's key (a string, its node as any
			// string's) and then its value.
			item, err := jsonNode(data, base, sub, dec)
			if err != nil {
				return nil, err
			}
			switch {
			case n.Kind == yamlnode.Array:
				n.Items = append(n.Items, item)
			case len(n.Keys) == len(n.Vals):
				n.Keys = append(n.Keys, item)
			default:
				n.Vals = append(n.Vals, item)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.Kind, n.Text = yamlnode.String, t
	case json.Number:
		n.Kind, n.Text, n.JSON = yamlnode.Number, t.String(), t.String()
	case bool:
		n.Kind, n.Text, n.JSON = yamlnode.Bool, strconv.FormatBool(t), strconv.FormatBool(t)
	case nil:
		n.Kind = yamlnode.Null
	}
	return n, nil
}

// nextAt is the line and column of the next token dec reads.
func nextAt(data *cursor, base int, sub []byte, dec *json.Decoder) (line, col int) {
	start := int(dec.InputOffset())
	for start < len(sub) && bytes.IndexByte([]byte(" \t\r\n:,"), sub[start]) >= 0 {
		start++
	}
	return data.at(base + start)
}
