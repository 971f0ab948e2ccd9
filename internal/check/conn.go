package check

// A connection of a check's own, below any session: the check chooses
// every id and every byte sent, and sees every message that comes back,
// as it came. Over stdio it is a server process of its own (mcp's
// CommandTransport, read by one goroutine that hands each response to
// whoever waits for its id); over HTTP it is the requests the check
// makes, each answer read at once (http.go). Either speaks one era: the
// initialize era after a handshake of the check's choosing, or the modern
// era, which stamps every request's _meta.
//
// The reader keeps the last maxLog messages for the checks that look at
// what else came (a response to a notification, a request before
// initialized), each clipped to maxKept bytes; every message passes the
// run's watches as it is read.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

const (
	maxLog  = 2000    // messages a connection keeps
	maxKept = 4 << 10 // bytes kept of each, for what a failure shows
	// MaxMessage is the largest message a run reads from the server.
	MaxMessage = 16 << 20
)

// seen is one message a connection received.
type seen struct {
	msg mcp.Message
	raw string // the message as sent, clipped to maxKept
	// bad says why the unit is no JSON-RPC message (msg is then empty).
	bad string
	// via is where it came: "stdout", "POST answer", "GET stream", "session".
	via string
	era string // the era of the connection it came on
	n   int    // its place among the connection's messages, from 1
	// method is, for a response, the method of the request it answers
	// (when known).
	method string
	// shape says how a message that decodes still breaks JSON-RPC 2.0
	// as MCP uses it: no "jsonrpc": "2.0", a result that is no object.
	shape string
}

// conn is a connection of a check's own.
type conn struct {
	r       *runner
	era     string // "legacy" or "modern"
	version string // the protocol version it speaks
	// init is the answer to the connection's initialize (legacy), as sent.
	init json.RawMessage

	stdio *mcp.CommandTransport // over stdio
	http  *httpSide             // over HTTP

	mu      sync.Mutex         // guards the fields below
	waiting map[string]*waiter // responses awaited, by canonical id
	log     []seen             // the last maxLog messages
	count   int                // messages received so far
	ended   error              // why the reader stopped; set once
	ids     int                // ids used so far
	closed  bool               // close was called
	gone    chan struct{}      // closed when the reader stops
}

// connOptions shape how a connection opens.
type connOptions struct {
	era string // "legacy" or "modern"; "" is the main session's
	// version is the protocol version offered (legacy) or stamped
	// (modern); "" is the main session's, or the latest of the era.
	version string
	// bare sends nothing at all once connected (no initialize): the
	// check speaks first.
	bare bool
}

// dial opens a connection: over stdio a new server process, over HTTP
// nothing yet. Then, unless bare, the legacy era's handshake.
func (r *runner) dial(ctx context.Context, o connOptions) (*conn, error) {
	if o.era == "" {
		o.era = r.facts.era
	}
	if o.version == "" {
		switch {
		case o.era == r.facts.era && r.facts.version != "":
			o.version = r.facts.version
		case o.era == "modern":
			o.version = mcp.ModernVersion
		default:
			o.version = mcp.LatestVersion
		}
	}
	c := &conn{r: r, era: o.era, version: o.version, waiting: map[string]*waiter{}, gone: make(chan struct{})}
	if r.target.URL != "" {
		c.http = &httpSide{}
		close(c.gone) // no reader
	} else {
		opts := *r.target.Stdio
		opts.MaxMessage = MaxMessage
		opts.Groups = r.target.Groups
		opts.Log = slog.New(junkHandler{r: r, c: c})
		opts.Stderr = nil // the tail is kept for failures
		opts.Grace = 500 * time.Millisecond
		tr, err := mcp.StartCommand(opts)
		if err != nil {
			return nil, err
		}
		c.stdio = tr
		go c.read() // a check's connection reader: stops when the transport's Read fails, which close brings about
	}
	r.track(c)
	if o.bare || o.era == "modern" {
		return c, nil
	}
	if err := c.handshake(ctx, o.version); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// handshake is the initialize era's: initialize offering version, then
// notifications/initialized.
func (c *conn) handshake(ctx context.Context, version string) error {
	m, _, err := c.request(ctx, "initialize", initializeParams(c.r.target.ClientInfo, version))
	if err != nil {
		return err
	}
	if m.Error != nil {
		return fmt.Errorf("initialize: the server answered with error %d: %s", m.Error.Code, clip(m.Error.Message, 200))
	}
	c.init = m.Result
	if v, ok := str(member(m.Result, "protocolVersion")); ok {
		c.version = v
	}
	if c.http != nil {
		c.http.version = c.version
	}
	return c.notify(ctx, "notifications/initialized", nil)
}

// initializeParams are initialize's params: version, no client
// capabilities (the checks answer no server request), and client info.
func initializeParams(info mcp.Implementation, version string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": info})
	return b
}

// newID is an id the connection has not used: a number, from 1.
func (c *conn) newID() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ids++
	return json.RawMessage(strconv.Itoa(c.ids))
}

