// Package gateway serves several servers behind one endpoint (mcpv
// serve with several servers). Each server (a member) is served as a
// one-upstream serve serves it: a serve.Server of its own, with its
// guard, its pin, its recording, one shared upstream session (or one per
// client with Isolate), the bridge between eras, its clients' tasks and
// subscriptions kept apart. Over HTTP a member is reachable alone at
// <endpoint>/NAME, where that Server serves its clients directly. At the
// endpoint itself (and on stdin and stdout) a client sees all of them
// together, through a front (front.go) whose lists span the members
// (lists.go) and which hands each request to its member (route.go). The
// gateway uses serve through the hooks serve names for a layer above it
// (serve/layer.go), and serve knows nothing of it.
//
// Names never collide: a tool's or prompt's name is the member's prefix
// (its name unless set, or none) and the Separator before the name the
// server gives it. A name is routed by its prefix; a member without one
// gets the names no prefix claims, and an item of its named like
// another member's (a prefix and the separator, in any case or with
// look-alike letters) is hidden, and said once. Resources keep their
// URIs: a URI goes to the member that listed it (the first in the
// members' order when two did: the other's is hidden, and said once),
// else to the member whose template it matches.
//
// One member never takes the others down: each member's session lives
// on its own (life.go), and a member that is down has its items
// withdrawn, each client being told its lists changed.
package gateway

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/uritemplate"
	"github.com/mcpv/mcpv/mcp"
)

// DefaultSeparator stands between a member's prefix and the names its
// server gives.
const DefaultSeparator = "__"

// Gateway serves its Members behind one endpoint.
type Gateway struct {
	Members []*Member
	// Separator is DefaultSeparator when "".
	Separator string
	// Info is the serverInfo the endpoint gives for itself; Start makes
	// it mcpv-gateway's when nil.
	Info json.RawMessage
	// ListWait bounds a member's answer to a request for a page of a
	// list the front makes (DefaultListWait when 0 or less): a member that does
	// not answer in time is left out of that page, and said once.
	ListWait time.Duration
	// Secrets masks what no client may see: every member's.
	Secrets *redact.Scrubber
	Log     *slog.Logger

	// Bounds a test may set (the defaults when 0): what makes a flood,
	// how much of the members' lists is kept to route by, and how much
	// of their pages is kept to serve.
	floodNotes  int64
	floodWindow time.Duration
	pingEvery   time.Duration
	pingWait    time.Duration
	retryFirst  time.Duration
	maxBook     int
	maxKept     int
	firstWait   time.Duration
	told        func(*Member, lifeState) // tests: called once a change of a member's state was told

	front *serve.Server // the endpoint's Server: each of its clients is a front
	key   [32]byte      // signs the cursors the front gives
	names nameBook      // who lists which name and URI, as seen
	tasks taskOwner     // which member holds each task id given out

	mu     sync.Mutex      // guards fronts and said
	fronts map[*front]bool // the front clients served now
	said   map[string]bool // the lines sayOnce said
}

// Member is one server of a gateway.
type Member struct {
	// Name is what the member is called: its path beside the endpoint,
	// its name in /healthz and on the log, and its prefix unless Prefix
	// says otherwise.
	Name string
	// Prefix, when not nil, replaces Name as the prefix of its names;
	// "" serves them as the server gives them.
	Prefix *string
	// Server serves it, as a one-upstream serve would (its Open, Guard,
	// Pin, Record, Isolate...). The gateway sets its Log, Secrets, the
	// prefix its clients' views see its names with, and the source of
	// its shared session (its life).
	Server *serve.Server
	// Eager opens its session when serving starts (in the background),
	// rather than at the first request that needs it.
	Eager bool

	index  int    // its place among the members
	prefix string // the prefix of its names, with the separator; "" for none
	life   *life  // its shared session over time; nil with Isolate
	kept   kept   // its lists as it last gave them (with life)
}

// DefaultListWait bounds a member's answer to a page the front asks for.
const DefaultListWait = 30 * time.Second

// listWait is ListWait, or DefaultListWait where it is 0 or less.
func (g *Gateway) listWait() time.Duration { return cmp.Or(max(g.ListWait, 0), DefaultListWait) }

// CheckName says whether name may name a member: it is a path segment
// (safedir.CheckName).
func CheckName(name string) error { return safedir.CheckName("a server's name", name) }

// CheckSeparator says whether sep may separate prefixes from names: 1 to
// 8 of the characters a tool's name may hold, not only letters and
// digits.
func CheckSeparator(sep string) error {
	if sep == "" || len(sep) > 8 || strings.Trim(sep, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") != "" {
		return fmt.Errorf("separator %q: 1 to 8 letters, digits or -._", sep)
	}
	if !strings.ContainsAny(sep, "-._") {
		return fmt.Errorf("separator %q: it needs one of -._", sep)
	}
	return nil
}

