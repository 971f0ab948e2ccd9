package serve

// Whose is what the server says: its notifications and its requests
// reach the client they belong to, and no other.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/subscription"
	"github.com/mcpv/mcpv/mcp"
)

// notify passes the server's notifications to the clients they belong
// to, as subscription.AudienceOf says, so that no client hears what the
// server said for another; what the guard hides goes nowhere.
func (u *upstream) notify(method string, params json.RawMessage) {
	u.pinned.changed(method)
	a, uri := subscription.AudienceOf(method, params)
	switch {
	case a == subscription.Requester:
		if r, b, ok := u.tokens.Back(params); ok {
			if w, id := r.now(), relatedTask(b); w != nil && id != "" && u.tasks.upstream(id) == nil {
				// A task its request made may be named here before the
				// request's answer has told serve of it: it is that
				// client's all the same.
				u.addTask(w.c, id)
			}
			r.progress(&u.behind, method, u.renameRelated(b))
		}
		return
	case method == "notifications/cancelled":
		return // the upstream session cancels the request it names itself
	case u.srv.Guard.hidesNotification(method, params):
		return
	}
	if r, ok := u.taskOwner(method, params); ok {
		// About a task: for its client alone, named by serve's id.
		if method == "notifications/tasks/status" {
			params = u.renameTask(nil, params, false)
		}
		if r == nil || !r.tell(withRelated(context.Background(), r.id), &u.behind, method, u.renameRelated(params)) {
			u.srv.Log.Debug(fmt.Sprintf("the server's %s is about a task no client here holds", method))
		}
		return
	}
	heard := false
	if a != subscription.Busy {
		for _, l := range u.listenersOf(method, params, uri) {
			l.send(&u.behind, method, params)
			heard = true
		}
	}
	to, rel := u.recipients(a, uri)
	for _, r := range to {
		heard = r.tell(withRelated(context.Background(), rel), &u.behind, method, params) || heard
	}
	if !heard {
		// Nothing for an operator to act on (a list that changed before
		// any client came, a log message below every client's level): a
		// trace (--verbose) shows it.
		u.srv.Log.Debug(fmt.Sprintf("the server's %s belonged to no one client", method))
	}
}

// recipients are the requests or clients a notification of the server
// for audience a (not progress, not a listen's) belongs to, and the
// request it is related to, if any.
func (u *upstream) recipients(a subscription.Audience, uri string) (to []*relayed, rel json.RawMessage) {
	switch a {
	case subscription.Holders, subscription.Everyone: // the clients of the initialize era: all, or those that subscribed to uri
		for _, c := range u.clientsWhere(func(c *client) bool { return !c.isModern() && (a == subscription.Everyone || u.subs.Holds(c, uri)) }) {
			to = append(to, &relayed{c: c})
		}
		return to, nil
	case subscription.Busy:
		if r := u.busy(""); r != nil {
			return []*relayed{r}, r.id
		}
	}
	return nil, nil
}

// busy is the request in flight a message of the server's that names none
// most likely concerns (a log message; a question, of method, the wire
// does not tie to a request: over stdio, in the initialize era): the one
// in flight, or one of one legacy client's; for a question, of those whose
// client can answer it, then of the calls, prompts and reads, which
// servers ask during. nil when none is, or several clients'. A parked
// bridged call counts only when nothing else is in flight: what the
// server says meanwhile is most likely about another request.
func (u *upstream) busy(method string) *relayed {
	u.mu.Lock()
	var active, parked []*relayed
	for r := range u.flights {
		if r.b != nil && r.b.waiterNow() == nil {
			parked = append(parked, r)
		} else {
			active = append(active, r)
		}
	}
	u.mu.Unlock()
	if len(active) == 0 && len(parked) == 1 {
		return parked[0]
	}
	for i := 0; method != "" && i < 2; i++ {
		kept := slices.DeleteFunc(slices.Clone(active), func(r *relayed) bool { return !r.answers(method) || i == 1 && !inputMethods[r.method] })
		if len(kept) > 0 {
			active = kept
		}
	}
	if len(active) == 1 || len(active) > 1 && !slices.ContainsFunc(active, func(r *relayed) bool {
		return r.b != nil || r.c != active[0].c || r.c.isModern()
	}) {
		return active[0]
	}
	return nil
}

// answers reports whether r's client declared the capability a server
// request of method needs (a bridged call's request, in its _meta).
func (r *relayed) answers(method string) bool {
	if r.b != nil {
		r.b.mu.Lock()
		defer r.b.mu.Unlock()
		return rawjson.Member(r.b.caps, capability[method]) != nil
	}
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	return !r.c.modern && r.c.caps[capability[method]] != nil
}

