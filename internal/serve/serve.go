// Package serve re-exposes one MCP server (upstream) to MCP clients
// (downstream): one client on a pair of streams (mcpv's own stdin and
// stdout), or several over Streamable HTTP, each with a downstream session
// of its own.
//
// By default every client shares one upstream session: the server starts
// (or is reached, authorized) once, and a client that connects pays no
// start-up. Isolate gives each client a session of its own, for servers
// whose state must not be shared, and so that a server's question
// (elicitation, sampling, roots) always has one client to go to.
//
// A client is answered in the era it speaks, whatever the server speaks
// (modern.go, bridge.go); what cannot be bridged (a server's request to
// a modern client) is refused with a JSON-RPC error.
//
// Requests travel under the client's own ids downstream and the upstream
// session's beyond; progress tokens are replaced by the relay's own, so
// two clients' tokens never meet, and mapped back. Cancelling a request
// cancels its handler's context, and so the upstream request on the wire.
//
// Tokens stay inside: every message a client gets passes through the
// Secrets scrubber, which knows every secret the upstream session holds
// (the -H, --env and URL secrets, the OAuth tokens as they are learned),
// so no result, error or notification can carry one out.
package serve

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/subscription"
	"github.com/mcpv/mcpv/mcp"
)

// Server serves clients the upstream server that Open reaches.
type Server struct {
	// Open opens an upstream session that sends what its server says and
	// asks where r says.
	Open func(ctx context.Context, r Relay) (Upstream, error)
	// OpenModern, when set, opens a session to the same server in the
	// 2026-07-28 era for the clients that speak it, beside the shared
	// session of the initialize era.
	OpenModern func(ctx context.Context, r Relay) (Upstream, error)
	Guard      Guards
	Isolate    bool
	// ClientCaps makes the shared upstream session declare the
	// capabilities of the first client (on stdio, the one client) rather
	// than all a client may have: Start starts the server, and its
	// initialize waits for that client's first request, so that the
	// server offers the client what it would offer it directly.
	ClientCaps bool
	// InputWait bounds the wait for a modern client to send again a
	// request the server asked a question about (see bridge.go);
	// DefaultInputWait when 0. MaxParked bounds the calls that wait so
	// at once; DefaultMaxParked when 0.
	InputWait time.Duration
	MaxParked int
	// NoteStall is how long a client's notification writer may take
	// nothing before the client counts as not reading, and what comes
	// for it is dropped (notes.go); a second when 0. NoteWait bounds
	// the write of one notification to a client, and an answer's wait
	// for the notifications of its request; notifyWait when 0.
	NoteStall, NoteWait time.Duration
	// Secrets masks what no client may see; the session's tokens are
	// added as they are learned.
	Secrets *redact.Scrubber
	Log     *slog.Logger
	// Record, when set, is told every request a client made and the
	// result it got; Start lists the server's surface to it first.
	Record Recorder
	// Observe, when set, is told of every message a client sends (a
	// request once answered). It is called from several handlers at
	// once, and holds up the answer while it runs.
	Observe func(Exchange)
	// Pin, when set, holds the server to a pin file: what moved since it
	// was pinned is withheld from every client (pin.go).
	Pin *Pin

	// What a layer above may hook (layer.go). Self, when set, is what the
	// endpoint says of itself (its Server Card) in place of the server's
	// initialize result; NamePrefix is the prefix a bearer token's view
	// names this Server's tools and prompts with.
	Front      func(*Client) Front
	Source     Source
	OnTask     func(id string)
	Self       json.RawMessage
	NamePrefix string

	pins     *pinGate      // Pin's, from Start
	served   atomic.Int64  // the clients served so far, which numbers each
	recorded atomic.Bool   // Source's: the surface was recorded (Dial)
	pinWait  time.Duration // bounds one walk of a list for the pin (zero: pinWalkWait)

	idle idlePool // with Isolate: modern clients' sessions between their requests

	mu     sync.Mutex // guards shared and err
	shared *upstream

	modernMu sync.Mutex // guards modern and tried, and is held while OpenModern runs
	modern   *upstream  // the 2026-07-28 session of OpenModern, once opened
	tried    bool       // OpenModern was tried (and failed, when modern is nil)

	ready   chan struct{}        // closed (under mu) when the shared session is open, or failed to open
	done    chan struct{}        // closed (under mu) when the shared session has ended, or never opened
	err     error                // why it ended
	offer   chan json.RawMessage // ClientCaps: the first client's capabilities, for the handshake
	offered sync.Once            // guards sending on offer
	stop    context.CancelFunc   // ends a handshake still waiting for its client
	// handshook is closed when the handshake that waits for the first
	// client (ClientCaps) has ended: the session open, or given up.
	handshook chan struct{}
	bridges   bridges // the calls of modern clients waiting for input
}

// upstreamCaps are the capabilities a shared upstream session declares
// when it serves several clients: all that a client may answer. A
// request a client cannot answer is refused for it when it comes.
var upstreamCaps = json.RawMessage(`{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}}`)

