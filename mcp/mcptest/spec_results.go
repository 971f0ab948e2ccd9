package mcptest

// A spec server's answer to a request, as a line: the result or error
// the spec gives (handle), through the faults that change it, the modern
// era's _meta checked and its result fields stamped, and the JSON helpers
// the engine reads messages with.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/jsonschema"
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

// answer is the result or error of a request, its faults applied.
func (s *Spec) answer(st *specState, m msg) (json.RawMessage, *specError) {
	method, params := m.Method, m.Params
	if method == "prompts/list" && s.has("killed-on-prompts-list") {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill()
		}
	}
	switch {
	case s.Era == "modern" && method == "completion/complete" && s.has("input-required-elsewhere"):
		return json.RawMessage(`{"resultType":"input_required","requestState":"s1"}`), nil
	case s.Era == "modern" && s.has("removed-methods-served") && slices.Contains(removedMethods, method):
		return json.RawMessage(`{}`), nil
	}
	switch method {
	case "initialize":
		if e, ok := s.Errors[method]; ok && s.Era == "modern" { // a modern server's own refusal
			return nil, &e
		}
		if s.Era == "modern" && !s.has("initialize-served") && !s.edge("dual-era") {
			return nil, s.namesVersions(notFound(method))
		}
		return s.initialize(params)
	case "ping":
		if s.Era == "modern" {
			return nil, notFound(method) // 2026-07-28 has no ping
		}
		if s.has("ping-nonempty") {
			return json.RawMessage(`{"pong":true}`), nil
		}
	case "prompts/get", "resources/read", "tools/call":
		key := map[string]string{"prompts/get": "name", "resources/read": "uri", "tools/call": "name"}[method]
		if _, ok := stringMember(params, key); !ok && s.has("lenient-params") {
			return json.RawMessage(`{"contents":[],"messages":[],"content":[]}`), nil
		}
		if p, ok := object(params); ok && method == "tools/call" && s.has("tool-names-fold") {
			for _, t := range s.Tools { // the tool whose name differs in case alone is called
				if n, _ := stringMember(t, "name"); strings.EqualFold(n, param(params, "name")) {
					p["name"] = mustJSON(n)
				}
			}
			params = mustJSON(p)
		}
		// A tool that requires a task, called without one: -32601
		// (2025-11-25 basic/utilities/tasks#tool-level-negotiation).
		if method == "tools/call" && member(params, "task") == nil && !s.has("task-required-served") &&
			s.toolTaskSupport(param(params, "name")) == "required" {
			return nil, &specError{Code: codeMethodNotFound, Message: "tools/call: the tool requires a task"}
		}
	}
	if _, ok := lists[method]; ok {
		params = s.cursorFaults(st, method, params)
	}
	if s.Era == "modern" && s.has("mrtr") && (method == "prompts/get" && param(params, "name") == "ask" ||
		method == "tools/call" && param(params, "name") == "gated" && member(s.capsOf(st, params), "elicitation") != nil) {
		return s.askPrompt(st, method, params)
	}
	res, e := s.handle(method, params)
	if id := strings.Trim(string(m.ID), `"`); e == nil && method == "tools/list" && member(params, "cursor") == nil {
		perConn, reverse := s.has("tools-per-connection") || s.has("tools-after-call") && locked(&st.mu, func() bool { return st.called }), s.has("tools-order-varies") && id != "" && strings.Contains("13579", id[len(id)-1:])
		var r map[string]json.RawMessage
		var tools []json.RawMessage
		if (perConn || reverse) && json.Unmarshal(res, &r) == nil && json.Unmarshal(r["tools"], &tools) == nil {
			if reverse {
				slices.Reverse(tools)
			}
			if perConn {
				tools = append(tools, mustJSON(map[string]any{"name": fmt.Sprintf("conn-%d-%p", os.Getpid(), st), "inputSchema": map[string]string{"type": "object"}}))
			}
			r["tools"] = mustJSON(tools)
			res = mustJSON(r)
		}
	}
	if e == nil && method == "prompts/get" && s.Era == "modern" && s.missingArgs(params) == "" {
		// A prompt got as it should be: asking for input instead.
		switch {
		case s.has("input-required-empty"):
			return json.RawMessage(`{"resultType":"input_required"}`), nil
		case s.has("input-asks-tool-call"):
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{"t1":{"method":"tools/call","params":{"name":"echo","arguments":{}}}}}`), nil
		case s.has("input-asks-elicitation"):
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{"e1":{"method":"elicitation/create","params":{"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}`), nil
		}
	}
	if method == "logging/setLevel" && e == nil && !s.has("log-level-ignored") {
		withLock(&st.mu, func() { st.logLevel, _ = stringMember(params, "level") })
	}
	return s.answerFaults(method, params, res, e)
}

