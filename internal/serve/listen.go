package serve

// subscriptions/listen: a modern client's stream of the notifications it
// asks for (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).
// In front of a modern server each listen is passed on, and what the
// server sends on it comes back to it alone. In front of a server of the
// initialize era, serve answers it itself: the acknowledgement names what
// the server can send (the list changes it declared, the resources it
// took a resources/subscribe for), and the server's notifications go to
// the listeners that asked for them. Either way, a listener hears nothing
// before its acknowledgement, nothing it did not ask for, and every
// notification carries its subscription id in _meta.

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// metaSubscriptionID is the _meta key that names the subscription a
// notification belongs to.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// listener is one subscriptions/listen of a client.
type listener struct {
	c  *client
	id json.RawMessage // the client's request id: the subscription's id
	// relay, on a listen a layer above gathers (WithListenRelay), takes
	// what the listener would send the client.
	relay  func(Notice)
	sendMu sync.Mutex // guards the sends, one at a time: the acknowledgement before what follows it

	mu        sync.Mutex // guards the fields below
	filter    mcp.ListenFilter
	asked     *mcp.ListenFilter // in front of a modern server: what the listen asked for
	upstream  string            // in front of a modern server: the id of the listen passed on
	listening bool              // acknowledged: notifications may go
}

// send hands the client a notification of its subscription, on the
// listen's stream (behind as client.notify takes it).
func (l *listener) send(behind *outstanding, method string, params json.RawMessage) {
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	l.deliver(behind, method, params)
}

// deliver is send with sendMu held.
func (l *listener) deliver(behind *outstanding, method string, params json.RawMessage) {
	if l.relay != nil {
		l.relay(Notice{method, params, behind})
		return
	}
	l.c.notify(withRelated(context.Background(), l.id), behind, method, WithSubscriptionID(params, l.id))
}

// WithSubscriptionID is params with _meta's subscription id set to id.
func WithSubscriptionID(params, id json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p == nil {
		p = map[string]json.RawMessage{}
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) != nil || meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[metaSubscriptionID] = id
	p["_meta"] = mustJSON(meta)
	return mustJSON(p)
}

// listenModern serves a modern client's subscriptions/listen until the
// client ends it, or the server does.
func (c *client) listenModern(ctx context.Context, up *upstream, params json.RawMessage) (json.RawMessage, error) {
	params, rerr := c.srv.Guard.listenParams(params)
	if rerr != nil {
		return nil, rerr
	}
	if v := c.view; v != nil {
		if params, rerr = v.g.listenParams(params); rerr != nil {
			return nil, rerr
		}
	}
	if params, rerr = up.pinListenParams(ctx, params); rerr != nil {
		return nil, rerr
	}
	want, rerr := ListenFilterOf(params)
	if rerr != nil {
		return nil, rerr
	}
	relay, _ := ctx.Value(listenRelayKey{}).(func(Notice))
	l := &listener{c: c, id: mcp.IncomingID(ctx), relay: relay}
	if up.conn.State().Modern {
		l.asked = &want
		return up.listenThrough(ctx, l, params)
	}
	return up.listenHere(ctx, l, want)
}

// listenThrough passes a listen on to a modern server; what the server
// says on it comes back to l, under l's id.
func (u *upstream) listenThrough(ctx context.Context, l *listener, params json.RawMessage) (json.RawMessage, error) {
	l.listening = true // the server's acknowledgement comes first
	ctx = mcp.WithSentID(ctx, func(id json.RawMessage) {
		l.mu.Lock()
		l.upstream = string(id)
		l.mu.Unlock()
	})
	note(u, u.listeners, l, true)
	defer note(u, u.listeners, l, false)
	res, err := u.conn.Forward(ctx, "subscriptions/listen", params)
	if err != nil {
		return nil, rpcError(err)
	}
	return WithSubscriptionID(res, l.id), nil
}

// listenHere serves a listen in front of a server of the initialize era.
func (u *upstream) listenHere(ctx context.Context, l *listener, want mcp.ListenFilter) (json.RawMessage, error) {
	init := u.conn.State().InitializeResult
	got := want.Only(func(change string) bool {
		return init.HasCapability(mcp.ChangedLists(change)[0].Capability + ".listChanged")
	})
	defer u.leave(l)
	if init.HasCapability(mcp.Resources.Capability + ".subscribe") {
		for _, uri := range want.URIs {
			if slices.Contains(got.URIs, uri) { // the guard took out what it hides (listenModern)
				continue
			}
			if err := u.holdResource(ctx, l, uri); err != nil {
				if ctx.Err() != nil {
					return nil, context.Cause(ctx)
				}
				continue // not acknowledged: the server refused it
			}
			got.URIs = append(got.URIs, uri)
		}
	}
	// Listening before the acknowledgement goes, so what the server
	// sends once the client has it is heard; what comes meanwhile waits
	// for it (sendMu).
	note(u, u.listeners, l, true)
	defer note(u, u.listeners, l, false)
	l.sendMu.Lock()
	l.mu.Lock()
	l.filter, l.listening = got, true
	l.mu.Unlock()
	l.deliver(nil, "notifications/subscriptions/acknowledged", mustJSON(map[string]any{"notifications": got}))
	l.sendMu.Unlock()
	select {
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-u.conn.Done():
		return nil, rpcError(errors.New("the server's session ended"))
	}
}

// holdResource subscribes l to uri in the subscriptions the clients share.
func (u *upstream) holdResource(ctx context.Context, l *listener, uri string) error {
	forward, done, err := u.subs.Subscribe(ctx, l, uri)
	if err != nil || !forward {
		return err
	}
	_, err = u.conn.Forward(ctx, "resources/subscribe", mustJSON(map[string]string{"uri": uri}))
	done(err == nil)
	return err
}

// listenersOf are the listeners a notification of the server goes to: in
// front of a modern server, the one whose listen the server named; else
// those acknowledged that asked for it (method, of resource uri for an
// update).
func (u *upstream) listenersOf(method string, params json.RawMessage, uri string) []*listener {
	sub := rawjson.Member(rawjson.Member(params, "_meta"), metaSubscriptionID)
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []*listener
	for l := range u.listeners {
		l.mu.Lock()
		wants := false
		switch {
		case sub != nil:
			wants = l.upstream == string(sub)
		case l.upstream != "" || !l.listening:
		case method == "notifications/resources/updated":
			wants = slices.Contains(l.filter.URIs, uri)
		default:
			wants = l.filter.Asks(method)
		}
		l.mu.Unlock()
		if wants {
			out = append(out, l)
		}
	}
	return out
}
