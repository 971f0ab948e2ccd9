package gateway

// What the front's lists show (lists.go) is kept to route by (route.go):
// who lists each URI, template, and each name of a member without a
// prefix, until that member's list changes or it goes down, within
// maxBookBytes.

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/uritemplate"
	"github.com/mcpv/mcpv/mcp"
)

// nameBook keeps who lists what, as the front's lists have shown it: for
// each URI, template, and name of a member without a prefix, the
// members that list it, in the members' order (its maps made at Start).
type nameBook struct {
	mu    sync.Mutex                          // guards the fields below
	by    map[string][]*Member                // list's key + "\x00" + item's -> its listers, in order
	tmpl  map[*Member][]*uritemplate.Template // each member's templates, parsed
	whole map[*Member]map[string]time.Time    // the lists (by key) of each member read: the zero time as far as they go, else when a walk of it failed
	bytes int
	full  bool          // maxBookBytes was reached (said once)
	retry time.Duration // how long a failed walk counts as read (zero: walkRetry)
}

// walkRetry is how long a list whose walk failed (an error, no answer)
// counts as read: the reads routed meanwhile do not each walk it again,
// and a member whose list comes back is read to its end once it has.
const walkRetry = 30 * time.Second

// markWalked notes that m's list l was read: to its end, until it cycled
// or passed maxFindPages (whole), or until a page failed or went
// unanswered (for walkRetry). forget clears it when the list changes or
// m goes down or comes up.
func (b *nameBook) markWalked(m *Member, l mcp.List, whole bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.whole[m] == nil {
		b.whole[m] = map[string]time.Time{}
	}
	var failed time.Time
	if !whole {
		failed = time.Now()
	}
	b.whole[m][l.Key] = failed
}

// walked reports whether m's list l was read as far as it goes, or failed
// less than walkRetry ago.
func (b *nameBook) walked(m *Member, l mcp.List) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	failed, ok := b.whole[m][l.Key]
	return ok && (failed.IsZero() || time.Since(failed) < cmp.Or(b.retry, walkRetry))
}

// claim notes that m lists the item of l called key, and reports
// whether a client of view sees m's: no member before m in the order,
// that view sees, lists it too. A second lister is said once.
func (b *nameBook) claim(g *Gateway, l mcp.List, key string, m *Member, view *serve.View) bool {
	k := bookKey(l, key)
	b.mu.Lock()
	listers := b.by[k]
	if !slices.Contains(listers, m) {
		if b.bytes+len(k)+16 > cmp.Or(g.maxBook, maxBookBytes) {
			full := b.full
			b.full = true
			b.mu.Unlock()
			if !full {
				g.Log.Warn(fmt.Sprintf("serve: the gateway keeps %d KiB of the names and URIs its servers list, to route by: past that, a URI is routed by the templates, and a name of a server without a prefix by its list when asked", cmp.Or(g.maxBook, maxBookBytes)>>10))
			}
			return true
		}
		listers = append(listers, m)
		if l.ByURI {
			listers = preferred(listers)
		} else {
			slices.SortFunc(listers, func(x, y *Member) int { return x.index - y.index })
		}
		b.by[k] = listers
		b.bytes += len(k) + 16
		if l == mcp.ResourceTemplates {
			if t, err := uritemplate.Parse(key); err == nil {
				b.tmpl[m] = append(b.tmpl[m], t)
			}
		}
	}
	b.mu.Unlock()
	if len(listers) > 1 {
		noun := l.Item
		if l.ByURI {
			noun = l.Field
		}
		g.sayOnce(fmt.Sprintf("serve: servers %q and %q both list the %s %q: %q's is served, the other's hidden", listers[0].Name, listers[1].Name, noun, safetext.Clip(safetext.Line(key), 200), listers[0].Name))
	}
	for _, l := range listers {
		if view.Sees(l.Name) {
			return l == m
		}
	}
	return true
}

// owner is the member a client of view reaches for the item of l called
// key: the first that lists it and that view sees.
func (b *nameBook) owner(l mcp.List, key string, view *serve.View) *Member {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.by[bookKey(l, key)] {
		if view.Sees(m.Name) {
			return m
		}
	}
	return nil
}

// bookKey is the key an item of l called id is kept by: a resource's URI
// in its normal form and in lower case (canon.URI), so that a URI
// written another way (in another case, with %-escapes, dot segments, a
// localhost) is the one it reads as, and is routed as that one is.
func bookKey(l mcp.List, id string) string {
	if l == mcp.Resources {
		if n, err := canon.URI(id); err == nil {
			id = strings.ToLower(n)
		}
	}
	return l.Key + "\x00" + id
}

// preferred are members in the order a URI or a template that several
// list is routed by: those with a prefix first (each owns what it lists,
// as it owns its names), then those without; each in the members'
// order. A member without a prefix never serves what one with a prefix
// lists.
func preferred(members []*Member) []*Member {
	out := slices.Clone(members)
	bare := func(m *Member) int {
		if m.prefix == "" {
			return 1
		}
		return 0
	}
	slices.SortFunc(out, func(x, y *Member) int { return cmp.Or(bare(x)-bare(y), x.index-y.index) })
	return out
}

// matching is the first member view sees whose template uri matches.
func (b *nameBook) matching(uri string, view *serve.View, members []*Member) *Member {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range members {
		if !view.Sees(m.Name) {
			continue
		}
		for _, t := range b.tmpl[m] {
			if _, ok := t.Match(uri); ok {
				return m
			}
		}
	}
	return nil
}

// forget drops what m lists (in the lists given, or all when none is):
// its list changed, or it went down.
func (b *nameBook) forget(m *Member, lists ...mcp.List) {
	b.mu.Lock()
	defer b.mu.Unlock()
	in := func(key string) bool {
		return len(lists) == 0 || slices.ContainsFunc(lists, func(l mcp.List) bool { return l.Key == key })
	}
	for k, listers := range b.by {
		key, _, _ := strings.Cut(k, "\x00")
		if !slices.Contains(listers, m) || !in(key) {
			continue
		}
		listers = slices.DeleteFunc(slices.Clone(listers), func(x *Member) bool { return x == m })
		if len(listers) == 0 {
			delete(b.by, k)
			b.bytes -= len(k) + 16
		} else {
			b.by[k] = listers
		}
	}
	if in(mcp.ResourceTemplates.Key) {
		delete(b.tmpl, m)
	}
	maps.DeleteFunc(b.whole[m], func(key string, _ time.Time) bool { return in(key) })
}
