package gateway

// A gateway's lists (gateway.go): one list of every member's items, whose
// pages span the members in their order. A page holds the members'
// pages one after the other until it is full (so that a client that
// reads the first page alone, as many do, sees every member's items
// when they are not many), its items named as the endpoint names them;
// its nextCursor names the member and that member's cursor where the
// next page starts, signed, so that it stays opaque: a
// client can neither read it nor make one up (nor use one for another
// list, or a member its view does not see). A member's own cursor is
// kept as it is up to maxMemberCursor bytes; a longer one ends that
// member's list there, and serve says so.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/mcp"
)

// Bounds of a gateway's lists.
const (
	// maxMemberCursor is the longest cursor of a member's kept in the
	// cursors the front gives.
	maxMemberCursor = 4096
	// A page of the front holds the members' pages, one after the other
	// (every member's whole list in one page, as most clients read only
	// the first), until it holds pageItems items or pageBytes of them,
	// or maxHops pages of members were asked for.
	pageItems = 10000
	pageBytes = 8 << 20
	maxHops   = 64
	// maxBookBytes bounds what is kept of the members' lists to route by.
	maxBookBytes = 16 << 20
	// maxFindPages bounds the pages of a member's list read to find who
	// lists a name or a URI.
	maxFindPages = 1000
	// maxSaid bounds the lines said once each: a server that makes up
	// new names without end fills no log.
	maxSaid = 1024
	// maxTasks bounds the task ids whose member is kept: past it the
	// oldest is forgotten (its client is then told it is not found).
	maxTasks = 16384
)

// listPos is where a page of the front's list starts: a member, and its
// own cursor ("" for its first page).
type listPos struct {
	M string `json:"m"`
	C string `json:"c,omitempty"`
}

// cursor is the signed, opaque cursor of pos in the list of method.
func (g *Gateway) cursor(method string, pos listPos) string {
	payload := rawjson.Marshal(pos)
	return base64.RawURLEncoding.EncodeToString(append(g.sign(method, payload), payload...))
}

// readCursor reads a cursor the front gave for the list of method.
func (g *Gateway) readCursor(method, cursor string) (listPos, bool) {
	var pos listPos
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(raw) < 16 || len(cursor) > 2*maxMemberCursor ||
		!hmac.Equal(raw[:16], g.sign(method, raw[16:])) || json.Unmarshal(raw[16:], &pos) != nil {
		return pos, false
	}
	return pos, g.member(pos.M) != nil
}

func (g *Gateway) sign(method string, payload []byte) []byte {
	mac := hmac.New(sha256.New, g.key[:])
	mac.Write([]byte(method))
	mac.Write([]byte{0})
	mac.Write(payload)
	return mac.Sum(nil)[:16]
}

// list answers a page of the front's list of method: the members' pages,
// from where its cursor says, until the page is full (pageItems,
// pageBytes, maxHops) or the list ends.
func (f *front) list(ctx context.Context, method string, params json.RawMessage, modern bool) (json.RawMessage, error) {
	g, view := f.gw, f.c.Who()
	key := "tasks" // the member of the result that holds its items
	if l, ok := mcp.ListOf(method); ok {
		key = l.Key
	}
	var pos listPos
	if raw := rawjson.Member(params, "cursor"); raw != nil && string(raw) != "null" {
		cursor, _ := rawjson.String(raw) // one that is no string reads as "", no cursor the front gave
		var ok bool
		pos, ok = g.readCursor(method, cursor)
		if !ok || !view.Sees(pos.M) {
			return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: method + ": invalid cursor"}
		}
	} else if method != "tasks/list" {
		for _, m := range g.Members {
			if view.Sees(m.Name) && m.life != nil {
				m.life.wake() // each starts while those before it are listed
			}
		}
	}
	i := 0
	var ahead map[*Member]chan fetched
	if pos.M != "" {
		i = g.member(pos.M).index
	} else {
		var stop context.CancelFunc
		ahead, stop = f.fetchAhead(ctx, method, params)
		defer stop()
		if l, _ := mcp.ListOf(method); l.ByURI {
			// A URI (or template) several list is the preferred one's:
			// it claims what it lists before the others do, whatever the
			// order its items come in.
			for _, m := range preferred(slices.Collect(maps.Keys(ahead))) {
				r := f.take(m, method, key, <-ahead[m])
				if r.err != nil {
					return nil, r.err
				}
				ahead[m] <- r // taken: served in the members' order below
			}
		}
	}
	var items []json.RawMessage
	size := 0
	for hops := 0; ; hops++ {
		if i = f.nextMember(i, method); i < 0 {
			break
		}
		m := g.Members[i]
		var r fetched
		if got, ok := ahead[m]; ok && pos.C == "" {
			delete(ahead, m)
			r = <-got
		} else {
			r.res, r.err = f.fetchPage(ctx, m, method, params, pos.C)
		}
		if r = f.take(m, method, key, r); r.err != nil {
			return nil, r.err
		}
		items = append(items, r.items...)
		for _, it := range r.items {
			size += len(it)
		}
		pos.C = r.next
		if pos.C == "" {
			if i = f.nextMember(i+1, method); i < 0 {
				break
			}
		}
		if len(items) >= pageItems || size >= pageBytes || hops+1 >= maxHops {
			return f.page(ctx, method, key, items, g.cursor(method, listPos{M: g.Members[i].Name, C: pos.C}), modern), nil
		}
	}
	return f.page(ctx, method, key, items, "", modern), nil
}

