package mcp

// The server/discover probe: which era a server of unknown era speaks.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"time"
)

// probe tries the modern era first, as a client of both eras should
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#backward-compatibility):
// it sends server/discover and takes the answer of a modern server. A
// modern server's error (-32020, -32021, -32022 again) is final, and so is
// no version in common in either era, the caller's context ending, or the
// server wanting authorization. Any other answer (another error, a result
// without a modern version) means a server of the initialize era.
//
// Silence is not an answer. A JSON-RPC server must answer every request
// (over HTTP every POST gets a status, and the probe waits for it),
// if only with "method not found", so a server that says nothing may still
// be starting (a cold npx, uvx or go run). After opts.DiscoverWait, probe
// sends a ping (allowed before initialize in every version): a server that
// answers the ping but not the server/discover sent before it is up and
// ignoring the probe, as some servers of the initialize era do with
// requests before initialize, and initialize goes out. So it does after
// twice that wait again with no answer at all, for a server that answers
// nothing before initialize, not even ping. The probe stays pending: a
// modern answer that arrives before initialize's is still taken, and a
// server that reads its input in order answers the probe first. A
// successful answer to initialize settles the initialize era; a refusal
// does not (a server of both eras may refuse initialize while it answers
// server/discover): it stands only if server/discover is then answered as
// a server of the initialize era would, or not within twice DiscoverWait.
// The reader delivers responses in the order they arrive, so each
// decision first looks whether server/discover's response came before the
// one that prompted it. The outcome depends on what the server
// answers and in what order, never on how long it takes to start; ctx
// (the connect timeout) is the only deadline.
//
// When the server is of the initialize era, probe returns final false and,
// when initialize has already gone out, that request.
//
// known, when not nil, is the client of a remembered era being confirmed:
// a modern answer settles its era; disc, when not nil, is its
// server/discover sent already, whose answer the probe takes as its own.
func probe(ctx context.Context, s *Session, opts ClientOptions, known *Client, disc *request) (c *Client, init *request, final bool, err error) {
	offered, caps := offer(opts)
	initParams, err := initializeParams(offered, caps, opts.Info)
	if err != nil {
		return nil, nil, true, err
	}
	wait := cmp.Or(max(opts.DiscoverWait, 0), DefaultDiscoverWait)
	silence := cmp.Or(max(opts.silenceWait, 0), 2*wait)
	// The probe's requests end silently: a server of the initialize era
	// must get nothing about them before initialize.
	p := &prober{ctx: ctx, pctx: withSilentCancel(ctx), s: s, initParams: initParams, c: known, disc: disc}
	defer p.abandon()
	if p.c == nil {
		p.c = newModernClient(s, opts, ModernVersion)
	}
	if p.disc == nil {
		if p.disc, err = s.begin(p.pctx, "server/discover", nil, nil, p.c.stampEntries()...); err != nil {
			if legacyAnswer(ctx, err) {
				init, err = fallBack(p.pctx, s, initParams)
				return nil, init, err != nil, err
			}
			return nil, nil, true, unprobed(ctx, err)
		}
	}
	o := p.await(wait, silence)
	return o.c, o.init, o.final, o.err
}

// prober is one probe under way: its requests out, and what it heard.
type prober struct {
	ctx  context.Context // the caller's
	pctx context.Context // the probe's requests', which end silently
	s    *Session

	initParams json.RawMessage
	c          *Client  // the modern client a modern answer settles
	disc       *request // server/discover, until its answer is taken
	ping       *request // the ping sent on silence, until answered
	init       *request // initialize, once it went out

	pinged      <-chan message   // the ping's answer, while awaited
	initialized <-chan message   // initialize's answer, while awaited
	refused     <-chan time.Time // set while initialize's refusal waits for the probe's answer
	giveUp      *time.Timer      // what sets refused
}

