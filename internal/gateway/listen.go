package gateway

// A modern client's subscriptions/listen at a gateway's endpoint: one
// listen of the client's, made of one listen at each member it concerns
// (each served by the member's Server as it serves a listen: passed on
// to a modern server, or answered from the initialize era's
// subscriptions), whose notifications the front gathers. The client
// gets one acknowledgement, once every member's has come (or ackWait has
// passed): the list changes it asked for (the gateway tells them itself
// when a member comes up or goes down, whatever the members declare) and
// the resources some member took its subscription for. Nothing reaches
// it before that, nothing it did not ask for, and everything under its
// own subscription id.

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/mcp"
)

// ackWait bounds the wait for the members' acknowledgements.
const ackWait = 5 * time.Second

// frontListen is one listen of a front's client.
type frontListen struct {
	f      *front
	id     json.RawMessage  // the client's request id: its subscription id
	ctx    context.Context  // the listen's: ends when the client ends it
	params json.RawMessage  // the client's params, as its view lets them be
	want   mcp.ListenFilter // what it asked for
	wg     sync.WaitGroup   // the members' listens, counted under mu until ended
	sendMu sync.Mutex       // guards the sends, one at a time: the acknowledgement, and what waited for it, before what follows

	mu      sync.Mutex       // guards the fields below
	ended   bool             // the client's listen has ended: no member's starts
	started map[*Member]bool // members listened to now
	waiting map[*Member]bool // of them, those not acknowledged yet
	uris    []string         // the resources acknowledged
	begun   bool             // every first listen is started: waiting may empty
	acked   bool             // the client has its acknowledgement
	pending mcp.ListenFilter // list changes before it
	updates []string         // resources updated before it
	all     chan struct{}    // closed when waiting empties, once begun
	allOnce sync.Once        // guards closing all
}

// listen serves a modern client's subscriptions/listen until it ends it.
func (f *front) listen(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	params, rerr := f.c.Who().ListenParams(params) // params it refuses, ListenFilterOf refuses alike
	if rerr != nil {
		return nil, rerr
	}
	want, rerr := serve.ListenFilterOf(params)
	if rerr != nil {
		return nil, rerr
	}
	l := &frontListen{f: f, id: mcp.IncomingID(ctx), ctx: ctx, params: params, want: want,
		started: map[*Member]bool{}, waiting: map[*Member]bool{}, all: make(chan struct{})}
	byMember := map[*Member][]string{}
	for _, uri := range want.URIs {
		if m := f.owner(ctx, uri); m != nil && !slices.Contains(byMember[m], uri) {
			byMember[m] = append(byMember[m], uri)
		}
	}
	f.mu.Lock()
	f.listens[l] = true
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.listens, l)
		f.mu.Unlock()
		l.end()
	}()
	lists := l.want.AnyChange()
	for _, m := range f.gw.Members {
		if f.c.Who().Sees(m.Name) && (byMember[m] != nil || lists && m.upNow() != nil) {
			l.start(m, byMember[m])
		}
	}
	l.settled(nil)
	select {
	case <-l.all:
	case <-time.After(ackWait):
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	l.acknowledge()
	<-ctx.Done()
	return nil, context.Cause(ctx)
}

// end ends the listen's members' listens and waits for them. A member
// that comes up meanwhile (memberChanged read the listens before this one
// left them) starts none: each is counted under mu, where end marks the
// listen ended before it waits.
func (l *frontListen) end() {
	l.mu.Lock()
	l.ended = true
	l.mu.Unlock()
	l.wg.Wait()
}

// start listens at member m for the lists asked for and uris, unless the
// listen has ended.
func (l *frontListen) start(m *Member, uris []string) {
	params := serve.WithListenURIs(l.params, append([]string{}, uris...)) // none: [], not null
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started[m] || l.ended {
		return
	}
	l.started[m] = true
	if !l.acked {
		l.waiting[m] = true
	}
	l.wg.Go(func() { // a server's listen for a front's listen: ends when the client ends its listen, or the member's ends
		ctx, _ := mcp.SeparateResultMembers(l.ctx)
		ctx = serve.WithListenRelay(ctx, func(n serve.Notice) { l.from(m, n) })
		l.f.pass(ctx, m, "subscriptions/listen", params)
		l.settled(m) // a listen that ended before its acknowledgement holds nothing up
		l.mu.Lock()
		delete(l.started, m) // listened to again when it comes up again
		l.mu.Unlock()
	})
}

