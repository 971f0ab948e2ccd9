package check

// A connection's HTTP side: each request the check makes is an HTTP
// request of its own, built here header by header (so that a check can
// leave one out or make one lie), and its answer is read at once: a JSON
// body, or an event stream read until the response it carries (or, for a
// check that asks, a stream read event by event). Bodies are read up to
// MaxMessage.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/mcp"
)

// httpSide is what an HTTP connection keeps between requests.
type httpSide struct {
	session string // Mcp-Session-Id the server gave at initialize
	version string // MCP-Protocol-Version, once negotiated (legacy)
}

// setHeaderVersion sets the MCP-Protocol-Version an HTTP connection of
// the initialize era sends from now on (none over stdio).
func (c *conn) setHeaderVersion(v string) {
	if c.http != nil {
		withLock(&c.mu, func() { c.http.version = v })
	}
}

// sessionGiven notes that c's initialize was given sid (in x): one that
// another connection holds too is http.session-unique's, and no
// connection ends it (close) while another holds it.
func (r *runner) sessionGiven(c *conn, sid string, x *exchange) {
	if r.sharing(c, sid) {
		said := fmt.Sprintf("HTTP %d, Mcp-Session-Id: %q (given to another session's initialize before)", x.status, clip(sid, 120))
		r.sharedSession.CompareAndSwap(nil, &said)
	}
}

// sharing reports whether a connection of the run but c holds the session id sid.
func (r *runner) sharing(c *conn, sid string) bool {
	return slices.ContainsFunc(locked(&r.mu, func() []*conn { return slices.Clone(r.conns) }), func(o *conn) bool { return o != c && o.sessionID() == sid })
}

// sessionID is the Mcp-Session-Id the server gave, or "".
func (c *conn) sessionID() string { return locked(&c.mu, func() string { return c.http.session }) }

// httpReq is one HTTP request a check makes.
type httpReq struct {
	method string // "" is POST
	body   []byte
	// header is set over the defaults, name by name; a name given with
	// the one value "" is left out.
	header http.Header
	plain  bool // sends no credentials: neither the user's headers nor the authorization layer
	// headersOnly reads the status and headers, and closes the body
	// unread (a GET stream that may never end).
	headersOnly bool
	// events, when set, is given each message of an event-stream answer
	// as it comes, and reading stops when it returns false (a stream
	// that stays open: subscriptions/listen).
	events func(seen) bool
	url    string // replaces the MCP endpoint (a metadata document)
	opened func() // when set, called once the answer's headers came
	// drop, when set, closes the connection of an event-stream answer
	// after the first message it is true of, as a client that goes away
	// does; the stream is then resumed as any other.
	drop func(seen) bool
}

// exchange is one HTTP request and its answer.
type exchange struct {
	sent      string // "POST ping" or the like, for a failure's line
	path      string // the escaped path that answered, after any redirect
	status    int
	header    http.Header
	body      string // a JSON body or the text of another answer, clipped
	msgs      []seen // the JSON-RPC messages the answer held
	dropped   int    // of an event stream's, those past maxLog, not kept (the watches saw them)
	response  *mcp.Message
	sse       bool
	readErr   error // reading the answer failed after its headers
	resumed   int   // reconnections of its event stream, with Last-Event-ID, that the server answered with the stream
	unretried int   // of those, the ones closed before the response with no retry field: the stream ended unanswered
}

func (x *exchange) contentType() string {
	mt, _, err := mime.ParseMediaType(x.header.Get("Content-Type"))
	if err != nil {
		return "no Content-Type"
	}
	return mt
}

// String is the answer on one line: its status, type and body.
func (x *exchange) String() string {
	s := fmt.Sprintf("HTTP %d", x.status)
	if ct := x.header.Get("Content-Type"); ct != "" {
		s += ", " + ct
	}
	if x.body != "" {
		s += ": " + x.body
	}
	if x.resumed > 0 {
		s += fmt.Sprintf(" (its stream resumed %d times with GET and Last-Event-ID)", x.resumed)
	}
	if x.dropped > 0 {
		s += fmt.Sprintf(" (%d more messages on its stream, not kept)", x.dropped)
	}
	return s
}

