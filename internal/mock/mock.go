// Package mock is a server read from files, for testing MCP clients: the
// surface of an mcpv test snapshot (tools, prompts, resource templates)
// and responses files (who the server says it is, and what each call,
// read, get and completion answers, with the waits, notifications and
// questions to the client that come before). A Mock is served to clients
// as a relay serves a real server, through internal/serve, so it speaks
// both eras on both transports; it answers as a server of the initialize
// era, and serve translates for modern clients (a question to a modern
// client becomes an input_required result there). Recorder writes the
// files from what passes through a relay.
package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/toolargs"
	"github.com/mcpv/mcpv/internal/uritemplate"
	"github.com/mcpv/mcpv/mcp"
)

// Version is the protocol version the mock's initialize result says.
const Version = mcp.LatestVersion

// Mock answers requests from a snapshot and responses.
type Mock struct {
	snap  surface.Snapshot
	resp  *Responses
	tools map[string]json.RawMessage // name -> definition
	init  mcp.InitializeResult
	notes []string
	// templates are the snapshot's resource templates, to say which one
	// a read nothing answers is of.
	templates []*uritemplate.Template

	mu sync.Mutex  // guards r
	r  serve.Relay // serve's, for notifications and questions to clients

	// observe, when set, is told of each question put to a client and
	// its answer (set before serving starts).
	observe func(serve.Exchange)

	once sync.Once     // closes done
	done chan struct{} // closed by Close
}

// New is a mock of snap answering from resp (nil: nothing recorded),
// saying it is info unless resp's server section says otherwise.
func New(snap surface.Snapshot, resp *Responses, info mcp.Implementation) *Mock {
	if resp == nil {
		resp = &Responses{}
	}
	m := &Mock{snap: snap, resp: resp, tools: map[string]json.RawMessage{}, done: make(chan struct{})}
	for _, entries := range [][]Entry{resp.Tools, resp.Prompts, resp.Resources, resp.Completions} {
		for i := range entries {
			entries[i].wanted() // now, not by the calls that may come at once
			if entries[i].Times > 0 && entries[i].used == nil {
				entries[i].used = new(atomic.Int64)
			}
		}
	}
	for _, t := range snap.Tools {
		m.tools[rawjson.Key(t, "name")] = t
	}
	for _, t := range snap.ResourceTemplates {
		if tm, err := uritemplate.Parse(rawjson.Key(t, "uriTemplate")); err == nil && tm.Matchable() == nil {
			m.templates = append(m.templates, tm)
		}
	}
	m.init, m.notes = initResult(snap, resp, info)
	return m
}

// ObserveQuestions has f told of each question the mock puts to a client
// and the client's answer (an Exchange that is Asked), as
// serve.Server.Observe is told of what the clients ask. Call it before
// serving starts.
func (m *Mock) ObserveQuestions(f func(serve.Exchange)) { m.observe = f }

// Notes are what the mock says once as it starts: what of the recorded
// server it does not play.
func (m *Mock) Notes() []string { return m.notes }

// Open is the mock as serve's upstream, with serve's relay, which
// carries its notifications and questions to the clients.
func (m *Mock) Open(_ context.Context, r serve.Relay) (serve.Upstream, error) {
	m.mu.Lock()
	m.r = r
	m.mu.Unlock()
	return m, nil
}

func (m *Mock) relay() serve.Relay {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.r
}

func (m *Mock) State() mcp.State {
	return mcp.State{Version: Version, InitializeResult: m.init}
}

func (m *Mock) Relay(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return m.Forward(ctx, method, params)
}

func (m *Mock) ForwardNotification(context.Context, string, json.RawMessage) error { return nil }

func (m *Mock) Tool(_ context.Context, name string) (json.RawMessage, bool) {
	t, ok := m.tools[name]
	return t, ok
}

func (m *Mock) Done() <-chan struct{} { return m.done }
func (m *Mock) Err() error            { return errClosed }
func (m *Mock) Close()                { m.once.Do(func() { close(m.done) }) }

