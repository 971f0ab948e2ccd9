package serve

// An upstream session's items held to the pin (pin.go): its pages
// filtered, each request for an item checked against the item's
// definition as the server lists it, and what serve has seen of its
// lists kept until it says they changed.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/subscription"
	"github.com/mcpv/mcpv/mcp"
)

// Bounds of serve's own walks of a list for the pin, and of what it
// keeps of an upstream session's lists.
const (
	maxPinPages  = 1000
	maxSeenBytes = 32 << 20
)

// pinWalkWait bounds one walk of a list for the pin (Server.pinWait, when
// set, in its place).
const pinWalkWait = 30 * time.Second

// listOfKind is the list of a pin's kind of item: a pin calls its kinds
// as the lists call their items.
func listOfKind(kind pin.Kind) mcp.List {
	for _, l := range mcp.Lists {
		if l.Item == string(kind) {
			return l
		}
	}
	panic("no list of items of kind " + kind)
}

// keeps reports whether u's lists are kept: not those of a server of the
// 2026-07-28 era, whose changes reach serve only on a client's listen.
func (u *upstream) keeps() bool { return !u.conn.State().Modern }

// pinMark is the generation of u's lists, taken before a list is asked
// for.
func (u *upstream) pinMark() uint64 {
	if u.srv.pins == nil {
		return 0
	}
	return u.pinned.mark()
}

// pinFilter removes from a page of a list (asked for at mark) what moved
// since it was pinned: an item that moved, a key listed twice (on the
// page, or in the whole list), a tool whose app moved; from a
// resources/read, an app's document that moved. Any other result comes
// back as it is. A walk of the whole list that failed is not tried again
// for each page until the list changes.
func (u *upstream) pinFilter(ctx context.Context, method string, res json.RawMessage, mark uint64) json.RawMessage {
	g := u.srv.pins
	l, ok := mcp.ListOf(method)
	switch {
	case g == nil:
		return res
	case method == "resources/read":
		return u.pinRead(res)
	case !ok:
		return res
	}
	kind := pin.Kind(l.Item)
	entry := g.current()
	keep := u.keeps()
	count := map[string]int{}
	rawjson.ForEachElement(rawjson.Member(res, l.Key), func(_ int, item []byte) {
		if key, ok := l.ID(item); ok {
			count[key]++
		}
	})
	if keep && u.pinned.whole(kind) == nil && !u.pinned.walkFailed(kind) {
		// Walked whole once, the list tells a key a later page lists
		// again. The walk bounds itself, to tell a walk that ran out of
		// time from a client that hung up.
		u.walkKind(ctx, kind)
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(u.srv.pinWait, pinWalkWait))
	defer cancel()
	onPage := map[string]bool{}
	return mcp.FilterPage(res, l.Key, func(item json.RawMessage) bool {
		key, ok := l.ID(item)
		if !ok || entry == nil {
			return false
		}
		if count[key] > 1 || u.pinned.listedTwice(kind, key) {
			u.pinned.noteTwice(kind, key, mark)
			g.say(pin.ListedTwice(kind, key))
			return false
		}
		_, def, err := pin.Pinned(kind, item)
		if err != nil {
			return false
		}
		if keep && !onPage[key] {
			onPage[key] = true
			u.pinned.note(kind, key, def, mark)
		}
		m := entry.Check(kind, key, def)
		if m == nil && kind == pin.Tool {
			m = u.appMove(ctx, entry, key, item)
		}
		if m != nil {
			g.say(*m)
			return false
		}
		return true
	})
}

// pinCheck refuses a request for an item that moved since it was pinned:
// a tool's call, a prompt's get, a resource's read or subscription, a
// completion of a prompt's or a template's argument. Its params are read
// as the guard reads them: a key twice, or in another case, is refused.
func (u *upstream) pinCheck(ctx context.Context, method string, params json.RawMessage) *mcp.RPCError {
	if u.srv.pins == nil || !guarded(method) || method == "resources/unsubscribe" {
		return nil
	}
	p, rerr := ReadTarget(params)
	if rerr != nil {
		return rerr
	}
	switch method {
	case "tools/call":
		return u.pinItem(ctx, pin.Tool, p.Name)
	case "prompts/get":
		return u.pinItem(ctx, pin.Prompt, p.Name)
	case "resources/read", "resources/subscribe":
		return u.pinResource(ctx, p.URI)
	}
	switch p.RefType {
	case "ref/prompt":
		return u.pinItem(ctx, pin.Prompt, p.RefName)
	case "ref/resource":
		res, tmpl, err := u.resourceLists(ctx)
		if err != nil {
			return u.srv.pins.unlisted(pin.Template, p.RefURI, err)
		}
		if def, ok := tmpl.defs[p.RefURI]; ok {
			return u.held(pin.Template, p.RefURI, pin.Template, p.RefURI, def)
		}
		return u.heldResource(p.RefURI, res, tmpl)
	}
	return nil
}

