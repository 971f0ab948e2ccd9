package mcptest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// JSON-RPC error codes the server answers with.
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeResourceNotFound = -32002
)

// lists are the paginated methods, by the key their items are under.
var lists = map[string]string{
	"tools/list":               "tools",
	"prompts/list":             "prompts",
	"resources/list":           "resources",
	"resources/templates/list": "resourceTemplates",
	"skills/list":              "skills",
}

// gates are the methods served only with a capability declared.
var gates = map[string]string{
	"tools/list":               "tools",
	"tools/call":               "tools",
	"prompts/list":             "prompts",
	"prompts/get":              "prompts",
	"resources/list":           "resources",
	"resources/templates/list": "resources",
	"resources/read":           "resources",
	"logging/setLevel":         "logging",
	"completion/complete":      "completions",
}

// repeatedCursor is every page's nextCursor for a method in RepeatCursor.
const repeatedCursor = "again"

// specError is a JSON-RPC error a spec server answers.
type specError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"` // the error's data, when it has some
}

// ServeSpec serves spec on r and w, one JSON-RPC message a line, answering
// each request in turn, until r ends (nil) or fails, or a write fails (its
// error). It reads lines of any length; a line that is no JSON is answered
// with a parse error, a batch as an invalid request.
func ServeSpec(spec *Spec, r io.Reader, w io.Writer) error {
	s := newServer(config{spec: spec}, r, w, io.Discard)
	s.serve()
	return s.werr
}

func (spec *Spec) handle(method string, params json.RawMessage) (json.RawMessage, *specError) {
	if slices.Contains(spec.MethodNotFound, method) {
		return nil, notFound(method)
	}
	for _, key := range []string{method, method + " " + param(params, "name")} { // a method's, or one tool's or prompt's
		if e, ok := spec.Errors[key]; ok {
			return nil, &e
		}
	}
	if c, gated := gates[method]; gated && spec.declared(c) == nil && !slices.Contains(spec.ServeUndeclared, method) {
		return nil, notFound(method)
	}
	if res, ok := spec.Answers[method]; ok {
		return res, nil
	}
	if key := map[string]string{"prompts/get": "name", "resources/read": "uri", "tools/call": "name"}[method]; key != "" &&
		spec.has("invalid-params-32601") && len(member(params, key)) == 0 {
		return nil, notFound(method) // as rmcp's servers answer params they cannot read
	}
	modern := spec.Era == "modern"
	if modern && slices.Contains([]string{"logging/setLevel", "resources/subscribe", "resources/unsubscribe"}, method) {
		return nil, notFound(method) // the initialize era's alone
	}
	switch method {
	case "ping", "logging/setLevel":
		if method == "ping" && spec.has("ping-not-found") {
			return nil, notFound(method)
		}
		return json.RawMessage(`{}`), nil
	case "server/discover":
		if !modern {
			return nil, notFound(method)
		}
		return discover(spec), nil
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list", "skills/list":
		items := map[string][]json.RawMessage{"tools/list": spec.Tools, "prompts/list": spec.Prompts,
			"resources/list": spec.Resources, "resources/templates/list": spec.ResourceTemplates,
			"skills/list": spec.Skills}
		return page(spec, method, items[method], params)
	case "tools/call":
		return canned(params, "name", spec.CallResults, spec.Tools, "tool", codeInvalidParams, func(name string) any {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "called " + name}}}
		})
	case "prompts/get":
		return canned(params, "name", spec.PromptResults, spec.Prompts, "prompt", codeInvalidParams, func(name string) any {
			return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": name}}}}
		})
	case "resources/read":
		return canned(params, "uri", spec.ReadResults, spec.Resources, "resource", codeResourceNotFound, func(uri string) any {
			return map[string]any{"contents": []any{map[string]any{"uri": uri, "text": ""}}}
		})
	case "skills/get":
		if i := slices.IndexFunc(spec.Skills, func(sk json.RawMessage) bool { return param(sk, "uri") == param(params, "uri") }); i >= 0 {
			return mustJSON(map[string]any{"skill": spec.Skills[i]}), nil
		}
		return nil, &specError{Code: codeInvalidParams, Message: "unknown skill"}
	case "resources/directory/read":
		uri, _ := stringMember(params, "uri")
		var children []any
		for _, sk := range spec.Skills {
			if u, _ := stringMember(sk, "uri"); strings.TrimSuffix(u, "/SKILL.md") == uri {
				children = append(children, map[string]any{"uri": u, "name": "SKILL.md"})
			}
		}
		if children == nil {
			return nil, &specError{Code: codeInvalidParams, Message: "not a directory"}
		}
		return mustJSON(map[string]any{"resources": children}), nil
	case "resources/subscribe", "resources/unsubscribe":
		if string(spec.declared("resources", "subscribe")) != "true" || spec.has("subscribe-not-found") {
			return nil, notFound(method)
		}
		return json.RawMessage(`{}`), nil
	case "completion/complete":
		return json.RawMessage(`{"completion":{"values":["alpha","beta"],"total":2,"hasMore":false}}`), nil
	}
	return nil, notFound(method)
}

func notFound(method string) *specError {
	return &specError{Code: codeMethodNotFound, Message: "method not found: " + method}
}

