package gateway

// The front: a client of a gateway's endpoint (gateway.go). It answers
// what concerns the endpoint as a whole (initialize, server/discover,
// the lists, tasks/list, logging/setLevel, a modern client's listen) and
// hands every other request to the member it belongs to, through the
// client's sub-client of that member: a client of the member's Server
// that shares the client's downstream session (serve.Server.Join), so
// that the member's Server serves it as it serves any client (its
// guard, pin, bridge, tasks, subscriptions; progress, logs and questions
// reach the client under its own ids).

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/mcp"
)

// front is one client of a gateway's endpoint.
type front struct {
	gw *Gateway
	c  *serve.Client // its downstream client

	mu      sync.Mutex                // guards the fields below
	subs    map[*Member]*serve.Client // its sub-client of each member, once needed
	level   json.RawMessage           // the params of its logging/setLevel, for members met later
	listens map[*frontListen]bool     // a modern client's listens under way
	inited  bool                      // it has had its initialize: it may hear of changes
	closed  bool
}

// serveFront makes c a client of the endpoint: from now on it hears of
// the members' changes.
func (g *Gateway) serveFront(c *serve.Client) serve.Front {
	f := &front{gw: g, c: c, subs: map[*Member]*serve.Client{}, listens: map[*frontListen]bool{}}
	g.mu.Lock()
	g.fronts[f] = true
	g.mu.Unlock()
	return f
}

// Handle answers what concerns the endpoint, and hands the rest on.
func (f *front) Handle(ctx context.Context, method string, params json.RawMessage, modern bool) (json.RawMessage, error) {
	switch method {
	case "initialize":
		res, err := f.c.Initialize(params, f.gw.initResult(f.c.Who()))
		if err == nil {
			f.mu.Lock()
			f.inited = true
			f.mu.Unlock()
		}
		return res, err
	case "server/discover":
		res := serve.Discovered(f.gw.initResult(f.c.Who()))
		serve.ModernResult(ctx, method, res, nil)
		return res, nil
	case mcp.Tools.Method, mcp.Prompts.Method, mcp.Resources.Method, mcp.ResourceTemplates.Method, "tasks/list":
		return f.list(ctx, method, params, modern)
	case "tools/call", "prompts/get", "resources/read", "resources/subscribe", "resources/unsubscribe", "completion/complete",
		"tasks/get", "tasks/result", "tasks/cancel", "tasks/update":
		return f.byTarget(ctx, method, params, modern)
	case "logging/setLevel":
		return f.setLevel(ctx, params)
	case "subscriptions/listen":
		return f.listen(ctx, params)
	}
	return nil, mcp.MethodNotFound(method)
}

// sub is the client's sub-client of member m, made at its first need,
// whatever needs it (a call, or the view's look at a tool's annotations):
// made now, it is first told the level of the client's logging/setLevel
// before it, unless what it is made for is a logging/setLevel.
func (f *front) sub(ctx context.Context, m *Member, method string) *serve.Client {
	f.mu.Lock()
	s, level := f.subs[m], json.RawMessage(nil)
	if s == nil {
		s, level = m.Server.Join(f.c), f.level
		f.subs[m] = s
	}
	f.mu.Unlock()
	if level != nil && method != "logging/setLevel" {
		lctx, _ := mcp.SeparateResultMembers(ctx)
		s.Handle(lctx, "logging/setLevel", level)
	}
	return s
}

// pass hands a request to member m through the client's sub-client of
// it; what the member answers is the answer.
func (f *front) pass(ctx context.Context, m *Member, method string, params json.RawMessage) (json.RawMessage, error) {
	return f.sub(ctx, m, method).Handle(ctx, method, params)
}