// pinItem checks a tool or a prompt (and a tool's app) against the
// server's whole list: kept, else walked now, so that a key listed on
// two pages is seen twice.
func (u *upstream) pinItem(ctx context.Context, kind pin.Kind, key string) *mcp.RPCError {
	l := u.pinned.whole(kind)
	if l == nil {
		var err error
		if l, err = u.walkKind(ctx, kind); err != nil {
			return u.srv.pins.unlisted(kind, key, err)
		}
	}
	if l.twice[key] || u.pinned.listedTwice(kind, key) {
		return u.heldTwice(kind, key, kind, key)
	}
	if rerr := u.held(kind, key, kind, key, l.defs[key]); rerr != nil || kind != pin.Tool {
		return rerr
	}
	g := u.srv.pins
	if entry := g.current(); entry != nil {
		if m := u.appMove(ctx, entry, key, l.apps[key]); m != nil {
			g.say(*m)
			return g.refusal(kind, key, m)
		}
	}
	return nil
}

// pinResource checks the resource at uri: the resource listed at uri,
// else the first template listed that uri is an expansion of, must be as
// pinned; a uri that is neither is not pinned. A pinned app's document
// is read now, and must be as pinned too.
func (u *upstream) pinResource(ctx context.Context, uri string) *mcp.RPCError {
	res, tmpl, err := u.resourceLists(ctx)
	if err != nil {
		return u.srv.pins.unlisted(pin.Resource, uri, err)
	}
	if rerr := u.heldResource(uri, res, tmpl); rerr != nil {
		return rerr
	}
	g := u.srv.pins
	if entry := g.current(); entry != nil && entry.DocumentPinned(uri) {
		if m := entry.CheckDocument(uri, u.appDoc(ctx, uri, false)); m != nil {
			g.say(*m)
			return g.refusal(pin.Resource, uri, m)
		}
	}
	return nil
}

// resourceLists are the resources and the templates the server lists,
// each walked whole: kept, else walked now.
func (u *upstream) resourceLists(ctx context.Context) (res, tmpl *seenList, err error) {
	if res = u.pinned.whole(pin.Resource); res == nil {
		if res, err = u.walkKind(ctx, pin.Resource); err != nil {
			return nil, nil, err
		}
	}
	if tmpl = u.pinned.whole(pin.Template); tmpl == nil {
		if tmpl, err = u.walkKind(ctx, pin.Template); err != nil {
			return nil, nil, err
		}
	}
	return res, tmpl, nil
}

// heldResource is pinResource with the lists at hand.
func (u *upstream) heldResource(uri string, res, tmpl *seenList) *mcp.RPCError {
	if res.twice[uri] || u.pinned.listedTwice(pin.Resource, uri) {
		return u.heldTwice(pin.Resource, uri, pin.Resource, uri)
	}
	if def, ok := res.defs[uri]; ok {
		return u.held(pin.Resource, uri, pin.Resource, uri, def)
	}
	for i, t := range tmpl.parsed {
		if t == nil {
			continue
		}
		if _, ok := t.Match(uri); ok {
			key := tmpl.order[i]
			if tmpl.twice[key] || u.pinned.listedTwice(pin.Template, key) {
				return u.heldTwice(pin.Resource, uri, pin.Template, key)
			}
			return u.held(pin.Resource, uri, pin.Template, key, tmpl.defs[key])
		}
	}
	return u.held(pin.Resource, uri, pin.Resource, uri, nil)
}

// held refuses what a client asked for (the item of askedKind called
// asked) when the item it is (the item of kind called key, listed as def,
// nil when it is not) moved since it was pinned; the move is said once.
func (u *upstream) held(askedKind pin.Kind, asked string, kind pin.Kind, key string, def json.RawMessage) *mcp.RPCError {
	g := u.srv.pins
	entry := g.current()
	if entry == nil {
		return &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("%s %q is not available here: %s pins no entry for this server", askedKind, clipKey(asked), safetext.Line(g.cfg.Label))}
	}
	m := entry.Check(kind, key, def)
	if m == nil {
		return nil
	}
	if m.How != pin.New || m.Live != nil {
		g.say(*m) // not what a client made up: the server lists it, or the pin has it
	}
	return g.refusal(askedKind, asked, m)
}

// heldTwice refuses what a client asked for (the item of askedKind
// called asked) because the item it is, of kind called key, is listed
// more than once; said once.
func (u *upstream) heldTwice(askedKind pin.Kind, asked string, kind pin.Kind, key string) *mcp.RPCError {
	m := pin.ListedTwice(kind, key)
	u.srv.pins.say(m)
	return u.srv.pins.refusal(askedKind, asked, &m)
}