// Start opens the shared upstream session (none with Isolate), so that a
// server that cannot be reached fails before any client is served. With
// ClientCaps it returns once the server is started: the handshake waits
// for the first client.
func (s *Server) Start(ctx context.Context) error {
	s.Log, s.Secrets = cmp.Or(s.Log, slog.New(slog.DiscardHandler)), cmp.Or(s.Secrets, redact.NewScrubber(nil))
	s.bridges.srv, s.bridges.parked = s, map[string]*bridge{}
	rand.Read(s.bridges.key[:])
	if s.Pin != nil {
		var err error
		if s.pins, err = newPinGate(s.Pin, s.Log, s.Secrets.Mask); err != nil {
			return err
		}
	}
	if s.Isolate || s.Front != nil || s.Source != nil {
		return nil
	}
	s.ready, s.done = make(chan struct{}), make(chan struct{})
	if !s.ClientCaps {
		u, err := s.open(ctx, s.Open, upstreamCaps, nil)
		if err != nil {
			return err
		}
		return s.begin(ctx, u)
	}
	ctx, s.stop = context.WithCancel(ctx)
	s.offer, s.handshook = make(chan json.RawMessage, 1), make(chan struct{})
	started := make(chan struct{})
	await := func(ctx context.Context) (json.RawMessage, error) {
		close(started)
		select {
		case caps := <-s.offer:
			return caps, nil
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	go func() { // stdio handshake: ends when the session is open, or failed to open (Close cancels ctx)
		defer close(s.handshook)
		u, err := s.open(ctx, s.Open, nil, await)
		if err == nil {
			err = s.begin(ctx, u)
		}
		if err != nil {
			s.end(err)
		}
	}()
	select {
	case <-started:
		return nil
	case <-s.ready:
		// Open without a wait for the client (a session negotiated
		// elsewhere, which keeps its capabilities), or failed.
		return s.Err()
	}
}

// begin makes u the shared upstream session: its surface recorded when
// asked, and its end the server's.
func (s *Server) begin(ctx context.Context, u *upstream) error {
	if s.Record != nil {
		if err := s.listSurface(ctx, u); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.shared = u
	close(s.ready)
	s.mu.Unlock()
	go func() { // upstream watcher: ends with the upstream session
		<-u.conn.Done()
		s.end(u.conn.Err())
	}()
	return nil
}

// end records why the shared session ended (or never opened) and says so.
func (s *Server) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lazy.Closed(s.done) {
		return
	}
	s.err = err
	if !lazy.Closed(s.ready) {
		close(s.ready)
	}
	close(s.done)
}

// sharedUpstream is the shared session, once open; with ClientCaps the
// first caller's capabilities open it. It fails when the session could
// not be opened, or ctx ends first.
func (s *Server) sharedUpstream(ctx context.Context, caps json.RawMessage) (*upstream, error) {
	if s.Source != nil {
		sess, err := s.Source.Get(ctx)
		if err != nil {
			return nil, err
		}
		return sess.u, nil
	}
	if s.offer != nil {
		s.offered.Do(func() { s.offer <- declarable(caps) })
	}
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shared == nil {
		return nil, s.err
	}
	return s.shared, nil
}

// Done is closed when the shared upstream session ends, or could not be
// opened (never with Isolate); Err then says why.
func (s *Server) Done() <-chan struct{} { return s.done }

// Err is why the shared upstream session ended.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the shared upstream sessions. A handshake still waiting for
// the first client is given up, and its server stopped as a server whose
// start-up failed is, before Close returns.
func (s *Server) Close() {
	if s.stop != nil {
		s.stop()
		<-s.handshook
	}
	s.bridges.close()
	s.idle.close()
	if s.Source != nil {
		s.Source.Close()
	}
	if s.pins != nil {
		s.pins.close()
	}
	s.mu.Lock()
	u := s.shared
	s.mu.Unlock()
	s.modernMu.Lock()
	m := s.modern
	s.modernMu.Unlock()
	for _, x := range []*upstream{u, m} {
		if x != nil {
			x.conn.Close()
		}
	}
}

// SecretsOf are what a relay masks in everything its clients get (its
// Secrets know each in every form a server may echo it in): the secrets
// of its settings, and those of env, the environment the server is
// started with (redact.EnvSecrets).
func SecretsOf(secrets, env []string) []string {
	return append(slices.Clone(secrets), redact.EnvSecrets(env)...)
}

// Recorder is told what passes through a relay.
type Recorder interface {
	Note(method string, params, result json.RawMessage)
}

// listSurface tells the recorder the server's initialize result, then
// every page of each list the server declares, as the guard and the pin
// let clients see it: a recording holds nothing a client could not have
// seen. An Upstream that cannot walk its lists has no surface to record.
// A walk that fails closes u: the session is not opened after all.
func (s *Server) listSurface(ctx context.Context, u *upstream) error {
	up := u.conn
	s.Record.Note("initialize", nil, u.pinInstructions(up.State().InitializeResult.Raw()))
	w, ok := up.(Walker)
	if !ok {
		return nil
	}
	caps := up.State().InitializeResult.Capabilities
	for _, l := range mcp.Lists {
		if caps[l.Capability] == nil {
			continue
		}
		params := json.RawMessage(`{}`)
		var err error
		mark := u.pinMark()
		for p, perr := range w.Walk(ctx, l.Method, l.Key, 0) {
			if err = perr; err != nil {
				break
			}
			s.given(ctx, u, l.Method, params, p.Raw, mark, nil)
			params = mustJSON(map[string]string{"cursor": p.Next})
		}
		if ce, ok := errors.AsType[*mcp.CallError](err); ok && ce.Err.Code == mcp.CodeMethodNotFound {
			continue
		}
		if err != nil {
			u.conn.Close()
			return err
		}
	}
	return nil
}

// upstream is one upstream session and the clients it serves.
type upstream struct {
	srv  *Server
	conn Upstream
	own  bool // opened for one client (Isolate): closed once nothing holds it
	// pooled, with own: kept idle for the token's next modern client
	// once nothing holds it (isolate.go).
	pooled bool
	who    *View

	tokens mcp.Tokens[relayed] // our progress tokens -> the client's request
	lists  sharedLists         // the lists asked at once, sent once

	// behind counts the notifications waiting for a reading client's
	// writer to make room (outbox); the session's reader does not read
	// on while one does.
	behind outstanding

	mu        sync.Mutex         // guards the fields below
	clients   map[*client]bool   // the clients it serves
	flights   map[*relayed]bool  // clients' requests in flight (bridged calls among them)
	listeners map[*listener]bool // the subscriptions/listen open
	holds     int                // clients and calls that use it

	// pinned is what serve has seen of the server's lists, for the pin.
	pinned pinSeen

	// subs are the resources/subscribe the clients (*client) and the
	// listeners of modern clients (*listener) share upstream.
	subs subscription.Shared[any]
	// tasks are the server's tasks, by serve's ids, and whose each is.
	tasks taskBook
}

// relayed is a client's request in flight: where its progress and the
// server's other messages about it go, and who answers its questions.
// A bridged call's (b) go to the request that waits on it now.
type relayed struct {
	c      *client
	id     json.RawMessage // the client's request id
	method string
	level  string          // a modern request's logLevel
	token  json.RawMessage // a modern request's progress token (a bridged call's waiter)
	b      *bridge
}

// open opens an upstream session with open (Open, or OpenModern)
// declaring caps, or with await, the capabilities it answers once the
// server is started.
func (s *Server) open(ctx context.Context, open func(context.Context, Relay) (Upstream, error), caps json.RawMessage, await func(context.Context) (json.RawMessage, error)) (*upstream, error) {
	u := &upstream{srv: s, clients: map[*client]bool{}, flights: map[*relayed]bool{}, listeners: map[*listener]bool{}}
	u.tokens.Prefix = "serve-"
	r := Relay{
		Capabilities:      caps,
		AwaitCapabilities: await,
		OnNotification:    u.notify,
		Route:             u.route,
		// The upstream's reader waits while a client is behind.
		ReadGate: func(int) { u.behind.wait(-1, nil) },
		Secret:   func(values ...string) { s.Secrets.Add(values...) },
	}
	conn, err := open(ctx, r)
	if err != nil {
		return nil, err
	}
	u.conn = conn
	if s.pins != nil {
		if err := s.pins.admit(u); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return u, nil
}

// modernUpstream is the session of OpenModern, opened at the first modern
// client's first request; nil when there is none, and modern clients are
// then served through the shared session.
func (s *Server) modernUpstream(ctx context.Context) *upstream {
	if s.OpenModern == nil {
		return nil
	}
	s.modernMu.Lock()
	defer s.modernMu.Unlock()
	if s.tried && s.Source != nil && s.modern != nil && s.modern.ended() {
		s.tried, s.modern = false, nil // opened again, as the Source's shared session is
	}
	if s.tried {
		return s.modern
	}
	s.tried = true
	u, err := s.open(ctx, s.OpenModern, upstreamCaps, nil)
	if err != nil {
		s.Log.Debug(fmt.Sprintf("the server does not answer in the 2026-07-28 era (%v): its clients of that era are served in the initialize era's session", err))
		return nil
	}
	s.modern = u
	return u
}

// ended reports whether the upstream session has ended.
func (u *upstream) ended() bool { return lazy.Closed(u.conn.Done()) }

// declarable are the capabilities of a client whose requests serve
// relays, as it declared them.
func declarable(caps json.RawMessage) json.RawMessage {
	out := []byte{'{'}
	rawjson.ForEachValidRawMember(caps, func(k string, rawKey, v []byte) error {
		if k == "roots" || k == "sampling" || k == "elicitation" {
			out = appendMember(out, rawKey, v)
		}
		return nil
	})
	return append(out, '}')
}

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
	if re, ok := errors.AsType[*mcp.RPCError](err); ok { // a *mcp.CallError's among them
		return re
	}
	return &mcp.RPCError{Code: mcp.CodeInternalError, Message: fmt.Sprintf("the server behind this relay: %v", err)}
}

// notifyWait bounds handing a notification to a client that does not read.
const notifyWait = 5 * time.Second
