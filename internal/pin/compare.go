package pin

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
)

// How says how an item moved from its pin.
type How string

const (
	// Moved: pinned, and its definition is no longer what was pinned.
	Moved How = "moved"
	// New: not pinned. A new item named like a pinned one (LooksLike) or
	// carrying the definition of one that went (RenamedFrom) is a move too.
	New How = "new"
	// Removed: pinned, and the server no longer lists it.
	Removed How = "removed"
	// Twice: the server lists the key more than once (on one page or
	// on two): a client cannot tell which it uses, so neither is.
	Twice How = "listed twice"
)

// Move is one way a surface moved from its pin.
type Move struct {
	// Kind is the item's kind, or "server" for the server's identity,
	// "instructions" for its instructions and App for a tool's app.
	Kind string
	Key  string
	How  How
	// LooksLike is a pinned item of the same kind whose name this new one
	// looks like (canon.LookAlike).
	LooksLike string
	// RenamedFrom is a pinned item the server no longer lists whose
	// definition, or whose description, this new one has.
	RenamedFrom string
	// Changes say what moved in a moved item.
	Changes []surface.Change
	// Pinned and Live are the definitions, pinned and as listed now
	// (pinned members alone, canonical); either is nil where there is none.
	Pinned, Live json.RawMessage
}

// Label names the moved thing for people: `tool "add"`, "instructions".
func (m Move) Label() string {
	switch {
	case m.Kind == "instructions" || m.Key == "":
		return m.Kind
	case m.Kind == App:
		return appLabel(m.Key)
	}
	return fmt.Sprintf("%s %q", m.Kind, m.Key)
}

// Compare tells every way live moved from p: its name or title (the
// server's identity; its version and protocol version may change without
// a move), its instructions, each item of each kind, in the order of a
// pin file, a key listed twice, and the app of each pinned tool.
func (p *Server) Compare(live surface.Server) []Move {
	var moves []Move
	if m, ok := p.identityMove(live); ok {
		moves = append(moves, m)
	}
	if m, ok := p.instructionsMove(live.Instructions); ok {
		moves = append(moves, m)
	}
	for _, kind := range Kinds {
		if kind == Resource && !live.HasResources {
			continue
		}
		moves = append(moves, p.compareKind(kind, Listed(kind, live))...)
	}
	return append(moves, p.compareApps(live)...)
}

// compareKind is how the items of kind moved, listed now as items.
func (p *Server) compareKind(kind Kind, items []json.RawMessage) []Move {
	twice := map[string]bool{}
	for _, key := range Duplicates(kind, items) {
		twice[key] = true
	}
	listed := map[string]json.RawMessage{}
	var keys []string
	for _, raw := range items {
		key, def, err := Pinned(kind, raw)
		if err != nil || key == "" {
			continue
		}
		if _, dup := listed[key]; !dup {
			keys = append(keys, key)
			listed[key] = p.masked(def)
		}
	}
	for _, it := range p.Items[kind] {
		if _, ok := listed[it.Key]; !ok {
			keys = append(keys, it.Key)
		}
	}
	slices.Sort(keys)
	idx := p.indexOf(kind, listed)
	var moves []Move
	for _, key := range slices.Compact(keys) {
		if twice[key] {
			moves = append(moves, ListedTwice(kind, key))
		} else if m, ok := p.move(kind, key, listed[key], idx); ok {
			moves = append(moves, m)
		}
	}
	return moves
}

// ListedTwice is the move of a key of kind the server lists more than
// once.
func ListedTwice(kind Kind, key string) Move {
	m := Move{Kind: string(kind), Key: key, How: Twice}
	m.Changes = []surface.Change{{Class: surface.ClassSecurity, Object: m.Label(),
		Message: fmt.Sprintf("the server lists this %s more than once; a client cannot tell which one it uses", kind)}}
	return m
}

// compareApps is how the apps of the tools pinned and listed once moved;
// an entry pinned before mcpv pinned apps holds none.
func (p *Server) compareApps(live surface.Server) []Move {
	if !p.HasApps {
		return nil
	}
	count := map[string]int{}
	for _, raw := range live.Tools {
		count[rawjson.Key(raw, "name")]++
	}
	var moves []Move
	for _, raw := range live.Tools {
		name := rawjson.Key(raw, "name")
		if _, pinned := p.Find(Tool, name); !pinned || count[name] != 1 {
			continue // new, or listed twice: the tool's own move says it
		}
		if m, ok := p.appMove(name, AppOf(raw, live.Documents)); ok {
			moves = append(moves, m)
		}
	}
	slices.SortFunc(moves, func(a, b Move) int { return strings.Compare(a.Key, b.Key) })
	return moves
}

