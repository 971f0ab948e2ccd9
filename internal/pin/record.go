package pin

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpv/mcpv/internal/surface"
)

// Canonical is JSON text in the one form a pin digests and writes: keys
// sorted, no space, numbers as written, strings as Go writes them (no
// HTML escapes). Two texts of one value give one form, whatever their key
// order or spacing; an object that holds a key twice keeps the last, as
// Go's decoder and most others read it.
func Canonical(raw []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("more than one JSON value")
	}
	return marshal(v)
}

// marshal writes v compact, without HTML escapes.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Pinned is the part of an item of kind that a pin holds, canonical: the
// members kindInfo names, as the server sent them; and its key. An item
// that is no object, or whose key is no string, has no key ("").
func Pinned(kind Kind, raw json.RawMessage) (key string, def []byte, err error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return "", nil, fmt.Errorf("a %s that is not a JSON object", kind)
	}
	kept := map[string]any{}
	for _, name := range kindInfo[kind].members {
		if v, ok := m[name]; ok {
			kept[name] = v
		}
	}
	key, _ = m[kind.KeyMember()].(string)
	def, err = marshal(kept)
	return key, def, err
}

// Record is the pin of a surface, named name: its identity, its
// instructions, and every item of each kind with its pinned members. An
// item without a key is left out (there is nothing a command could ask
// for by it); so is the second of two items with one key, which a
// client cannot tell apart either: the pin holds what a lookup by key
// finds first.
func Record(name string, s surface.Server) (*Server, error) {
	p := &Server{Name: name, ProtocolVersion: s.ProtocolVersion, Items: map[Kind][]Item{}}
	if len(s.Info) > 0 && string(s.Info) != "null" {
		info, err := Canonical(s.Info)
		if err != nil {
			return nil, fmt.Errorf("serverInfo: %v", err)
		}
		p.Info = info
	}
	if s.Instructions != nil {
		p.Instructions = &Instructions{Digest: instructionsDigest(*s.Instructions), Text: *s.Instructions}
	}
	for _, kind := range Kinds {
		seen := map[string]bool{}
		for _, raw := range Listed(kind, s) {
			key, def, err := Pinned(kind, raw)
			if err != nil || key == "" || seen[key] {
				continue
			}
			seen[key] = true
			p.Items[kind] = append(p.Items[kind], Item{Key: key, Digest: Digest(def), Def: def})
		}
		slices.SortFunc(p.Items[kind], func(a, b Item) int { return cmp.Compare(a.Key, b.Key) })
	}
	return p, nil
}

// Listed are the items of kind that a surface lists.
func Listed(kind Kind, s surface.Server) []json.RawMessage {
	switch kind {
	case Tool:
		return s.Tools
	case Prompt:
		return s.Prompts
	case Resource:
		return s.Resources
	}
	return s.ResourceTemplates
}

// Surface is the surface a pin holds, as surface.Server: for a diff or an
// audit of a pin file, without starting anything.
func (p *Server) Surface() surface.Server {
	s := surface.Server{Name: p.Name, Info: p.Info, ProtocolVersion: p.ProtocolVersion, HasResources: true, HasIdentity: true}
	if p.Instructions != nil {
		text := p.Instructions.Text
		s.Instructions = &text
	}
	for _, kind := range Kinds {
		var items []json.RawMessage
		for _, it := range p.Items[kind] {
			items = append(items, it.Def)
		}
		switch kind {
		case Tool:
			s.Tools = items
		case Prompt:
			s.Prompts = items
		case Resource:
			s.Resources = items
		default:
			s.ResourceTemplates = items
		}
	}
	return s
}
