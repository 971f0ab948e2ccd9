package serve

// A client of the 2026-07-28 era
// (https://modelcontextprotocol.io/specification/2026-07-28/basic): no
// initialize and no session; each request carries the protocol version
// and the client's capabilities in its _meta. Such a client is served by
// a session of its era when the server speaks it, its requests passed on
// as they are; else by the initialize era's session, bridged: its results
// get the members its era requires, the server's questions become
// input_required results (bridge.go), and its subscriptions/listen is
// served here (listen.go).

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// removedMethods are the requests of the initialize era that the
// 2026-07-28 era removed: a client of that era is told they do not exist
// (on HTTP, 404: http.go).
var removedMethods = map[string]bool{
	"initialize": true, "ping": true, "logging/setLevel": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
}

// inputMethods may be answered input_required
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#supported-requests).
var inputMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// modernMeta is what serve reads of a modern request's _meta.
type modernMeta struct {
	version string
	caps    json.RawMessage // the client's capabilities for this request (an object)
	level   string          // its logLevel; "" asks for no log messages
}

// readModernMeta reads and checks a modern request's _meta: it MUST hold
// the protocol version, one serve speaks, and the client's capabilities
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta).
func readModernMeta(params json.RawMessage) (modernMeta, *mcp.RPCError) {
	var m modernMeta
	var meta, version, caps, level json.RawMessage
	if rawjson.IsObject(params) {
		meta = rawjson.Member(params, "_meta")
	}
	if rawjson.IsObject(meta) {
		version = rawjson.Member(meta, mcp.MetaProtocolVersion)
		caps = rawjson.Member(meta, mcp.MetaClientCapabilities)
		level = rawjson.Member(meta, mcp.MetaLogLevel)
	}
	invalid := func(what string) (modernMeta, *mcp.RPCError) {
		return m, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "missing or invalid _meta: " + what}
	}
	switch {
	case !rawjson.IsObject(meta):
		return invalid("params._meta must be an object")
	case json.Unmarshal(version, &m.version) != nil || m.version == "":
		return invalid(mcp.MetaProtocolVersion + " must be a string")
	case !rawjson.IsObject(caps):
		return invalid(mcp.MetaClientCapabilities + " must be an object")
	case level != nil && json.Unmarshal(level, &m.level) != nil:
		return invalid(mcp.MetaLogLevel + " must be a string")
	case !mcp.IsModern(m.version):
		// A version serve does not speak: the versions it does, and the
		// one asked for.
		return m, &mcp.RPCError{Code: mcp.CodeUnsupportedProtocolVersion, Message: "unsupported protocol version " + m.version,
			Data: mustJSON(map[string]any{"supported": servedVersions(), "requested": m.version})}
	}
	m.caps = caps
	return m, nil
}

// isModern reports whether a request is one of the 2026-07-28 era.
func isModern(method string, params json.RawMessage) bool {
	return method == "server/discover" || rawjson.IsObject(params) && hasModernMeta(params)
}

// modernMeta reads a modern request's _meta (the client speaks that era
// from now on), refusing a request that era removed.
func (c *client) modernMeta(method string, params json.RawMessage) (modernMeta, *mcp.RPCError) {
	meta, rerr := readModernMeta(params)
	if rerr != nil {
		return meta, rerr
	}
	c.mu.Lock()
	c.modern = c.modern || c.caps == nil // it speaks that era, unless it initialized
	c.mu.Unlock()
	if removedMethods[method] {
		return meta, mcp.MethodNotFound(method)
	}
	return meta, nil
}