// answerFaults is the answer to method made (res, e), through the faults
// that change an answer once it is made.
func (s *Spec) answerFaults(method string, params, res json.RawMessage, e *specError) (json.RawMessage, *specError) {
	if e == nil {
		res = s.memberFaults(method, res)
	}
	lvl, leveled := stringMember(member(params, "_meta"), "io.modelcontextprotocol/logLevel")
	switch {
	case s.Era == "modern" && leveled && !slices.Contains(logLevels, lvl) && !s.has("lenient-log-level"): // 2026-07-28 server/utilities/logging#error-handling
		return nil, &specError{Code: codeInvalidParams, Message: method + ": unknown log level in _meta"}
	case e == nil && method == "tools/call" && s.has("url-required-bare") && s.invalidArgs(params) == "":
		return nil, &specError{Code: -32042, Message: "This request needs a URL elicitation", Data: json.RawMessage(`{"elicitations":[{"mode":"form","message":"Sign in"}]}`)}
	case e == nil && method == "prompts/get":
		if missing := s.missingArgs(params); missing != "" && !s.has("lenient-prompt-args") {
			return nil, &specError{Code: codeInvalidParams, Message: "prompts/get: missing required argument " + missing}
		}
	case e == nil && method == "tools/call":
		// Arguments the tool's inputSchema refuses: a tool execution
		// error, which a model can correct itself by (2025-11-25
		// server/tools#error-handling).
		switch bad := s.invalidArgs(params); {
		case bad == "" || s.has("no-input-validation"):
		case s.has("input-errors-32602"):
			return nil, &specError{Code: codeInvalidParams, Message: "tools/call: " + bad}
		case s.edge("input-error-bare"):
			return json.RawMessage(`{"content":[],"isError":true}`), nil
		default:
			return mustJSON(map[string]any{"content": []any{map[string]string{"type": "text", "text": "invalid arguments: " + bad}}, "isError": true}), nil
		}
	case e != nil && e.Code == codeMethodNotFound && s.has("unknown-method-internal") && gates[method] == "" && // a method the spec server does not serve
		!slices.Contains([]string{"initialize", "ping", "server/discover", "logging/setLevel", "completion/complete", "subscriptions/listen", "resources/subscribe", "resources/unsubscribe"}, method):
		return nil, &specError{Code: -32603, Message: "internal error"}
	case e != nil && e.Code == codeResourceNotFound && method == "resources/read":
		uri, _ := stringMember(params, "uri")
		switch {
		case s.has("file-traversal") && strings.HasPrefix(uri, "file:") && (strings.Contains(uri, "/../") || strings.Contains(strings.ToLower(uri), "%2e%2e")):
			return mustJSON(map[string]any{"contents": []any{map[string]string{"uri": uri, "text": "root:x:0:0:root:/root:/bin/sh"}}}), nil
		case s.has("unknown-resource-empty"):
			return json.RawMessage(`{"contents":[]}`), nil
		case s.Era == "modern" && !s.has("old-not-found-code"):
			e.Code = codeInvalidParams
		}
	case e != nil && method == "prompts/get" && s.has("unknown-prompt-result"):
		return json.RawMessage(`{"messages":[]}`), nil
	case e != nil && method == "tools/call" && s.has("unknown-tool-result"):
		return json.RawMessage(`{"content":[{"type":"text","text":"no such tool"}],"isError":true}`), nil
	case e != nil && method == "tools/call" && s.has("unknown-tool-32601"):
		return nil, &specError{Code: codeMethodNotFound, Message: "Unknown tool: " + param(params, "name")}
	case e == nil && method == "completion/complete" && (member(params, "ref") == nil || member(params, "argument") == nil) && !s.has("lenient-complete"):
		return nil, &specError{Code: codeInvalidParams, Message: "completion/complete: ref and argument are required"}
	case e == nil && method == "completion/complete" && s.has("has-more-string"):
		return json.RawMessage(`{"completion":{"values":[],"hasMore":"false"}}`), nil
	case e == nil && method == "completion/complete" && s.has("complete-template-150"):
		values := []string{}
		if ref, _ := stringMember(member(params, "ref"), "type"); ref == "ref/resource" {
			for i := range 150 {
				values = append(values, fmt.Sprint("v", i))
			}
		}
		return mustJSON(map[string]any{"completion": map[string]any{"values": values}}), nil
	case method == "logging/setLevel" && e == nil:
		if lvl, _ := stringMember(params, "level"); !slices.Contains(logLevels, lvl) && !s.has("lenient-log-level") {
			return nil, &specError{Code: codeInvalidParams, Message: "logging/setLevel: unknown level"}
		}
		if s.has("null-result") {
			return json.RawMessage(`null`), nil
		}
	}
	return res, e
}

