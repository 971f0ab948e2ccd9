// Package mock is a server read from files, for testing MCP clients: the
// surface of an mcpv test snapshot (tools, prompts, resource templates)
// and a responses file (what each call, read and get answers). A Mock is
// served to clients as a relay serves a real server, through
// internal/serve, so it speaks both eras on both transports; it answers
// as a server of the initialize era, and serve translates for modern
// clients. Recorder writes the two files from what passes through a
// relay.
package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/toolargs"
)

// Version is the protocol version the mock's initialize result says.
const Version = mcp.LatestVersion

// Mock answers requests from a snapshot and responses.
type Mock struct {
	snap  surface.Snapshot
	resp  *Responses
	tools map[string]json.RawMessage // name -> definition
	init  json.RawMessage

	once sync.Once     // closes done
	done chan struct{} // closed by Close
}

// New is a mock of snap answering from resp (nil: nothing recorded).
func New(snap surface.Snapshot, resp *Responses, info mcp.Implementation) *Mock {
	if resp == nil {
		resp = &Responses{}
	}
	m := &Mock{snap: snap, resp: resp, tools: map[string]json.RawMessage{}, done: make(chan struct{})}
	for _, entries := range [][]Entry{resp.Tools, resp.Prompts} {
		for i := range entries {
			entries[i].wanted() // now, not by the calls that may come at once
		}
	}
	for _, t := range snap.Tools {
		m.tools[member(t, "name")] = t
	}
	caps := map[string]any{}
	if len(snap.Tools) > 0 {
		caps["tools"] = map[string]any{}
	}
	if len(snap.Prompts) > 0 {
		caps["prompts"] = map[string]any{}
	}
	if len(snap.ResourceTemplates) > 0 || len(resp.Resources) > 0 {
		caps["resources"] = map[string]any{"subscribe": true}
	}
	m.init, _ = json.Marshal(map[string]any{"protocolVersion": Version, "capabilities": caps, "serverInfo": info})
	return m
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
func (m *Mock) Err() error            { return errors.New("the mock was closed") }
func (m *Mock) Close()                { m.once.Do(func() { close(m.done) }) }

// Forward answers a request of the initialize era.
func (m *Mock) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return nil, invalid("params: not an object")
	}
	switch method {
	case "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		return json.RawMessage(`{}`), nil
	case "tools/list":
		return list("tools", m.snap.Tools), nil
	case "prompts/list":
		return list("prompts", m.snap.Prompts), nil
	case "resources/templates/list":
		return list("resourceTemplates", m.snap.ResourceTemplates), nil
	case "resources/list":
		items := make([]json.RawMessage, 0, len(m.resp.Resources))
		for _, e := range m.resp.Resources {
			it := e.Resource
			if it == nil {
				it, _ = json.Marshal(map[string]string{"uri": e.URI, "name": e.URI})
			}
			items = append(items, it)
		}
		return list("resources", items), nil
	case "completion/complete":
		return json.RawMessage(`{"completion":{"values":[]}}`), nil
	case "tools/call":
		return m.call(ctx, p.Name, p.Arguments)
	case "prompts/get":
		return m.get(ctx, p.Name, p.Arguments)
	case "resources/read":
		return m.read(p.URI)
	}
	return nil, mcp.MethodNotFound(method)
}

func (m *Mock) call(ctx context.Context, name string, rawArgs json.RawMessage) (json.RawMessage, error) {
	def, ok := m.tools[name]
	if !ok {
		return nil, invalid("unknown tool: " + strconv.Quote(name) + suggest.DidYouMean(name, names(m.snap.Tools)))
	}
	if rawArgs == nil {
		rawArgs = json.RawMessage(`{}`)
	}
	if schema := memberRaw(def, "inputSchema"); schema != nil {
		v, err := toolargs.Compile(ctx, schema)
		if err != nil {
			return nil, &mcp.RPCError{Code: mcp.CodeInternalError, Message: fmt.Sprintf("tool %q: its inputSchema cannot be used: %v", name, err)}
		}
		if err := v.Validate(ctx, rawArgs); err != nil {
			var viol *toolargs.Violation
			if errors.As(err, &viol) {
				return nil, invalid(fmt.Sprintf("invalid arguments for tool %q: %s", name, viol.Error()))
			}
			return nil, invalid(fmt.Sprintf("invalid arguments for tool %q: %v", name, err))
		}
	}
	if res, ok, err := answer(ctx, m.resp.Tools, name, rawArgs); ok || err != nil {
		return res, err
	}
	text := "mock: no response for tool " + strconv.Quote(name) + " with arguments " + compact(rawArgs) + closest(m.resp.Tools, name, rawArgs)
	return json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": text}}, "isError": true})
}