// probeOutcome is what probe returns: the modern client, or initialize
// sent (when the server is of the initialize era and final is false).
type probeOutcome struct {
	c     *Client
	init  *request
	final bool
	err   error
}

// abandon forgets the requests still unanswered when the probe returns.
func (p *prober) abandon() {
	for _, r := range []*request{p.disc, p.ping} {
		if r != nil {
			r.abandon()
		}
	}
	if p.giveUp != nil {
		p.giveUp.Stop()
	}
}

// await waits for what settles the era: server/discover's answer, or
// (after wait and silence) the signs of a server of the initialize era.
func (p *prober) await(wait, silence time.Duration) *probeOutcome {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	pingSent := false
	for {
		var o *probeOutcome
		select {
		case m := <-p.disc.ch:
			return p.decide(m)
		case <-timer.C:
			if cw, ok := p.s.t.(ConcurrentWriter); ok && cw.ConcurrentWrites() {
				// Each message is its own exchange (HTTP: a POST, which
				// gets an answer of its own, an HTTP status at least), so
				// the probe's is awaited; and concurrent exchanges may be
				// answered in any order, which would make a ping's answer
				// say nothing about the probe's.
				continue
			}
			if !pingSent {
				pingSent = true
				var err error
				if p.ping, err = p.s.begin(p.pctx, "ping", nil, nil); err == nil {
					p.pinged = p.ping.ch
				}
				timer.Reset(silence)
				continue
			}
			// Silence still, even to the ping: perhaps a server of the
			// initialize era that answers nothing before initialize, or
			// one still starting. initialize goes out; a server that
			// reads its input in order answers the probe first if it can,
			// and that answer is still taken.
			o = p.sendInitialize()
		case m := <-p.pinged:
			// Any answer, even one that cannot be read, shows the server
			// up, and one that answers a ping but not the probe sent
			// before it is ignoring the probe.
			p.pinged = nil
			p.ping.take(p.pctx, m)
			p.ping = nil
			if o = p.discoverFirst(); o == nil {
				o = p.sendInitialize()
			}
		case m := <-p.initialized:
			o = p.onInitialize(m, silence)
		case <-p.refused:
			return &probeOutcome{init: p.init}
		case <-p.s.done:
			if p.init != nil {
				return &probeOutcome{init: p.init} // its wait reports the end
			}
			return &probeOutcome{final: true, err: &EndedOnProbeError{Err: p.s.Err()}}
		case <-p.ctx.Done():
			if p.init != nil {
				p.init.abandon()
			}
			return &probeOutcome{final: true, err: context.Cause(p.ctx)}
		}
		if o != nil {
			return o
		}
	}
}

// decide settles the probe on server/discover's response.
func (p *prober) decide(m message) *probeOutcome {
	raw, err := p.disc.take(p.pctx, m)
	p.disc = nil
	c, err := p.c.discovered(p.pctx, raw, err)
	if err == nil || !legacyAnswer(p.ctx, err) {
		err = unprobed(p.ctx, err)
		if p.init != nil {
			// Forgotten: the modern era is settled. initialize only
			// goes out before this on a transport that writes in
			// order, never HTTP, the one that sends a version header.
			p.init.abandon()
		}
		return &probeOutcome{c: c, final: true, err: err}
	}
	if o := p.sendInitialize(); o != nil {
		return o
	}
	return &probeOutcome{init: p.init}
}

// discoverFirst decides on server/discover's response when it came
// before the one being handled (the reader delivers them in order).
func (p *prober) discoverFirst() *probeOutcome {
	select {
	case m := <-p.disc.ch:
		return p.decide(m)
	default:
		return nil
	}
}

// sendInitialize sends initialize, unless it went out already, and
// awaits its answer beside the probe's.
func (p *prober) sendInitialize() *probeOutcome {
	if p.init != nil {
		return nil
	}
	var err error
	if p.init, err = fallBack(p.pctx, p.s, p.initParams); err != nil {
		return &probeOutcome{final: true, err: err}
	}
	p.initialized = p.init.ch
	return nil
}

