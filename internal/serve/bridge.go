package serve

// The bridge: a call of a client of the 2026-07-28 era, served by a
// session of the initialize era. The server may ask a question (a server
// request: elicitation, sampling, roots) while it works on the call; a
// modern client takes no server requests, but answers the same questions
// put to it in an input_required result, and sends its request again
// with the answers
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr).
//
// So the call goes upstream once, and stays there while its client is
// asked. When the server asks, the client's request is answered
// input_required, with the questions asked so far (those within
// gatherWait of one another go together) and a requestState that names
// the parked call: random, unguessable, signed for the request it was
// made for and for its client's bearer token (the view it has, as a
// session and a task are the token's): a retry of another token's is
// refused as one serve never made. The client's retry brings it back with its answers, which go
// to the server, and waits on the call again; answers to keys never asked
// are ignored, and a retry that leaves a question unanswered is asked it
// again. The call is taken back once: a retry with a state whose call has
// gone (taken by another retry, or given up) starts the request again, as
// a server of that era would run it again, and the server asks afresh.
//
// Bounds: a call parked longer than InputWait is given up (its questions
// answered with an error, the call cancelled upstream); past MaxParked
// parked calls, a call that asks is refused; a client that goes while it
// waits gives up its call at once. A question for a capability the
// request did not declare is answered with an error.

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// DefaultInputWait is how long a parked call waits for its client.
const DefaultInputWait = 10 * time.Minute

// DefaultMaxParked bounds the calls parked at once.
const DefaultMaxParked = 256

// gatherWait is how long a question waits for the next before the
// client is asked: a server asks the questions of one step together, and
// one input_required carries them all.
const gatherWait = 20 * time.Millisecond

// statePrefix starts every requestState serve makes; a retry with one
// serve did not sign for that request is refused (made up, or another
// request's), and one without it is the server's own, passed on.
const statePrefix = "mcpv-serve."

// bridges are the parked calls, by requestState.
type bridges struct {
	srv *Server

	key    [32]byte   // signs the states, from Start
	mu     sync.Mutex // guards the fields below
	parked map[string]*bridge
	ids    map[*View][]byte // a random id for each token's view that parked a call
	closed bool
}

