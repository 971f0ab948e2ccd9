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
//     modern error), a version refused or a result that is no object is
//     checked with a probe, and the request goes again in the era the
//     probe finds. So is silence: a server of the initialize era may say
//     nothing to a request before initialize, so when the first request
//     has no answer after firstAnswerWait, a probe goes out beside it
//     (the request stays pending: a modern server busy with it answers
//     the probe, or the request, and the request's answer is awaited on
//     its own bound); a request unanswered goes again only when it
//     changes nothing (resend.go), and any other fails with a *LostError. The probe, and so the finding of a changed server,
//     is bounded by ConnectLimit from the first request's start, never by
//     the request's timeout.
//   - Otherwise server/discover goes at once, as the probe it is, and the
//     first request waits for its answer, or, when it is a list or a ping
//     (nothing a server could do harm by, in either era), rides right
//     behind it: its answer is taken when the discover answer shows the
//     server still modern, in the same version, and the request goes
//     again in the era found otherwise. A tools/call never goes out
//     before the era is settled.
//
// A remembered era that the server neither confirms nor corrects within
// the connect bound (silence to everything, a version mcpv does not
// speak) ends the command with a *ChangedError, which names what was
// kept and where. A server remembered in the initialize era is probed
// beside the initialize it gets at once, when initialize has no answer
// after firstAnswerWait (recalledInitialize).

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Recall is what a client remembers of a server from an earlier run.
type Recall struct {
	// State is the era the server spoke: its version and, in the modern
	// era, server/discover's result shaped as initialize's (Client.State).
	State State
	// Fresh says that result is still within the ttlMs the server gave
	// it: no server/discover need be sent.
	Fresh bool
	// Where is where it is kept, for an error to name when the server
	// does not confirm it ("": nowhere said).
	Where string
}

// ChangedError is a remembered era that the server neither confirmed nor
// corrected: it answered nothing as remembered, nor a probe afresh,
// within the connect bound, or the probe found a version mcpv does not
// speak. Err is why the probe failed.
type ChangedError struct {
	Recall *Recall
	Err    error
}

func (e *ChangedError) Error() string {
	r := e.Recall
	what := "the initialize era, " + r.State.Version
	if r.State.Modern {
		what = "the modern era, " + r.State.Version
		if r.Fresh {
			what += ", with its server/discover result kept"
		}
	}
	msg := fmt.Sprintf("the server did not answer as remembered from an earlier run (%s), nor a probe afresh: %v; it may have changed", what, e.Err)
	if errors.As(e.Err, new(*EndedOnProbeError)) {
		msg = fmt.Sprintf("the server ended before it answered as remembered from an earlier run (%s): %v; it may have changed", what, e.Err)
	}
	if r.Where != "" {
		msg += ": what was kept of it is forgotten (" + r.Where + "), and the next run finds its era afresh"
	}
	return msg
}

func (e *ChangedError) Unwrap() error { return e.Err }

// changed is err, the failure of a probe of a server remembered as r, as
// the error to report: a *ChangedError when it says the server did not
// confirm the memory (silence to the connect bound, a version refused, an
// end before it said a word: a server of the initialize era that takes
// any first message but initialize for the client's fault exits), err
// itself otherwise (the user's own end).
func changed(r *Recall, err error) error {
	if te, ok := errors.AsType[*TimeoutError](err); r == nil || !(ok && te.Connect || errors.As(err, new(*VersionError)) || errors.As(err, new(*EndedOnProbeError))) {
		return err
	}
	return &ChangedError{Recall: r, Err: err}
}

// changed is the package's changed, noting a *ChangedError in r.
func (r *recall) changed(rec *Recall, err error) error {
	err = changed(rec, err)
	if errors.As(err, new(*ChangedError)) {
		r.contradicted.Store(true)
	}
	return err
}

