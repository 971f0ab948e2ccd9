// Package serve re-exposes one MCP server (upstream) to MCP clients
// (downstream): one client on a pair of streams (mcpv's own stdin and
// stdout), or several over Streamable HTTP, each with a downstream session
// of its own.
//
// By default every client shares one upstream session, as the commands
// attached to a session keeper do: the server starts (or is reached,
// authorized) once, its state is shared, and a client that connects pays
// no start-up. Isolate gives each client an upstream session of its own
// instead, for servers whose state must not be shared, and so that a
// server's question (elicitation, sampling, roots) always has one client
// to go to.
//
// A client is answered in the era it speaks, whatever the server speaks:
// initialize is answered from the server's initialize (or
// server/discover) result, server/discover likewise; the requests of a
// client of the initialize era are stamped for a modern server, whose
// input requests become server requests to that client. What cannot be
// bridged (a server's request to a modern client) is refused with a
// JSON-RPC error.
//
// Requests travel under the client's own ids on its downstream session
// and under the upstream session's ids beyond; progress tokens are
// replaced by tokens of the relay's own, so two clients' tokens never
// meet, and mapped back. Cancellation follows the request it cancels
// (the downstream session cancels the handler's context, which cancels
// the upstream request on the wire).
//
// Tokens stay inside: every message a client gets passes through the
// Secrets scrubber, which knows every secret the upstream session holds
// (the -H, --env and URL secrets, and the OAuth tokens as they are
// learned), so no result, error or notification can carry one out.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/subscription"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/redact"
)

// Server serves clients the upstream server that Open reaches.
type Server struct {
	// Open opens an upstream session with the hooks given: Conn of a
	// session to a real server, or another Upstream.
	Open func(ctx context.Context, h connect.Hooks) (Upstream, error)
	// Hooks are the command line's; the server sets Route,
	// OnNotification, Capabilities and Secret on its copies.
	Hooks   connect.Hooks
	Guard   Guards
	Isolate bool
	// Secrets masks what no client may see; Open's settings' secrets
	// should be added before serving, the session's tokens are added as
	// they are learned.
	Secrets *redact.Scrubber
	Log     *slog.Logger
	// Record, when set, is told every request a client made and the
	// result it got; Start lists the server's surface to it first.
	Record Recorder

	mu     sync.Mutex // guards shared
	shared *upstream
}

// upstreamCaps are the capabilities the upstream session declares: all
// that a client may answer. A request its clients cannot answer is
// refused when it comes.
var upstreamCaps = json.RawMessage(`{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}}`)

// Start opens the shared upstream session (none with Isolate, where each
// client opens its own), so that a server that cannot be reached fails
// the command before any client is served.
func (s *Server) Start(ctx context.Context) error {
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	if s.Secrets == nil {
		s.Secrets = redact.NewScrubber(nil)
	}
	if s.Isolate {
		return nil
	}
	u, err := s.open(ctx)
	if err != nil {
		return err
	}
	if s.Record != nil {
		if err := s.listSurface(ctx, u.conn); err != nil {
			u.conn.Close()
			return err
		}
	}
	s.mu.Lock()
	s.shared = u
	s.mu.Unlock()
	return nil
}

// Done is closed when the shared upstream session ends (never with
// Isolate); Err then says why.
func (s *Server) Done() <-chan struct{} {
	if s.shared == nil {
		return nil
	}
	return s.shared.conn.Done()
}

// Err is why the shared upstream session ended.
func (s *Server) Err() error {
	if s.shared == nil {
		return nil
	}
	return s.shared.conn.Err()
}

// Close ends the shared upstream session.
func (s *Server) Close() {
	s.mu.Lock()
	u := s.shared
	s.mu.Unlock()
	if u != nil {
		u.conn.Close()
	}
}

// SecretsOf are what a relay in front of the server s describes masks
// in everything its clients get: the secrets of the settings (-H values,
// secret --env values, the URL's credentials, the config entry's), and
// those of the environment the server is started with, wherever each
// variable came from (mcpv's own environment, --env, a config entry):
// the values of the variables whose names say they hold a secret, and
// the credentials of URLs. Each in every form a server may echo it in:
// as is, JSON-escaped, URL-encoded, base64 (redact.Forms).
func SecretsOf(s *connect.Settings) []string {
	return redact.Forms(append(slices.Clone(s.Secrets), redact.EnvSecrets(s.Env)...))
}

