package pin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
)

// Pinned is the part of an item of kind that a pin holds, canonical: the
// members kindInfo names, as the server sent them; and its key. An item
// that is no object, or whose key is no string, has no key (""). Of a
// member given twice, the last counts, as a decoder reads it.
func Pinned(kind Kind, raw json.RawMessage) (key string, def []byte, err error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		return "", []byte("{}"), nil
	}
	if !rawjson.IsObject(raw) || !rawjson.Valid(raw) {
		return "", nil, fmt.Errorf("a %s that is not a JSON object", kind)
	}
	members := kindInfo[kind].members
	kept := make([][]byte, len(members))
	rawjson.ForEachValidMember(raw, func(k string, v []byte) error {
		if i := slices.Index(members, k); i >= 0 {
			kept[i] = v
		}
		return nil
	})
	var b bytes.Buffer
	b.WriteByte('{')
	for _, i := range sortedMembers(kind) {
		if kept[i] == nil {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(rawjson.AppendString(nil, members[i]))
		b.WriteByte(':')
		rawjson.WriteCanonical(&b, kept[i])
	}
	b.WriteByte('}')
	if v := kept[slices.Index(members, kind.KeyMember())]; len(v) > 0 && v[0] == '"' {
		key, _ = rawjson.String(v)
	}
	return key, b.Bytes(), nil
}

// sortedMembers are the indexes of kind's pinned members in the order
// of their names.
func sortedMembers(kind Kind) []int {
	members := kindInfo[kind].members
	idx := make([]int, len(members))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(members[a], members[b]) })
	return idx
}

// Record is the pin of a surface, named name: its identity, its
// instructions, every item of each kind with its pinned members, and the
// apps of its tools. An item without a key is left out (there is nothing
// a command could ask for by it); so is a key listed twice, which a
// client cannot tell apart: neither is pinned, and each pinned command
// refuses it while the server lists it so (Duplicates says which).
func Record(name string, s surface.Server) (*Server, error) {
	p := &Server{Name: name, ProtocolVersion: s.ProtocolVersion, Items: map[Kind][]Item{}, HasApps: true}
	if len(s.Info) > 0 && string(s.Info) != "null" {
		info, err := rawjson.Canonical(s.Info)
		if err != nil {
			return nil, fmt.Errorf("serverInfo: %v", err)
		}
		p.Info = info
	}
	if s.Instructions != nil {
		p.Instructions = &Instructions{Digest: instructionsDigest(*s.Instructions), Text: *s.Instructions}
	}
	for _, kind := range Kinds {
		twice := map[string]bool{}
		for _, key := range Duplicates(kind, Listed(kind, s)) {
			twice[key] = true
		}
		for _, raw := range Listed(kind, s) {
			key, def, err := Pinned(kind, raw)
			if err != nil || key == "" || twice[key] {
				continue
			}
			p.Items[kind] = append(p.Items[kind], Item{Key: key, Digest: Digest(def), Def: def})
		}
		sortItems(p.Items[kind])
	}
	for _, a := range Apps(s) {
		if _, ok := p.Find(Tool, a.Key); ok {
			p.Apps = append(p.Apps, a)
		}
	}
	return p, nil
}

// Duplicates are the keys that items lists more than once, each once, in
// the order their second listing comes.
func Duplicates(kind Kind, items []json.RawMessage) []string {
	seen := make(map[string]int, len(items))
	var twice []string
	for _, raw := range items {
		key := rawjson.Key(raw, kind.KeyMember())
		if key == "" {
			continue
		}
		if seen[key]++; seen[key] == 2 {
			twice = append(twice, key)
		}
	}
	return twice
}

// Listed are the items of kind that a surface lists.
func Listed(kind Kind, s surface.Server) []json.RawMessage { return *listOf(&s, kind) }

// listOf is where a surface holds the items of kind.
func listOf(s *surface.Server, kind Kind) *[]json.RawMessage {
	switch kind {
	case Tool:
		return &s.Tools
	case Prompt:
		return &s.Prompts
	case Resource:
		return &s.Resources
	}
	return &s.ResourceTemplates
}

// Surface is the surface a pin holds, as surface.Server: for a diff or an
// audit of a pin file, without starting anything.
func (p *Server) Surface() surface.Server {
	s := surface.Server{Name: p.Name, Info: p.Info, ProtocolVersion: p.ProtocolVersion, HasResources: true, HasIdentity: true}
	if p.Instructions != nil {
		s.Instructions = new(p.Instructions.Text)
	}
	for _, kind := range Kinds {
		items := listOf(&s, kind)
		for _, it := range p.Items[kind] {
			*items = append(*items, it.Def)
		}
	}
	return s
}

// Masked is p with what it pins through mask (a run's masker), its
// digests anew, and compared from now on with live definitions, names
// and instructions through mask too (Check, Compare, Approve): a pin and
// a server that hold a secret compare alike, whichever of them masked it
// first, their apps too. A nil p or mask changes nothing.
func (p *Server) Masked(mask func([]byte) []byte) *Server {
	if p == nil || mask == nil {
		return p
	}
	m := *p
	m.mask, m.Items = mask, map[Kind][]Item{}
	m.Info = m.masked(p.Info)
	for kind, items := range p.Items {
		m.Items[kind] = maskedItems(items, mask)
	}
	m.Apps = maskedItems(p.Apps, mask)
	if p.Instructions != nil {
		text := string(mask([]byte(p.Instructions.Text)))
		m.Instructions = &Instructions{Digest: instructionsDigest(text), Text: text}
	}
	return &m
}

// maskedItems are items with their definitions through mask, their
// digests anew.
func maskedItems(items []Item, mask func([]byte) []byte) []Item {
	var out []Item
	for _, it := range items {
		def := mask(it.Def)
		out = append(out, Item{Key: it.Key, Digest: Digest(def), Def: def})
	}
	return out
}

// masked is raw through p's mask, when it has one.
func (p *Server) masked(raw []byte) []byte {
	if p.mask == nil || raw == nil {
		return raw
	}
	return p.mask(raw)
}

// View is what a pin holds of a surface, as a surface: each item listed
// (a key listed twice as well, for a diff to show) with its pinned
// members alone, the identity's name and title, no protocol version. A
// diff against a pin compares the View of both sides, so that what a pin
// leaves out (_meta, icons, the server's version) makes no change; the
// apps it holds are compared apart (AppChanges).
func View(s surface.Server) surface.Server {
	v := surface.Server{Name: s.Name, HasIdentity: s.HasIdentity, HasResources: s.HasResources, Instructions: s.Instructions}
	if name, title := rawjson.Key(s.Info, "name"), rawjson.Key(s.Info, "title"); name != "" || title != "" {
		v.Info, _ = rawjson.Encode(map[string]string{"name": name, "title": title})
		if title == "" {
			v.Info, _ = rawjson.Encode(map[string]string{"name": name})
		}
	}
	for _, kind := range Kinds {
		items := listOf(&v, kind)
		for _, raw := range Listed(kind, s) {
			if _, def, err := Pinned(kind, raw); err == nil {
				raw = def
			}
			*items = append(*items, raw)
		}
	}
	return v
}

// AppChanges are how the apps of the tools p pins moved in live, as
// changes of a diff: none for an entry that pins no apps.
func (p *Server) AppChanges(live surface.Server) []surface.Change {
	var out []surface.Change
	for _, m := range p.compareApps(live) {
		out = append(out, m.Changes...)
	}
	return out
}