// Contradicted reports whether the era remembered from an earlier run
// ended a command with a *ChangedError: the server neither confirmed nor
// corrected it, and it is not to be remembered further.
func (c *Client) Contradicted() bool { return c.recall != nil && c.recall.contradicted.Load() }

// eraChanged ends the wait of a first request whose era a probe beside it
// found changed (or could not find): the request is abandoned without a
// word to the server, which may be of the initialize era, before
// initialize.
type eraChanged struct{ err error }

func (e *eraChanged) Error() string { return "the server's era changed" }

// firstAnswerWait is how long the first request to a server remembered
// with a fresh discover result, or the initialize to one remembered in
// the initialize era, goes unanswered before a probe goes out beside it:
// opts.DiscoverWait (the probe's own first wait), and no more than half
// the connect bound, so that the probe has time within it.
func firstAnswerWait(opts ClientOptions) time.Duration {
	w := cmp.Or(max(opts.DiscoverWait, 0), DefaultDiscoverWait)
	if l := opts.ConnectLimit; l != nil && l.Timeout > 0 && w > l.Timeout/2 {
		w = l.Timeout / 2
	}
	return w
}

// recall is a remembered modern era awaiting the server's word.
type recall struct {
	gate    chan struct{} // 1-buffered: held by the call that settles the era
	settled atomic.Bool   // the server has spoken; set under gate
	fresh   bool          // Recall.Fresh: the first answer decides; set once, before the client is shared
	disc    *request      // server/discover, sent when the client was made; taken (or gone) once a settle began; guarded by gate
	learnt  atomic.Bool   // the server's word was heard in this run (Learnt)
	// contradicted says the server neither confirmed nor corrected the
	// memory (a *ChangedError): it is not to be trusted again.
	contradicted atomic.Bool
}

// recalled is a client of the modern era as opts.Recall remembers it. It
// sends server/discover unless the remembered result is fresh, and does
// not wait for the answer: the first call does (callRecalled).
func recalled(ctx context.Context, s *Session, opts ClientOptions) (*Client, error) {
	st := opts.Recall.State
	if st.InitializeResult.Raw() == nil {
		opts.Recall = nil // a memory that holds no result is none
		return Initialize(ctx, s, opts)
	}
	if opts.StartClock == nil {
		opts.StartClock = context.WithTimeoutCause // the clock of ConnectLimit's bound (settle, watchSilence)
	}
	c := newModernClient(s, opts, st.Version)
	c.e.Store(&era{modern: true, version: st.Version, init: st.InitializeResult})
	r := &recall{gate: make(chan struct{}, 1), fresh: opts.Recall.Fresh}
	c.recall = r
	if !r.fresh {
		// The request outlives ctx, the opening's: the first call takes
		// its answer (over HTTP a request's context is its POST's).
		disc, err := s.begin(withSilentCancel(context.WithoutCancel(ctx)), "server/discover", nil, nil, c.stampEntries()...)
		if err != nil {
			return nil, unprobed(ctx, err)
		}
		r.disc = disc
	}
	return c, nil
}

// callRecalled is Call while the era awaits the server's word.
func (c *Client) callRecalled(ctx context.Context, method string, params json.RawMessage, st *Streamed) (json.RawMessage, error) {
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
		return c.call(ctx, method, params, st)
	}
	b := c.newBudget()
	if r.fresh {
		return c.firstAnswerDecides(ctx, b, method, params, st)
	}
	var first *request
	var meta []metaEntry
	var token json.RawMessage
	// A list, ping or discover, which any server answers without acting,
	// may ride behind server/discover before its answer.
	if r.disc != nil && (isList(method) || method == "ping" || method == "server/discover") {
		var err error
		if meta, token, err = c.prepare(method, params); err != nil {
			return nil, err
		}
		first, _ = c.s.begin(ctx, method, params, st, meta...) // a failure to send is the settle's to report
	}
	was := c.era()
	if err := c.settle(ctx, b); err != nil {
		if first != nil {
			first.abandon()
		}
		return nil, err
	}
	release()
	if first != nil {
		if e := c.era(); e.modern && e.version == was.version {
			return c.sendWithin(ctx, b.left(), method, params, st, meta, token, first)
		}
		first.abandon() // sent in an era the server no longer speaks
	}
	return c.callWithin(ctx, b.left(), method, params, st)
}

