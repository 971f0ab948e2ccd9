package keeper

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/subscription"
	"github.com/mcpv/mcpv/mcp"
)

// conn is one attached command.
type conn struct {
	k   *Keeper
	c   net.Conn
	wmu sync.Mutex // guards c's writes: one message at a time

	qmu      sync.Mutex // guards queue, noted and ending: the outbox
	queue    []outgoing
	noted    int    // bytes of notifications in queue
	ending   bool   // the last line is queued
	lastLine []byte // that line
	wake     chan struct{}
	flushed  chan struct{} // closed when the writer has stopped

	mu       sync.Mutex                    // guards inflight, asked, subs, listens and nextID
	inflight map[string]context.CancelFunc // the command's request ids
	asked    map[string]chan *answer       // our requests to the command
	subs     map[string]int                // the resources its subscriptions/listen streams listen to
	listens  int                           // its subscriptions/listen streams open
	nextID   int64
	done     chan struct{}
	doneOnce sync.Once
}

func (k *Keeper) serveConn(nc net.Conn, idle time.Duration) {
	r := bufio.NewReaderSize(nc, 64<<10)
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	first, err := readControl(r)
	nc.SetReadDeadline(time.Time{})
	if err != nil {
		nc.Close()
		return
	}
	c := &conn{k: k, c: nc, inflight: map[string]context.CancelFunc{}, asked: map[string]chan *answer{}, subs: map[string]int{}, done: make(chan struct{}),
		wake: make(chan struct{}, 1), flushed: make(chan struct{})}
	switch {
	case first.Status != nil:
		info := k.status()
		c.writeNow(net.Buffers{rawjson.Marshal(control{Info: &info}), newline}, writeWait)
		nc.Close()
		return
	case first.Stop != nil:
		select {
		case k.stopReq <- c:
		default:
			nc.Close() // a stop is under way already; the socket goes with it
		}
		return
	case first.Attach == nil:
		nc.Close()
		return
	}
	k.mu.Lock()
	if k.stopping {
		k.mu.Unlock()
		nc.Close()
		return
	}
	k.conns[c] = true
	k.lastUsed = time.Now()
	if k.idle != nil {
		k.idle.Stop()
	}
	secrets := slices.Clone(k.secrets)
	k.mu.Unlock()
	c.writeControl(control{Hello: &hello{State: k.Client.State(), Secrets: secrets, Answers: k.Answers}})
	go c.writer() // attached command's writer: stops when the command leaves (detach) or is let go
	defer k.detach(c, idle)
	for {
		line, err := readLine(r)
		if err != nil {
			return
		}
		if len(line) > bigMessage {
			// The pieces it was read in are free: handed back now, the
			// copies made to send it on do not come on top of them.
			k.release()
		}
		m, headers, ok := decodeEnvelope(line)
		if !ok {
			continue
		}
		c.handle(m, headers)
	}
}

// detach forgets a command that left: what it asked is cancelled, and the
// subscriptions it alone held are ended at the server.
func (k *Keeper) detach(c *conn, idle time.Duration) {
	c.doneOnce.Do(func() { close(c.done) })
	c.mu.Lock()
	for _, cancel := range c.inflight {
		cancel()
	}
	c.mu.Unlock()
	c.c.Close()
	ended, done := k.subs.Leave(c)
	for _, uri := range ended {
		ctx, cancel := context.WithTimeout(context.Background(), unsubscribeWait)
		k.Client.Forward(ctx, "resources/unsubscribe", rawjson.Marshal(map[string]string{"uri": uri}))
		cancel()
		done(uri)
	}
	k.mu.Lock()
	delete(k.conns, c)
	k.lastUsed = time.Now()
	if len(k.conns) == 0 && k.idle != nil && !k.stopping {
		k.idle.Reset(idle)
	}
	k.mu.Unlock()
	k.writeInfo()
}

// unsubscribeWait bounds the unsubscribe of a command that left.
const unsubscribeWait = 5 * time.Second

// answer is a command's answer to a server request.
type answer struct {
	Result json.RawMessage
	Error  *mcp.RPCError
}

