package serve

// serve's own walks of an upstream session's lists for the pin (pin.go):
// bounded in pages and time, kept until the server says the list changed.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/uritemplate"
	"github.com/mcpv/mcpv/mcp"
)

// walkKind walks the server's list of kind whole, bounded, and keeps it
// (when u's lists are kept). A list the server does not have (method not
// found) is empty.
func (u *upstream) walkKind(ctx context.Context, kind pin.Kind) (*seenList, error) {
	asked := ctx
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(u.srv.pinWait, pinWalkWait))
	defer cancel()
	l := listOfKind(kind)
	method := l.Method
	mark := u.pinned.mark()
	list := &seenList{defs: map[string]json.RawMessage{}, twice: map[string]bool{}, apps: map[string]json.RawMessage{}, uis: map[string]json.RawMessage{}}
	err := u.walkPages(ctx, method, l.Key, func(items []json.RawMessage) error {
		for _, raw := range items {
			key, ok := l.ID(raw)
			if !ok || key == "" {
				continue
			}
			_, def, err := pin.Pinned(kind, raw)
			if _, dup := list.defs[key]; dup {
				list.twice[key] = true
			}
			if _, dup := list.defs[key]; err != nil || dup {
				continue
			}
			if kind == pin.Tool && pin.AppOf(raw, nil) != nil {
				list.apps[key] = raw
				list.bytes += len(raw)
			}
			if ui := rawjson.Member(rawjson.Member(raw, "_meta"), "ui"); kind == pin.Resource && ui != nil && string(ui) != "null" {
				list.uis[key] = ui
				list.bytes += len(ui)
			}
			if list.bytes += len(key) + len(def); list.bytes > maxSeenBytes {
				return fmt.Errorf("%s holds more than %d MiB", method, maxSeenBytes>>20)
			}
			list.defs[key] = def
			list.order = append(list.order, key)
			if kind == pin.Template {
				t, _ := uritemplate.Parse(key)
				list.parsed = append(list.parsed, t)
			}
		}
		return nil
	})
	if re, ok := errors.AsType[*mcp.RPCError](err); ok && re.Code == mcp.CodeMethodNotFound { // a *mcp.CallError's among them
		list, err = &seenList{defs: map[string]json.RawMessage{}}, nil
	}
	if err != nil {
		if asked.Err() == nil { // not the asker's hang-up: the list cannot be walked as it is
			u.pinned.failed(kind, mark)
		}
		return nil, err
	}
	list.complete = true
	if u.keeps() {
		u.pinned.keep(kind, list, mark)
	}
	return list, nil
}

// walkPages hands each page's items of a list to fn, to the end of the
// list or maxPinPages, as mcp.WalkPages walks them: through the
// upstream's own walk when it has one (Walker), else page by page
// through Forward.
func (u *upstream) walkPages(ctx context.Context, method, key string, fn func([]json.RawMessage) error) error {
	pages := mcp.WalkPages(ctx, method, key, maxPinPages, func(ctx context.Context, cursor string) (json.RawMessage, error) {
		params := json.RawMessage(`{}`)
		if cursor != "" {
			params = mustJSON(map[string]string{"cursor": cursor})
		}
		return u.conn.Forward(ctx, method, params)
	})
	if w, ok := u.conn.(Walker); ok {
		pages = w.Walk(ctx, method, key, maxPinPages)
	}
	for p, err := range pages {
		if err != nil {
			return err
		}
		if err := fn(p.Items); err != nil {
			return err
		}
	}
	return nil
}