// budget is the one timeout (opts.Timeout) that the first request to a
// remembered era shares with the probe that settles the era, and with the
// request sent again in the era found: the command ends at its --timeout,
// however they divide it, where each had a timeout of its own (two
// server/discover requests, the request's and the silence probe's, each
// waited the whole --timeout). Progress of the request restarts its
// timeout as ever (sendWithin).
type budget struct {
	d     time.Duration // opts.Timeout; 0: none
	start time.Time
}

func (c *Client) newBudget() budget { return budget{d: c.opts.Timeout, start: time.Now()} }

// left is what is left of the timeout; with none, the whole of nothing
// (sendWithin waits without a bound).
func (b budget) left() time.Duration {
	if b.d <= 0 {
		return 0
	}
	return b.d - time.Since(b.start)
}

// bound is ctx ended, as the work named method, when the timeout is used
// up.
func (b budget) bound(ctx context.Context, method string) (context.Context, context.CancelFunc) {
	if b.d <= 0 {
		return ctx, func() {}
	}
	return context.WithDeadlineCause(ctx, b.start.Add(b.d), &TimeoutError{Method: method, Timeout: b.d})
}

// firstAnswerDecides sends the first request of a client whose remembered
// discover result is fresh, r.gate held: an answer settles the era; a
// sign that the server changed (a refusal a server of the initialize era
// could have given, a version refused, a result that is no object, or
// silence: watchSilence) is checked with a probe, and the answer stands
// if the server is still modern, in the same version.
func (c *Client) firstAnswerDecides(ctx context.Context, b budget, method string, params json.RawMessage, st *Streamed) (json.RawMessage, error) {
	r := c.recall
	meta, token, err := c.prepare(method, params)
	if err != nil {
		return nil, err
	}
	was := c.era()
	w := c.watchSilence(ctx, b)
	res, err := c.sendWithin(w.ctx, c.opts.Timeout, method, params, st, meta, token, nil)
	if ended, ok := errors.AsType[*eraChanged](err); ok {
		// The probe beside the silent request settled another era, or
		// none: the request goes again in the era found.
		w.stop(false)
		if ended.err != nil {
			return nil, ended.err
		}
		if !Resendable(method) {
			// Delivered, and unanswered: it may have acted all the same
			// (resend.go).
			return nil, &methodError{method, &LostError{Method: method, Err: errors.New("the server did not answer it in the era remembered, and speaks another now")}}
		}
		return c.callWithin(ctx, b.left(), method, params, st)
	}
	if err != nil && ctx.Err() == nil && c.s.Err() != nil && !errors.As(err, new(*RPCError)) {
		// The session ended before the server said a word.
		w.stop(true)
		return nil, r.changed(c.opts.Recall, &EndedOnProbeError{Err: err})
	}
	// The answer may come from a server that changed: a refusal a server
	// of the initialize era could have given, the version refused, or a
	// result that is no JSON object.
	_, refused := serverVersions(err, CodeUnsupportedProtocolVersion)
	sign := err == nil && !rawjson.IsObject(res) || err != nil && (refused && ctx.Err() == nil || legacyAnswer(ctx, err))
	w.stop(!sign)
	if !sign {
		// The server's own answer (or the request's own end): a probe
		// under way is moot.
		r.settled.Store(true)
		return res, err
	}
	if !r.settled.Load() {
		if serr := c.settle(ctx, b); serr != nil {
			return nil, serr
		}
	}
	if e := c.era(); e.modern && e.version == was.version {
		return res, err // the answer was the modern server's own
	}
	if err == nil && rawjson.IsObject(res) {
		return res, nil // answered in full, though in an era it no longer speaks: not sent twice
	}
	return c.callWithin(ctx, b.left(), method, params, st)
}

