package pin

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpv/mcpv/internal/apps"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
)

// A tool's app (MCP Apps) is pinned apart from the tool's definition,
// which leaves _meta out: what the tool's _meta.ui says (the ui://
// document it names, who may call the tool: the model, the app), and
// the document as it was read when pinned (its digest, its media type,
// and the content security policy and permissions of its own _meta.ui).
// A tool has an app entry when its _meta says anything of ui.
//
// The entry's definition is canonical JSON:
//
//	{"ui": {...the tool's _meta.ui...}, "ui/resourceUri": "ui://...",
//	 "document": {"uri", "read", "mimeType", "digest", "ui"}}
//
// "ui/resourceUri" is the deprecated flat key, when the tool uses it;
// "document" is there when the tool names one and it was read.

// App is the kind of a move of a tool's app, and Label's word for it.
const App = "app"

// appMembers are the members of an app's definition that the tool
// itself gives; "document" is what was read of its resource.
var appMembers = []string{"ui", "ui/resourceUri"}

// AppOf is the app entry of a tool listed as raw, with the documents
// read (nil: not read, and the entry holds none): nil when the tool's
// _meta says nothing of ui.
func AppOf(raw json.RawMessage, docs map[string]surface.Document) []byte {
	if len(raw) == 0 || raw[0] != '{' || !rawjson.Valid(raw) {
		return nil
	}
	meta := rawjson.Member(raw, "_meta")
	if len(meta) == 0 || meta[0] != '{' {
		return nil
	}
	def := map[string]json.RawMessage{}
	for _, m := range appMembers {
		if v := rawjson.Member(meta, m); v != nil && string(v) != "null" {
			def[m] = v
		}
	}
	if len(def) == 0 {
		return nil
	}
	if a, ok := apps.OfTool(raw); ok && docs != nil {
		def["document"] = documentJSON(a.ResourceURI, docs[a.ResourceURI])
	}
	out, _ := rawjson.Canonical(rawjson.Marshal(def)) // nil when it fails
	return out
}

// documentJSON is what an app's entry holds of its document.
func documentJSON(uri string, d surface.Document) json.RawMessage {
	m := map[string]any{"uri": uri, "read": d.Read}
	if d.Read {
		m["mimeType"], m["digest"] = d.MIMEType, d.Digest
		if d.UI != nil {
			m["ui"] = d.UI
		}
	}
	return rawjson.Marshal(m)
}

// Apps are the app entries of a surface's tools, by tool name, the first
// of a name listed twice.
func Apps(s surface.Server) []Item {
	var out []Item
	seen := map[string]bool{}
	for _, raw := range s.Tools {
		name := rawjson.Key(raw, "name")
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		if def := AppOf(raw, s.Documents); def != nil {
			out = append(out, Item{Key: name, Digest: Digest(def), Def: def})
		}
	}
	sortItems(out)
	return out
}

// FindApp is the pinned app of the tool called tool.
func (p *Server) FindApp(tool string) (Item, bool) { return find(p.Apps, tool) }

// CheckApp decides whether the app of the tool called tool, as listed now
// (live: AppOf of the tool as listed, nil when it has none), is as
// pinned. A live entry without a document (not read) is held by what the
// tool says alone. An entry pinned before mcpv pinned apps holds any.
func (p *Server) CheckApp(tool string, live []byte) *Move {
	if !p.HasApps {
		return nil
	}
	return ptr(p.appMove(tool, live))
}