// onInitialize takes initialize's answer, m, while server/discover is
// unanswered.
func (p *prober) onInitialize(m message, silence time.Duration) *probeOutcome {
	p.init.ch <- m // put back (the channel has room again) for whoever takes init
	if o := p.discoverFirst(); o != nil {
		return o
	}
	if m.Error == nil && m.local == nil {
		// initialize succeeded while server/discover is unanswered: a
		// server of the initialize era that ignores the probe.
		return &probeOutcome{init: p.init}
	}
	// initialize refused decides nothing: a server of both eras that
	// reads requests concurrently may refuse it ("duplicate initialize")
	// while it is still answering server/discover. The refusal is kept
	// for a server of the initialize era, which answers the probe as one
	// or not at all: the probe's answer is awaited as long as silence to
	// the ping is, then the refusal is the outcome.
	p.initialized = nil
	p.giveUp = time.NewTimer(silence)
	p.refused = p.giveUp.C
	return nil
}

// fallBack sends initialize with params, leaving its answer to be taken.
func fallBack(ctx context.Context, s *Session, params json.RawMessage) (*request, error) {
	if v, ok := s.t.(VersionSetter); ok {
		v.SetProtocolVersion("") // initialize goes out without a version header
	}
	return s.begin(ctx, "initialize", params, nil)
}

// legacyAnswer reports whether the probe's failure err says "a server of
// the initialize era": a JSON-RPC error that is not a modern one, a
// discover result with no modern version but an older one in common, or an
// HTTP 4xx without a JSON-RPC body. Anything else (the caller giving up,
// authorization failing, the server gone) is an answer in itself.
func legacyAnswer(ctx context.Context, err error) bool {
	var ce *CallError
	var ve *VersionError
	var se *StatusError
	switch {
	case ctx.Err() != nil:
		return false
	case errors.As(err, &ce):
		code := ce.Err.Code
		return code != CodeHeaderMismatch && code != CodeMissingRequiredClientCapabilities && code != CodeUnsupportedProtocolVersion
	case errors.As(err, &ve):
		return ve.ServerSupports == nil || newestOf(SupportedVersions, ve.ServerSupports) != ""
	case errors.As(err, &se):
		return se.Status >= 400 && se.Status < 500 && se.Status != 401 && se.Status != 403
	case errors.As(err, new(oddAnswer)):
		return true // an HTTP answer with no JSON-RPC response in it
	}
	return false
}

// EndedOnProbeError is a server that ended before it answered
// server/discover, the probe, or anything after it: as a server of the
// initialize era does that takes any first message but initialize for
// the client's fault and exits (rmcp's, the Rust SDK's, do). The session
// is over; a caller that can start the server again may send it
// initialize first (Initialize without Probe).
type EndedOnProbeError struct{ Err error }

func (e *EndedOnProbeError) Error() string { return e.Err.Error() }
func (e *EndedOnProbeError) Unwrap() error { return e.Err }

// probeFailure is a failure of the probe that no modern server's answer
// explains (the server unreachable, gone, or refusing at the HTTP level):
// its message leaves out server/discover, which the user did not ask for
// and the server may never have heard of. --verbose shows the request.
type probeFailure struct{ err error }

func (p *probeFailure) Error() string {
	if me := (*methodError)(nil); errors.As(p.err, &me) && me.Method == "server/discover" {
		return me.Err.Error()
	}
	return p.err.Error()
}
func (p *probeFailure) Unwrap() error { return p.err }

// unprobed wraps err as a *probeFailure unless it is a server's JSON-RPC
// answer, a version mismatch or the caller's own end.
func unprobed(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || errors.As(err, new(*CallError)) || errors.As(err, new(*VersionError)) {
		return err
	}
	return &probeFailure{err}
}