// Check checks the members' names and prefixes: each name once, each
// prefix once (in any case, and with look-alike letters), none holding
// the separator, none with the separator the start of another's. Start checks them first; a caller that must tell a
// mistake of the command line from a server's failure checks them before.
func (g *Gateway) Check() error {
	g.Separator = cmp.Or(g.Separator, DefaultSeparator)
	if err := CheckSeparator(g.Separator); err != nil {
		return err
	}
	if len(g.Members) == 0 {
		return errors.New("no server to serve")
	}
	names, prefixes := map[string]string{}, map[string]string{}
	for i, m := range g.Members {
		if err := CheckName(m.Name); err != nil {
			return err
		}
		if other, ok := names[strings.ToLower(m.Name)]; ok {
			return fmt.Errorf("two servers are called %q (%q): name each once", m.Name, other)
		}
		names[strings.ToLower(m.Name)] = m.Name
		p := m.Name
		if m.Prefix != nil {
			p = *m.Prefix
		}
		if p != "" {
			if err := CheckName(p); err != nil {
				return fmt.Errorf("server %q: prefix %w", m.Name, err)
			}
			if strings.Contains(p, g.Separator) {
				return fmt.Errorf("server %q: its prefix %q holds the separator %q; give it a prefix without it", m.Name, p, g.Separator)
			}
			key := canon.Skeleton(canon.Fold(p))
			if other, ok := prefixes[key]; ok {
				return fmt.Errorf("servers %q and %q have prefixes that read alike (%q): give one another prefix", other, m.Name, p)
			}
			prefixes[key] = m.Name
			m.prefix = p + g.Separator
		}
		m.index = i
	}
	// A prefix that ends with part of the separator ("a_" beside "a",
	// with "__") makes names that start as another's: "a___x" would be
	// both a_'s x and a's _x.
	for _, m := range g.Members {
		for _, o := range g.Members {
			if m != o && m.prefix != "" && o.prefix != "" && strings.HasPrefix(o.prefix, m.prefix) {
				return fmt.Errorf("servers %q and %q: a name of %q starts as one of %q (%q, %q): give one another prefix", m.Name, o.Name, o.Name, m.Name, o.prefix, m.prefix)
			}
		}
	}
	return nil
}

// Start checks the members and makes each ready to serve: an eager one's
// session is opened in the background. Nothing waits for a server: the
// endpoint answers at once.
func (g *Gateway) Start(ctx context.Context) error {
	if err := g.Check(); err != nil {
		return err
	}
	g.Log, g.Secrets = cmp.Or(g.Log, slog.New(slog.DiscardHandler)), cmp.Or(g.Secrets, redact.NewScrubber(nil))
	if g.Info == nil {
		g.Info = json.RawMessage(`{"name":"mcpv-gateway","version":"0"}`)
	}
	rand.Read(g.key[:])
	g.fronts, g.said, g.tasks.by = map[*front]bool{}, map[string]bool{}, map[string]*Member{}
	g.names.by, g.names.tmpl, g.names.whole = map[string][]*Member{}, map[*Member][]*uritemplate.Template{}, map[*Member]map[string]time.Time{}
	var bare []string
	for _, m := range g.Members {
		if m.prefix == "" {
			bare = append(bare, strconv.Quote(m.Name))
		}
	}
	if len(bare) > 0 && len(g.Members) > 1 {
		g.Log.Info("serve: servers without a prefix (" + strings.Join(bare, ", ") + ") get the tool and prompt names no prefix claims, and the resources no server with a prefix lists: a URI several servers list goes to the first of them with a prefix, else to the first")
	}
	// The endpoint's card says what the gateway is, and nothing of its
	// members.
	g.front = &serve.Server{Front: g.serveFront, Secrets: g.Secrets, Log: g.Log, Self: rawjson.Marshal(map[string]any{"serverInfo": g.Info})}
	g.front.Start(ctx)
	for _, m := range g.Members {
		s := m.Server
		s.Secrets = g.Secrets
		s.Log = slog.New(prefixed{g.Log.Handler(), fmt.Sprintf("server %q: ", m.Name)})
		s.NamePrefix = m.prefix
		s.OnTask = func(id string) { g.tasks.noteID(m, id) }
		if !s.Isolate {
			m.life = &life{srv: s, log: g.Log, name: m.Name, change: func(st lifeState) { g.changed(m, st) }, since: time.Now(),
				floodNotes: cmp.Or(g.floodNotes, floodNotes), floodWindow: cmp.Or(g.floodWindow, floodWindow),
				pingEvery: cmp.Or(g.pingEvery, pingEvery), pingWait: cmp.Or(g.pingWait, pingWait), retryFirst: cmp.Or(g.retryFirst, retryFirst)}
			m.life.ctx, m.life.cancel = context.WithCancel(context.Background())
			m.kept.lists = map[string]*keptList{}
			s.Source = m.life
		}
		s.Open = g.watched(m, s.Open)
		if err := s.Start(ctx); err != nil {
			g.Close()
			return fmt.Errorf("server %q: %w", m.Name, err)
		}
		if m.life != nil && m.Eager {
			m.life.wake() // idle: its session is opened at once, in the background
		}
	}
	return nil
}

