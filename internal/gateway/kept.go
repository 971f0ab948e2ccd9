package gateway

// A member's pages as it last gave them (lists.go), kept so that no list
// at the endpoint waits on a member that is busy. Many servers answer one
// request at a time: one inside a long call answers no list until the
// call ends, though it answers ping between calls (and so stays up). Each
// page of a member's list is asked for once at a time (a flight, on no
// client's behalf: serve.Server.List), and kept when it comes:
//
//   - a member up that is busy (a request of another's in flight to it),
//     or whose last flight went unanswered, gives its last good page at
//     once, however old, up to staleFor; said once;
//   - one that has no good page (it never answered that list, or it
//     changed since) is waited for firstWait from the first list that
//     needs it (the lists at the same time wait as long), and left out at
//     once by the lists after while that flight lasts; said once;
//   - one that is idle and answered before is waited for, up to ListWait,
//     as before; one still starting, as long as its start takes;
//   - what is kept goes with the member's list_changed, its restart, and
//     staleFor; when an answer comes for a list whose items were served
//     stale or left out, the endpoint's clients are told the list changed.
//
// A flight lasts ListWait at most: a member that answers later is asked
// again by the next list that needs it.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// Bounds of what is kept of the members' lists.
const (
	// staleFor is how old a page may be and still be served for a member
	// that is busy.
	staleFor = 5 * time.Minute
	// firstListWait is how long a list waits for a member that has no
	// good page of it (firstWait).
	firstListWait = 5 * time.Second
	// maxKeptBytes bounds the pages kept of one member: past it, a page
	// is not kept (and is asked for each time, as before).
	maxKeptBytes = 16 << 20
)

// kept is what a member's lists are, as kept.
type kept struct {
	mu     sync.Mutex           // guards the fields below
	lists  map[string]*keptList // by method (made at Start, with life)
	bytes  int
	flying atomic.Int64 // flights under way: the member is not busy with them
}

// keptList is one of the member's lists as kept.
type keptList struct {
	pages    map[string]*keptPage // by cursor ("" the first)
	flights  map[string]*flight   // by cursor
	gen      uint64               // moved by each change: a flight asked before keeps nothing
	answered bool                 // a page of it came since the member was last restarted
	missed   bool                 // its last flight went unanswered
	said     string               // "stale" or "left out", once said in this episode
}

// keptPage is a page as the member gave it.
type keptPage struct {
	res json.RawMessage
	at  time.Time
}

// flight is one asking of a page.
type flight struct {
	done    chan struct{} // closed once res and err are set
	res     json.RawMessage
	err     error
	firstBy time.Time // the end of the first bound, once a list waits it: the lists after it do not
	lists   int       // the lists that came for it (k.mu)
}

// list is method's list as kept; k.mu is held.
func (k *kept) list(method string) *keptList {
	l := k.lists[method]
	if l == nil {
		l = &keptList{pages: map[string]*keptPage{}, flights: map[string]*flight{}}
		k.lists[method] = l
	}
	return l
}

// forget drops what is kept of the lists a notification says changed,
// or of every list when method is "" (the member was restarted).
func (k *kept) forget(method string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for name, l := range k.lists {
		if method != "" && !slices.ContainsFunc(mcp.ChangedLists(method), func(c mcp.List) bool { return c.Method == name }) {
			continue
		}
		for _, p := range l.pages {
			k.bytes -= len(p.res)
		}
		l.pages, l.gen = map[string]*keptPage{}, l.gen+1
		if method == "" {
			l.answered, l.missed = false, false
		}
	}
}