// idOf is the id of the view who (nil: everything, the one client of an
// endpoint of one token or none) in the states serve signs.
func (bs *bridges) idOf(who *View) []byte {
	if who == nil {
		return nil
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	id := bs.ids[who]
	if id == nil {
		id = make([]byte, 16)
		rand.Read(id)
		lazy.Put(&bs.ids, who, id)
	}
	return id
}

// state is the requestState of nonce for req (requestOf) of who's client:
// the nonce and its signature.
func (bs *bridges) state(nonce, req []byte, who *View) string {
	m := hmac.New(sha256.New, bs.key[:])
	m.Write(nonce)
	m.Write(req)
	m.Write(bs.idOf(who))
	return statePrefix + hex.EncodeToString(nonce) + "." + hex.EncodeToString(m.Sum(nil)[:16])
}

// made reports whether serve made state for req, of who's client.
func (bs *bridges) made(state string, req []byte, who *View) bool {
	nonce, _, _ := strings.Cut(strings.TrimPrefix(state, statePrefix), ".")
	raw, err := hex.DecodeString(nonce)
	return err == nil && hmac.Equal([]byte(bs.state(raw, req, who)), []byte(state))
}

// park files b under a new state; false when maxParked are parked, or
// serving is over.
func (bs *bridges) park(b *bridge) (string, bool) {
	var raw [16]byte
	rand.Read(raw[:])
	state := bs.state(raw[:], b.req, b.who)
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if bs.closed || len(bs.parked) >= bs.srv.maxParked() {
		return "", false
	}
	bs.parked[state] = b
	return state, true
}

// take unfiles the call parked under state, if there is one and it is
// who's client's: its call is taken back once, by its own token alone.
func (bs *bridges) take(state string, who *View) *bridge {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.parked[state]
	if b == nil || b.who != who {
		return nil // another token's call stays parked for its own
	}
	delete(bs.parked, state)
	return b
}

// close gives up every parked call, cancelled at once, without abandon's
// grace, and returns once each has ended (within settleWait in all), so
// that the cancellations are on the wire before the upstream closes.
func (bs *bridges) close() {
	bs.mu.Lock()
	bs.closed = true
	parked := slices.Collect(maps.Values(bs.parked))
	clear(bs.parked)
	bs.mu.Unlock()
	for _, b := range parked {
		b.abandon("serving ended")
		b.cancel()
	}
	bound := time.After(settleWait)
	for _, b := range parked {
		select {
		case <-b.done:
		case <-bound:
			return
		}
	}
}

// maxParked is MaxParked, or its default.
func (s *Server) maxParked() int { return cmp.Or(max(s.MaxParked, 0), DefaultMaxParked) }

// bridge is one call of a modern client, upstream in the initialize era.
type bridge struct {
	up  *upstream
	req []byte // requestOf the request that started it
	who *View  // the view of its client's token: its retries are that token's

	cancel context.CancelFunc // ends the call upstream
	done   chan struct{}      // closed when the call has returned
	res    json.RawMessage    // its result, once done
	err    error              // or its error

	asked chan struct{} // 1-buffered: a question came

	mu      sync.Mutex      // guards the fields below
	caps    json.RawMessage // the capabilities of the request that waits on the call
	waiting []*question     // asked, not yet put to the client
	put     []*question     // put to the client, not yet answered
	next    int             // numbers the questions
	waiter  *relayed        // the request that waits on the call now; nil while parked
	timer   *time.Timer     // while parked: InputWait
	over    bool            // given up
}

// question is a server request the call's client is to answer.
type question struct {
	key    string // its name in inputRequests
	method string
	params json.RawMessage
	answer chan answer // 1-buffered
}

type answer struct {
	res json.RawMessage
	err error
}

// resume serves the retry of a parked call (its requestState is serve's):
// the answers it brings go to the server, and it waits on the call; gone
// when serve made the state for this request, and its call has gone;
// info is the serverInfo of the server behind.
func (s *Server) resume(ctx context.Context, c *client, method string, params json.RawMessage, meta modernMeta, state string) (_ json.RawMessage, info json.RawMessage, gone bool, _ error) {
	b, req := s.bridges.take(state, c.who), requestOf(method, params)
	switch {
	case b == nil && s.bridges.made(state, req, c.who):
		return nil, nil, true, nil
	case b == nil:
		return nil, nil, false, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "requestState: not made here for this request"}
	case !bytes.Equal(b.req, req):
		// A retry of another call with this state gets nothing of the
		// call, which is given up.
		b.abandon("its requestState came back with another request")
		return nil, nil, false, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "requestState: it was made for another request"}
	}
	w := waiterOf(ctx, c, params, meta)
	b.unpark(meta, w) // before the answers go: what the server says next is w's
	b.answerFrom(rawjson.Member(params, "inputResponses"))
	res, err := b.await(ctx, w)
	return res, b.up.conn.State().InitializeResult.ServerInfo, false, err
}

// waiterOf is a modern client's request waiting on a call: where the
// call's progress and log messages go.
func waiterOf(ctx context.Context, c *client, params json.RawMessage, meta modernMeta) *relayed {
	return &relayed{c: c, id: mcp.IncomingID(ctx), level: meta.level, token: mcp.ProgressToken(params)}
}