// memberFaults are a result through the faults that give every item of
// one of its arrays a member of the wrong shape.
func (s *Spec) memberFaults(method string, res json.RawMessage) json.RawMessage {
	for _, f := range []struct{ fault, method, key, member, value string }{
		{"tool-title-number", "tools/list", "tools", "title", `5`},
		{"task-support-sometimes", "tools/list", "tools", "execution", `{"taskSupport":"sometimes"}`},
		{"content-audience-system", "tools/call", "content", "annotations", `{"audience":["system"]}`},
		{"content-priority-5", "tools/call", "content", "annotations", `{"priority":5}`},
		{"resource-size-string", "resources/list", "resources", "size", `"12"`},
	} {
		if f.method != method || !s.has(f.fault) {
			continue
		}
		var r map[string]json.RawMessage
		var items []map[string]json.RawMessage
		if json.Unmarshal(res, &r) != nil || json.Unmarshal(r[f.key], &items) != nil {
			continue
		}
		for _, it := range items {
			it[f.member] = json.RawMessage(f.value)
		}
		r[f.key] = mustJSON(items)
		res = mustJSON(r)
	}
	return res
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// cursorFaults are a list request's params through the cursor faults.
func (s *Spec) cursorFaults(st *specState, method string, params json.RawMessage) json.RawMessage {
	cursor, hasCursor := stringMember(params, "cursor")
	if hasCursor && s.has("unstable-cursor") {
		n := locked(&st.mu, func() int { st.asked[method+cursor]++; return st.asked[method+cursor] })
		if start, err := strconv.Atoi(cursor); err == nil {
			params = mustJSON(map[string]string{"cursor": strconv.Itoa(start + n%2)})
		}
	}
	if _, err := strconv.Atoi(cursor); hasCursor && s.has("lenient-cursor") && err != nil && cursor != repeatedCursor {
		params = nil
	}
	return params
}

// missingArgs names a required argument of the prompt params name that
// params do not give, or "".
func (s *Spec) missingArgs(params json.RawMessage) string {
	given, _ := object(member(params, "arguments")) // arguments that are no object give none
	for _, pr := range s.Prompts {
		var d struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name     string          `json:"name"`
				Required json.RawMessage `json:"required"`
			} `json:"arguments"`
		}
		if json.Unmarshal(pr, &d) != nil || d.Name != param(params, "name") {
			continue
		}
		for _, a := range d.Arguments {
			// Anything but false taken as required, as a lenient server
			// reads its own "required": "true".
			required := a.Required != nil && string(a.Required) != "false" && string(a.Required) != "null"
			if _, ok := given[a.Name]; required && !ok {
				return a.Name
			}
		}
	}
	return ""
}