// handleModern serves a request of a client of the 2026-07-28 era.
func (c *client) handleModern(ctx context.Context, method string, params json.RawMessage) (_ json.RawMessage, err error) {
	meta, rerr := c.modernMeta(method, params)
	if rerr != nil {
		return nil, rerr
	}
	// In flight: what the server says about it (progress, logs) reaches
	// the client before its answer (flushNotes).
	id := mcp.IncomingID(ctx)
	c.track(id, true)
	defer c.track(id, false)
	if inputMethods[method] {
		if rerr := checkInputResponses(params); rerr != nil {
			return nil, rerr
		}
		if state, _ := rawjson.String(rawjson.Member(params, "requestState")); strings.HasPrefix(state, statePrefix) {
			// The retry of a call parked for input: the guard let it
			// through the first time, and it is that call again.
			res, info, gone, err := c.srv.resume(ctx, c, method, params, meta, state)
			if err != nil {
				return nil, err
			}
			if !gone {
				return c.modernResult(ctx, method, params, res, false, info), nil
			}
			// Its call has gone: the request starts again.
			params = rawjson.Without(rawjson.Without(params, "requestState"), "inputResponses")
		}
	}
	up, err := c.modernSide(ctx, meta.caps, params)
	if err != nil {
		return nil, rpcError(err)
	}
	st := up.conn.State()
	if !st.Modern {
		defer func() { err = retiredCode(err) }()
	}
	if method == "server/discover" && !st.Modern {
		res := up.pinInstructions(Discovered(st.InitializeResult.Raw()))
		ModernResult(ctx, method, res, nil)
		return res, nil
	}
	if rerr := c.withheld(ctx, up, method, params); rerr != nil {
		return nil, rerr
	}
	if rerr := c.checkParamHeaders(ctx, up, method, params); rerr != nil {
		return nil, rerr
	}
	switch {
	case method == "subscriptions/listen":
		return c.listenModern(ctx, up, params)
	case !st.Modern && inputMethods[method]:
		res, err := up.bridged(ctx, c, method, params, meta)
		if err != nil {
			return nil, err
		}
		return c.modernResult(ctx, method, params, res, false, st.InitializeResult.ServerInfo), nil
	}
	params, rerr = up.taskRequest(c, method, params)
	if rerr != nil {
		return nil, rerr
	}
	ctx, fwd, end := up.relay(ctx, &relayed{c: c, id: id, method: method, level: meta.level}, params, !st.Modern)
	defer end()
	if st.Modern && method == "tools/call" {
		// The transport is told the tool's x-mcp-header annotations, so
		// that its arguments go in the headers that server checks
		// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters).
		if headers := up.paramHeaders(ctx, params); headers != nil {
			ctx = mcp.WithParamHeaders(ctx, headers)
		}
	}
	mark := up.pinMark()
	res, mark, err := up.lists.do(ctx, method, fwd, mark, func(ctx context.Context) (json.RawMessage, error) { return up.conn.Forward(ctx, method, fwd) })
	if err != nil {
		return nil, rpcError(err)
	}
	res = up.pinFilter(ctx, method, up.taskResult(c, method, res), mark)
	if method == "server/discover" {
		// The versions serve answers a modern request in, as the card
		// says, whatever the server behind lists.
		res = rawjson.With(up.pinInstructions(res), "supportedVersions", mustJSON(servedVersions()))
	}
	return c.modernResult(ctx, method, params, res, st.Modern, st.InitializeResult.ServerInfo), nil
}

// retiredCode is err, a server's of the initialize era, in the codes of
// the 2026-07-28 era, whose implementations "MUST NOT emit" those it
// retired (basic, "Error Codes"): -32002, resource not found, is -32602
// there (server/resources, "Error Handling"); -32042, URL elicitation
// required, has no code there (it asks in input_required): -32603.
func retiredCode(err error) error {
	if re, ok := errors.AsType[*mcp.RPCError](err); ok && (re.Code == -32002 || re.Code == -32042) {
		return &mcp.RPCError{Code: map[int]int{-32002: mcp.CodeInvalidParams, -32042: mcp.CodeInternalError}[re.Code], Message: re.Message, Data: re.Data}
	}
	return err
}

// modernResult is what a modern client gets of a result: through the
// guard, with the members its era requires when a server of the
// initialize era gave it (not modern), info naming that server; the
// recorder is told.
func (c *client) modernResult(ctx context.Context, method string, asked, res json.RawMessage, modern bool, info json.RawMessage) json.RawMessage {
	res = c.view.filter(method, c.srv.Guard.filter(method, "", res))
	if !modern {
		ModernResult(ctx, method, res, info)
	}
	if c.srv.Record != nil && resultTypeOf(res) != "input_required" {
		c.srv.Record.Note(method, asked, res)
	}
	return res
}

// modernSide is the upstream session a modern client is served by: the
// session of OpenModern when there is one (the server speaks that era
// too), else the client's own.
func (c *client) modernSide(ctx context.Context, caps, params json.RawMessage) (*upstream, error) {
	if !c.srv.Isolate {
		if m := c.srv.modernUpstream(ctx); m != nil {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.up == nil {
				c.up = m
				m.attach(c)
			}
			return c.up, nil
		}
	}
	return c.upstreamFor(ctx, caps, params)
}