// bridged starts a modern client's call upstream, in the initialize era,
// and waits on it.
func (u *upstream) bridged(ctx context.Context, c *client, method string, params json.RawMessage, meta modernMeta) (json.RawMessage, error) {
	// The request waits on the call from before it goes: the progress and
	// log messages the server sends at once are its.
	w := waiterOf(ctx, c, params, meta)
	b := &bridge{up: u, done: make(chan struct{}), asked: make(chan struct{}, 1),
		caps: meta.caps, waiter: w, req: requestOf(method, params), who: c.who}
	// The call outlives the request that starts it: it waits upstream
	// while its client is asked.
	cctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	cctx, fwd, end := u.relay(cctx, &relayed{b: b, method: method}, params, true)
	u.hold()
	go func() { // bridged call: ends when the server answers the call, or it is cancelled
		defer u.release()
		defer end()
		res, err := u.conn.Forward(cctx, method, fwd)
		if err != nil {
			err = rpcError(err)
		}
		b.res, b.err = res, err
		close(b.done)
	}()
	return b.await(ctx, w)
}

// requestOf is what a requestState is made for: a digest of the method,
// what it names (params.uri for resources/read, else params.name) and its
// arguments, as values (a retry may write them with other spacing or key
// order).
func requestOf(method string, params json.RawMessage) []byte {
	h := sha256.New()
	target := "name"
	if method == "resources/read" {
		target = "uri"
	}
	for _, v := range []json.RawMessage{rawjson.Member(params, target), rawjson.Member(params, "arguments")} {
		var x any
		json.Unmarshal(v, &x)
		h.Write(append(rawjson.Marshal(x), 0))
	}
	return h.Sum([]byte(method))
}

// await waits on the call for w: its result, or questions for w's client,
// which then get an input_required result and park the call. The client
// going first gives the call up.
func (b *bridge) await(ctx context.Context, w *relayed) (json.RawMessage, error) {
	b.mu.Lock()
	b.waiter = w
	again := len(b.put) > 0 // the last retry left questions unanswered
	b.mu.Unlock()
	if again {
		if res, err, asked := b.askOrDone(); asked {
			return res, err
		}
	}
	for {
		select {
		case <-b.done:
			b.end()
			return b.res, b.err
		case <-b.asked:
			b.gather()
			if res, err, asked := b.askOrDone(); asked {
				return res, err
			}
		case <-ctx.Done():
			b.abandon("the client went before the call's end")
			return nil, context.Cause(ctx)
		}
	}
}

// gather waits for the next question while they keep coming within
// gatherWait of one another, or until the call returns.
func (b *bridge) gather() {
	t := time.NewTimer(gatherWait)
	defer t.Stop()
	for {
		select {
		case <-b.asked:
			t.Reset(gatherWait)
		case <-t.C:
			return
		case <-b.done:
			return
		}
	}
}

// askOrDone puts the waiting questions to the client; asked is false when
// none waits any more (the server withdrew them, or answered the call).
func (b *bridge) askOrDone() (json.RawMessage, error, bool) {
	if lazy.Closed(b.done) {
		b.end()
		return b.res, b.err, true
	}
	b.mu.Lock()
	b.put = append(b.put, b.waiting...)
	b.waiting = nil
	n := len(b.put)
	b.mu.Unlock()
	if n == 0 {
		return nil, nil, false
	}
	res, err := b.inputRequired()
	return res, err, true
}

// inputRequired parks the call and answers its waiter input_required,
// with the questions put to it and the state that names the call.
func (b *bridge) inputRequired() (json.RawMessage, error) {
	state, ok := b.up.srv.bridges.park(b)
	if !ok {
		b.abandon("too many calls wait for their clients")
		return nil, &mcp.RPCError{Code: mcp.CodeInternalError,
			Message: fmt.Sprintf("the server asks for input, and %d calls wait for their clients already: try again later", b.up.srv.maxParked())}
	}
	wait := cmp.Or(max(b.up.srv.InputWait, 0), DefaultInputWait)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waiter = nil
	b.timer = time.AfterFunc(wait, func() {
		if b.up.srv.bridges.take(state, b.who) == b {
			b.abandon(fmt.Sprintf("the client did not send its answers within %v", wait))
		}
	})
	out := []byte(`{"resultType":"input_required","inputRequests":{`)
	for i, q := range b.put {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(append(out, mustJSON(q.key)...), `:{"method":`...)
		out = append(append(out, mustJSON(q.method)...), `,"params":`...)
		params := q.params
		if params == nil {
			params = json.RawMessage(`{}`)
		}
		out = append(append(out, params...), '}')
	}
	out = append(append(out, `},"requestState":`...), mustJSON(state)...)
	return append(out, '}'), nil
}