// clientsWhere are the clients served that keep.
func (u *upstream) clientsWhere(keep func(*client) bool) []*client {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []*client
	for c := range u.clients {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// now is the request a message about r goes to: r itself, or for a
// bridged call the request that waits on it (nil while it is parked).
func (r *relayed) now() *relayed {
	if r.b == nil {
		return r
	}
	return r.b.waiterNow()
}

// tell hands r's client a notification about it (behind as client.notify
// takes it), log messages only at the level asked for (wantsLog). It
// reports whether the notification went.
func (r *relayed) tell(ctx context.Context, behind *outstanding, method string, params json.RawMessage) bool {
	w := r.now()
	if w == nil {
		return false
	}
	if method == "notifications/message" && !w.wantsLog(params) {
		return false // below its level (another client asked for lower)
	}
	if w != r {
		ctx = withRelated(context.Background(), w.id)
	}
	w.c.notify(ctx, behind, method, params)
	return true
}

// progress hands r's client a progress notification about it (params
// carry the token of the request that started it), under the token of
// the request that waits on it now.
func (r *relayed) progress(behind *outstanding, method string, params json.RawMessage) {
	w := r.now()
	switch {
	case w == nil:
		return
	case r.b != nil:
		if w.token == nil {
			return
		}
		p, err := mcp.Retoken(params, w.token)
		if err != nil {
			return
		}
		params = p
	}
	w.c.notify(withRelated(context.Background(), w.id), behind, method, params)
}

// ask puts a server request about r to its client (or to the client of
// a bridged call, as an input request).
func (r *relayed) ask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if r.b != nil {
		return r.b.ask(ctx, method, params)
	}
	return r.c.ask(withRelated(ctx, r.id), method, params)
}

// route hands a server request to the client it belongs to: the client
// whose request the server is fulfilling, when the wire says which (a
// modern server's input request; a Streamable HTTP server's request on
// that request's stream: mcp.WithCaller), else the request in flight it
// most likely belongs to (busy), else the only client. A request no
// client can take is refused, never put to another client.
func (u *upstream) route(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, bool, error) {
	if capability[method] == "" { // roots/list, sampling/createMessage and elicitation/create alone
		return nil, true, mcp.MethodNotFound(method)
	}
	r := u.pick(ctx, method)
	if owner, ok := u.taskOwner(method, params); ok {
		// A question about a task is its client's, whoever is busy.
		r, params = owner, u.renameRelated(params)
	}
	if r == nil {
		return nil, true, &mcp.RPCError{Code: mcp.CodeInternalError,
			Message: method + ": no client to ask: none is connected, or several have requests in flight"}
	}
	res, err := r.ask(ctx, method, params)
	return res, true, err
}

func (u *upstream) pick(ctx context.Context, method string) *relayed {
	if r, ok := mcp.Caller(ctx).(relayed); ok {
		return &r
	}
	if r := u.busy(method); r != nil {
		return r
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.clients) == 1 && len(u.flights) == 0 {
		for c := range u.clients {
			return &relayed{c: c}
		}
	}
	return nil
}

// note adds k to the set m of u's (on) or takes it out, under u.mu.
func note[K comparable](u *upstream, m map[K]bool, k K, on bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if on {
		m[k] = true
	} else {
		delete(m, k)
	}
}

// attach notes a client served; it holds the session.
func (u *upstream) attach(c *client) {
	note(u, u.clients, c, true)
	u.hold()
}

// hold notes one more user of the session (a bridged call, which may
// outlive its client's request); release one fewer. A session of one
// client's own closes when nothing holds it.
func (u *upstream) hold() {
	u.mu.Lock()
	u.holds++
	u.mu.Unlock()
}

func (u *upstream) release() {
	u.mu.Lock()
	u.holds--
	last := u.holds == 0 && u.own
	u.mu.Unlock()
	switch {
	case last && u.pooled:
		u.srv.idle.put(u.who, u) // for the token's next modern client (isolate.go)
	case last:
		u.conn.Close()
	}
}

// detach forgets a client that left, and ends the subscriptions only it
// held.
func (u *upstream) detach(c *client) {
	note(u, u.clients, c, false)
	u.leave(c)
	u.tasks.forget(c)
	u.release()
}

// leave gives up the subscriptions only holder h held (a client, a
// listener): the server is told to unsubscribe from them.
func (u *upstream) leave(h any) {
	ended, done := u.subs.Leave(h)
	for _, uri := range ended {
		ctx, cancel := context.WithTimeout(context.Background(), notifyWait)
		u.conn.Forward(ctx, "resources/unsubscribe", mustJSON(map[string]string{"uri": uri}))
		cancel()
		done(uri)
	}
}

// subscription notes a client's resources/subscribe or unsubscribe in
// the subscriptions the clients share upstream, so that one client's
// unsubscribe does not end another's updates. It reports whether the
// request must go upstream; if so, done is told whether it succeeded.
func (u *upstream) subscription(ctx context.Context, c *client, method string, params json.RawMessage) (forward bool, done func(ok bool), err error) {
	uri := subscription.URI(params)
	if method == "resources/subscribe" {
		return u.subs.Subscribe(ctx, c, uri)
	}
	forward, ended, err := u.subs.Unsubscribe(ctx, c, uri)
	return forward, func(bool) {
		if ended != nil {
			ended()
		}
	}, err
}