// Forward answers a request of the initialize era.
func (m *Mock) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var p target
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return nil, invalid("params: not an object")
	}
	switch method {
	case "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		return json.RawMessage(`{}`), nil
	case mcp.Tools.Method:
		return list(mcp.Tools.Key, m.snap.Tools), nil
	case mcp.Prompts.Method:
		return list(mcp.Prompts.Key, m.snap.Prompts), nil
	case mcp.ResourceTemplates.Method:
		return list(mcp.ResourceTemplates.Key, m.snap.ResourceTemplates), nil
	case mcp.Resources.Method:
		var items []json.RawMessage
		for _, e := range m.resp.Resources {
			if e.URI == "" {
				continue // a template's
			}
			it := e.Resource
			if it == nil {
				it, _ = json.Marshal(map[string]string{"uri": e.URI, "name": e.URI})
			}
			items = append(items, it)
		}
		return list(mcp.Resources.Key, items), nil
	case "completion/complete":
		return m.complete(ctx, params)
	case "tools/call":
		return m.call(ctx, p.Name, p.Arguments, params)
	case "prompts/get":
		return m.get(ctx, p.Name, p.Arguments, params)
	case "resources/read":
		return m.read(ctx, p.URI, params)
	}
	return nil, mcp.MethodNotFound(method)
}

// target is what a request's params name: a tool or a prompt, with its
// arguments, or a resource.
type target struct {
	Name      string          `json:"name"`
	URI       string          `json:"uri"`
	Arguments json.RawMessage `json:"arguments"`
	Ref       json.RawMessage `json:"ref"`      // completion/complete's
	Argument  json.RawMessage `json:"argument"` // completion/complete's
}

func (m *Mock) call(ctx context.Context, name string, rawArgs, params json.RawMessage) (json.RawMessage, error) {
	def, ok := m.tools[name]
	if !ok {
		return nil, invalid("unknown tool: " + strconv.Quote(name) + suggest.DidYouMean(name, names(m.snap.Tools)))
	}
	rawArgs = orEmpty(rawArgs)
	// What the server answered to these very arguments (a recording, a
	// trace) is answered again, whether its schema takes them or not: a
	// --no-validate call of a trace replays as it ran.
	args, _ := decode(rawArgs)
	answered := slices.ContainsFunc(m.resp.Tools, func(e Entry) bool {
		return e.Name == name && e.JQ == "" && e.Arguments != nil && exactly(e.wanted(), args)
	})
	if schema := rawjson.Member(def, "inputSchema"); schema != nil && !answered {
		v, err := toolargs.Compile(ctx, schema)
		if err != nil {
			return nil, &mcp.RPCError{Code: mcp.CodeInternalError, Message: fmt.Sprintf("tool %q: its inputSchema cannot be used: %v", name, err)}
		}
		if err := v.Validate(ctx, rawArgs); err != nil {
			if viol, ok := errors.AsType[*toolargs.Violation](err); ok {
				return nil, invalid(fmt.Sprintf("invalid arguments for tool %q: %s", name, viol.Error()))
			}
			return nil, invalid(fmt.Sprintf("invalid arguments for tool %q: %v", name, err))
		}
	}
	if res, ok, err := m.byName(ctx, m.resp.Tools, name, rawArgs, params); ok || err != nil {
		return res, err
	}
	text := "mock: no response for tool " + strconv.Quote(name) + " with arguments " + compact(rawArgs) + closest(m.resp.Tools, name, rawArgs)
	return json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": text}}, "isError": true})
}

func (m *Mock) get(ctx context.Context, name string, rawArgs, params json.RawMessage) (json.RawMessage, error) {
	if !slices.Contains(names(m.snap.Prompts), name) {
		return nil, invalid("unknown prompt: " + strconv.Quote(name) + suggest.DidYouMean(name, names(m.snap.Prompts)))
	}
	rawArgs = orEmpty(rawArgs)
	if res, ok, err := m.byName(ctx, m.resp.Prompts, name, rawArgs, params); ok || err != nil {
		return res, err
	}
	return nil, invalid("mock: no response for prompt " + strconv.Quote(name) + " with arguments " + compact(rawArgs) + closest(m.resp.Prompts, name, rawArgs))
}

// byName answers a call or get of name with the entry that matches its
// arguments, if one does (ok).
func (m *Mock) byName(ctx context.Context, entries []Entry, name string, rawArgs, params json.RawMessage) (res json.RawMessage, ok bool, err error) {
	args, _ := decode(rawArgs)
	e, _, err := pick(ctx, entries, func(e *Entry) (any, bool) { return args, e.Name == name },
		func(e *Entry, args any) bool { return e.JQ == "" && exactly(e.wanted(), args) })
	if e == nil || err != nil {
		return nil, false, err
	}
	res, err = m.run(ctx, e, call{params: params, input: args})
	return res, true, err
}