// silenceWatch probes, beside the first request to a server remembered
// with a fresh discover result, when that request has no answer after
// firstAnswerWait. The request stays pending: a probe that finds the
// server still modern, in the same version, leaves it to its own bound;
// one that finds another era, or fails, ends its wait (eraChanged).
type silenceWatch struct {
	c     *Client
	ctx   context.Context // the request's
	end   context.CancelCauseFunc
	pctx  context.Context // the probe's: bounded by the connect limit from the start
	stopP context.CancelFunc
	b     budget // the request's timeout, which the probe shares
	timer *time.Timer
	done  chan struct{} // closed when a probe that began has ended
	cut   atomic.Bool   // stop cut the probe short: its failure is moot
}

func (c *Client) watchSilence(ctx context.Context, b budget) *silenceWatch {
	w := &silenceWatch{c: c, b: b, done: make(chan struct{})}
	w.ctx, w.end = context.WithCancelCause(ctx)
	w.pctx, w.stopP = context.WithCancel(ctx)
	if l := c.opts.ConnectLimit; l != nil && l.Timeout > 0 {
		var stop context.CancelFunc
		w.pctx, stop = c.opts.StartClock(w.pctx, l.Timeout, l)
		parent := w.stopP
		w.stopP = func() { stop(); parent() }
	}
	w.timer = time.AfterFunc(firstAnswerWait(c.opts), w.probe) // the silence probe: runs once, at most; stop waits for it
	return w
}

// probe runs on the timer's goroutine while the request waits; r.gate is
// held by the request's caller throughout.
func (w *silenceWatch) probe() {
	defer close(w.done)
	c := w.c
	was := c.era()
	if err := c.settle(w.pctx, w.b); err != nil {
		if w.ctx.Err() == nil && !w.cut.Load() {
			w.end(&eraChanged{err: err})
		}
		return
	}
	if e := c.era(); !e.modern || e.version != was.version {
		w.end(&eraChanged{})
	}
}

// stop ends the watch once the request has its outcome: a probe under
// way is cut short with cancel (an answer in hand makes it moot), and
// waited for without.
func (w *silenceWatch) stop(cancel bool) {
	defer w.end(nil)
	if w.timer.Stop() {
		w.stopP()
		return
	}
	if cancel {
		w.cut.Store(true)
		w.stopP()
	}
	<-w.done
	w.stopP()
}