// initialize answers initialize: the version asked for when the server
// speaks it, else its ProtocolVersion or its latest; then the version
// faults.
func (s *Spec) initialize(params json.RawMessage) (json.RawMessage, *specError) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &specError{Code: codeInvalidParams, Message: "initialize: " + err.Error()}
	}
	offered, version := p.ProtocolVersion, cmp.Or(s.ProtocolVersion, s.versions()[0])
	switch i := slices.Index(knownVersions, offered); {
	case s.has("version-cycle") && i >= 0:
		version = knownVersions[min(i+1, len(knownVersions)-1)]
	case s.has("echo-any-version") && i < 0:
		version = cmp.Or(offered, version)
	case s.has("old-fallback") && i < 0:
		version = knownVersions[len(knownVersions)-1]
	case slices.Contains(s.versions(), offered):
		version = offered
	}
	info := pick(s.has("init-no-server-info"), nil, s.serverInfo())
	return mustJSON(struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo,omitempty"`
		Instructions    string          `json:"instructions,omitempty"`
	}{version, s.capabilities(), info, s.Instructions}), nil
}

// discover answers server/discover
// (https://modelcontextprotocol.io/specification/2026-07-28/server/discover).
func discover(spec *Spec) json.RawMessage {
	res := map[string]any{"supportedVersions": []string{specModernVersion}, "capabilities": spec.capabilities(),
		"_meta": map[string]json.RawMessage{"io.modelcontextprotocol/serverInfo": spec.serverInfo()}}
	if spec.Instructions != "" {
		res["instructions"] = spec.Instructions
	}
	spec.hint(res)
	return mustJSON(res)
}

// hint sets the caching hints of a modern result that may carry them.
func (spec *Spec) hint(res map[string]any) {
	if spec.Era != "modern" {
		return
	}
	if spec.TTLMs != nil {
		res["ttlMs"] = *spec.TTLMs
	}
	if spec.CacheScope != "" {
		res["cacheScope"] = spec.CacheScope
	}
}

// page answers one page of a list. A cursor is the offset of the page's
// first item, in decimal; RepeatCursor's cursor stands for the second page.
func page(spec *Spec, method string, items []json.RawMessage, params json.RawMessage) (json.RawMessage, *specError) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := json.Unmarshal(params, &p); len(params) > 0 && err != nil {
		return nil, &specError{Code: codeInvalidParams, Message: method + ": " + err.Error()}
	}
	size := cmp.Or(spec.PageSize, max(len(items), 1))
	repeat := slices.Contains(spec.RepeatCursor, method)
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		switch {
		case repeat && *p.Cursor == repeatedCursor:
			start = size
		case err != nil || n < 0:
			return nil, &specError{Code: codeInvalidParams, Message: fmt.Sprintf("%s: invalid cursor %q", method, *p.Cursor)}
		default:
			start = n
		}
	}
	end := min(start+size, len(items))
	pageItems := append([]json.RawMessage{}, items[min(start, end):end]...)
	if slices.Contains(spec.EndlessItems, method) {
		for i := range size {
			pageItems = append(pageItems, endlessItem(method, start+i))
		}
		return mustJSON(map[string]any{lists[method]: pageItems, "nextCursor": strconv.Itoa(start + size)}), nil
	}
	next := ""
	switch {
	case repeat:
		next = repeatedCursor
	case slices.Contains(spec.EndlessCursor, method):
		next = strconv.Itoa(start + size)
	case end < len(items):
		next = strconv.Itoa(end)
	}
	res := map[string]any{lists[method]: pageItems}
	if next != "" {
		res["nextCursor"] = next
		if spec.has("integer-cursor") {
			n, _ := strconv.Atoi(next)
			res["nextCursor"] = n
		}
	} else if spec.has("null-cursor") {
		res["nextCursor"] = nil
	}
	spec.hint(res)
	return mustJSON(res), nil
}

// endlessItem is the nth item of an endless list: named after its place,
// so that every page brings something new.
func endlessItem(method string, n int) json.RawMessage {
	switch method {
	case "resources/list":
		return json.RawMessage(fmt.Sprintf(`{"uri":"endless://%d","name":"r%d"}`, n, n))
	case "resources/templates/list":
		return json.RawMessage(fmt.Sprintf(`{"uriTemplate":"endless://%d/{x}","name":"t%d"}`, n, n))
	}
	return json.RawMessage(fmt.Sprintf(`{"name":"endless-%d","inputSchema":{"type":"object"}}`, n))
}

// canned answers a call on a named thing (a tool, a prompt, a resource):
// its canned result, or a default one for a listed thing, or an error.
func canned(params json.RawMessage, key string, results map[string]json.RawMessage, listed []json.RawMessage, what string, missing int, def func(string) any) (json.RawMessage, *specError) {
	name, ok := stringMember(params, key)
	if !ok {
		return nil, &specError{Code: codeInvalidParams, Message: fmt.Sprintf("params.%s: want a string", key)}
	}
	if res, ok := results[name]; ok {
		return res, nil
	}
	for _, item := range listed {
		if n, ok := stringMember(item, key); ok && n == name {
			return mustJSON(def(name)), nil
		}
	}
	return nil, &specError{Code: missing, Message: fmt.Sprintf("unknown %s %q", what, name)}
}

// mustJSON encodes v, which holds only values that encode, with <, >
// and & as they are (rawjson.Encode).
func mustJSON(v any) json.RawMessage {
	b, err := rawjson.Encode(v)
	if err != nil {
		panic(err)
	}
	return b
}