// unpark stops the bound of a call taken back from its parking, and takes
// the capabilities of the request w that took it, which waits on it now.
func (b *bridge) unpark(meta modernMeta, w *relayed) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer != nil {
		b.timer.Stop()
	}
	b.caps, b.waiter = meta.caps, w
}

// answerFrom sends the server the answers a retry brings to the questions
// put to its client; what answers nothing put is ignored.
func (b *bridge) answerFrom(responses json.RawMessage) {
	var got map[string]json.RawMessage
	rawjson.DecodeLoose(responses, &got) // inputResponses of another type answer none of the questions put, as a retry that answers none
	b.mu.Lock()
	defer b.mu.Unlock()
	b.put = slices.DeleteFunc(b.put, func(q *question) bool {
		res, ok := got[q.key]
		if ok {
			q.answer <- answer{res: res}
		}
		return ok
	})
}

// ask is a server request made during the call: it waits for the
// client's answer, put to it as an input request.
func (b *bridge) ask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	b.mu.Lock()
	if b.over {
		b.mu.Unlock()
		return nil, &mcp.RPCError{Code: mcp.CodeInternalError, Message: method + ": the call it belongs to was given up"}
	}
	if rawjson.Member(b.caps, capability[method]) == nil {
		b.mu.Unlock()
		return nil, &mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: method + ": the client did not declare the " + capability[method] + " capability"}
	}
	b.next++
	q := &question{key: "q" + strconv.Itoa(b.next), method: method, params: params, answer: make(chan answer, 1)}
	b.waiting = append(b.waiting, q)
	b.mu.Unlock()
	lazy.Wake(b.asked)
	select {
	case a := <-q.answer:
		return a.res, a.err
	case <-ctx.Done():
		// The server withdrew its question (or its session ended).
		b.mu.Lock()
		b.waiting = slices.DeleteFunc(b.waiting, func(x *question) bool { return x == q })
		b.put = slices.DeleteFunc(b.put, func(x *question) bool { return x == q })
		b.mu.Unlock()
		return nil, context.Cause(ctx)
	}
}

// waiterNow is the request that waits on the call now, nil while parked.
func (b *bridge) waiterNow() *relayed {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiter
}

// end settles a call that returned.
func (b *bridge) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.over = true
	b.waiter = nil
	if b.timer != nil {
		b.timer.Stop()
	}
}

// abandon gives the call up: every question still open is answered with
// an error saying why, and the call is cancelled upstream, once the
// server has had abandonGrace to end it on that error when it asked
// something (a cancellation that overtook the answers would leave the
// server not knowing why).
func (b *bridge) abandon(why string) {
	b.end() // nothing more is asked of it
	b.mu.Lock()
	open := append(b.waiting, b.put...)
	b.waiting, b.put = nil, nil
	b.mu.Unlock()
	for _, q := range open {
		q.answer <- answer{err: &mcp.RPCError{Code: mcp.CodeInternalError, Message: q.method + ": no answer: " + why}}
	}
	if len(open) == 0 {
		b.cancel()
		return
	}
	go func() { // cancel of a call given up: ends with the call, or abandonGrace after the answers
		select {
		case <-b.done:
		case <-time.After(abandonGrace):
		}
		b.cancel()
	}()
}

// abandonGrace is how long a call given up has to end on the errors its
// questions got before it is cancelled.
const abandonGrace = notifyWait
