// Package testfile reads mcpv test files: YAML (or JSON, which is YAML)
// naming a server as the command line does and listing steps, each an mcpv
// command line with what must come of it. Everything about a file is
// checked when it is read, before any server starts; each mistake is
// FILE:LINE:COLUMN: message. A step comes out as the words of its command
// line, which the command line itself checks (Options.CheckLine) and runs;
// this package checks what came of it against its expectations.
package testfile

// The nodes of a test file are yamlnode's: values that remember where they
// were written, so that every complaint about a file names its line and
// column, and that turn into JSON with numbers as written.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// Error is a mistake at a place in a test file.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Line == 0 { // about the file as a whole, which Msg names
		return e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Errors are every mistake found in the test files.
type Errors []*Error

// maxNodes bounds the values a test file may become once YAML aliases
// are expanded (see yamlnode.Options).
const maxNodes = 200_000

// ParseYAML reads a test file, or a file it names (what says which: "a
// test file"); a mistake is an Error without its file. Every number has
// a JSON form.
func ParseYAML(data []byte, what string) (*yamlnode.Node, *Error) {
	y, err := yamlnode.Parse(data, yamlnode.Options{What: what, MaxNodes: maxNodes})
	if err != nil {
		fe := &Error{Line: 1, Col: 1, Msg: err.Error()}
		if ye, ok := errors.AsType[*yamlnode.Error](err); ok {
			fe.Line, fe.Col, fe.Msg = ye.Line, ye.Col, ye.Msg
		}
		return nil, fe
	}
	if _, err := y.MarshalJSON(); err != nil { // a number JSON cannot hold (.inf, .nan)
		var ye *yamlnode.Error
		errors.As(err, &ye)
		return nil, &Error{Line: ye.Line, Col: ye.Col, Msg: ye.Msg}
	}
	return y, nil
}

// text is a scalar as a file's string: booleans and numbers as JSON text.
func text(n *yamlnode.Node) string {
	if n.Kind == yamlnode.Bool || n.Kind == yamlnode.Number {
		return n.JSON
	}
	return n.Text
}

// scalar reports a bool, number or string (not null).
func scalar(n *yamlnode.Node) bool {
	return n.Kind == yamlnode.Bool || n.Kind == yamlnode.Number || n.Kind == yamlnode.String
}

// nodeJSON is the node as JSON: numbers as written, keys in file order.
// ParseYAML has refused the numbers JSON cannot hold.
func nodeJSON(n *yamlnode.Node) json.RawMessage {
	b, _ := n.MarshalJSON()
	return b
}

// fileParser gathers the mistakes of one file.
type fileParser struct {
	file    string
	environ []string  // what jq's $ENV shows
	bounds  jq.Bounds // what each jq expression may take
	errs    Errors
}

func (p *fileParser) errorf(n *yamlnode.Node, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: n.Line, Col: n.Col, Msg: fmt.Sprintf(format, args...)})
}

// members walks an object's members, refusing keys that are not in known
// (with the nearest known one) and values of the wrong kind is up to fn.
func (p *fileParser) members(n *yamlnode.Node, what string, known []string, fn func(key string, k, v *yamlnode.Node)) {
	if n.Kind != yamlnode.Object {
		p.errorf(n, "%s must be a mapping, not %s", what, n.Kind.Noun())
		return
	}
	for i, k := range n.Keys {
		if !slices.Contains(known, k.Text) {
			p.errorf(k, "unknown key %q in %s%s", k.Text, what, suggest.DidYouMean(k.Text, known))
			continue
		}
		fn(k.Text, k, n.Vals[i])
	}
}

// str returns a string value (a number or boolean as written, which YAML
// users write unquoted), or reports that n is not one.
func (p *fileParser) str(n *yamlnode.Node, what string) (string, bool) {
	if !scalar(n) {
		p.errorf(n, "%s must be a string, not %s", what, n.Kind.Noun())
		return "", false
	}
	return text(n), true
}

// strs returns a list of strings; one string is a list of one.
func (p *fileParser) strs(n *yamlnode.Node, what string) []string {
	if scalar(n) {
		return []string{text(n)}
	}
	if n.Kind != yamlnode.Array {
		p.errorf(n, "%s must be a string or a list of strings, not %s", what, n.Kind.Noun())
		return nil
	}
	var out []string
	for _, it := range n.Items {
		s, _ := p.str(it, what+" item")
		out = append(out, s)
	}
	return out
}
