package keeper

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpv/mcpv/internal/subscription"
)

// Notify passes a server notification to the commands it belongs to, as
// subscription.AudienceOf says (a resource's update goes to the commands
// subscribed to it; the busy one is the one command with a request in
// flight). What belongs to no command stays in the session log: the
// keeper's own notifier has written log messages there already.
func (k *Keeper) Notify(method string, params json.RawMessage) {
	k.lists.Notified(method)
	var to []*conn
	switch a, uri := subscription.AudienceOf(method, params); a {
	case subscription.Requester:
		k.progress(params)
		return
	case subscription.Holders:
		to = k.subscribers(uri)
	case subscription.Listeners:
		to = k.commands(func(c *conn) bool { return c.listens > 0 })
	case subscription.Everyone:
		to = k.commands(func(*conn) bool { return true })
	case subscription.Busy:
		if busy := k.busy(); len(busy) == 1 {
			to = busy
		}
	}
	if len(to) == 0 {
		if method != "notifications/message" {
			k.Log.Info(fmt.Sprintf("the server's %s belonged to no one command", method))
		}
		return
	}
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q}`, method)
	if len(params) > 0 {
		msg = fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)
	}
	for _, c := range to {
		c.send(true, msg)
	}
}

// progress passes a progress notification to the command whose request
// it reports on, with that command's own token.
func (k *Keeper) progress(params json.RawMessage) {
	c, b, ok := k.tokens.Back(params)
	if !ok {
		return
	}
	c.send(true, fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/progress","params":%s}`, b))
}

// commands are the attached commands that keep, asked with each one's mu
// held.
func (k *Keeper) commands(keep func(*conn) bool) []*conn {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []*conn
	for c := range k.conns {
		c.mu.Lock()
		ok := keep(c)
		c.mu.Unlock()
		if ok {
			out = append(out, c)
		}
	}
	return out
}

// busy are the commands with a request in flight, other than the
// subscriptions/listen streams a watch keeps open: a log message or a
// question is not a watch's.
func (k *Keeper) busy() []*conn {
	return k.commands(func(c *conn) bool { return len(c.inflight) > c.listens })
}

// subscribers are the commands subscribed to uri.
func (k *Keeper) subscribers(uri string) []*conn {
	return k.commands(func(c *conn) bool { return c.subs[uri] > 0 || k.subs.Holds(c, uri) })
}

// Route hands a server request to the command it belongs to: the one
// command with a request in flight. With none, or several, it is left to
// the session's own answers (its flags at session start).
func (k *Keeper) Route(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, bool, error) {
	if method != "elicitation/create" && method != "sampling/createMessage" {
		return nil, false, nil // roots are the session's
	}
	busy := k.busy()
	if len(busy) != 1 {
		return nil, false, nil
	}
	return busy[0].ask(ctx, method, params)
}

// ask sends a server request to the command and waits for its answer.
func (c *conn) ask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, bool, error) {
	ch := make(chan *answer, 1)
	c.mu.Lock()
	c.nextID++
	id := strconv.Quote("keeper-" + strconv.FormatInt(c.nextID, 10))
	c.asked[id] = ch
	c.mu.Unlock()
	if len(params) == 0 {
		params = json.RawMessage(`{}`)
	}
	c.send(false, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params))
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, true, m.Error
		}
		return m.Result, true, nil
	case <-c.done:
		c.forgetAsked(id)
		return nil, false, nil // the command left: the session's answer
	case <-ctx.Done():
		c.forgetAsked(id)
		c.send(false, fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}`, id))
		return nil, true, context.Cause(ctx)
	}
}

// forgetAsked lets go of question id, answered or no longer awaited,
// and returns the channel its answer was awaited on (nil: none is).
func (c *conn) forgetAsked(id string) chan *answer {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.asked[id]
	delete(c.asked, id)
	return ch
}
