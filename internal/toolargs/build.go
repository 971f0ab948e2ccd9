// Package toolargs builds a tool's arguments from the words a user types:
// key=value typed by the tool's inputSchema, key:=JSON taken as is, files and
// stdin by @, dotted keys for nested objects and repeated keys for arrays; and
// it validates the result against the schema before anything is sent.
package toolargs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
)

// Options say how to build arguments.
type Options struct {
	// Schema is the tool's inputSchema; nil means every key=value is a string.
	Schema json.RawMessage
	// NoCoerce keeps every key=value a string.
	NoCoerce bool
	// ReadFile reads @FILE; Stdin reads @- (the only way stdin is read).
	ReadFile func(path string) ([]byte, error)
	Stdin    func() ([]byte, error)
}

// value is one member of the object being built: raw JSON, texts still to
// be typed (more than one when the key was repeated), or a nested object.
type value struct {
	raw     json.RawMessage // from --args
	entries []entry         // from the words, in order (more than one: an array)
	obj     *object
}

// entry is one word's value: raw JSON (key:=) or text to type (key=).
type entry struct {
	raw  json.RawMessage
	text string
}

// object keeps its members in the order they first appeared.
type object struct {
	keys []string
	vals map[string]*value
}

func newObject() *object { return &object{vals: map[string]*value{}} }

func (o *object) get(k string) *value {
	v, ok := o.vals[k]
	if !ok {
		v = &value{}
		o.keys = append(o.keys, k)
		o.vals[k] = v
	}
	return v
}

// Build returns the arguments object: base (from --args, may be nil) with
// the words applied over it; the cause of ctx when ctx ends first. Typing
// by the schema costs at most a walk of the schema per word.
func Build(ctx context.Context, words []string, base json.RawMessage, opts Options) (json.RawMessage, error) {
	schema, err := parseSchema(ctx, opts.Schema)
	if err != nil {
		schema = node{}
	}
	typing := schema // the schema still decides how dotted keys split under NoCoerce
	if opts.NoCoerce {
		typing = node{}
	}
	root := newObject()
	if len(base) > 0 {
		if err := rawjson.ForEachMember(base, func(k string, v []byte) error {
			root.get(k).raw = v
			return nil
		}); err != nil {
			return nil, errors.New("--args: want a JSON object")
		}
	}
	usedStdin := false
	for _, w := range words {
		key, raw, text, err := parseWord(w, opts, &usedStdin)
		if err != nil {
			return nil, err
		}
		v, err := root.at(splitKey(schema, key), w)
		if err != nil {
			return nil, err
		}
		v.entries = append(v.entries, entry{raw: raw, text: text})
	}
	args, err := root.encode(typing, "")
	if schema.doc != nil && schema.doc.err != nil {
		return nil, schema.doc.err
	}
	return args, err
}

// NeedsSchema reports whether building words needs the tool's inputSchema:
// a key=value is typed by it (unless noCoerce), and a dotted key is split
// at its dots only where the schema declares no property of that name.
// key:=JSON with a plain key, and --args, need none.
func NeedsSchema(words []string, noCoerce bool) bool {
	for _, w := range words {
		key, _, _ := strings.Cut(w, "=")
		key, asJSON := strings.CutSuffix(key, ":")
		if strings.Contains(key, ".") || !asJSON && !noCoerce {
			return true
		}
	}
	return false
}

// Check reports a word that can never be an argument: the checks a command
// line gets before a server starts. @FILE values are read with readFile (a
// missing file or bad JSON is a mistake found now); stdin is not read.
func Check(words []string, readFile func(string) ([]byte, error)) error {
	used := false
	none := Options{
		ReadFile: readFile,
		Stdin:    func() ([]byte, error) { return []byte("null"), nil },
	}
	for _, w := range words {
		if _, _, _, err := parseWord(w, none, &used); err != nil {
			return err
		}
	}
	return nil
}