// post sends a POST (or hr.method) and reads its answer; id, when set,
// is the request's id, whose response ends an event stream.
func (c *conn) post(ctx context.Context, hr httpReq, id json.RawMessage) (x *exchange, err error) {
	var resp *http.Response
	err = c.r.answered(ctx, func(ctx context.Context) error {
		end := id // the id whose response ends an event stream's reading
		if end == nil && methodOf(hr.body) != "" {
			// A request sent as it is (its answer matched as any other):
			// its response ends the reading all the same, as a stream
			// left open would not.
			if rid := member(hr.body, "id"); rid != nil && string(rid) != "null" {
				end = rid
			}
		}
		c.noteSent(hr.body)
		x, resp, err = c.roundHTTP(ctx, hr)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if hr.opened != nil {
			hr.opened()
		}
		if hr.headersOnly {
			return nil
		}
		if sid := resp.Header.Get("Mcp-Session-Id"); c.era == "legacy" && resp.StatusCode/100 == 2 && sid != "" && strings.Contains(x.sent, "initialize") {
			withLock(&c.mu, func() { c.http.session = sid }) // close, from another goroutine, reads it
			c.r.sessionGiven(c, sid, x)
		}
		switch x.contentType() {
		case "text/event-stream":
			if x.sse = true; c.era == "modern" && resp.Header.Get("X-Accel-Buffering") != "no" {
				c.r.watches.see(seen{via: "event stream", era: c.era, buffered: x.sent})
			}
			if err := c.follow(ctx, hr, x, resp.Body, id, end); err != nil && ctx.Err() == nil {
				x.readErr = err
			}
			if ctx.Err() != nil && x.response == nil {
				return context.Cause(ctx)
			}
		default:
			data, err := io.ReadAll(io.LimitReader(resp.Body, MaxMessage+1))
			switch {
			case err != nil:
				x.readErr = err
				return fmt.Errorf("reading the answer: %w", err)
			case len(data) > MaxMessage:
				x.readErr = &mcp.MessageSizeError{Limit: MaxMessage}
				return x.readErr
			}
			x.body = clip(string(data), maxKept)
			if x.contentType() == "application/json" && len(bytes.TrimSpace(data)) > 0 {
				for _, s := range c.receive(data, "JSON answer", id, methodOf(hr.body), x.status) {
					x.msgs = append(x.msgs, s)
					if id != nil && s.msg.IsResponse() && (s.msg.ID != nil && idKey(s.msg.ID) == idKey(id) || s.nullFor != "") {
						m := s.msg
						x.response = &m
					}
				}
			}
		}
		return nil
	})
	return x, err
}