// move is how the item of kind called key moved, when it did: def is its
// pinned members as listed now (nil when not listed); idx indexes the
// kind's pinned items (nil: made when a new item needs it).
func (p *Server) move(kind Kind, key string, def []byte, idx *index) (Move, bool) {
	pinned, isPinned := p.Find(kind, key)
	switch {
	case def == nil && !isPinned:
		return Move{Kind: string(kind), Key: key, How: New}, true
	case def == nil:
		return Move{Kind: string(kind), Key: key, How: Removed, Pinned: pinned.Def}, true
	case !isPinned:
		m := Move{Kind: string(kind), Key: key, How: New, Live: def}
		if idx == nil {
			idx = p.indexOf(kind, nil)
		}
		m.LooksLike, m.RenamedFrom = p.likeness(kind, key, def, idx)
		return m, true
	case Digest(def) != pinned.Digest:
		return Move{Kind: string(kind), Key: key, How: Moved, Pinned: pinned.Def, Live: def,
			Changes: surface.DiffItem(string(kind), pinned.Def, def)}, true
	}
	return Move{}, false
}

// likeness is the pinned item of kind a new item called key looks like,
// and the pinned item it was renamed from: one the server no longer lists
// whose definition but for its key, or whose description, the new one
// has. idx indexes the pinned items of the kind.
func (p *Server) likeness(kind Kind, key string, def []byte, idx *index) (looksLike, renamedFrom string) {
	if like, ok := idx.skeletons[canon.Skeleton(key)]; ok && like != key {
		looksLike = like
	}
	if desc := rawjson.Key(def, "description"); desc != "" {
		if from, ok := idx.gone[desc]; ok {
			return looksLike, from
		}
	}
	return looksLike, idx.gone["\x00"+string(withoutMember(def, kind.KeyMember()))]
}

// index is what a Compare knows of a kind's pinned items, each read once:
// their names by skeleton, and those the server no longer lists by their
// description and by their definition but for the key ("\x00" first).
type index struct {
	skeletons map[string]string
	gone      map[string]string
}

// indexOf indexes p's items of kind; listed are those the server lists
// (nil: as though it listed none, for one item's check).
func (p *Server) indexOf(kind Kind, listed map[string]json.RawMessage) *index {
	idx := &index{skeletons: map[string]string{}, gone: map[string]string{}}
	first := func(m map[string]string, k, v string) {
		if _, seen := m[k]; !seen {
			m[k] = v
		}
	}
	for _, it := range p.Items[kind] {
		first(idx.skeletons, canon.Skeleton(it.Key), it.Key)
		if _, still := listed[it.Key]; still {
			continue
		}
		if desc := rawjson.Key(it.Def, "description"); desc != "" {
			first(idx.gone, desc, it.Key)
		}
		first(idx.gone, "\x00"+string(withoutMember(it.Def, kind.KeyMember())), it.Key)
	}
	return idx
}

// identityMove is the server's name or title changed.
func (p *Server) identityMove(live surface.Server) (Move, bool) {
	if !live.HasIdentity {
		return Move{}, false
	}
	var liveInfo []byte
	if len(live.Info) > 0 {
		liveInfo, _ = rawjson.Canonical(p.masked(live.Info))
	}
	name, title := rawjson.Key(p.Info, "name"), rawjson.Key(p.Info, "title")
	if name == rawjson.Key(liveInfo, "name") && title == rawjson.Key(liveInfo, "title") {
		return Move{}, false
	}
	var changes []surface.Change
	for _, c := range surface.CompareServers(surface.Server{HasIdentity: true, Info: p.Info}, surface.Server{HasIdentity: true, Info: liveInfo}) {
		if c.Class >= surface.ClassSecurity {
			changes = append(changes, c)
		}
	}
	return Move{Kind: "server", Key: name, How: Moved, Changes: changes, Pinned: p.Info, Live: liveInfo}, true
}

// instructionsMove is the server's instructions changed, added or gone.
func (p *Server) instructionsMove(live *string) (Move, bool) {
	var pinned *string
	if p.Instructions != nil {
		pinned = &p.Instructions.Text
	}
	if live != nil && p.mask != nil {
		live = new(string(p.mask([]byte(*live))))
	}
	if pinned == nil && live == nil || pinned != nil && live != nil && *pinned == *live {
		return Move{}, false
	}
	m := Move{Kind: "instructions", How: Moved}
	switch {
	case pinned == nil:
		m.How = New
	case live == nil:
		m.How = Removed
	}
	m.Changes = surface.CompareServers(surface.Server{HasIdentity: true, Instructions: pinned}, surface.Server{HasIdentity: true, Instructions: live})
	return m, true
}