// appMove is how the app of the tool called tool moved, when it did.
func (p *Server) appMove(tool string, live []byte) (Move, bool) {
	live = p.masked(live)
	pinned, isPinned := p.FindApp(tool)
	m := Move{Kind: App, Key: tool, Pinned: pinned.Def, Live: live}
	switch {
	case live == nil && !isPinned:
		return Move{}, false
	case live == nil:
		m.How = Removed
		m.Changes = []surface.Change{{Class: surface.ClassSecurity, Object: m.Label(), Message: "the tool no longer carries the app it was pinned with"}}
	case !isPinned:
		m.How = New
		m.Changes = []surface.Change{{Class: surface.ClassSecurity, Object: m.Label(), Message: "the tool carries an app that was not pinned"}}
	default:
		old := pinned.Def
		if rawjson.Member(live, "document") == nil {
			old = withoutMember(old, "document") // not read now: held by what the tool says
		}
		if Digest(old) == Digest(live) {
			return Move{}, false
		}
		m.How = Moved
		m.Changes = appChanges(m.Label(), old, live)
	}
	return m, true
}

// appChanges say what changed in an app, a change a member.
func appChanges(label string, old, new []byte) []surface.Change {
	changes := surface.DiffJSON(label, old, new)
	for i, c := range changes {
		switch c.Path {
		case "document.digest":
			changes[i].Message = "the app's document was replaced (its digest changed)"
		case "document.uri":
			changes[i].Message = "the app names another document: " + c.Message
		}
	}
	return changes
}

// withoutMember is a canonical object without one of its members.
func withoutMember(def []byte, name string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(def, &m) != nil {
		return def
	}
	delete(m, name)
	out, _ := rawjson.Canonical(rawjson.Marshal(m))
	return out
}

// appLabel is how a move of an app is labelled.
func appLabel(tool string) string { return fmt.Sprintf("app of tool %q", tool) }

// DocumentURI is the ui:// document a tool listed as raw names as its
// app, if it names one.
func DocumentURI(raw json.RawMessage) (string, bool) {
	a, ok := apps.OfTool(raw)
	return a.ResourceURI, ok
}

// CheckDocument decides whether the document at uri, as read now, is the
// one pinned for each app that names it: the first app whose document
// moved is refused with the move. A document whose content declares no
// _meta.ui of its own (UI nil) is held by its bytes and media type, the
// rest being its listing's, which a caller without it cannot tell.
func (p *Server) CheckDocument(uri string, d surface.Document) *Move {
	if !p.HasApps {
		return nil
	}
	for _, a := range p.Apps {
		pinnedDoc := rawjson.Member(a.Def, "document")
		if pinnedDoc == nil || rawjson.Key(pinnedDoc, "uri") != uri {
			continue
		}
		if d.Read && d.UI == nil {
			d.UI = rawjson.Member(pinnedDoc, "ui")
		}
		live, err := rawjson.Canonical(p.masked(rawjson.With(a.Def, "document", documentJSON(uri, d))))
		if err != nil || Digest(live) != a.Digest {
			m := Move{Kind: App, Key: a.Key, How: Moved, Pinned: a.Def, Live: live}
			m.Changes = appChanges(m.Label(), a.Def, live)
			return &m
		}
	}
	return nil
}

// DocumentPinned reports whether an app p pins names the document at uri.
func (p *Server) DocumentPinned(uri string) bool {
	return slices.ContainsFunc(p.Apps, func(a Item) bool {
		doc := rawjson.Member(a.Def, "document")
		return doc != nil && rawjson.Key(doc, "uri") == uri
	})
}

// AppChangesTo are how the apps q pins differ from those p pins, as
// changes of a diff of two pin files: none when either pins no apps.
func (p *Server) AppChangesTo(q *Server) []surface.Change {
	if !p.HasApps || !q.HasApps {
		return nil
	}
	var out []surface.Change
	for _, a := range p.Apps {
		b, ok := q.FindApp(a.Key)
		switch {
		case !ok:
			out = append(out, surface.Change{Class: surface.ClassSecurity, Object: appLabel(a.Key), Message: "removed"})
		case b.Digest != a.Digest:
			out = append(out, appChanges(appLabel(a.Key), a.Def, b.Def)...)
		}
	}
	for _, b := range q.Apps {
		if _, ok := p.FindApp(b.Key); !ok {
			out = append(out, surface.Change{Class: surface.ClassSecurity, Object: appLabel(b.Key), Message: "added"})
		}
	}
	return out
}