// settle asks the server which era it speaks, taking the answer to the
// server/discover sent already if there is one, and makes it the
// client's: r.gate is held. It fails when the probe does (the server gone,
// its version not one mcpv speaks, ctx ended, b used up), and may be
// tried again.
func (c *Client) settle(ctx context.Context, b budget) error {
	r := c.recall
	ctx, cancel := b.bound(ctx, "server/discover")
	defer cancel()
	if l := c.opts.ConnectLimit; l != nil && l.Timeout > 0 && !r.fresh {
		// The server's start is awaited here rather than in Initialize.
		var cancel context.CancelFunc
		ctx, cancel = c.opts.StartClock(ctx, l.Timeout, l)
		defer cancel()
	}
	disc := r.disc
	r.disc = nil // the probe takes it, or abandons it
	_, init, final, err := probe(ctx, c.s, c.opts, c, disc)
	if final && err != nil {
		return r.changed(c.opts.Recall, err)
	}
	if !final {
		legacy, err := handshake(ctx, c.s, c.opts, init)
		if err != nil {
			return r.changed(c.opts.Recall, err)
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
	return c.settle(ctx, c.newBudget())
}

// Ping asks the server for a sign of life and nothing more: ping in the
// initialize era (its result is returned), server/discover in the modern
// era, which has no ping (its result is not: {} is). A remembered era the server has not
// confirmed yet is settled first, within the one timeout (budget), and
// the ping goes in the era found: a server remembered as modern is asked
// server/discover once, whose answer is the ping's, and one of the
// initialize era now gets ping, after initialize.
func (c *Client) Ping(ctx context.Context) (json.RawMessage, error) {
	r := c.recall
	if r == nil || r.settled.Load() {
		return c.ping(ctx, c.opts.Timeout)
	}
	b := c.newBudget()
	select {
	case r.gate <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	settled := r.settled.Load()
	var err error
	if !settled {
		err = c.settle(ctx, b)
	}
	<-r.gate
	switch {
	case err != nil:
		return nil, err
	case !settled && c.era().modern:
		return json.RawMessage(`{}`), nil // the probe's server/discover was answered
	}
	return c.ping(ctx, b.left())
}

// ping sends the era's ping, with left of its timeout.
func (c *Client) ping(ctx context.Context, left time.Duration) (json.RawMessage, error) {
	if !c.era().modern {
		return c.callWithin(ctx, left, "ping", nil, nil)
	}
	if _, err := c.callWithin(ctx, left, "server/discover", nil, nil); err != nil {
		return nil, err
	}
	return json.RawMessage(`{}`), nil
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
	return e.state(), e.discovered, true
}

// recalledInitialize opens a session with a server remembered in the
// initialize era: initialize goes at once, with nothing before it. A
// server that has since moved to the modern era may say nothing to it, so
// when initialize has no answer after firstAnswerWait, server/discover
// goes out after it (the server has had initialize first, as before): a
// modern answer settles the modern era, anything else leaves initialize's
// answer to be awaited. ctx, the connect bound, ends both; its end is the
// memory's *ChangedError.
func recalledInitialize(ctx context.Context, s *Session, opts ClientOptions) (*Client, error) {
	offered, caps := offer(opts)
	params, err := initializeParams(offered, caps, opts.Info)
	if err != nil {
		return nil, err
	}
	init, err := s.begin(ctx, "initialize", params, nil)
	if err != nil {
		return nil, changed(opts.Recall, err)
	}
	silence := time.After(firstAnswerWait(opts))
	var disc *request
	var discovered <-chan message
	var modern *Client
	defer func() {
		if disc != nil {
			disc.abandon()
		}
	}()
	for {
		select {
		case m := <-init.ch:
			init.ch <- m // put back (the channel has room again) for handshake
			c, err := handshake(ctx, s, opts, init)
			if se, ok := errors.AsType[*StatusError](err); err != nil && ctx.Err() == nil && (errors.As(err, new(*CallError)) || ok && se.Status < 500) {
				// Refused: perhaps a server of the modern era now, which
				// refuses initialize as it refuses any request without the
				// era's _meta. The refusal stands unless server/discover
				// shows one.
				if mc, derr := discover(ctx, s, opts, ModernVersion); derr == nil {
					return mc, nil
				}
			}
			return c, changed(opts.Recall, err)
		case <-silence:
			// Silence to initialize: perhaps a server of the modern era
			// now, which has no initialize.
			modern = newModernClient(s, opts, ModernVersion)
			if disc, err = s.begin(withSilentCancel(ctx), "server/discover", nil, nil, modern.stampEntries()...); err == nil {
				discovered = disc.ch
			}
		case m := <-discovered:
			raw, err := disc.take(ctx, m)
			disc, discovered = nil, nil
			if c, err := modern.discovered(ctx, raw, err); err == nil {
				init.abandon()
				return c, nil
			}
			// Not a modern server: initialize's answer is awaited.
		case <-s.done:
			c, err := handshake(ctx, s, opts, init) // its wait reports the end
			return c, changed(opts.Recall, err)
		case <-ctx.Done():
			init.abandon()
			return nil, changed(opts.Recall, context.Cause(ctx))
		}
	}
}