// settled notes that m's listen was acknowledged (or ended), or with m
// nil that every first listen is started; once both, and none waits for
// its acknowledgement, all is closed.
func (l *frontListen) settled(m *Member) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.begun = l.begun || m == nil
	delete(l.waiting, m)
	if l.begun && len(l.waiting) == 0 {
		l.allOnce.Do(func() { close(l.all) })
	}
}

// from takes what member m's listen would send the client.
func (l *frontListen) from(m *Member, n serve.Notice) {
	switch n.Method {
	case "notifications/subscriptions/acknowledged":
		ack, _ := serve.ListenFilterOf(n.Params) // one that does not decode acknowledges no resource: the client is told of none of m's
		l.mu.Lock()
		for _, uri := range ack.URIs {
			if slices.Contains(l.want.URIs, uri) && !slices.Contains(l.uris, uri) {
				l.uris = append(l.uris, uri)
			}
		}
		l.mu.Unlock()
		l.settled(m)
	case mcp.Tools.Changed, mcp.Prompts.Changed, mcp.Resources.Changed:
		l.listChanged(n)
	case "notifications/resources/updated":
		uri, _ := rawjson.String(rawjson.Member(n.Params, "uri"))
		l.mu.Lock()
		if !l.acked {
			if slices.Contains(l.want.URIs, uri) && !slices.Contains(l.updates, uri) {
				l.updates = append(l.updates, uri)
			}
			l.mu.Unlock()
			return
		}
		ok := slices.Contains(l.uris, uri)
		l.mu.Unlock()
		if ok {
			l.send(n)
		}
	}
}

// listChanged passes a list's change on, if the client asked for it;
// before its acknowledgement it waits.
func (l *frontListen) listChanged(n serve.Notice) {
	l.mu.Lock()
	if !l.acked {
		if l.want.Asks(n.Method) {
			l.pending.Ask(n.Method)
		}
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	if l.want.Asks(n.Method) {
		n.Params = nil
		l.send(n)
	}
}

// acknowledge sends the client its acknowledgement, then what came for
// it before.
func (l *frontListen) acknowledge() {
	l.sendMu.Lock() // what comes once acked is set waits for what is sent here
	defer l.sendMu.Unlock()
	l.mu.Lock()
	l.acked = true
	got := l.want.Only(func(string) bool { return true })
	got.URIs = slices.Clone(l.uris)
	pending, updates := l.pending, l.updates
	l.updates = nil
	l.mu.Unlock()
	l.deliver(serve.Notice{Method: "notifications/subscriptions/acknowledged", Params: rawjson.Marshal(map[string]any{"notifications": got})})
	for _, method := range mcp.Changes {
		if pending.Asks(method) {
			l.deliver(serve.Notice{Method: method})
		}
	}
	for _, uri := range updates {
		if slices.Contains(got.URIs, uri) {
			l.deliver(serve.Notice{Method: "notifications/resources/updated", Params: rawjson.Marshal(map[string]string{"uri": uri})})
		}
	}
}

// send hands the client a notice of its listen, under its
// subscription id.
func (l *frontListen) send(n serve.Notice) {
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	l.deliver(n)
}

// deliver is send with sendMu held.
func (l *frontListen) deliver(n serve.Notice) {
	n.Params = serve.WithSubscriptionID(n.Params, l.id)
	l.f.c.Notify(l.id, n)
}

// memberChanged: member m came up or went down. A client of the
// initialize era is told its lists changed; a modern one's listens are,
// and one that asked for list changes starts listening at a member come
// up.
func (f *front) memberChanged(m *Member, st lifeState) {
	f.mu.Lock()
	listens := slices.Collect(maps.Keys(f.listens))
	f.mu.Unlock()
	for _, l := range listens {
		if st == lifeUp && l.want.AnyChange() {
			l.start(m, nil)
		}
	}
	for _, change := range mcp.Changes {
		f.listChanged(change)
	}
}
