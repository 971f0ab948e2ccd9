package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// client is one downstream client: its session, and what it declared.
type client struct {
	srv   *Server
	n     int64 // its number, in the order clients came
	sess  *mcp.Session
	ready chan struct{} // closed once sess is set

	mu       sync.Mutex                 // guards the fields below
	up       *upstream                  // its upstream session, once chosen
	caps     map[string]json.RawMessage // declared in initialize
	modern   bool                       // it spoke the modern era and never initialized
	inflight []json.RawMessage          // ids of its requests in flight, oldest first
	logLevel json.RawMessage            // its logging/setLevel, for a modern server's _meta

	drain *drain // with a stream: the requests read and not yet answered
	// headers, over HTTP, are the headers of the POST of a request in
	// flight (by its id), which a modern request's must match.
	headers func(id json.RawMessage) http.Header

	outbox // its notifications, on their way to it (notes.go)

	// front, with Server.Front, serves the client in serve's place.
	front Front
	// who is the view of the client's bearer token (nil: everything);
	// view, its guard over the Server's names (views.go).
	who  *View
	view *viewGuard
}

// serveClientWith starts a downstream session for one client on t. It
// ends when t's Read fails (the client left) or close is called.
func (s *Server) serveClientWith(t mcp.Transport, d *drain, headers func(json.RawMessage) http.Header) *client {
	c := &client{srv: s, n: s.served.Add(1), ready: make(chan struct{}), drain: d, headers: headers}
	t = &scrubbed{Transport: t, secrets: s.Secrets}
	handle, record := c.observed(c.handle)
	c.sess = mcp.NewSession(t, mcp.SessionOptions{Handler: handle, OnNotification: c.notified, Record: record, Log: s.Log})
	if s.Front != nil {
		c.front = s.Front(&Client{c})
	}
	close(c.ready)
	return c
}

// close ends the client's session and lets its upstream session go.
func (c *client) close() {
	c.sess.Close(context.Background())
	c.sayDropped()
	if c.front != nil {
		c.front.Close()
	}
	if up := c.upNow(); up != nil {
		up.detach(c)
	}
}

// upNow is the client's upstream session, nil until one is chosen.
func (c *client) upNow() *upstream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up
}

// upstreamFor is the client's upstream session: the shared one, or with
// Isolate its own, opened at its first request declaring caps (a modern
// client's takes an idle one of its token's when one is kept, by params:
// isolate.go).
func (c *client) upstreamFor(ctx context.Context, caps, params json.RawMessage) (*upstream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.up != nil && c.srv.Source != nil && c.up.ended() {
		// A Source's session that ended: the next one serves.
		c.up.detach(c)
		c.up = nil
	}
	if c.up != nil {
		return c.up, nil
	}
	s := c.srv
	if !s.Isolate {
		up, err := s.sharedUpstream(ctx, caps)
		if err != nil {
			return nil, err
		}
		c.up = up
	} else if up := c.idleUpstream(params); up != nil {
		c.up = up
	} else {
		declare := declarable(caps)
		if c.modern {
			// Kept for the token's next modern clients, whose requests
			// each bring their capabilities: the bridge puts a question
			// only to a request that declared it.
			declare = upstreamCaps
		}
		up, err := s.open(ctx, s.Open, declare, nil)
		if err != nil {
			return nil, err
		}
		up.own, up.pooled, up.who = true, c.modern, c.who
		c.up = up
	}
	c.up.attach(c)
	return c.up, nil
}

// letIdleGo gives up a modern client's isolated session once its request
// is answered (before the answer is written: the client's next request
// finds it idle).
func (c *client) letIdleGo() {
	c.mu.Lock()
	up := c.up
	if up == nil || !up.pooled {
		c.mu.Unlock()
		return
	}
	c.up = nil
	c.mu.Unlock()
	up.detach(c)
}

// idleUpstream is an idle isolated session kept for a modern client of
// c's token, nil when none is (or c is not modern); c.mu is held.
func (c *client) idleUpstream(params json.RawMessage) *upstream {
	if !c.modern {
		return nil
	}
	return c.srv.idle.take(c.who, params)
}

