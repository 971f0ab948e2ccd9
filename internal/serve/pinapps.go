package serve

// The apps of the tools held to the pin (pin.go): a tool whose app (its
// _meta.ui, or the ui:// document it names) moved is withheld, and a read
// of a document that moved is refused, or emptied of it.

import (
	"context"
	"encoding/json"

	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// appMove is how the app of the tool called key, listed as raw (nil: as
// a walk kept it), moved from the pin, its document read (or as read
// before); nil when it did not.
func (u *upstream) appMove(ctx context.Context, entry *pin.Server, key string, raw json.RawMessage) *pin.Move {
	if !entry.HasApps {
		return nil
	}
	_, pinned := entry.FindApp(key)
	if !pinned && pin.AppOf(raw, nil) == nil {
		return nil
	}
	var docs map[string]surface.Document
	if uri, ok := pin.DocumentURI(raw); ok {
		docs = map[string]surface.Document{uri: u.appDoc(ctx, uri, true)}
	}
	return entry.CheckApp(key, pin.AppOf(raw, docs))
}

// appDoc is the app document at uri, read from the server (kept, when
// kept, until a resource changes); its _meta.ui the listing's when the
// content declares none. One that cannot be read is a document not read,
// which is not the one pinned.
func (u *upstream) appDoc(ctx context.Context, uri string, kept bool) surface.Document {
	d, ok, gen := u.pinned.doc(uri)
	if ok && kept {
		return d
	}
	res, err := u.conn.Forward(ctx, "resources/read", mustJSON(map[string]string{"uri": uri}))
	if err != nil {
		return surface.Document{}
	}
	d = surface.DocumentOf(uri, res, nil)
	if d.Read && d.UI == nil {
		if l, _, err := u.resourceLists(ctx); err == nil && l.uis[uri] != nil {
			d = surface.DocumentOf(uri, res, mustJSON(map[string]any{"_meta": map[string]json.RawMessage{"ui": l.uis[uri]}}))
		}
	}
	u.pinned.keepDoc(uri, d, gen)
	return d
}

// pinRead is a resources/read result without the app documents that moved
// since they were pinned (said once): what a client is given is what the
// check before it was sent saw, whatever the server answered in between.
func (u *upstream) pinRead(res json.RawMessage) json.RawMessage {
	g := u.srv.pins
	entry := g.current()
	if entry == nil || !entry.HasApps {
		return res
	}
	return mcp.FilterPage(res, "contents", func(item json.RawMessage) bool {
		uri, _ := rawjson.ExactString(item, "uri")
		if !entry.DocumentPinned(uri) {
			return true
		}
		d := surface.DocumentOf(uri, mustJSON(map[string][]json.RawMessage{"contents": {item}}), nil)
		if m := entry.CheckDocument(uri, d); m != nil {
			g.say(*m)
			return false
		}
		return true
	})
}