// refusal is the error a client gets for what moved: the same code as
// the guard's.
func (g *pinGate) refusal(kind pin.Kind, key string, m *pin.Move) *mcp.RPCError {
	file := safetext.Line(g.cfg.Label)
	subject := "it"
	if m.Kind != string(kind) || m.Key != key {
		subject = safetext.Line((&pin.Move{Kind: m.Kind, Key: clipKey(m.Key)}).Label())
	}
	why := fmt.Sprintf("%s moved since it was pinned in %s; withheld until approved", subject, file)
	switch {
	case m.How == pin.Twice:
		why = fmt.Sprintf("the server lists %s more than once; withheld", subject)
	case m.How == pin.New && m.Live == nil:
		why = fmt.Sprintf("%s is not pinned in %s", subject, file)
	case m.How == pin.Removed:
		why = fmt.Sprintf("%s moved since it was pinned in %s: the server no longer lists it", subject, file)
	case m.How == pin.New:
		why = fmt.Sprintf("%s moved since it was pinned in %s: it is not pinned; withheld until approved", subject, file)
	}
	return &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("%s %q is not available here: %s", kind, clipKey(key), why)}
}

// unlisted is the error a client gets for an item that could not be held
// to the pin: the server's list could not be walked.
func (g *pinGate) unlisted(kind pin.Kind, key string, err error) *mcp.RPCError {
	return &mcp.RPCError{Code: mcp.CodeInternalError, Message: fmt.Sprintf("%s %q is not available here: the server's %s could not be listed to hold it to the pin in %s: %s",
		kind, clipKey(key), listOfKind(kind).Method, safetext.Line(g.cfg.Label), safetext.Clip(safetext.Line(err.Error()), 300))}
}

// clipKey bounds a name or URI quoted in a message.
func clipKey(key string) string { return safetext.Clip(key, 200) }

// pinInstructions is an initialize (or server/discover) result without
// its instructions when they moved since they were pinned (said once).
func (u *upstream) pinInstructions(res json.RawMessage) json.RawMessage {
	g := u.srv.pins
	if g == nil {
		return res
	}
	raw, ok := rawjson.Exact(res, "instructions")
	var live *string
	if raw != nil && string(raw) != "null" {
		var s string
		ok = ok && json.Unmarshal(raw, &s) == nil
		live = &s
	}
	entry := g.current()
	if ok && entry != nil {
		m := entry.CheckInstructions(live)
		if m == nil {
			return res
		}
		g.say(*m)
	}
	return rawjson.Without(res, "instructions")
}

// relist walks u's lists again after the pin changed from old to now,
// and tells u's clients of each list whose items they may see changed;
// the moves it finds are said.
func (u *upstream) relist(ctx context.Context, old, now *pin.Server) {
	g := u.srv.pins
	caps := u.conn.State().InitializeResult.Capabilities
	told := map[string]bool{}
	for _, kind := range pin.Kinds {
		if sameKind(old, now, kind) || caps[listOfKind(kind).Capability] == nil {
			continue
		}
		changed := true // a list that cannot be walked may have
		if l, err := u.walkKind(ctx, kind); err == nil {
			changed = false
			for _, key := range l.order {
				def := l.defs[key]
				if !u.srv.Guard.allowsItem(listOfKind(kind), key, def) {
					continue // hidden whatever the pin says
				}
				m := now.Check(kind, key, def)
				if m != nil {
					g.say(*m)
				}
				changed = changed || (old.Check(kind, key, def) == nil) != (m == nil)
			}
		}
		if ctx.Err() != nil {
			return
		}
		if note := listOfKind(kind).Changed; changed && !told[note] {
			told[note] = true
			u.tellListChanged(note)
		}
	}
}

// tellListChanged tells u's clients that a list changed, as the server's
// own list_changed goes: to the clients of the initialize era, and the
// acknowledged listens that asked for it (what the acknowledgement named,
// or in front of a modern server what the listen asked for).
func (u *upstream) tellListChanged(method string) {
	to, _ := u.recipients(subscription.Everyone, "")
	for _, r := range to {
		r.tell(context.Background(), nil, method, nil)
	}
	u.mu.Lock()
	ls := slices.Collect(maps.Keys(u.listeners))
	u.mu.Unlock()
	for _, l := range ls {
		l.mu.Lock()
		f := l.filter
		if l.asked != nil {
			f = *l.asked
		}
		wants := l.listening && f.Asks(method)
		l.mu.Unlock()
		if wants {
			l.send(nil, method, nil)
		}
	}
}

// pinListenParams are a subscriptions/listen's params without the
// resources the pin withholds, as resources/subscribe would be refused
// them (see Guards.listenParams).
func (u *upstream) pinListenParams(ctx context.Context, params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	if u.srv.pins == nil {
		return params, nil
	}
	uris, rerr := ListenURIs(params)
	if rerr != nil || len(uris) == 0 {
		return params, rerr
	}
	res, tmpl, err := u.resourceLists(ctx)
	if err != nil {
		return nil, u.srv.pins.unlisted(pin.Resource, uris[0], err)
	}
	return WithListenURIs(params, slices.DeleteFunc(slices.Clone(uris), func(uri string) bool { return u.heldResource(uri, res, tmpl) != nil })), nil
}