// fetched is a member's first page, asked for ahead, and once taken its
// items as the client sees them and the member's next cursor.
type fetched struct {
	res   json.RawMessage
	err   error
	items []json.RawMessage
	next  string
}

// take is r with its items as the client sees them and m's next cursor
// (pageItems), once r has a page; a page taken once is not taken again.
func (f *front) take(m *Member, method, key string, r fetched) fetched {
	if r.res != nil {
		r.items, r.next = f.pageItems(m, method, key, r.res)
		r.res = nil
	}
	return r
}

// fetchAhead asks every member the client may list for its first page at
// once (up to maxHops of them), so that a list waits for its slowest
// member, not for the sum of their waits (twenty servers slow to start,
// each left out after ListWait). Their pages are taken in order
// (pageItems). stop cancels what was not taken: a page full before the
// last member's.
func (f *front) fetchAhead(ctx context.Context, method string, params json.RawMessage) (map[*Member]chan fetched, context.CancelFunc) {
	actx, stop := context.WithCancel(ctx)
	ahead := map[*Member]chan fetched{}
	for i := f.nextMember(0, method); i >= 0 && len(ahead) < maxHops; i = f.nextMember(i+1, method) {
		m := f.gw.Members[i]
		ch := make(chan fetched, 1)
		ahead[m] = ch
		go func() { // a server's first page of a list: ends with the member's answer, ListWait, or stop
			res, err := f.fetchPage(actx, m, method, params, "")
			ch <- fetched{res: res, err: err}
		}()
	}
	return ahead, stop
}

// nextMember is the index of the first member from i on whose items the
// client may list, -1 when there is none.
func (f *front) nextMember(i int, method string) int {
	view := f.c.Who()
	for ; i < len(f.gw.Members); i++ {
		m := f.gw.Members[i]
		if !view.Sees(m.Name) {
			continue
		}
		if method == "tasks/list" && m.upNow() == nil && !f.met(m) {
			continue // tasks are made by requests: a member never met has none of this client's
		}
		if u := m.upNow(); u != nil && !declares(u, method) {
			continue
		}
		return i
	}
	return -1
}

// met reports whether the client has a sub-client of m.
func (f *front) met(m *Member) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.subs[m] != nil
}

// declares reports whether u's server declared the capability a list
// needs.
func declares(u *serve.Session, method string) bool {
	capability := "tasks"
	if l, ok := mcp.ListOf(method); ok {
		capability = l.Capability
	}
	return rawjson.Member(rawjson.Member(u.Init(), "capabilities"), capability) != nil
}

// page is a page of the front's list: items under key, and cursor.
func (f *front) page(ctx context.Context, method, key string, items []json.RawMessage, cursor string, modern bool) json.RawMessage {
	b := []byte{'{'}
	b = append(append(b, rawjson.Marshal(key)...), ":["...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, ']')
	if cursor != "" {
		b = append(append(b, `,"nextCursor":`...), rawjson.Marshal(cursor)...)
	}
	b = append(b, '}')
	if modern {
		serve.ModernResult(ctx, method, b, f.gw.Info)
	}
	return b
}