// follow reads x's event stream, resumed as mcpv's client resumes it
// (mcp.FollowEvents) when it is a POST's and ends before the response
// to end, and shows the watches how the server polled: an event id again
// (replayed too), a retry field that is no number of milliseconds, a
// connection closed before the response without one, and a response to
// another request on the resumed stream.
func (c *conn) follow(ctx context.Context, hr httpReq, x *exchange, body io.ReadCloser, id, end json.RawMessage) error {
	last, retried, ended := "", false, false // the event id in force; a retry on this connection; end's response (or one under another id) came
	cur, dropped := body, hr.drop == nil     // the connection read; the check closed one (drop)
	poll := func(why string) { c.r.watches.see(seen{via: "event stream", era: c.era, poll: why}) }
	open := func(lastID string) (io.ReadCloser, error) {
		if !retried && cur != nil {
			poll(fmt.Sprintf("%s: the connection closed before the response, after event %q, with no retry field", x.sent, clip(lastID, 80)))
			if x.resumed > 0 {
				x.unretried++
			}
		}
		retried, cur = false, nil
		y, resp, err := c.roundHTTP(ctx, httpReq{method: http.MethodGet, header: http.Header{"Last-Event-ID": {lastID}}, plain: hr.plain})
		switch {
		case err != nil:
			return nil, err
		case resp.StatusCode/100 != 2 || y.contentType() != "text/event-stream":
			resp.Body.Close()
			err := fmt.Errorf("GET with Last-Event-ID %q: HTTP %d, %s", clip(lastID, 80), y.status, y.contentType())
			if resp.StatusCode/100 == 4 { // asking again will not help, as mcpv's client has it
				return nil, mcp.StopResuming(err)
			}
			return nil, err
		}
		x.resumed, cur = x.resumed+1, resp.Body
		return resp.Body, nil
	}
	answered := func() bool {
		return end == nil || hr.method != "" && hr.method != http.MethodPost || x.response != nil || ended
	}
	// A stream 2025-11-25 asks to begin with an id and no data.
	first := locked(&c.mu, func() bool { return c.version == mcp.LatestVersion }) && (hr.method == "" || hr.method == http.MethodPost)
	return mcp.FollowEvents(ctx, body, MaxMessage, 0, open, answered, func(ev mcp.Event) bool {
		if first && (ev.ID == "" || len(ev.Data) > 0) {
			c.r.watches.see(seen{via: "event stream", era: c.era, unprimed: x.sent})
		}
		first = false
		if ev.ID != "" && (ev.ID != last || ev.Replay) {
			last = ev.ID
			c.eventID(ev.ID, ev.Replay)
		}
		if ev.Retry != "" {
			retried = true
			if strings.Trim(ev.Retry, "0123456789") != "" {
				poll(fmt.Sprintf("%s: retry field %q, not a number of milliseconds", x.sent, clip(ev.Retry, 80)))
			}
		}
		if ev.Data == nil || ev.Type != "" && ev.Type != "message" {
			return true
		}
		if ev.Replay { // a replayed event is read only when it holds the response to end (one that does not decode holds none)
			if msgs, _ := mcp.DecodeMessages(ev.Data); end == nil || !slices.ContainsFunc(msgs, func(m mcp.Message) bool { return m.IsResponse() && m.ID != nil && idKey(m.ID) == idKey(end) }) {
				return true
			}
		}
		for _, s := range c.receive(ev.Data, "event stream", id, methodOf(hr.body), x.status) {
			if !dropped && hr.drop(s) {
				dropped = true
				cur.Close()
				cur = nil // the check's closing owes no retry field
			}
			ours := id != nil && s.msg.IsResponse() && (s.msg.ID != nil && idKey(s.msg.ID) == idKey(id) || s.nullFor != "")
			if s.msg.IsResponse() && s.msg.ID != nil && end != nil && idKey(s.msg.ID) != idKey(end) {
				// the stream's one response, under another id: judged by
				// jsonrpc.response-id (and http.resume once resumed), not
				// resumed as a stream that ended before its response
				if ended = true; x.resumed > 0 {
					c.r.watches.see(seen{via: "event stream", era: c.era, foreign: s.raw})
				}
			}
			// a stream may flood, and one read on past its response may
			// for its whole grace: its messages are kept as a
			// connection's log is, bar the response, which checks read
			if len(x.msgs) < maxLog || ours {
				x.msgs = append(x.msgs, s)
			} else {
				x.dropped++
			}
			if ours {
				m := s.msg
				x.response = &m
				return hr.events != nil && hr.events(s)
			}
			if id == nil && end != nil && hr.events == nil && s.msg.IsResponse() && s.msg.ID != nil && idKey(s.msg.ID) == idKey(end) {
				ended = true
				return false
			}
			if hr.events != nil && !hr.events(s) {
				return false
			}
		}
		return true
	})
}

// eraHeaders sets the headers of the connection's era on a request with
// body: the 2026-07-28 era's version and standard headers, the initialize
// era's session id and negotiated version. A connection is closed from
// another goroutine (closeAll) while a check may still set what it
// sends: they are read under mu.
func (c *conn) eraHeaders(h http.Header, body []byte) {
	c.mu.Lock()
	side, version := *c.http, c.version
	c.mu.Unlock()
	switch c.era {
	case "modern":
		h.Set("MCP-Protocol-Version", version)
		if body != nil && json.Valid(body) {
			mcp.StandardHeaders(h, body)
			if methodOf(body) == "tools/call" {
				mcp.SetParamHeaders(h, c.r.paramHeaders(body), body)
			}
		}
	default:
		if side.session != "" {
			h.Set("Mcp-Session-Id", side.session)
		}
		if side.version != "" {
			h.Set("MCP-Protocol-Version", side.version)
		}
	}
}