func (c *client) handle(ctx context.Context, method string, params json.RawMessage) (_ json.RawMessage, err error) {
	<-c.ready
	// What the server said while it answered (progress, logs) reaches the
	// client before the answer does, as it came.
	defer c.flushNotes(ctx, mcp.IncomingID(ctx))
	modern := isModern(method, params)
	if c.front != nil { // Server.Front serves it, once a modern request's _meta is read
		if modern {
			if _, rerr := c.modernMeta(method, params); rerr != nil {
				return nil, rerr
			}
		}
		return c.front.Handle(ctx, method, params, modern)
	}
	if modern {
		defer c.letIdleGo()
		return c.handleModern(ctx, method, params)
	}
	var caps json.RawMessage
	if method == "initialize" {
		caps = rawjson.Member(params, "capabilities")
	}
	up, err := c.upstreamFor(ctx, caps, nil)
	if err != nil {
		return nil, rpcError(err)
	}
	st := up.conn.State()
	if method == "initialize" {
		res, err := c.initialize(params, st.InitializeResult.Raw())
		if err != nil {
			return nil, err
		}
		return up.pinInstructions(res), nil
	}
	if method == "logging/setLevel" && st.Modern {
		// A modern server has none: the level goes in the _meta of each
		// of the client's requests instead
		// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
		var p struct {
			Level json.RawMessage `json:"level"`
		}
		if json.Unmarshal(params, &p) != nil || p.Level == nil {
			return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "logging/setLevel: a level is required"}
		}
		c.level.rank.Store(levelOf(params))
		c.mu.Lock()
		c.logLevel = p.Level
		c.mu.Unlock()
		return json.RawMessage(`{}`), nil
	}
	if rerr := c.withheld(ctx, up, method, params); rerr != nil {
		return nil, rerr
	}
	if method == "resources/subscribe" || method == "resources/unsubscribe" {
		forward, done, serr := up.subscription(ctx, c, method, params)
		if serr != nil {
			return nil, rpcError(serr)
		}
		if !forward {
			return json.RawMessage(`{}`), nil
		}
		defer func() { done(err == nil) }()
	}
	asked := params
	params, rerr := up.taskRequest(c, method, params)
	if rerr != nil {
		return nil, rerr
	}
	id := mcp.IncomingID(ctx)
	c.track(id, true)
	defer c.track(id, false)
	ctx, params, end := up.relay(ctx, &relayed{c: c, id: id, method: method}, params, false)
	defer end()
	mark := up.pinMark()
	if method == "logging/setLevel" && !st.Modern {
		params = up.sharedLevel(c, params)
	}
	send := func(ctx context.Context) (json.RawMessage, error) {
		return up.send(ctx, method, params, c.withLogLevel)
	}
	res, mark, err := up.lists.do(ctx, method, c.withLogLevel(params), mark, send)
	if err != nil {
		return nil, rpcError(err)
	}
	return c.srv.given(ctx, up, method, asked, up.taskResult(c, method, res), mark, c.view), nil
}

// withheld refuses a request for what the guard, the client's view or
// the pin withholds.
func (c *client) withheld(ctx context.Context, up *upstream, method string, params json.RawMessage) *mcp.RPCError {
	if rerr := c.srv.Guard.check(ctx, method, params, up.readOnly); rerr != nil {
		return rerr
	}
	if rerr := c.view.check(ctx, method, params, up.readOnly); rerr != nil {
		return rerr
	}
	return up.pinCheck(ctx, method, params)
}

func (c *client) withLogLevel(params json.RawMessage) json.RawMessage {
	c.mu.Lock()
	level := c.logLevel
	c.mu.Unlock()
	if level == nil {
		return params
	}
	if p, err := mcp.WithMeta(params, mcp.MetaLogLevel, level); err == nil {
		return p
	}
	return params
}

// hasModernMeta reports whether a request carries the modern era's
// protocol version in its _meta. params may be any bytes a client sent.
func hasModernMeta(params json.RawMessage) bool {
	for _, f := range rawjson.ScanFields(nil, params) {
		if f.KeyIs("_meta") {
			for _, m := range rawjson.ScanFields(nil, f.Value) {
				if m.KeyIs(mcp.MetaProtocolVersion) {
					return true
				}
			}
		}
	}
	return false
}

// legacyParams are a modern request's params for a server of the
// initialize era: without the modern era's _meta members
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle),
// and with the progress token replaced by token when not nil.
func legacyParams(params, token json.RawMessage) json.RawMessage {
	out := []byte{'{'}
	rawjson.ForEachValidRawMember(params, func(k string, rawKey, v []byte) error {
		if k != "_meta" {
			out = appendMember(out, rawKey, v)
			return nil
		}
		meta := []byte{'{'}
		rawjson.ForEachValidRawMember(v, func(k string, rawKey, v []byte) error {
			if !strings.HasPrefix(k, "io.modelcontextprotocol/") {
				if k == "progressToken" && token != nil {
					v = token
				}
				meta = appendMember(meta, rawKey, v)
			}
			return nil
		})
		if len(meta) > 1 {
			out = appendMember(out, rawKey, append(meta, '}'))
		}
		return nil
	})
	return append(out, '}')
}

// appendMember appends the member rawKey: v to obj, an object being
// written (its closing brace yet to come).
func appendMember(obj, rawKey, v []byte) []byte {
	if obj[len(obj)-1] != '{' {
		obj = append(obj, ',')
	}
	return append(append(append(obj, rawKey...), ':'), v...)
}

// initialize answers a client of the initialize era from the server's
// initialize (or server/discover) result, in the version the client asked
// for when mcpv speaks it
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation).
func (c *client) initialize(params, init json.RawMessage) (json.RawMessage, error) {
	var p struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "initialize: " + err.Error()}
	}
	c.mu.Lock()
	c.caps, c.modern = p.Capabilities, false
	c.mu.Unlock()
	version := mcp.LatestVersion
	if slices.Contains(mcp.SupportedVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	b := []byte(`{"protocolVersion":`)
	b = append(b, mustJSON(version)...)
	rawjson.ForEachValidRawMember(init, func(k string, rawKey, v []byte) error {
		if k != "protocolVersion" && k != "supportedVersions" {
			b = appendMember(b, rawKey, v)
		}
		return nil
	})
	return append(b, '}'), nil
}