// byTarget routes a request by what it names: a tools/call, a
// prompts/get or a prompt's completion by the name it calls, which goes
// to the member as its server gives it; a resources/read, subscribe or
// unsubscribe by its URI; a template's completion by the member that
// lists it; a request about a task to the member that made it. What the
// client's view hides is invisible, not refused.
func (f *front) byTarget(ctx context.Context, method string, params json.RawMessage, modern bool) (json.RawMessage, error) {
	var m *Member
	var notFound *mcp.RPCError // every way has its own
	sent := params
	switch method {
	case "tools/call", "prompts/get":
		name, ok := rawjson.ExactString(params, "name")
		if !ok {
			return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "params hold a key twice, or in another case, or of the wrong type: refused"}
		}
		l := mcp.Tools
		if method == "prompts/get" {
			l = mcp.Prompts
		}
		var local string
		m, local = f.route(ctx, l, name)
		sent, notFound = rawjson.With(params, "name", rawjson.Marshal(local)), unknownName(l.Item, name)
	case "completion/complete":
		p, rerr := serve.ReadTarget(params)
		if rerr != nil {
			return nil, rerr
		}
		switch p.RefType {
		case "ref/prompt":
			var local string
			m, local = f.route(ctx, mcp.Prompts, p.RefName)
			ref := rawjson.With(rawjson.Member(params, "ref"), "name", rawjson.Marshal(local))
			sent, notFound = rawjson.With(params, "ref", ref), unknownName(mcp.Prompts.Item, p.RefName)
		case "ref/resource":
			m = f.lister(ctx, mcp.ResourceTemplates, p.RefURI, preferred(f.resourceMembers()))
			notFound = resourceNotFound(p.RefURI, modern)
		default:
			return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "completion/complete: ref.type must be ref/prompt or ref/resource"}
		}
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/update":
		id, _ := rawjson.String(rawjson.Member(params, "taskId"))
		if m = f.gw.tasks.owner(id); m != nil && !f.c.Who().Sees(m.Name) {
			m = nil
		}
		notFound = serve.TaskNotFound(id)
	default: // resources/read, subscribe, unsubscribe
		uri, ok := rawjson.ExactString(params, "uri")
		if !ok {
			return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "params hold a key twice, or in another case, or of the wrong type: refused"}
		}
		m, notFound = f.owner(ctx, uri), resourceNotFound(uri, modern)
	}
	if m == nil || f.viewCheck(ctx, method, params) != nil {
		return nil, notFound
	}
	return f.pass(ctx, m, method, sent)
}

// viewCheck refuses what the client's view hides of a request at the
// endpoint (names there have their prefixes).
func (f *front) viewCheck(ctx context.Context, method string, params json.RawMessage) *mcp.RPCError {
	return f.c.Who().Check(ctx, method, params, func(ctx context.Context, name string) bool {
		m, local := f.route(ctx, mcp.Tools, name)
		return m != nil && f.sub(ctx, m, "").ReadOnly(ctx, local)
	})
}

// unknownName is what a client gets for a name no member of its view
// gives: what a server says of a tool it does not have
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling).
func unknownName(kind, name string) *mcp.RPCError {
	return &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "unknown " + kind + ": " + safetext.Clip(name, 200)}
}

// resourceNotFound is what a client gets for a URI no member of its view
// serves: -32002 in the initialize era
// (https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling),
// -32602 in the 2026-07-28 era, which retired -32002
// (https://modelcontextprotocol.io/specification/2026-07-28/server/resources#error-handling).
func resourceNotFound(uri string, modern bool) *mcp.RPCError {
	uri = safetext.Clip(uri, 200)
	code := -32002
	if modern {
		code = mcp.CodeInvalidParams
	}
	return &mcp.RPCError{Code: code, Message: "resource not found: " + uri + ": no server here lists it",
		Data: rawjson.Marshal(map[string]string{"uri": uri})}
}