func (m *Mock) read(ctx context.Context, uri string, params json.RawMessage) (json.RawMessage, error) {
	e, vars, err := pick(ctx, m.resp.Resources, func(e *Entry) (any, bool) {
		if e.tmpl == nil {
			return map[string]any{}, e.URI == uri
		}
		v, ok := e.tmpl.Match(uri)
		if v == nil {
			return map[string]any{}, ok // a template's variables as jq sees them
		}
		return v, ok
	}, func(e *Entry, _ any) bool { return e.URI == uri })
	if err != nil {
		return nil, err
	}
	if e != nil {
		return m.run(ctx, e, call{params: params, input: vars})
	}
	var known []string
	for _, e := range m.resp.Resources {
		known = append(known, e.URI+e.Template)
	}
	msg := "mock: no response for resource " + strconv.Quote(uri)
	for _, t := range m.templates {
		if _, ok := t.Match(uri); ok {
			msg += " (of the template " + strconv.Quote(t.String()) + ")"
			break
		}
	}
	return nil, &mcp.RPCError{Code: codeResourceNotFound, Message: msg + suggest.DidYouMean(uri, known)}
}

// codeResourceNotFound is the error of a resource that does not exist
// (specification, server/resources, Error Handling).
const codeResourceNotFound = -32002

// complete answers completion/complete from the entry whose ref and
// argument the request's hold, else with no values.
func (m *Mock) complete(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	p, _ := decode(params)
	pm, _ := p.(map[string]any)
	e, input, err := pick(ctx, m.resp.Completions, func(e *Entry) (any, bool) {
		return p, subsetRaw(e.Ref, pm["ref"]) && (e.Argument == nil || subsetRaw(e.Argument, pm["argument"]))
	}, nil)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return json.RawMessage(`{"completion":{"values":[]}}`), nil
	}
	return m.run(ctx, e, call{params: params, input: input})
}

// pick is the entry that answers a request, and the input its jq sees:
// of the entries candidate admits (giving each one's input), file by
// file in order, within a file first one that exact says answers
// exactly, then the first whose arguments and jq match. An entry that
// has answered its times is passed over. A jq that went past its bounds
// is an error the request gets.
func pick(ctx context.Context, entries []Entry, candidate func(*Entry) (any, bool), exact func(*Entry, any) bool) (*Entry, any, error) {
	for start := 0; start < len(entries); {
		end := start + 1
		for end < len(entries) && entries[end].group == entries[start].group {
			end++
		}
		file := entries[start:end]
		start = end
		if exact != nil {
			for i := range file {
				e := &file[i]
				if input, ok := candidate(e); ok && exact(e, input) && e.claim() {
					return e, input, nil
				}
			}
		}
		for i := range file {
			if ctx.Err() != nil { // the request is over: no more entries are tried
				return nil, nil, context.Cause(ctx)
			}
			e := &file[i]
			input, ok := candidate(e)
			if !ok {
				continue
			}
			matched, err := e.matches(ctx, input)
			if err != nil {
				return nil, nil, &mcp.RPCError{Code: mcp.CodeInternalError, Message: "mock: the responses' " + err.Error()}
			}
			if matched && e.claim() {
				return e, input, nil
			}
		}
	}
	return nil, nil, nil
}

// claim counts a call the entry answers, and reports false when it has
// answered its times already.
func (e *Entry) claim() bool {
	return e.Times == 0 || e.used.Add(1) <= int64(e.Times)
}

// closest names the entry nearest to a call none answers: of the same
// name, the one whose arguments agree most; else the nearest name.
func closest(entries []Entry, name string, rawArgs json.RawMessage) string {
	args, _ := decode(rawArgs)
	best, score := -1, -1
	var all []string
	for i := range entries {
		e := &entries[i]
		all = append(all, e.Name)
		if e.Name != name {
			continue
		}
		if a := agreement(e.wanted(), args); a > score {
			best, score = i, a
		}
	}
	if best >= 0 {
		e := &entries[best]
		s := "; the closest: " + strconv.Quote(e.Name)
		if e.Arguments != nil {
			s += " with arguments " + compact(e.Arguments)
		}
		if e.JQ != "" {
			s += " where " + e.JQ
		}
		if e.Times > 0 && e.used.Load() >= int64(e.Times) {
			s += fmt.Sprintf(", which answered its %d times", e.Times)
		}
		return s
	}
	if near, ok := suggest.Nearest(name, all); ok {
		return "; the closest: " + strconv.Quote(near)
	}
	return "; none is recorded for it"
}

func invalid(msg string) *mcp.RPCError {
	return &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: msg}
}
