package serve

// What the clients say, told as it happens (Server.Observe), and what an
// Upstream in the process (a mock) says about the request it serves
// (Tell).

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpv/mcpv/internal/subscription"
	"github.com/mcpv/mcpv/mcp"
)

// Exchange is one message a client sent: a request and what it was
// answered, or a notification.
type Exchange struct {
	// Client is the number of the client's session, in the order they
	// came (1, 2...). A 2026-07-28 client over HTTP has none: each of its
	// requests counts as a client.
	Client int64
	ID     json.RawMessage // as the client wrote it; nil for a notification
	Method string
	Params json.RawMessage
	// Result or Err is what the request was answered with; Cancelled
	// says it was not answered.
	Result    json.RawMessage
	Err       error
	Cancelled bool
	// Asked says the message is not the client's own request but one an
	// Upstream in the process (a mock) put to it, with its answer.
	Asked bool
	// Time is when the message came; Took, how long the answer took.
	Time time.Time
	Took time.Duration
}

// observed is h, telling the Server's Observe of each request and its
// answer once it is answered; and what tells it of each notification as
// the client's stream is read, so that a log has them in the order they
// came (nil without Observe).
func (c *client) observed(h mcp.RequestHandler) (mcp.RequestHandler, func(string, json.RawMessage)) {
	observe := c.srv.Observe
	if observe == nil {
		return h, nil
	}
	handle := func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		start := time.Now()
		res, err := h(ctx, method, params)
		observe(Exchange{Client: c.n, ID: mcp.IncomingID(ctx), Method: method, Params: params,
			Result: res, Err: err, Cancelled: ctx.Err() != nil, Time: start, Took: time.Since(start)})
		return res, err
	}
	return handle, func(method string, params json.RawMessage) {
		observe(Exchange{Client: c.n, Method: method, Params: params, Time: time.Now()})
	}
}

// Tell hands a notification of an Upstream's about the client request
// being served in ctx (the context of its Forward or Relay) to whom it
// concerns, as the server's own notifications go. It reports false, and
// sends nothing, when ctx is no client request's.
func Tell(ctx context.Context, method string, params json.RawMessage) bool {
	r, ok := mcp.Caller(ctx).(relayed)
	u, _ := ctx.Value(upstreamKey{}).(*upstream)
	if !ok || u == nil {
		return false
	}
	if a, _ := subscription.AudienceOf(method, params); a != subscription.Busy {
		u.notify(method, params)
		return true
	}
	if !u.srv.Guard.hidesNotification(method, params) {
		r.tell(withRelated(context.Background(), r.id), &u.behind, method, params)
	}
	return true
}

// ClientOf is the number (as Exchange has it) of the client whose
// request is being served in ctx, the context of an Upstream's Forward or
// Relay; 0 outside a client's request.
func ClientOf(ctx context.Context) int64 {
	if r, ok := mcp.Caller(ctx).(relayed); ok && r.c != nil {
		return r.c.n
	}
	return 0
}

// upstreamKey marks the context of a client's request with the upstream
// session it goes to (beside its relayed, mcp.WithCaller).
type upstreamKey struct{}