// roundHTTP sends the request and returns its answer's head.
func (c *conn) roundHTTP(ctx context.Context, hr httpReq) (*exchange, *http.Response, error) {
	method := cmp.Or(hr.method, http.MethodPost)
	url := cmp.Or(hr.url, c.r.target.URL)
	var body io.Reader
	if hr.body != nil {
		body = bytes.NewReader(hr.body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, nil, err
	}
	x := &exchange{sent: method}
	rpc, mark := "", false
	if m, err := mcp.DecodeMessages(hr.body); err == nil && len(m) == 1 && m[0].Method != "" {
		x.sent += " " + m[0].Method
		rpc, mark = m[0].Method, m[0].IsRequest()
	} else if hr.body != nil {
		x.sent += " " + clip(string(hr.body), 80)
	}
	h := req.Header
	if !hr.plain {
		for k, vs := range c.r.target.Header {
			h[k] = append([]string(nil), vs...)
		}
	}
	if method == http.MethodPost {
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
	} else {
		h.Set("Accept", "text/event-stream")
	}
	c.eraHeaders(h, hr.body)
	for k, vs := range hr.header {
		h.Del(k)
		if len(vs) != 1 || vs[0] != "" { // the one value "" leaves it out
			h[k] = slices.Clone(vs) // its name sent as written
		}
	}
	mcp.MarkReplayable(h, rpc, mark)
	if host := h.Get("Host"); host != "" {
		req.Host = host
	}
	req.Close = len(hr.header) > 0 // a probe, refused maybe before its body is read: that body begins no other request
	client := c.r.target.Client
	if hr.plain {
		client = c.r.target.Plain
	}
	resp, err := mcp.DoAgain(client, req)
	if err != nil {
		if ctx.Err() != nil {
			return x, nil, context.Cause(ctx)
		}
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			err = ue.Unwrap() // not the URL, which may carry a secret
		}
		return x, nil, fmt.Errorf("%s: %w", x.sent, err)
	}
	x.status, x.header, x.path = resp.StatusCode, resp.Header, resp.Request.URL.EscapedPath()
	if p := scopeProblem(resp.StatusCode, resp.Header); p != "" {
		c.r.watches.see(seen{via: "http", era: c.era, scoped: x.sent + ": " + p})
	}
	return x, resp, nil
}

// scopeProblem says how an answer whose Bearer challenge says
// insufficient_scope falls short of what the authorization spec asks of
// one: 403, the scopes the request needs, and the resource's metadata.
func scopeProblem(status int, h http.Header) string {
	switch ch, _ := oauth.FirstChallenge(h, "Bearer"); {
	case ch.Params["error"] != "insufficient_scope":
		return ""
	case status != http.StatusForbidden:
		return fmt.Sprintf("insufficient_scope answered HTTP %d, not 403", status)
	case ch.Params["scope"] == "":
		return "insufficient_scope naming no scope the request needs"
	case ch.Params["resource_metadata"] == "":
		return "insufficient_scope without resource_metadata"
	}
	return ""
}

// httpSend sends hr on c (id, when set, is its request's, whose response
// ends an event stream) and records what was sent (shown) and what came
// back; t ends when nothing came back at all.
func (t *T) httpSend(c *conn, hr httpReq, id json.RawMessage, shown string) *exchange {
	x := t.httpSendQuiet(c, hr, id, shown)
	t.Got(x.String())
	return x
}

// pingWith is httpSend of a ping whose id is the string id, with header.
func (t *T) pingWith(c *conn, id string, header http.Header, shown string) *exchange {
	msg, _ := mcp.EncodeRequest(json.RawMessage(strconv.Quote(id)), "ping", nil)
	return t.httpSend(c, httpReq{body: msg, header: header}, nil, shown)
}

// httpSendQuiet is httpSend, recording nothing of the answer.
func (t *T) httpSendQuiet(c *conn, hr httpReq, id json.RawMessage, shown string) *exchange {
	t.Sent(shown)
	return t.post(c, hr, id, shown)
}

// post is c.post, ending t (failErr, saying doing) when nothing came back.
func (t *T) post(c *conn, hr httpReq, id json.RawMessage, doing string) *exchange {
	x, err := c.post(t.ctx, hr, id)
	if x == nil {
		t.failErr(doing, err)
	}
	return x
}

// paramHeaders are the x-mcp-header annotations of the tool a tools/call
// message calls, as the tool is listed (none before the lists are known).
func (r *runner) paramHeaders(msg []byte) []mcp.ParamHeader {
	if r.known.Load() == nil || r.facts == nil {
		return nil
	}
	name, _ := str(member(member(msg, "params"), "name"))
	headers, _ := mcp.ParamHeaders(member(r.toolDef(r.ctx, name), "inputSchema"))
	return headers
}