// parseWord splits key=value or key:=JSON and reads @FILE and @- values.
func parseWord(w string, opts Options, usedStdin *bool) (key string, raw json.RawMessage, text string, err error) {
	key, text, ok := strings.Cut(w, "=")
	if !ok {
		return "", nil, "", fmt.Errorf("argument %q: want key=value or key:=JSON", w)
	}
	key, asJSON := strings.CutSuffix(key, ":")
	if key == "" || strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") || strings.Contains(key, "..") {
		return "", nil, "", fmt.Errorf("argument %q: want key=value or key:=JSON with a key", w)
	}
	var data []byte
	switch {
	case strings.HasPrefix(text, `\@`):
		text = text[1:]
	case text == "@-":
		if *usedStdin {
			return "", nil, "", fmt.Errorf("argument %q: stdin can be read only once", w)
		}
		*usedStdin = true
		if opts.Stdin == nil {
			return "", nil, "", fmt.Errorf("argument %q: stdin is not available", w)
		}
		if data, err = opts.Stdin(); err != nil {
			return "", nil, "", fmt.Errorf("argument %q: read stdin: %w", w, err)
		}
		text = string(data)
	case strings.HasPrefix(text, "@") && len(text) > 1:
		if opts.ReadFile == nil {
			return "", nil, "", fmt.Errorf("argument %q: files are not available", w)
		}
		if data, err = opts.ReadFile(text[1:]); err != nil {
			return "", nil, "", fmt.Errorf("argument %q: %w", w, err)
		}
		text = string(data)
	}
	if asJSON {
		if !json.Valid([]byte(text)) {
			return "", nil, "", fmt.Errorf("argument %q: the value after := is not valid JSON", safetext.Runes(w, 80))
		}
		return key, compact(text), "", nil
	}
	return key, nil, text, nil
}

// splitKey turns a dotted key into a path, keeping a dotted name whole where
// the schema declares a property of that name.
func splitKey(schema node, key string) []string {
	var path []string
	n := schema
	for key != "" {
		if _, ok := n.declared(key); ok || !strings.Contains(key, ".") {
			return append(path, key)
		}
		head, rest, _ := strings.Cut(key, ".")
		path = append(path, head)
		n, _ = n.property(head)
		key = rest
	}
	return path
}

// at returns the member at path, creating objects on the way.
func (o *object) at(path []string, word string) (*value, error) {
	for i, k := range path {
		v := o.get(k)
		if i == len(path)-1 {
			if v.obj != nil {
				return nil, fmt.Errorf("argument %q: %s is already an object", word, strings.Join(path, "."))
			}
			if v.raw != nil && len(v.entries) == 0 {
				v.raw = nil // the word replaces what --args gave
			}
			return v, nil
		}
		if len(v.entries) > 0 {
			return nil, fmt.Errorf("argument %q: %s already has a value", word, strings.Join(path[:i+1], "."))
		}
		if v.obj == nil {
			v.obj = newObject()
			if v.raw != nil && rawjson.IsObject(v.raw) {
				rawjson.ForEachMember(v.raw, func(k string, m []byte) error {
					v.obj.get(k).raw = m
					return nil
				})
			}
			v.raw = nil
		}
		o = v.obj
	}
	return nil, errors.New("empty key")
}

// encode writes the object, typing each text by its property's schema.
func (o *object) encode(schema node, prefix string) (json.RawMessage, error) {
	var members [][]byte
	for _, k := range o.keys {
		prop, _ := schema.property(k)
		enc, err := o.vals[k].encode(prop, prefix+"/"+k)
		if err != nil {
			return nil, err
		}
		members = append(members, append(append(str(k), ':'), enc...))
	}
	return json.RawMessage("{" + string(bytes.Join(members, []byte(","))) + "}"), nil
}

func (v *value) encode(n node, pointer string) (json.RawMessage, error) {
	switch {
	case v.obj != nil:
		return v.obj.encode(n, pointer)
	case len(v.entries) == 0:
		return v.raw, nil
	}
	many := len(v.entries) > 1
	if one := v.entries[0]; !many && one.raw == nil && n.valid() && n.allows("array") && !scalarAllowed(n) &&
		!strings.HasPrefix(strings.TrimSpace(one.text), "[") {
		many = true // a single value for an array: an array of one
	}
	var items [][]byte
	for _, e := range v.entries {
		if e.raw != nil {
			items = append(items, e.raw)
			continue
		}
		target := n
		if many && n.allows("array") {
			target = n.items()
		}
		enc, err := coerce(target, e.text)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %v", strings.TrimPrefix(pointer, "/"), err)
		}
		items = append(items, enc)
	}
	if !many {
		return items[0], nil
	}
	return json.RawMessage("[" + string(bytes.Join(items, []byte(","))) + "]"), nil
}

// scalarAllowed reports whether the schema takes a value other than an array
// or null (an optional array still wraps a single value).
func scalarAllowed(n node) bool {
	return slices.ContainsFunc([]string{"boolean", "integer", "number", "object", "string"}, n.allows)
}