// namesVersions adds to e, an error a client of the initialize era may
// get, the versions the server speaks (2026-07-28 basic/versioning: its
// one diagnostic), unless initialize-no-versions.
func (s *Spec) namesVersions(e *specError) *specError {
	if !s.has("initialize-no-versions") {
		e.Message += ": this server speaks protocol " + specModernVersion + " alone"
	}
	return e
}

// checkMeta checks a modern request's _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta).
func (s *Spec) checkMeta(params json.RawMessage) *specError {
	if s.has("lenient-meta") {
		return nil
	}
	meta := member(params, "_meta")
	version, ok := stringMember(meta, "io.modelcontextprotocol/protocolVersion")
	switch {
	case !ok || member(meta, "io.modelcontextprotocol/clientCapabilities") == nil:
		// what a client of the initialize era, which sends none, can show its user
		return s.namesVersions(&specError{Code: codeInvalidParams, Message: "missing required _meta fields"})
	case s.has("client-info-required") && member(meta, "io.modelcontextprotocol/clientInfo") == nil:
		return &specError{Code: codeInvalidParams, Message: "missing clientInfo"}
	case version != specModernVersion && !s.has("any-modern-version"):
		return &specError{Code: -32022, Message: "Unsupported protocol version",
			Data: mustJSON(map[string]any{"supported": []string{specModernVersion}, "requested": version})}
	}
	return nil
}

// resultLine is a result response, stamped for the era and through the
// faults that shape every answer.
func (s *Spec) resultLine(id json.RawMessage, method string, res json.RawMessage) string {
	var b bytes.Buffer
	json.Compact(&b, res)
	body := b.String()
	if len(s.Edges) > 0 {
		var r map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &r) == nil {
			s.edgeResult(method, r)
			body = string(mustJSON(r))
		}
	}
	if s.Era == "modern" {
		body = s.stampResult(method, body)
	}
	if s.has("bad-utf8") && strings.HasPrefix(body, "{") {
		body = `{"x":"` + "\xff" + `"` + pick(body == "{}", "", ",") + body[1:]
	}
	switch {
	case s.has("no-jsonrpc-version"):
		return fmt.Sprintf(`{"id":%s,"result":%s}`, id, body)
	case s.has("result-and-error"):
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s,"error":{"code":-32603,"message":"and an error"}}`, id, body)
	case s.has("result-and-null-error"):
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s,"error":null}`, id, body)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, body)
}

// stampResult adds the modern era's members to a result: resultType,
// caching hints where they are due, the server's info in _meta.
func (s *Spec) stampResult(method, body string) string {
	var r map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &r) != nil {
		return body
	}
	if !s.has("no-result-type") && r["resultType"] == nil {
		r["resultType"] = json.RawMessage(`"complete"`)
	}
	if s.has("result-type-unknown") && string(r["resultType"]) == `"complete"` {
		r["resultType"] = json.RawMessage(`"done"`)
	}
	if slices.Contains([]string{"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"}, method) && !s.has("no-cache-hints") {
		// A spec's own hints (ttlMs, cacheScope) stand; the rest are due.
		if r["ttlMs"] == nil {
			r["ttlMs"] = json.RawMessage(`0`)
		}
		if s.has("ttl-string") {
			r["ttlMs"] = json.RawMessage(`"60000"`)
		}
		if s.has("scope-per-page") && r["nextCursor"] == nil {
			r["cacheScope"] = json.RawMessage(`"private"`)
		} else if r["cacheScope"] == nil {
			r["cacheScope"] = json.RawMessage(`"public"`)
		}
	}
	if meta := map[string]json.RawMessage{"io.modelcontextprotocol/serverInfo": s.serverInfo()}; !s.has("result-no-server-info") && (r["_meta"] == nil || json.Unmarshal(r["_meta"], &meta) == nil) {
		r["_meta"] = mustJSON(meta)
	}
	for fault, key := range map[string]string{"discover-no-capabilities": "capabilities", "discover-no-versions": "supportedVersions", "discover-no-server-info": "_meta"} {
		if method == "server/discover" && s.has(fault) {
			delete(r, key)
		}
	}
	return string(mustJSON(r))
}