// fetchPage asks m for one page of its list from cursor: nil when it
// adds nothing (a member that is down, does not answer within ListWait,
// or fails the request: said once, but for being down, which its state
// change said), with an error when the client went.
func (f *front) fetchPage(ctx context.Context, m *Member, method string, params json.RawMessage, cursor string) (json.RawMessage, error) {
	g := f.gw
	if m.life != nil && method != "tasks/list" {
		return g.page(ctx, m, method, cursor) // the member's, kept for every client (kept.go)
	}
	p := rawjson.Without(params, "cursor")
	if !rawjson.IsObject(p) {
		p = json.RawMessage(`{}`)
	}
	if cursor != "" {
		p = rawjson.With(p, "cursor", rawjson.Marshal(cursor))
	}
	wait := g.listWait()
	pctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	pctx, _ = mcp.SeparateResultMembers(pctx)
	res, err := f.pass(pctx, m, method, p)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		case m.life != nil && m.upNow() == nil:
			// Down, or not up yet: its state is said on its own.
		case pctx.Err() != nil:
			g.sayOnce(fmt.Sprintf("serve: server %q did not answer %s within %v: its items are left out of the list until it does", m.Name, method, wait))
		default:
			g.failed(m, method, err)
		}
		return nil, nil
	}
	return res, nil
}

// pageItems are the items of member m's page res as the client sees
// them, and m's next cursor. Pages are taken in the members' order: the
// first member to give a name or a URI keeps it (nameBook).
func (f *front) pageItems(m *Member, method, key string, res json.RawMessage) ([]json.RawMessage, string) {
	g := f.gw
	next, _ := rawjson.String(rawjson.Member(res, "nextCursor"))
	if len(next) > maxMemberCursor {
		g.sayOnce(fmt.Sprintf("serve: server %q gave a cursor of %d bytes in %s (at most %d are kept): its list ends there", m.Name, len(next), method, maxMemberCursor))
		next = ""
	}
	view := f.c.Who()
	var items []json.RawMessage
	rawjson.ForEachElement(rawjson.Member(res, key), func(_ int, it []byte) {
		if it, ok := g.item(m, method, it, view); ok {
			items = append(items, it)
		}
	})
	if view.Hides() && len(items) > 0 {
		kept := view.Filter(method, f.page(context.Background(), method, key, items, "", false))
		items = items[:0]
		rawjson.ForEachElement(rawjson.Member(kept, key), func(_ int, it []byte) { items = append(items, it) })
	}
	return items, next
}

// item is an item of member m's list (of method) as a client of view
// sees it: a tool or prompt named with m's prefix; ok is false for one
// it does not see (a name of a member without a prefix that reads as
// another's, or that an earlier member gives too; a URI or template an
// earlier member lists too; an item whose key is written twice or in
// another case).
func (g *Gateway) item(m *Member, method string, item json.RawMessage, view *serve.View) (json.RawMessage, bool) {
	l, ok := mcp.ListOf(method)
	if !ok { // tasks/list: each task's member is known (OnTask)
		return item, true
	}
	id, ok := l.ID(item)
	if !ok {
		return nil, false
	}
	if !l.ByURI {
		if m.prefix != "" {
			return rawjson.With(item, l.Field, rawjson.Marshal(m.prefix+id)), true
		}
		if other := g.claims(id); other != nil {
			g.sayOnce(fmt.Sprintf("serve: server %q lists a %s named %q, which reads as server %q's: hidden", m.Name, l.Item, safetext.Clip(safetext.Line(id), 200), other.Name))
			return nil, false
		}
	}
	return item, g.names.claim(g, l, id, m, view)
}

// sayOnce says a line on serve's log once (at most maxSaid lines in all).
func (g *Gateway) sayOnce(line string) {
	g.mu.Lock()
	if g.said[line] || len(g.said) > maxSaid {
		g.mu.Unlock()
		return
	}
	g.said[line] = true
	g.mu.Unlock()
	g.Log.Warn(line)
}

// taskOwner keeps which member each task id given out is of (the ids
// are serve's own, random: no two members give the same), as each
// member's Server tells it (OnTask).
type taskOwner struct {
	mu    sync.Mutex         // guards by and order
	by    map[string]*Member // made at Start
	order []string           // oldest first, to forget past maxTasks
}

func (t *taskOwner) noteID(m *Member, id string) {
	if id == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.by[id]; ok {
		return
	}
	if len(t.order) >= maxTasks {
		delete(t.by, t.order[0])
		t.order = t.order[1:]
	}
	t.by[id] = m
	t.order = append(t.order, id)
}

func (t *taskOwner) owner(id string) *Member {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.by[id]
}