// rpc is the part of a JSON-RPC message the keeper looks at.
type rpc struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`

	seek string // the envelope's Seek, not the message's
}

// decodeEnvelope reads a command's envelope (see envelope). The parts of
// its message are sub-slices of line, not copies: a large request is held
// once, as it was read, until it is sent on.
func decodeEnvelope(line []byte) (m rpc, headers []mcp.ParamHeader, ok bool) {
	var msg []byte
	err := rawjson.ForEachMember(line, func(key string, value []byte) error {
		switch key {
		case "msg":
			msg = value
		case "headers":
			return json.Unmarshal(value, &headers)
		case "seek":
			var err error
			m.seek, err = rawjson.String(value)
			return err
		}
		return nil
	})
	if err != nil || !rawjson.IsObject(msg) {
		return rpc{}, nil, false
	}
	err = rawjson.ForEachValidMember(msg, func(key string, value []byte) (err error) {
		switch key {
		case "id":
			m.ID = value
		case "method":
			m.Method, err = rawjson.String(value)
		case "params":
			m.Params = value
		case "result":
			m.Result = value
		case "error":
			m.Error = value
		}
		return err
	})
	return m, headers, err == nil
}

func (c *conn) handle(m rpc, headers []mcp.ParamHeader) {
	switch {
	case m.Method != "" && m.ID != nil:
		ctx, cancel := context.WithCancel(context.Background())
		if len(headers) > 0 {
			ctx = mcp.WithParamHeaders(ctx, headers)
		}
		c.mu.Lock()
		c.inflight[string(m.ID)] = cancel
		c.mu.Unlock()
		go c.relay(ctx, cancel, m) // relayed request: ends when the server answers, or it is cancelled
	case m.Method == "notifications/cancelled":
		c.mu.Lock()
		cancel := c.inflight[string(rawjson.Member(m.Params, "requestId"))] // params that are no object name no request
		c.mu.Unlock()
		if cancel != nil {
			cancel() // the session cancels its own request on the wire
		}
	case m.Method != "":
		if m.Method != "notifications/initialized" {
			c.k.Client.ForwardNotification(context.Background(), m.Method, m.Params)
		}
	case m.ID != nil:
		if ch := c.forgetAsked(string(m.ID)); ch != nil {
			msg := &answer{Result: m.Result}
			if m.Error != nil {
				var e mcp.RPCError
				if json.Unmarshal(m.Error, &e) == nil {
					msg.Error = &e
				}
			}
			ch <- msg
		}
	}
}

// relay sends a command's request to the server and its answer back.
func (c *conn) relay(ctx context.Context, cancel context.CancelFunc, m rpc) {
	defer cancel()
	// Only params holds the request from here, so that once it is sent
	// nothing keeps it while the answer is awaited.
	params := m.Params
	m.Params = nil
	listening := subscriptions(m.Method, params)
	params, release := c.k.tokens.SwapWith(params, c, withToken)
	if m.Method == "subscriptions/listen" {
		c.subscribe(listening, 1) // for as long as the stream lasts
		defer c.subscribe(listening, -1)
	}
	big := len(params) > bigMessage
	res, listed, cacheable := c.k.lists.Lookup(m.Method, params, m.seek)
	var err error
	if res == nil { // not kept: the server answers
		res, err = c.forward(ctx, m.Method, params)
		if err == nil && cacheable {
			// kept for the next command that asks, as listcache says when: the era and what the server declared decide
			c.k.lists.Keep(listed, res, c.k.Client.Modern(), c.k.Client.HasCapability(listed.List()+".listChanged"))
		}
	}
	if big {
		c.k.release() // the request is sent, and no longer held
	}
	release()
	c.mu.Lock()
	delete(c.inflight, string(m.ID))
	c.mu.Unlock()
	c.k.mu.Lock()
	c.k.lastUsed = time.Now()
	c.k.mu.Unlock()
	var ce *mcp.CallError
	switch {
	case err == nil:
		c.send(false, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":`, m.ID), res, closeBrace)
	case errors.As(err, &ce):
		c.send(false, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, m.ID, rawjson.Marshal(ce.Err)))
	case ctx.Err() != nil:
		// The command cancelled it, or left: nobody waits for an answer.
	case lazy.Closed(c.k.Client.Done()):
		// The session itself ended: Serve tells every command why.
	default:
		// The request failed on its way (an HTTP server that is gone, or
		// answered with an HTTP error): the command gets the error at
		// once, and Serve asks whether the server is still there.
		why := strings.TrimPrefix(err.Error(), m.Method+": ") // the command's session says the method
		c.writeControl(control{Failed: &failed{ID: m.ID, Error: why, Kind: kindOf(err)}})
		select {
		case c.k.broken <- err:
		default: // a check is due already
		}
	}
}

// withToken is params with its progress token tok, a sub-slice of params
// as mcp.ProgressToken finds it, replaced by ours: copied once, at its
// size, around the token. A token found elsewhere is replaced by decoding
// and encoding params (mcp.SetProgressToken), which copies it several
// times over.
func withToken(params, tok, ours json.RawMessage) (json.RawMessage, error) {
	at := cap(params) - cap(tok)
	if len(tok) == 0 || at < 0 || at+len(tok) > len(params) || &params[at] != &tok[0] {
		return mcp.SetProgressToken(params, ours)
	}
	out := make(json.RawMessage, 0, len(params)-len(tok)+len(ours))
	return append(append(append(out, params[:at]...), ours...), params[at+len(tok):]...), nil
}

// forward sends a command's request to the server. A subscription is the
// session's, shared by its commands: resources/subscribe goes to the
// server only from the first command to subscribe, and unsubscribe only
// from the last to leave (see detach); the others are answered here.
func (c *conn) forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "resources/subscribe":
		forward, done, err := c.k.subs.Subscribe(ctx, c, subscription.URI(params))
		if err != nil || !forward {
			return json.RawMessage(`{}`), err
		}
		res, err := c.k.Client.Forward(ctx, method, params)
		done(err == nil)
		return res, err
	case "resources/unsubscribe":
		forward, done, err := c.k.subs.Unsubscribe(ctx, c, subscription.URI(params))
		if err != nil || !forward {
			return json.RawMessage(`{}`), err
		}
		defer done()
	}
	return c.k.Client.Forward(ctx, method, params)
}

// subscriptions are the resources a modern-era subscriptions/listen
// stream listens to (its resourceSubscriptions).
func subscriptions(method string, params json.RawMessage) []string {
	var p struct {
		Notifications struct {
			Listen []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	if method != "subscriptions/listen" || json.Unmarshal(params, &p) != nil {
		return nil
	}
	return p.Notifications.Listen
}

// subscribe counts the command's subscriptions/listen streams, and the
// resources they listen to, up or down.
func (c *conn) subscribe(uris []string, by int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listens += by
	for _, u := range uris {
		if c.subs[u] += by; c.subs[u] <= 0 {
			delete(c.subs, u)
		}
	}
}

var closeBrace = []byte{'}'}

// close tells the command why the session ended (cause, when the server's
// side failed) and lets it go.
func (c *conn) close(why string, cause error) { c.end(why, kindOf(cause), false) }