func (m *Mock) get(ctx context.Context, name string, rawArgs json.RawMessage) (json.RawMessage, error) {
	if !slices.Contains(names(m.snap.Prompts), name) {
		return nil, invalid("unknown prompt: " + strconv.Quote(name) + suggest.DidYouMean(name, names(m.snap.Prompts)))
	}
	if rawArgs == nil {
		rawArgs = json.RawMessage(`{}`)
	}
	if res, ok, err := answer(ctx, m.resp.Prompts, name, rawArgs); ok || err != nil {
		return res, err
	}
	return nil, invalid("mock: no response for prompt " + strconv.Quote(name) + " with arguments " + compact(rawArgs) + closest(m.resp.Prompts, name, rawArgs))
}

func (m *Mock) read(uri string) (json.RawMessage, error) {
	uris := make([]string, len(m.resp.Resources))
	for i, e := range m.resp.Resources {
		if e.URI == uri {
			return e.Result, nil
		}
		uris[i] = e.URI
	}
	return nil, &mcp.RPCError{Code: codeResourceNotFound, Message: "mock: no response for resource " + strconv.Quote(uri) + suggest.DidYouMean(uri, uris)}
}

// codeResourceNotFound is the error of a resource that does not exist
// (specification, server/resources, Error Handling).
const codeResourceNotFound = -32002

// answer is the result of the entry for name recorded with exactly
// args, else of the first that matches them; an entry whose jq went past
// its bounds is an error the call gets.
func answer(ctx context.Context, entries []Entry, name string, rawArgs json.RawMessage) (json.RawMessage, bool, error) {
	var args any
	json.Unmarshal(rawArgs, &args)
	for i := range entries { // an entry of exactly these arguments first
		e := &entries[i]
		if e.Name == name && e.JQ == "" && exactly(e.wanted(), args) {
			return e.Result, true, nil
		}
	}
	for i := range entries {
		if entries[i].Name != name {
			continue
		}
		ok, err := entries[i].matches(ctx, args)
		if err != nil {
			return nil, false, &mcp.RPCError{Code: mcp.CodeInternalError, Message: "mock: the responses' " + err.Error()}
		}
		if ok {
			return entries[i].Result, true, nil
		}
	}
	return nil, false, nil
}

// closest names the entry nearest to a call none answers: of the same
// name, the one whose arguments agree most; else the nearest name.
func closest(entries []Entry, name string, rawArgs json.RawMessage) string {
	var args any
	json.Unmarshal(rawArgs, &args)
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
		e := entries[best]
		s := "; the closest: " + strconv.Quote(e.Name)
		if e.Arguments != nil {
			s += " with arguments " + compact(e.Arguments)
		}
		if e.JQ != "" {
			s += " where " + e.JQ
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

func list(key string, items []json.RawMessage) json.RawMessage {
	if items == nil {
		items = []json.RawMessage{}
	}
	b, _ := json.Marshal(map[string]any{key: items})
	return b
}

func names(items []json.RawMessage) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = member(it, "name")
	}
	return out
}

func member(raw json.RawMessage, key string) string {
	var s string
	json.Unmarshal(memberRaw(raw, key), &s)
	return s
}

func memberRaw(raw json.RawMessage, key string) json.RawMessage {
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m)
	return m[key]
}

func compact(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