// stamp is params with the modern era's _meta, on a modern connection.
func (c *conn) stamp(params json.RawMessage) json.RawMessage {
	if c.era != "modern" {
		return params
	}
	for _, e := range []struct {
		key   string
		value any
	}{
		{mcp.MetaProtocolVersion, c.version},
		{mcp.MetaClientCapabilities, map[string]any{}},
		{mcp.MetaClientInfo, c.r.target.ClientInfo},
	} {
		v, _ := json.Marshal(e.value)
		if p, err := mcp.WithMeta(params, e.key, v); err == nil {
			params = p
		}
	}
	return params
}

// request sends a request under a new id, stamped for the era, and
// waits for its response.
func (c *conn) request(ctx context.Context, method string, params json.RawMessage) (mcp.Message, *exchange, error) {
	return c.requestID(ctx, c.newID(), method, c.stamp(params))
}

// requestID sends a request under id, params as given, and waits for
// its response.
func (c *conn) requestID(ctx context.Context, id json.RawMessage, method string, params json.RawMessage) (mcp.Message, *exchange, error) {
	msg, err := mcp.EncodeRequest(id, method, params)
	if err != nil {
		return mcp.Message{}, nil, err
	}
	return c.roundTrip(ctx, id, msg, httpReq{})
}

// roundTrip sends msg, a request with id, and waits for its response.
func (c *conn) roundTrip(ctx context.Context, id json.RawMessage, msg []byte, hr httpReq) (mcp.Message, *exchange, error) {
	if c.http != nil {
		hr.body = msg
		x, err := c.post(ctx, hr, id)
		if err != nil {
			return mcp.Message{}, x, err
		}
		if x.response == nil {
			return mcp.Message{}, x, &noAnswer{x}
		}
		return *x.response, x, nil
	}
	ch := c.expect(id, methodOf(msg))
	defer c.unexpect(id)
	if err := c.stdio.Write(ctx, msg); err != nil {
		return mcp.Message{}, nil, err
	}
	m, err := c.await(ctx, ch)
	return m, nil, err
}

// noAnswer is an HTTP answer that held no response to the request.
type noAnswer struct{ x *exchange }

func (e *noAnswer) Error() string {
	return fmt.Sprintf("the answer (HTTP %d, %s) holds no response to the request", e.x.status, e.x.contentType())
}

// notify sends a notification (stamped for the era).
func (c *conn) notify(ctx context.Context, method string, params json.RawMessage) error {
	msg, err := mcp.EncodeRequest(nil, method, c.stamp(params))
	if err != nil {
		return err
	}
	_, err = c.send(ctx, msg)
	return err
}

// send writes data as it is: a line on stdin, or the body of a POST.
// Over HTTP it returns the answer.
func (c *conn) send(ctx context.Context, data []byte) (*exchange, error) {
	if c.http != nil {
		return c.post(ctx, httpReq{body: data}, nil)
	}
	return nil, c.stdio.Write(ctx, data)
}

// waiter is a response awaited.
type waiter struct {
	ch     chan mcp.Message // 1-buffered, sent to once
	method string           // the request's
}

// expect registers a wait for the response to id, before it is sent.
func (c *conn) expect(id json.RawMessage, method string) chan mcp.Message {
	w := &waiter{ch: make(chan mcp.Message, 1), method: method}
	c.mu.Lock()
	c.waiting[idKey(id)] = w
	c.mu.Unlock()
	return w.ch
}

// methodOf is the method of an encoded request.
func methodOf(msg []byte) string {
	m, _ := str(member(msg, "method"))
	return m
}

func (c *conn) unexpect(id json.RawMessage) {
	c.mu.Lock()
	delete(c.waiting, idKey(id))
	c.mu.Unlock()
}

// await waits for a response registered with expect.
func (c *conn) await(ctx context.Context, ch chan mcp.Message) (mcp.Message, error) {
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		return mcp.Message{}, context.Cause(ctx)
	case <-c.gone:
		select {
		case m := <-ch:
			return m, nil
		default:
		}
		return mcp.Message{}, c.err()
	}
}

// err is why the connection ended.
func (c *conn) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended == nil {
		return errors.New("the connection is closed")
	}
	return c.ended
}

// alive reports whether the connection may still be used: it is not
// closed, and a stdio server's stdout has not ended.
func (c *conn) alive() bool {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return false
	}
	if c.stdio == nil {
		return true
	}
	select {
	case <-c.gone:
		return false
	default:
		return true
	}
}

// read reads the server's stdout until it ends, handing out responses.
func (c *conn) read() {
	defer close(c.gone)
	for {
		data, err := c.stdio.Read()
		if err != nil {
			c.mu.Lock()
			c.ended = err
			c.mu.Unlock()
			return
		}
		c.receive(data, "stdout")
	}
}

// receive takes one wire unit: it is recorded, watched, and its
// responses handed to whoever waits for them.
func (c *conn) receive(data []byte, via string) []seen { return c.receiveFor(data, via, nil, "") }