// Close ends every front client and every member's sessions.
func (g *Gateway) Close() {
	for _, f := range g.frontsNow(nil) {
		f.c.Close()
	}
	var wg sync.WaitGroup
	for _, m := range g.Members {
		if m.Server.Secrets != nil { // started
			wg.Go(m.Server.Close) // parallel close or settle
		}
	}
	wg.Wait()
}

// Server is the endpoint's Server, to serve on stdin and stdout
// (ServeStdio) or over HTTP (see HTTPHandler).
func (g *Gateway) Server() *serve.Server { return g.front }

// watched is m's open with the session's requests counted (a ping waits
// while there are any) and its notifications too (a flood closes it).
func (g *Gateway) watched(m *Member, open func(context.Context, serve.Relay) (serve.Upstream, error)) func(context.Context, serve.Relay) (serve.Upstream, error) {
	return func(ctx context.Context, r serve.Relay) (serve.Upstream, error) {
		l := m.life
		note := r.OnNotification
		r.OnNotification = func(method string, params json.RawMessage) {
			if l != nil {
				l.noted()
			}
			if changed := mcp.ChangedLists(method); changed != nil {
				g.names.forget(m, changed...) // what its lists that changed held
				m.kept.forget(method)
				g.serverListChanged(m, method)
			}
			if note != nil {
				note(method, params)
			}
		}
		u, err := open(ctx, r)
		if err != nil || l == nil {
			return u, err
		}
		if w, ok := u.(serve.Walker); ok {
			return countedWalker{counted{u, &l.busy}, w}, nil
		}
		return counted{u, &l.busy}, nil
	}
}

// frontsNow are the endpoint's clients now: those that see m, or every
// one when m is nil.
func (g *Gateway) frontsNow(m *Member) []*front {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.DeleteFunc(slices.Collect(maps.Keys(g.fronts)), func(f *front) bool { return m != nil && !f.c.Who().Sees(m.Name) })
}

// changed tells the front clients that a member came up or went down:
// what they may list changed. The member's own clients, at its path,
// hear it from the member's session (tellDirect).
func (g *Gateway) changed(m *Member, st lifeState) {
	m.kept.forget("") // what it listed before is not what it lists now
	for _, f := range g.frontsNow(m) {
		f.memberChanged(m, st)
	}
	if st == lifeDown || st == lifeUp {
		g.names.forget(m) // and the lists walked while it was not up are walked again
	}
	if g.told != nil {
		g.told(m, st)
	}
}

// member is the member called name.
func (g *Gateway) member(name string) *Member {
	for _, m := range g.Members {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// claims reports whether a name an unprefixed member's server gives
// reads as another member's: a prefix and the separator at its start, in
// any case or with look-alike letters. Such an item is hidden: a server
// cannot pass its tools off as another's.
func (g *Gateway) claims(name string) *Member {
	folded := canon.Skeleton(canon.Fold(name))
	for _, m := range g.Members {
		if m.prefix != "" && strings.HasPrefix(folded, canon.Skeleton(canon.Fold(m.prefix))) {
			return m
		}
	}
	return nil
}

// counted is an Upstream whose requests in flight are counted.
type counted struct {
	serve.Upstream
	busy *atomic.Int64
}

func (u counted) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	defer u.count(ctx)()
	return u.Upstream.Forward(ctx, method, params)
}

func (u counted) Relay(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	defer u.count(ctx)()
	return u.Upstream.Relay(ctx, method, params)
}

// count counts a request in flight until the func it returns is called;
// a list's flight, which fly counts from before it starts, is not counted
// again.
func (u counted) count(ctx context.Context) func() {
	if ctx.Value(flightKey{}) != nil {
		return func() {}
	}
	u.busy.Add(1)
	return func() { u.busy.Add(-1) }
}

// countedWalker is counted for an Upstream that walks its lists.
type countedWalker struct {
	counted
	serve.Walker
}

// prefixed is a log handler that names the member a line is about:
// after the "serve: " a line starts with, or before it all.
type prefixed struct {
	slog.Handler
	prefix string
}

func (h prefixed) Handle(ctx context.Context, r slog.Record) error {
	if rest, ok := strings.CutPrefix(r.Message, "serve: "); ok {
		r.Message = "serve: " + h.prefix + rest
	} else {
		r.Message = h.prefix + r.Message
	}
	return h.Handler.Handle(ctx, r)
}

func (h prefixed) WithAttrs(attrs []slog.Attr) slog.Handler {
	return prefixed{h.Handler.WithAttrs(attrs), h.prefix}
}

func (h prefixed) WithGroup(name string) slog.Handler {
	return prefixed{h.Handler.WithGroup(name), h.prefix}
}
