package serve

// What a layer above a Server may hook, and all it may: the gateway
// (internal/gateway) is built on these alone. Server.Front serves each
// client in serve's place; Server.Join makes a client that shares another
// client's downstream session, which the Server serves as its own;
// Server.Source gives a Server its shared upstream session over time;
// Server.OnTask is told each task id given out, to route by.

import (
	"context"
	"encoding/json"
)

// Front serves the clients of a Server in its place.
type Front interface {
	// Handle answers a request, once serve has read the _meta of the
	// 2026-07-28 era (modern) and refused what that era removed.
	Handle(ctx context.Context, method string, params json.RawMessage, modern bool) (json.RawMessage, error)
	// Notified takes the client's notifications but initialized,
	// cancelled and progress.
	Notified(method string, params json.RawMessage)
	// Close: the client has left.
	Close()
}

// Client is a client of a Server, for a layer above it.
type Client struct{ c *client }

// Join is a client of s that shares parent's downstream session and
// declared what parent declared, for a layer to hand it parent's
// requests (Handle).
func (s *Server) Join(parent *Client) *Client {
	p := parent.c
	c := &client{srv: s, n: p.n, sess: p.sess, ready: make(chan struct{}), drain: p.drain, headers: p.headers, who: p.who}
	close(c.ready)
	p.mu.Lock()
	c.caps, c.modern, c.logLevel = p.caps, p.modern, p.logLevel
	p.mu.Unlock()
	return &Client{c}
}

func (c *Client) Handle(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.c.handle(ctx, method, params)
}

func (c *Client) Notified(method string, params json.RawMessage) { c.c.notified(method, params) }

// Leave lets a joined client's upstream session go: its parent left.
func (c *Client) Leave() {
	c.c.sayDropped()
	if up := c.c.upNow(); up != nil {
		up.detach(c.c)
	}
}

// Close ends the client's downstream session.
func (c *Client) Close() { c.c.close() }

// Who is the view of the client's bearer token; nil: everything.
func (c *Client) Who() *View { return c.c.who }

func (c *Client) IsModern() bool { return c.c.isModern() }

// ReadOnly reports whether the tool called name says readOnlyHint.
func (c *Client) ReadOnly(ctx context.Context, name string) bool {
	up, err := c.c.upstreamFor(ctx, nil, nil)
	return err == nil && up.readOnly(ctx, name)
}

// Initialize answers the client's initialize from an initialize result.
func (c *Client) Initialize(params, init json.RawMessage) (json.RawMessage, error) {
	return c.c.initialize(params, init)
}

// A Notice is a notification on its way to a client: a Server's listen's
// (WithListenRelay), or a layer's own.
type Notice struct {
	Method string
	Params json.RawMessage
	behind *outstanding // the upstream session's reader waits while it does
}

// Notify hands the client a notice (related to its request related, or
// nil) as its Server hands it notifications: in order, none dropped while
// the client reads, the server read no faster than the client takes it.
func (c *Client) Notify(related json.RawMessage, n Notice) {
	c.c.notify(withRelated(context.Background(), related), n.behind, n.Method, n.Params)
}

type listenRelayKey struct{}

// WithListenRelay makes a subscriptions/listen that a joined client
// makes with ctx hand relay what it would send the client.
func WithListenRelay(ctx context.Context, relay func(Notice)) context.Context {
	return context.WithValue(ctx, listenRelayKey{}, relay)
}

// List is a page of one of the server's lists (from cursor; "" for the
// first) asked on no client's behalf, through the guard and the pin. The
// session's error is as it came, the server's a *mcp.CallError.
func (s *Server) List(ctx context.Context, method, cursor string) (json.RawMessage, error) {
	u, err := s.sharedUpstream(ctx, nil)
	if err != nil {
		return nil, err
	}
	params := json.RawMessage(`{}`)
	if cursor != "" {
		params = mustJSON(map[string]string{"cursor": cursor})
	}
	mark := u.pinMark()
	res, err := u.send(ctx, method, params, nil)
	if err != nil {
		return nil, err
	}
	return s.given(ctx, u, method, params, res, mark, nil), nil
}

// send sends method to u as its era asks: Forward to a legacy server,
// Relay to a modern one, with params as modern makes them for it (nil:
// as they are).
func (u *upstream) send(ctx context.Context, method string, params json.RawMessage, modern func(json.RawMessage) json.RawMessage) (json.RawMessage, error) {
	if !u.conn.State().Modern {
		return u.conn.Forward(ctx, method, params)
	}
	if modern != nil {
		params = modern(params)
	}
	return u.conn.Relay(ctx, method, params)
}

// given is res, u's answer to method since mark (pinMark), as a client
// of view gets it (nil: as every client does): through the guard, the pin
// and the view. The recording notes it as given, with asked (the
// request as the client sent it).
func (s *Server) given(ctx context.Context, u *upstream, method string, asked, res json.RawMessage, mark uint64, view *viewGuard) json.RawMessage {
	res = view.filter(method, u.pinFilter(ctx, method, s.Guard.filter(method, "", res), mark))
	if s.Record != nil {
		s.Record.Note(method, asked, res)
	}
	return res
}

// Source gives a Server its shared upstream session (Server.Source).
type Source interface {
	// Get is the session, open now or once opened (by Dial).
	Get(ctx context.Context) (*Session, error)
	// Close ends the session and whatever opens one.
	Close()
}

// Session is an upstream session a Source opened.
type Session struct{ u *upstream }

// Dial opens an upstream session for s's Source: declaring all a client
// may answer, held to the pin, and its surface told to Record the first
// time.
func (s *Server) Dial(ctx context.Context) (*Session, error) {
	u, err := s.open(ctx, s.Open, upstreamCaps, nil)
	if err == nil && s.Record != nil && !s.recorded.Load() {
		err = s.listSurface(ctx, u)
		s.recorded.Store(err == nil)
	}
	if err != nil {
		return nil, err
	}
	return &Session{u}, nil
}

func (s *Session) Done() <-chan struct{} { return s.u.conn.Done() }
func (s *Session) Err() error            { return s.u.conn.Err() }
func (s *Session) Close()                { s.u.conn.Close() }

func (s *Session) Ping(ctx context.Context) error {
	_, err := s.u.conn.Forward(ctx, "ping", nil)
	return err
}

// Init is the server's initialize result as clients get it (the pin's
// instructions withheld).
func (s *Session) Init() json.RawMessage {
	return s.u.pinInstructions(s.u.conn.State().InitializeResult.Raw())
}