// Recorder is told what passes through a relay.
type Recorder interface {
	Note(method string, params, result json.RawMessage)
}

// listSurface tells the recorder every page of each list the server
// declares a capability for, as the guard lets clients see it: a
// recording holds nothing a client could not have seen. The pages are
// walked as mcp.Client.Walk walks them (a repeated cursor, or no end in
// sight, fails the walk); an Upstream that cannot walk its lists (not a
// session to a server) has no surface to record.
func (s *Server) listSurface(ctx context.Context, up Upstream) error {
	w, ok := up.(walker)
	if !ok {
		return nil
	}
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	json.Unmarshal(up.State().InitializeResult, &init)
	for _, l := range []struct{ capability, method string }{
		{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"},
	} {
		if init.Capabilities[l.capability] == nil {
			continue
		}
		params := json.RawMessage(`{}`)
		err := w.Walk(ctx, l.method, lists[l.method].key, func(p mcp.Page) bool {
			s.Record.Note(l.method, params, s.Guard.filter(l.method, p.Raw))
			params = mustJSON(map[string]string{"cursor": p.Next})
			return false
		})
		var ce *mcp.CallError
		if errors.As(err, &ce) && ce.Err.Code == mcp.CodeMethodNotFound {
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// upstream is one upstream session and the clients it serves.
type upstream struct {
	srv  *Server
	conn Upstream

	tokens mcp.Tokens[relayed] // our progress tokens -> the client's request

	// behind counts the notifications waiting for a reading client's
	// writer to make room (outbox); the session's reader does not read
	// on while one does.
	behind outstanding

	mu      sync.Mutex       // guards clients
	clients map[*client]bool // the clients it serves

	subs subscription.Shared[*client] // the clients' resources/subscribe, shared upstream
}

// relayed is a client's request in flight: where its progress goes.
type relayed struct {
	c  *client
	id json.RawMessage // the client's request id
}

func (s *Server) open(ctx context.Context) (*upstream, error) {
	u := &upstream{srv: s, clients: map[*client]bool{}}
	u.tokens.Prefix = "serve-"
	h := s.Hooks
	h.Status = nil         // no progress line: progress goes to the clients
	h.LogsElsewhere = true // and the server's log to the clients it belongs to
	h.OnNotification = u.notify
	h.Route = u.route
	h.Capabilities = upstreamCaps
	gate := h.ReadGate
	h.ReadGate = func(last int) {
		u.behind.wait(-1, nil)
		if gate != nil {
			gate(last)
		}
	}
	learned := h.Secret
	h.Secret = func(values ...string) {
		s.Secrets.Add(redact.Forms(values)...)
		if learned != nil {
			learned(values...)
		}
	}
	conn, err := s.Open(ctx, h)
	if err != nil {
		return nil, err
	}
	u.conn = conn
	return u, nil
}

// notify passes the server's notifications to the clients they belong
// to, as subscription.AudienceOf says (a resource's update goes to the
// clients subscribed to it or listening for it; the busy one is the one
// client with a request in flight; with none, only to the log), so that
// no client hears what the server said for another. What the guard hides
// goes nowhere.
func (u *upstream) notify(method string, params json.RawMessage) {
	a, uri := subscription.AudienceOf(method, params)
	switch {
	case a == subscription.Requester:
		if r, b, ok := u.tokens.Back(params); ok {
			r.c.notify(withRelated(context.Background(), r.id), &u.behind, method, b)
		}
		return
	case method == "notifications/cancelled":
		return // the upstream session cancels the request it names itself
	case u.srv.Guard.hidesNotification(method, params):
		return
	}
	to, rel := u.recipients(a, uri)
	if len(to) == 0 {
		// Nothing for an operator to act on (a list that changed before
		// any client came, a log message of no one client's): a trace
		// (--verbose) shows it.
		u.srv.Log.Debug(fmt.Sprintf("the server's %s belonged to no one client", method))
		return
	}
	ctx := withRelated(context.Background(), rel)
	for _, c := range to {
		if method == "notifications/message" && !c.level.admits(params) {
			continue // below the level it asked for (another client asked for lower)
		}
		c.notify(ctx, &u.behind, method, params)
	}
}

// recipients are the clients a notification of the server for audience
// a (not progress) belongs to, and the request it is related to, if any.
func (u *upstream) recipients(a subscription.Audience, uri string) (to []*client, rel json.RawMessage) {
	switch a {
	case subscription.Holders:
		to = u.clientsWhere(func(c *client) bool { return u.subs.Holds(c, uri) || c.listensTo(uri) })
	case subscription.Listeners:
		to = u.clientsWhere((*client).listening)
	case subscription.Everyone:
		to = u.clientsWhere(func(*client) bool { return true })
	case subscription.Busy:
		if busy := u.clientsWhere((*client).busy); len(busy) == 1 {
			return busy, busy[0].latest()
		}
	}
	return to, nil
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

// route hands a server request to the client it belongs to: the client
// whose request the server is fulfilling (a modern server's input
// request), else the one client with requests in flight, else the only
// client. A request no client can take is refused.
func (u *upstream) route(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, bool, error) {
	switch method {
	case "roots/list", "sampling/createMessage", "elicitation/create":
	default:
		return nil, true, mcp.MethodNotFound(method)
	}
	c, id := u.pick(ctx)
	if c == nil {
		return nil, true, &mcp.RPCError{Code: mcp.CodeInternalError,
			Message: method + ": no client to ask: none is connected, or several have requests in flight"}
	}
	res, err := c.ask(withRelated(ctx, id), method, params)
	return res, true, err
}

func (u *upstream) pick(ctx context.Context) (*client, json.RawMessage) {
	if r, ok := ctx.Value(relayKey{}).(relayed); ok {
		return r.c, r.id
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	var busy, only *client
	n := 0
	for c := range u.clients {
		only = c
		if c.busy() {
			if busy != nil {
				return nil, nil
			}
			busy = c
		}
		n++
	}
	switch {
	case busy != nil:
		return busy, busy.latest()
	case n == 1:
		return only, nil
	}
	return nil, nil
}

func (u *upstream) attach(c *client) {
	u.mu.Lock()
	u.clients[c] = true
	u.mu.Unlock()
}

// detach forgets a client that left, and ends the subscriptions only it
// held.
func (u *upstream) detach(c *client) {
	u.mu.Lock()
	delete(u.clients, c)
	ended, done := u.subs.Leave(c)
	u.mu.Unlock()
	for _, uri := range ended {
		ctx, cancel := context.WithTimeout(context.Background(), notifyWait)
		u.conn.Forward(ctx, "resources/unsubscribe", mustJSON(map[string]string{"uri": uri}))
		cancel()
		done(uri)
	}
}

// subscription notes a client's resources/subscribe or unsubscribe in
// the subscriptions the clients share upstream, so that one client's
// unsubscribe does not end another's updates, once no request for the
// resource is in flight. It reports whether the request must go upstream
// (the first subscriber, the last to leave); if so, done is called with
// whether it succeeded there.
func (u *upstream) subscription(ctx context.Context, c *client, method string, params json.RawMessage) (forward bool, done func(ok bool), err error) {
	uri := resourceURI(params)
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

func resourceURI(params json.RawMessage) string {
	var p struct {
		URI string `json:"uri"`
	}
	json.Unmarshal(params, &p)
	return p.URI
}

// relayKey marks the context of a client's request as it goes upstream.
type relayKey struct{}

// relatedKey carries the id of the client's request that a message to
// the client belongs to: over HTTP it goes on that request's stream.
type relatedKey struct{}

func withRelated(ctx context.Context, id json.RawMessage) context.Context {
	if id == nil {
		return ctx
	}
	return context.WithValue(ctx, relatedKey{}, id)
}

func related(ctx context.Context) json.RawMessage {
	id, _ := ctx.Value(relatedKey{}).(json.RawMessage)
	return id
}

// rpcError is what a client gets for a request that failed upstream: the
// server's own JSON-RPC error as it is, or an internal error saying what
// happened on the way.
func rpcError(err error) error {
	var ce *mcp.CallError
	if errors.As(err, &ce) {
		return ce.Err
	}
	var re *mcp.RPCError
	if errors.As(err, &re) {
		return re
	}
	return &mcp.RPCError{Code: mcp.CodeInternalError, Message: fmt.Sprintf("the server behind this relay: %v", err)}
}

// notifyWait bounds handing a notification to a client that does not read.
const notifyWait = 5 * time.Second