// servedVersions are the versions serve answers in, whatever the server
// speaks: those of the 2026-07-28 era, then those initialize negotiates.
func servedVersions() []string {
	return append(slices.Clone(mcp.ModernVersions), mcp.SupportedVersions...)
}

// Discovered answers server/discover for a server of the initialize era
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle):
// its capabilities, instructions and serverInfo, in the modern shape.
func Discovered(init json.RawMessage) json.RawMessage {
	b := []byte(`{"supportedVersions":`)
	b = append(b, mustJSON(servedVersions())...)
	var info json.RawMessage
	rawjson.ForEachValidMember(init, func(k string, v []byte) error {
		switch k {
		case "capabilities", "instructions":
			b = append(append(append(b, `,"`...), k...), `":`...)
			b = append(b, v...)
		case "serverInfo":
			info = v
		}
		return nil
	})
	if info != nil {
		b = append(append(append(b, `,"_meta":{`...), mustJSON(mcp.MetaServerInfo)...), ':')
		b = append(append(b, info...), '}')
	}
	return append(b, '}')
}

func mustJSON(v any) []byte { return rawjson.Marshal(v) }

// isModern reports whether the client speaks the 2026-07-28 era (and has
// not initialized).
func (c *client) isModern() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.modern
}

// track notes a request in flight (on) or done.
func (c *client) track(id json.RawMessage, on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if on {
		c.inflight = append(c.inflight, id)
		return
	}
	if i := slices.IndexFunc(c.inflight, func(x json.RawMessage) bool { return string(x) == string(id) }); i >= 0 {
		c.inflight = slices.Delete(c.inflight, i, i+1)
	}
}

// inFlight reports whether the client's request id is in flight.
func (c *client) inFlight(id json.RawMessage) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.ContainsFunc(c.inflight, func(x json.RawMessage) bool { return string(x) == string(id) })
}

func (c *client) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.inflight) > 0
}

// latest is the client's newest request in flight.
func (c *client) latest() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.inflight) == 0 {
		return nil
	}
	return c.inflight[len(c.inflight)-1]
}

// capability names the client capability a server request needs.
var capability = map[string]string{"roots/list": "roots", "sampling/createMessage": "sampling", "elicitation/create": "elicitation"}

// ask sends a server request to the client, if it declared the
// capability for it, and returns its answer.
func (c *client) ask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	c.mu.Lock()
	modern, declared := c.modern, c.caps[capability[method]] != nil
	c.mu.Unlock()
	if modern {
		return nil, &mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: method + ": the client speaks the 2026-07-28 era, which takes no server requests"}
	}
	if !declared {
		return nil, &mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: method + ": the client did not declare the " + capability[method] + " capability"}
	}
	if c.drain != nil {
		// A client whose input has ended cannot answer.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() { // end-of-input watcher: ends with the request, or at the end of the input
			select {
			case <-c.drain.eof:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	res, err := c.sess.Call(ctx, method, params)
	if err != nil {
		return nil, rpcError(err)
	}
	return res, nil
}

// notified passes the client's notifications upstream, but those the
// downstream session handles, and initialized: the server knows of its
// own initialize alone.
func (c *client) notified(method string, params json.RawMessage) {
	switch method {
	case "notifications/initialized", "notifications/cancelled", "notifications/progress":
		return
	}
	<-c.ready
	if c.front != nil {
		c.front.Notified(method, params)
		return
	}
	if up := c.upNow(); up != nil {
		up.conn.ForwardNotification(context.Background(), method, params)
	}
}

// readOnly reports whether the server's tool name says readOnlyHint.
func (u *upstream) readOnly(ctx context.Context, name string) bool {
	t, ok := u.conn.Tool(ctx, name)
	return ok && ToolReadOnly(t)
}

// scrubbed is a transport to a client that masks every secret the
// upstream session holds in what it writes.
type scrubbed struct {
	mcp.Transport
	secrets interface{ Mask([]byte) []byte }
}

func (s *scrubbed) Write(ctx context.Context, msg []byte) error {
	return s.Transport.Write(ctx, s.secrets.Mask(msg))
}

// WriteParts masks each part (a secret never spans two: the parts are
// the relay's own framing and a whole result) and writes them in parts
// when the transport can.
func (s *scrubbed) WriteParts(ctx context.Context, parts [][]byte) error {
	masked := make([][]byte, len(parts))
	for i, p := range parts {
		masked[i] = s.secrets.Mask(p)
	}
	if pw, ok := s.Transport.(mcp.PartsWriter); ok {
		return pw.WriteParts(ctx, masked)
	}
	return s.Transport.Write(ctx, bytes.Join(masked, nil))
}

// ConcurrentWrites passes the transport's answer on.
func (s *scrubbed) ConcurrentWrites() bool {
	cw, ok := s.Transport.(mcp.ConcurrentWriter)
	return ok && cw.ConcurrentWrites()
}