// setLevel asks every member the client has met for its log level (the
// others are asked when it meets them); each member's messages then
// reach it at that level.
func (f *front) setLevel(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	if !serve.LogLevelKnown(params) {
		return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "logging/setLevel: a level is required"}
	}
	f.mu.Lock()
	f.level = params
	subs := slices.Collect(maps.Values(f.subs))
	f.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range subs {
		wg.Go(func() { // a front's logging/setLevel to one server: ends with its answer
			sctx, _ := mcp.SeparateResultMembers(ctx)
			s.Handle(sctx, "logging/setLevel", params)
		})
	}
	wg.Wait()
	return json.RawMessage(`{}`), nil
}

// Notified passes a client's notification (its roots changed, say) to
// every member it has met.
func (f *front) Notified(method string, params json.RawMessage) {
	f.mu.Lock()
	subs := slices.Collect(maps.Values(f.subs))
	f.mu.Unlock()
	for _, s := range subs {
		s.Notified(method, params)
	}
}

// listChanged tells the client that one list may have changed: a
// client of the initialize era by its notification, a modern one on its
// listens that asked.
func (f *front) listChanged(change string) {
	f.mu.Lock()
	closed := f.closed
	listens := slices.Collect(maps.Keys(f.listens))
	f.mu.Unlock()
	if closed {
		return
	}
	for _, l := range listens {
		l.listChanged(serve.Notice{Method: change})
	}
	f.tell(change)
}

// tell gives a client of the initialize era, once initialized, a list's
// change by its notification.
func (f *front) tell(change string) {
	f.mu.Lock()
	ok := !f.closed && f.inited
	f.mu.Unlock()
	if ok && !f.c.IsModern() {
		f.c.Notify(nil, serve.Notice{Method: change})
	}
}

// Close lets the members go: the client has left.
func (f *front) Close() {
	f.mu.Lock()
	f.closed = true
	subs := slices.Collect(maps.Values(f.subs))
	f.mu.Unlock()
	for _, s := range subs {
		s.Leave()
	}
	f.gw.mu.Lock()
	delete(f.gw.fronts, f)
	f.gw.mu.Unlock()
}

// initResult is the endpoint's initialize result for a client of view:
// the capabilities a gateway serves whatever its members are (a member
// without one answers its requests as not found), the tasks capability
// of the first member up that declares one, and the instructions of the
// members up, each under its name.
func (g *Gateway) initResult(view *serve.View) json.RawMessage {
	caps := map[string]json.RawMessage{
		"tools":       json.RawMessage(`{"listChanged":true}`),
		"prompts":     json.RawMessage(`{"listChanged":true}`),
		"resources":   json.RawMessage(`{"subscribe":true,"listChanged":true}`),
		"completions": json.RawMessage(`{}`),
		"logging":     json.RawMessage(`{}`),
	}
	var instructions []string // each member's, under its name
	for _, m := range g.Members {
		u := m.upNow()
		if u == nil || !view.Sees(m.Name) {
			continue
		}
		init := u.Init()
		if t := rawjson.Member(rawjson.Member(init, "capabilities"), "tasks"); t != nil && caps["tasks"] == nil {
			caps["tasks"] = t
		}
		if text, _ := rawjson.String(rawjson.Member(init, "instructions")); text != "" {
			head := "Server " + m.Name
			if m.prefix != "" {
				head += " (its tools and prompts are named " + m.prefix + "NAME)"
			}
			instructions = append(instructions, head+":\n"+text)
		}
	}
	res := map[string]any{"protocolVersion": mcp.LatestVersion, "capabilities": caps, "serverInfo": g.Info}
	if len(instructions) > 0 {
		res["instructions"] = strings.Join(instructions, "\n\n")
	}
	return rawjson.Marshal(res)
}

// upNow is the member's shared session when it is up, without opening
// it; nil otherwise (and with Isolate, where each client has its own).
func (m *Member) upNow() *serve.Session {
	if m.life == nil {
		return nil
	}
	m.life.mu.Lock()
	defer m.life.mu.Unlock()
	return m.life.u // nil but while up
}
