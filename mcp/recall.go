package mcp

// A server's era remembered from an earlier run. The era is a property of
// the server, and a client of both eras may keep it across runs of the
// same server configuration, probing again when the server shows it
// wrong (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions).
// A server remembered in the initialize era gets initialize at once, with
// no probe before it (Initialize): it sees nothing before initialize that
// it would have seen without the memory. A server remembered in the modern
// era is spoken to as one (recalled) and the server's word settles it:
//
//   - When its server/discover result is still fresh (within the ttlMs it
//     gave it, https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching),
//     the client takes it as the answer and asks nothing: the first
//     request goes as it is. A success settles the era; a refusal that a
//     server of the initialize era could have given (anything but a
//     modern error) is checked with a probe, and the request goes again
//     in the era the probe finds.
//   - Otherwise server/discover goes at once, as the probe it is, and the
//     first request waits for its answer, or, when it is a list or a ping
//     (nothing a server could do harm by, in either era), rides right
//     behind it: its answer is taken when the discover answer shows the
//     server still modern, in the same version, and the request goes
//     again in the era found otherwise. A tools/call never goes out
//     before the era is settled.

import (
	"context"
	"encoding/json"
	"sync/atomic"
)

// Recall is what a client remembers of a server from an earlier run.
type Recall struct {
	// State is the era the server spoke: its version and, in the modern
	// era, server/discover's result shaped as initialize's (Client.State).
	State State
	// Fresh says that result is still within the ttlMs the server gave
	// it: no server/discover need be sent.
	Fresh bool
}

// recall is a remembered modern era awaiting the server's word.
type recall struct {
	gate    chan struct{} // 1-buffered: held by the call that settles the era
	settled atomic.Bool   // the server has spoken; set under gate
	fresh   bool          // Recall.Fresh: the first answer decides; set once, before the client is shared
	disc    *request      // server/discover, sent when the client was made; taken (or gone) once a settle began; guarded by gate
	learnt  atomic.Bool   // the server's word was heard in this run (Learnt)
}

// pipelined are the requests that may ride behind server/discover before
// its answer: lists and ping, which any server answers without acting.
var pipelined = map[string]bool{
	"tools/list": true, "prompts/list": true, "resources/list": true, "resources/templates/list": true, "ping": true, "server/discover": true,
}

// recalled is a client of the modern era as opts.Recall remembers it. It
// sends server/discover unless the remembered result is fresh, and does
// not wait for the answer: the first call does (callRecalled).
func recalled(ctx context.Context, s *Session, opts ClientOptions) (*Client, error) {
	st := opts.Recall.State
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(st.InitializeResult, &res); err != nil {
		opts.Recall = nil // a memory that cannot be read is none
		return Initialize(ctx, s, opts)
	}
	c := newModernClient(s, opts, st.Version)
	c.e.Store(&era{modern: true, version: st.Version, capabilities: res.Capabilities, initResult: st.InitializeResult})
	r := &recall{gate: make(chan struct{}, 1), fresh: opts.Recall.Fresh}
	c.recall = r
	if !r.fresh {
		// The request outlives ctx, the opening's: the first call takes
		// its answer (over HTTP a request's context is its POST's).
		disc, err := s.begin(withSilentCancel(context.WithoutCancel(ctx)), "server/discover", c.stamp(nil))
		if err != nil {
			return nil, unprobed(ctx, err)
		}
		r.disc = disc
	}
	return c, nil
}

// callRecalled is Call while the era awaits the server's word.
func (c *Client) callRecalled(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	r := c.recall
	select {
	case r.gate <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	held := true
	release := func() {
		if held {
			held = false
			<-r.gate
		}
	}
	defer release()
	if r.settled.Load() {
		release()
		return c.call(ctx, method, params)
	}
	if r.fresh {
		return c.firstAnswerDecides(ctx, method, params)
	}
	var first *request
	var prepared, token json.RawMessage
	if r.disc != nil && pipelined[method] {
		var err error
		if prepared, token, err = c.prepare(method, params); err != nil {
			return nil, err
		}
		first, _ = c.s.begin(ctx, method, prepared) // a failure to send is the settle's to report
	}
	was := c.era()
	if err := c.settle(ctx); err != nil {
		if first != nil {
			first.abandon()
		}
		return nil, err
	}
	release()
	if first != nil {
		if e := c.era(); e.modern && e.version == was.version {
			return c.send(ctx, method, prepared, token, first)
		}
		first.abandon() // sent in an era the server no longer speaks
	}
	return c.call(ctx, method, params)
}

// firstAnswerDecides sends the first request of a client whose remembered
// discover result is fresh, r.gate held: an answer settles the era; a
// refusal a server of the initialize era could have given is checked with
// a probe, and stands if the server is still modern, in the same version.
func (c *Client) firstAnswerDecides(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	r := c.recall
	prepared, token, err := c.prepare(method, params)
	if err != nil {
		return nil, err
	}
	was := c.era()
	res, err := c.send(ctx, method, prepared, token, nil)
	if err == nil || !legacyAnswer(ctx, err) {
		r.settled.Store(true)
		return res, err
	}
	if serr := c.settle(ctx); serr != nil {
		return nil, serr
	}
	if e := c.era(); e.modern && e.version == was.version {
		return nil, err // the refusal was the modern server's own
	}
	return c.call(ctx, method, params)
}

// settle asks the server which era it speaks, taking the answer to the
// server/discover sent already if there is one, and makes it the
// client's: r.gate is held. It fails when the probe does (the server gone,
// its version not one mcpv speaks, ctx ended), and may be tried again.
func (c *Client) settle(ctx context.Context) error {
	r := c.recall
	if d := c.opts.Timeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, &TimeoutError{Method: "server/discover", Timeout: d})
		defer cancel()
	}
	if l := c.opts.ConnectLimit; l != nil && l.Timeout > 0 && !r.fresh {
		// The server's start is awaited here rather than in Initialize.
		clock := c.opts.StartClock
		if clock == nil {
			clock = context.WithTimeoutCause
		}
		var cancel context.CancelFunc
		ctx, cancel = clock(ctx, l.Timeout, l)
		defer cancel()
	}
	disc := r.disc
	r.disc = nil // the probe takes it, or abandons it
	_, init, final, err := probe(ctx, c.s, c.opts, c, disc)
	if final && err != nil {
		return err
	}
	if !final {
		legacy, err := handshake(ctx, c.s, c.opts, init)
		if err != nil {
			return err
		}
		c.e.Store(legacy.era())
	}
	r.learnt.Store(true)
	r.settled.Store(true)
	return nil
}

// Settle waits for the server's word on a remembered era that awaits it,
// sending server/discover if need be; a client with no remembered era, or
// one whose remembered discover result is fresh, returns at once.
func (c *Client) Settle(ctx context.Context) error {
	r := c.recall
	if r == nil || r.settled.Load() || r.fresh {
		return nil
	}
	select {
	case r.gate <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-r.gate }()
	if r.settled.Load() {
		return nil
	}
	return c.settle(ctx)
}

// Learnt returns the era the server spoke in this run, to be remembered
// for the next (State, and server/discover's result as sent, nil in the
// initialize era), and whether the server said it: false for an era only
// remembered, whose fresh discover result was taken as it was.
func (c *Client) Learnt() (st State, discovered json.RawMessage, ok bool) {
	if r := c.recall; r != nil && !r.learnt.Load() {
		return State{}, nil, false
	}
	e := c.era()
	return State{Version: e.version, Modern: e.modern, InitializeResult: e.initResult}, e.discovered, true
}