// ModernResult gives the answer to a request of the 2026-07-28 era (ctx,
// method) the members that era requires which res, a result of the
// initialize era's, lacks (modernMembers).
func ModernResult(ctx context.Context, method string, res, info json.RawMessage) {
	mcp.AddResultMembers(ctx, modernMembers(method, res, info))
}

// modernMembers are the members the 2026-07-28 schema requires that a
// result of a server of the initialize era lacks: resultType, and for a
// cacheable one ttlMs 0 (the server may change it) and cacheScope
// private (the result goes through this relay's credentials); and, where
// the result has no _meta of its own, the server's info (info, its
// initialize result's serverInfo), which that era's results carry.
func modernMembers(method string, res, info json.RawMessage) []byte {
	var have struct{ typ, ttl, scope, input, meta bool }
	for _, f := range rawjson.ScanFields(nil, res) {
		have.meta = have.meta || f.KeyIs("_meta")
		have.typ = have.typ || f.KeyIs("resultType")
		have.ttl = have.ttl || f.KeyIs("ttlMs")
		have.scope = have.scope || f.KeyIs("cacheScope")
		have.input = have.input || f.KeyIs("inputRequests") || f.KeyIs("requestState")
	}
	var out []string
	switch {
	case !have.typ && have.input && inputMethods[method]:
		// A server of the initialize era that asks as the modern era
		// does (its own inputRequests and requestState): the client
		// sends its request again, which goes to it as it is.
		out = append(out, `"resultType":"input_required"`)
	case !have.typ:
		out = append(out, `"resultType":"complete"`)
	}
	if mcp.Cacheable(method) {
		if !have.ttl {
			out = append(out, `"ttlMs":0`)
		}
		if !have.scope {
			out = append(out, `"cacheScope":"private"`)
		}
	}
	if !have.meta && json.Valid(info) {
		out = append(out, `"_meta":{`+string(mustJSON(mcp.MetaServerInfo))+`:`+string(info)+`}`)
	}
	return []byte(strings.Join(out, ","))
}

// resultTypeOf is a result's resultType, "" when it has none.
func resultTypeOf(res json.RawMessage) string {
	for _, f := range rawjson.ScanFields(nil, res) {
		if f.KeyIs("resultType") {
			t, _ := rawjson.String(f.Value)
			return t
		}
	}
	return ""
}

// checkInputResponses refuses inputResponses that are not an object of
// results
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#error-handling).
func checkInputResponses(params json.RawMessage) *mcp.RPCError {
	v := rawjson.Member(params, "inputResponses")
	if v == nil {
		return nil
	}
	bad := !rawjson.IsObject(v)
	rawjson.ForEachValidMember(v, func(_ string, r []byte) error {
		bad = bad || !rawjson.IsObject(r)
		return nil
	})
	if bad {
		return &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "inputResponses must be an object whose members are the results of its input requests"}
	}
	return nil
}

// paramHeaders are the x-mcp-header annotations of the tool a tools/call
// calls; nil for a tool the server does not list, or none.
func (u *upstream) paramHeaders(ctx context.Context, params json.RawMessage) []mcp.ParamHeader {
	name, _ := rawjson.String(rawjson.Member(params, "name"))
	t, ok := u.conn.Tool(ctx, name)
	if !ok {
		return nil
	}
	headers, err := mcp.ParamHeaders(rawjson.Member(t, "inputSchema"))
	if err != nil {
		return nil
	}
	return headers
}

// relay starts r on its way to u: in flight, in a context of its own
// (ctx with r, mcp.WithCaller, and u), its params swapped (swap). end
// ends it.
func (u *upstream) relay(ctx context.Context, r *relayed, params json.RawMessage, legacy bool) (_ context.Context, fwd json.RawMessage, end func()) {
	note(u, u.flights, r, true)
	fwd, release := u.swap(params, *r, legacy)
	return context.WithValue(mcp.WithCaller(ctx, *r), upstreamKey{}, u), fwd, func() {
		release()
		note(u, u.flights, r, false)
	}
}

// swap gives params a progress token of the relay's own, for r; legacy
// makes them a request of the initialize era too (legacyParams), in the
// same pass.
func (u *upstream) swap(params json.RawMessage, r relayed, legacy bool) (json.RawMessage, func()) {
	if !legacy {
		return u.tokens.Swap(params, r)
	}
	swapped := false
	fwd, release := u.tokens.SwapWith(params, r, func(params, _, ours json.RawMessage) (json.RawMessage, error) {
		swapped = true
		return legacyParams(params, ours), nil
	})
	if !swapped { // no token
		fwd = legacyParams(params, nil)
	}
	return fwd, release
}
