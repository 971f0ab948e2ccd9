package gateway

// Where a name, a URI or a template at the endpoint goes: by its prefix,
// else by what the members list (names.go), their lists walked when it
// is not known yet.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mcpv/mcpv/mcp"
)

// route is the member a name at the endpoint belongs to, and the name its
// server gives: by its prefix, else a member without one (the one, or
// the first that lists it, its list walked when it is not known yet); nil
// when none the client sees gives it.
func (f *front) route(ctx context.Context, l mcp.List, name string) (*Member, string) {
	g, view := f.gw, f.c.Who()
	for _, m := range g.Members {
		if m.prefix != "" && strings.HasPrefix(name, m.prefix) {
			if !view.Sees(m.Name) {
				return nil, ""
			}
			return m, name[len(m.prefix):]
		}
	}
	var bare []*Member
	for _, m := range g.Members {
		if m.prefix == "" && view.Sees(m.Name) {
			bare = append(bare, m)
		}
	}
	if len(bare) == 0 || g.claims(name) != nil {
		return nil, ""
	}
	if m := f.lister(ctx, l, name, bare); m != nil {
		return m, name
	}
	return nil, ""
}

// lister is the member of candidates that lists the item of l called id:
// the only one, else the first the client sees that lists it (nameBook),
// else the first whose list, walked now, holds it; nil when none does.
func (f *front) lister(ctx context.Context, l mcp.List, id string, candidates []*Member) *Member {
	if len(candidates) == 1 {
		return candidates[0]
	}
	if m := f.gw.names.owner(l, id, f.c.Who()); m != nil {
		return m
	}
	key := bookKey(l, id)
	for _, m := range candidates {
		if f.find(ctx, m, l, func(id string) bool { return bookKey(l, id) == key }) {
			return m
		}
	}
	return nil
}

// owner is the member a resource URI goes to for this client: the first
// that lists it, else the first whose template matches it (the lists
// walked when they are not known yet), else the only member that serves
// resources.
func (f *front) owner(ctx context.Context, uri string) *Member {
	g, view := f.gw, f.c.Who()
	find := func() *Member {
		if m := g.names.owner(mcp.Resources, uri, view); m != nil {
			return m
		}
		return g.names.matching(uri, view, preferred(g.Members))
	}
	serving := preferred(f.resourceMembers())
	if m := find(); m != nil {
		if m.prefix == "" {
			// A member without a prefix serves it only if no member with
			// one lists it: theirs are read to their end first.
			for _, p := range serving {
				for _, l := range []mcp.List{mcp.Resources, mcp.ResourceTemplates} {
					if p.prefix != "" && !g.names.walked(p, l) {
						f.find(ctx, p, l, nil)
					}
				}
			}
			m = find()
		}
		return m
	}
	if m := f.lister(ctx, mcp.Resources, uri, serving); m != nil {
		return m
	}
	for _, m := range serving {
		f.find(ctx, m, mcp.ResourceTemplates, nil)
	}
	return find()
}

// resourceMembers are the members the client sees that serve resources
// (or may: those not up yet are started).
func (f *front) resourceMembers() []*Member {
	var out []*Member
	for i := f.nextMember(0, mcp.Resources.Method); i >= 0; i = f.nextMember(i+1, mcp.Resources.Method) {
		out = append(out, f.gw.Members[i])
	}
	return out
}

// find reads m's list l, as the client sees it, until an item whose
// name match takes (none: to its end), within maxFindPages pages; what it
// reads is kept (nameBook). It reports whether it found one. A walk
// that ends without one is noted, so that owner does not walk it again:
// for good at the list's end, a cycle or maxFindPages, for walkRetry
// when a page failed or went unanswered; one the client ended is not.
func (f *front) find(ctx context.Context, m *Member, l mcp.List, match func(id string) bool) bool {
	found, whole := f.walk(ctx, m, l, match)
	if !found && ctx.Err() == nil {
		f.gw.names.markWalked(m, l, whole)
	}
	return found
}

// walk is find's reading of the list, as mcp.WalkPages walks it:
// whether it found the item, and whether it read the list as far as it
// goes (not stopped by a page that failed or went unanswered).
func (f *front) walk(ctx context.Context, m *Member, l mcp.List, match func(id string) bool) (found, whole bool) {
	pages := mcp.WalkPages(ctx, l.Method, l.Key, maxFindPages, func(ctx context.Context, cursor string) (json.RawMessage, error) {
		res, err := f.fetchPage(ctx, m, l.Method, nil, cursor)
		if res == nil && err == nil {
			err = errors.New("no page") // fetchPage said why
		}
		return res, err
	})
	for p, err := range pages {
		if err != nil {
			return false, mcp.Broken(err) || errors.As(err, new(*mcp.PageCapError))
		}
		items, next := f.pageItems(m, l.Method, l.Key, p.Raw)
		for _, it := range items {
			if id, _ := l.ID(it); match != nil && match(id) {
				return true, true
			}
		}
		if next == "" {
			return false, true
		}
	}
	return false, true
}