// errorLine is an error response, with data when given, through the
// faults that shape every error.
func (s *Spec) errorLine(id json.RawMessage, code int, message string, data ...json.RawMessage) string {
	if s.has("multiline-errors") {
		message += "\n    at serve (server.go:1)"
	}
	text := mustString(message)
	codeText := strconv.Itoa(code)
	if s.has("string-error-code") {
		codeText = `"` + codeText + `"`
	} else if s.edge("error-code-fraction") {
		codeText += ".0"
	}
	if data = append(data, nil); data[0] == nil && s.edge("error-data") {
		data[0] = json.RawMessage(`{"detail":"the spec server says why","at":[0]}`)
	}
	e := fmt.Sprintf(`{"code":%s,"message":%s}`, codeText, text)
	if data[0] != nil {
		e = fmt.Sprintf(`{"code":%s,"message":%s,"data":%s}`, codeText, text, data[0])
	}
	if s.has("no-jsonrpc-version") {
		return fmt.Sprintf(`{"id":%s,"error":%s}`, id, e)
	}
	if s.has("null-id-errors") {
		id = json.RawMessage("null")
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":%s}`, id, e)
}

// replyID is the id a response carries, through the id faults.
func (s *Spec) replyID(id json.RawMessage) json.RawMessage {
	switch {
	case len(id) > 0 && id[0] == '"' && s.has("mangle-string-id"):
		return json.RawMessage(`"` + strings.Trim(string(id), `"`) + `-x"`)
	case len(id) > 0 && id[0] != '"' && s.has("mangle-number-id") && (string(id) == "0" || len(id) >= 10):
		return json.RawMessage(`"` + string(id) + `"`)
	case len(id) > 0 && id[0] != '"' && s.has("string-ids"):
		return json.RawMessage(`"` + string(id) + `"`)
	}
	return id
}

// invalidArgs says how a tools/call's arguments break its tool's
// inputSchema (internal/jsonschema, as mcpv's own check of a call); ""
// when they do not, or the tool has no schema it can compile.
func (s *Spec) invalidArgs(params json.RawMessage) string {
	schema, err := jsonschema.Compile(member(s.tool(param(params, "name")), "inputSchema"))
	if err != nil {
		return ""
	}
	args := member(params, "arguments")
	if args == nil {
		args = json.RawMessage(`{}`)
	}
	if err := schema.Validate(args); err != nil {
		return err.Error()
	}
	return ""
}

// tool is the first tool the spec lists of that name, nil when none.
func (s *Spec) tool(name string) json.RawMessage {
	for _, t := range s.Tools {
		if n, _ := stringMember(t, "name"); n == name {
			return t
		}
	}
	return nil
}

// object is raw's members; false when raw is no JSON object (absent,
// null, malformed or another value).
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// member is a JSON object's member, raw; nil when absent.
func member(raw json.RawMessage, key string) json.RawMessage {
	m, _ := object(raw)
	return m[key]
}

// stringMember is a string member's value.
func stringMember(raw json.RawMessage, key string) (string, bool) {
	var s string
	if v := member(raw, key); v == nil || json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// param is the string params.key (a name, a taskId), "" when none.
func param(params json.RawMessage, key string) string {
	v, _ := stringMember(params, key)
	return v
}

// askPrompt is prompts/get of "ask" (or tools/call of "gated", of a
// client that declares elicitation) with the mrtr behaviour: the first
// ask answered input_required (an elicitation, a request state), a retry
// with the state and the elicitation's answer completed, one without its
// answer asked again, one with a state never given or an answer that is
// no result refused; an answer to a key never asked is ignored.
func (s *Spec) askPrompt(st *specState, method string, params json.RawMessage) (json.RawMessage, *specError) {
	const state = "mac:7f3a"
	props := `{"name":{"type":"string"}}`
	switch {
	case s.has("mrtr-nested"):
		props = nestedProperty
	case s.has("asks-password"):
		props = `{"api_key":{"type":"string","title":"API key"}}`
	}
	entry := `"who":{"method":"elicitation/create","params":{"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":` + props + `}}}`
	if s.has("mrtr-key-twice") {
		entry += "," + entry
	}
	ask := json.RawMessage(`{"resultType":"input_required","inputRequests":{` + entry + `},"requestState":"` + state + `"}`)
	got, hasState := stringMember(params, "requestState")
	answers := member(params, "inputResponses")
	done := json.RawMessage(pick(method == "tools/call", `{"content":[{"type":"text","text":"asked"}]}`, `{"messages":[{"role":"user","content":{"type":"text","text":"asked"}}]}`))
	switch {
	case member(s.capsOf(st, params), "elicitation") == nil:
		return done, nil // a client that cannot answer is not asked
	case !hasState:
		withLock(&st.mu, func() { st.asked[state]++ }) // the states this connection gave
		return ask, nil
	case got != state && !s.has("mrtr-tamper-accepted") || s.has("mrtr-state-kept") && locked(&st.mu, func() bool { return st.asked[state] == 0 }):
		return nil, &specError{Code: codeInvalidParams, Message: "requestState does not verify"}
	}
	m, _ := object(answers) // none, or no object: no answer given, asked again
	who, ok := m["who"]
	switch {
	case len(m) > 1 && s.has("mrtr-extra-error"):
		return nil, &specError{Code: codeInvalidParams, Message: "unexpected input response"}
	case !ok && s.has("mrtr-missing-error"):
		return nil, &specError{Code: codeInvalidParams, Message: "missing input response"}
	case !ok:
		return ask, nil
	case member(who, "action") == nil && !s.has("mrtr-invalid-accepted"):
		return nil, &specError{Code: codeInvalidParams, Message: "the input response is no elicitation result"}
	case s.has("mrtr-decline-fails") && !bytes.Contains(who, []byte(`"accept"`)):
		return nil, &specError{Code: -32603, Message: "TypeError: Cannot read properties of undefined (reading 'name')"}
	case string(member(who, "action")) == `"accept"` && !s.has("mrtr-unvalidated"):
		var types map[string]struct{ Type string }
		json.Unmarshal([]byte(props), &types)
		content, _ := object(member(who, "content"))
		for name, v := range content { // a value of another type than its property's: asked again
			if want := map[string]byte{"string": '"', "object": '{'}[types[name].Type]; want != 0 && (len(v) == 0 || v[0] != want) {
				return ask, nil
			}
		}
	}
	return done, nil
}

// capsOf are the client capabilities a modern request declares; with
// caps-remembered, those an earlier request declared elicitation in.
func (s *Spec) capsOf(st *specState, params json.RawMessage) json.RawMessage {
	caps := member(member(params, "_meta"), "io.modelcontextprotocol/clientCapabilities")
	if !s.has("caps-remembered") {
		return caps
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if member(caps, "elicitation") != nil {
		st.caps = caps
	}
	return st.caps
}