// page is a page of m's list of method from cursor for a list at the
// endpoint, by the rules above: nil when m adds nothing to it now, with
// an error when the client went.
func (g *Gateway) page(ctx context.Context, m *Member, method, cursor string) (json.RawMessage, error) {
	k := &m.kept
	listWait := g.listWait()
	if m.life != nil && m.upNow() == nil {
		// Not up yet (a fresh gateway's first list): its start is waited
		// for, bounded on its own; then its list by the rules of one up,
		// so that one that never gives it costs firstWait, not ListWait.
		if _, err := m.life.Get(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, nil // down: its state is said on its own
		}
	}
	k.mu.Lock()
	l := k.list(method)
	p := l.pages[cursor]
	fresh := p != nil && time.Since(p.at) < staleFor
	busy := m.life.busy.Load() > k.flying.Load()
	up := m.upNow() != nil
	fl := l.flights[cursor]
	if fl == nil {
		fl = g.fly(m, l, method, cursor, listWait)
	}
	fl.lists++
	var wait, bound time.Duration
	switch {
	case !up:
		wait = listWait // starting: its start is bounded on its own
	case fresh && (busy || l.missed):
	case l.answered && !busy && !l.missed:
		wait = listWait
	default:
		first := min(cmp.Or(g.firstWait, firstListWait), listWait)
		if fl.firstBy.IsZero() {
			fl.firstBy = time.Now().Add(first)
		}
		wait, bound = max(time.Until(fl.firstBy), 0), first
	}
	k.mu.Unlock()
	select {
	case <-fl.done:
		if fl.err == nil {
			return fl.res, nil
		}
		g.failed(m, method, fl.err)
		return nil, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-time.After(wait):
	}
	if !up {
		return nil, nil // down, or not up yet: its state is said on its own
	}
	k.mu.Lock()
	l.missed = l.missed || wait > 0
	said := l.said
	l.said = "left out"
	if fresh {
		l.said = "stale"
	}
	k.mu.Unlock()
	if fresh {
		if said != "stale" {
			g.Log.Warn(fmt.Sprintf("serve: server %q is busy: its %s as it gave it %v ago is served until it answers", m.Name, method, time.Since(p.at).Round(time.Second)))
		}
		return p.res, nil
	}
	if said != "left out" {
		g.Log.Warn(fmt.Sprintf("serve: server %q did not answer %s within %v: its items are left out of the list until it does", m.Name, method, cmp.Or(bound, wait)))
	}
	return nil, nil
}

// fly asks m for a page of its list, on no client's behalf; k.mu is
// held.
func (g *Gateway) fly(m *Member, l *keptList, method, cursor string, bound time.Duration) *flight {
	k := &m.kept
	fl := &flight{done: make(chan struct{})}
	if !m.life.enter() {
		fl.err = errors.New("serving ended")
		close(fl.done)
		return fl
	}
	gen := l.gen
	l.flights[cursor] = fl
	// The flight is counted busy, then flying, before it is under way, and
	// flying, then busy, once it is over: a list that reads both between
	// takes the member for busy with another's request at worst (its last
	// good page served), never for idle while another's request is in
	// flight (a wait for an answer that may take that request's time).
	m.life.busy.Add(1)
	k.flying.Add(1)
	go func() { // a server's page of a list for the gateway's clients: ends with its answer, ListWait, or serving's end
		defer m.life.wg.Done()
		ctx, cancel := context.WithTimeout(context.WithValue(m.life.ctx, flightKey{}, true), bound)
		defer cancel()
		res, err := m.Server.List(ctx, method, cursor)
		k.flying.Add(-1)
		m.life.busy.Add(-1)
		k.mu.Lock()
		fl.res, fl.err = res, err
		delete(l.flights, cursor)
		tell := false
		switch {
		case err == nil && l.gen == gen:
			tell = l.said != ""
			l.answered, l.missed, l.said = true, false, ""
			if old := l.pages[cursor]; old != nil {
				k.bytes -= len(old.res)
				delete(l.pages, cursor) // not its last good page now, kept or not
			}
			if k.bytes+len(res) <= cmp.Or(g.maxKept, maxKeptBytes) {
				l.pages[cursor] = &keptPage{res, time.Now()}
				k.bytes += len(res)
			}
		case ctx.Err() != nil:
			l.missed = true
		}
		k.mu.Unlock()
		close(fl.done)
		if tell {
			g.listChanged(m, method)
		}
	}()
	return fl
}

// flightKey marks the context of a list's flight, which fly counts in
// the member's busy itself (counted leaves it).
type flightKey struct{}

// failed says, once, that m failed a list's request; being down (with a
// life) or not having the list are said elsewhere, or nothing to say.
func (g *Gateway) failed(m *Member, method string, err error) {
	var rerr *mcp.RPCError // a *mcp.CallError's among them
	switch {
	case m.life != nil && m.upNow() == nil, errors.As(err, new(*errDown)):
	case errors.As(err, &rerr) && rerr.Code == mcp.CodeMethodNotFound:
	default:
		g.sayOnce(fmt.Sprintf("serve: server %q failed %s (%s): its items are left out", m.Name, method, safetext.Clip(safetext.Line(err.Error()), 300)))
	}
}

// listChanged tells the endpoint's clients that see m that the list of
// method may show more of m's items now.
func (g *Gateway) listChanged(m *Member, method string) {
	l, _ := mcp.ListOf(method)
	for _, f := range g.frontsNow(m) {
		f.listChanged(l.Changed)
	}
}

// serverListChanged tells the endpoint's clients of the initialize era
// that see m, and have not met it, that m's server changed a list
// (change): the gateway lists for them. One that has met m hears it from
// m's session; a modern one on its listens, which listen at every member
// up.
func (g *Gateway) serverListChanged(m *Member, change string) {
	for _, f := range g.frontsNow(m) {
		if !f.met(m) {
			f.tell(change)
		}
	}
}