// receiveFor is receive for an HTTP answer to the request id of method:
// its response is said to answer method.
func (c *conn) receiveFor(data []byte, via string, id json.RawMessage, method string) []seen {
	msgs, err := mcp.DecodeMessages(data)
	var out []seen
	if err != nil {
		out = append(out, seen{raw: clip(string(data), maxKept), bad: err.Error(), via: via, era: c.era})
	} else if !utf8.Valid(data) {
		out = append(out, seen{raw: clip(string(data), maxKept), bad: "it is not valid UTF-8", via: via, era: c.era})
	}
	if err == nil {
		batch := rawjson.SkipSpace(data, 0) < len(data) && data[rawjson.SkipSpace(data, 0)] == '['
		for _, m := range msgs {
			raw, shape := data, ""
			if batch { // each part said apart
				raw = []byte(fmt.Sprintf("(in a batch of %d) %s", len(msgs), describe(m)))
			} else {
				shape = shapeOf(data, m)
			}
			out = append(out, seen{msg: m, raw: clip(string(raw), maxKept), via: via, era: c.era, shape: shape})
		}
	}
	c.mu.Lock()
	for i := range out {
		c.count++
		out[i].n = c.count
		m := out[i].msg
		if id != nil && m.IsResponse() && m.ID != nil && idKey(m.ID) == idKey(id) {
			out[i].method = method
		}
		if m.IsResponse() && m.ID != nil {
			if w, ok := c.waiting[idKey(m.ID)]; ok {
				delete(c.waiting, idKey(m.ID))
				out[i].method = w.method
				w.ch <- m
			}
		}
		if len(c.log) == maxLog {
			c.log = append(c.log[:0], c.log[maxLog/2:]...)
		}
		c.log = append(c.log, out[i])
	}
	c.mu.Unlock()
	for _, s := range out {
		c.r.watches.see(s)
	}
	return out
}

// shapeOf says how one message breaks JSON-RPC 2.0 as MCP uses it, or "".
func shapeOf(data []byte, m mcp.Message) string {
	if v, ok := str(member(data, "jsonrpc")); !ok || v != "2.0" {
		return `it has no "jsonrpc": "2.0"`
	}
	if m.IsResponse() && m.Error == nil && !rawjson.IsObject(m.Result) {
		return "its result is not a JSON object"
	}
	if m.Error != nil && member(member(data, "error"), "message") == nil {
		return "its error has no message"
	}
	if m.Params != nil && !rawjson.IsObject(m.Params) {
		return "its params are not a JSON object"
	}
	return ""
}

// describe is a message in a few words, for one taken out of a batch.
func describe(m mcp.Message) string {
	switch {
	case m.IsRequest():
		return fmt.Sprintf("request %s id %s", m.Method, m.ID)
	case m.IsNotification():
		return "notification " + m.Method
	case m.Error != nil:
		return fmt.Sprintf("error response id %s code %d", m.ID, m.Error.Code)
	}
	return fmt.Sprintf("response id %s", m.ID)
}

// mark is where the connection's messages stand now, for since.
func (c *conn) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

// since are the messages received after mark (those still kept).
func (c *conn) since(mark int) []seen {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []seen
	for _, s := range c.log {
		if s.n > mark {
			out = append(out, s)
		}
	}
	return out
}

// close ends the connection: the stdio server stopped (stdin closed,
// then signals, each wait bounded), the HTTP session deleted.
func (c *conn) close() {
	c.mu.Lock()
	again := c.closed
	c.closed = true
	c.mu.Unlock()
	if again {
		if c.stdio != nil {
			<-c.gone
		}
		return
	}
	if c.stdio != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c.stdio.Close(ctx)
		cancel()
		<-c.gone
		return
	}
	if c.http != nil && c.http.session != "" && c.era == "legacy" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c.do(ctx, httpReq{method: "DELETE"})
		cancel()
	}
}

// idKey is an id's canonical text: a string's value, a number's value
// (1 and 1.0 are one id), so that a response matches the request it
// answers whatever way the server wrote the id.
func idKey(id json.RawMessage) string {
	if s, err := rawjson.String(id); err == nil {
		return "s:" + s
	}
	if r, ok := new(big.Rat).SetString(strings.TrimSpace(string(id))); ok {
		return "n:" + r.RatString()
	}
	return "?:" + string(id)
}

// junkHandler takes the stdio transport's warnings about lines on stdout
// that are no JSON, for the watches (with c, in the connection's era).
type junkHandler struct {
	r *runner
	c *conn // nil for the main session
}

func (h junkHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h junkHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h junkHandler) WithGroup(string) slog.Handler            { return h }
func (h junkHandler) Handle(_ context.Context, r slog.Record) error {
	const prefix = "skipped a line on the server's stdout that is not JSON: "
	line, ok := strings.CutPrefix(r.Message, prefix)
	if !ok {
		return nil
	}
	era := ""
	if h.c != nil {
		era = h.c.era
	}
	h.r.watches.see(seen{raw: line, bad: junkLine, via: "stdout", era: era})
	return nil
}
