package check

// The official JSON schema of each revision, embedded (never fetched):
// every message the server sends is held to the definition of its kind
// (a request or notification by its method, a result by the method of
// the request it answers), compiled once per definition and run within
// a bound of time.

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/jsonschema"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

//go:embed schemas/2025-11-25.json schemas/2026-07-28.json
var schemaFiles embed.FS

// schemaRevisions are the revisions whose schema is embedded, by the protocol version they are.
var schemaRevisions = []string{"2025-11-25", mcp.ModernVersion}

// mcpSchema is one revision's schema.
type mcpSchema struct {
	rev      string
	dialect  json.RawMessage
	defs     json.RawMessage            // $defs, as they are
	names    map[string]json.RawMessage // $defs, by name
	requests map[string]string          // a request's method → its definition
	notes    map[string]string          // a notification's method → its definition

	mu       sync.Mutex             // guards compiled: checks compile definitions at once
	compiled map[string]compiledDef // by definition
}

// compiledDef is a definition compiled, or why it does not compile.
type compiledDef struct {
	schema *jsonschema.Schema
	err    error
}

// schemas are the embedded schemas by revision; a schema that does not load is none (a test keeps both loading).
var schemas = &lazy.Value[map[string]*mcpSchema]{New: func() map[string]*mcpSchema {
	out := map[string]*mcpSchema{}
	for _, rev := range schemaRevisions {
		out[rev] = loadSchema(rev)
	}
	return out
}}

// schemaOf is the schema of a protocol version, or nil when none is embedded for it.
func schemaOf(version string) *mcpSchema { return schemas.Get()[version] }

// loadSchema is the embedded schema of rev, or nil when it does not load.
func loadSchema(rev string) *mcpSchema {
	data, _ := schemaFiles.ReadFile("schemas/" + rev + ".json") // none does not decode
	var doc struct {
		Schema json.RawMessage `json:"$schema"`
		Defs   json.RawMessage `json:"$defs"`
	}
	s := &mcpSchema{rev: rev, requests: map[string]string{}, notes: map[string]string{}, compiled: map[string]compiledDef{}}
	if json.Unmarshal(data, &doc) != nil || json.Unmarshal(doc.Defs, &s.names) != nil {
		return nil
	}
	s.dialect, s.defs = doc.Schema, doc.Defs
	for name, def := range s.names {
		var d struct {
			Properties struct {
				Method struct {
					Const string `json:"const"`
				} `json:"method"`
			} `json:"properties"`
		}
		if json.Unmarshal(def, &d) != nil || d.Properties.Method.Const == "" {
			continue
		}
		switch {
		case strings.HasSuffix(name, "Request"):
			s.requests[d.Properties.Method.Const] = name
		case strings.HasSuffix(name, "Notification"):
			s.notes[d.Properties.Method.Const] = name
		}
	}
	return s
}

// resultDef is the definition of the result of a request of method, or "" when the schema has none.
func (s *mcpSchema) resultDef(method string) string {
	req, ok := s.requests[method]
	if !ok {
		return ""
	}
	if name := strings.TrimSuffix(req, "Request") + "Result"; s.names[name] != nil {
		return name
	}
	return "EmptyResult" // ping, logging/setLevel, resources/subscribe...
}

// compile is a definition compiled, once.
func (s *mcpSchema) compile(def string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.compiled[def]; ok {
		return d.schema, d.err
	}
	c, err := jsonschema.Compile([]byte(fmt.Sprintf(`{"$schema":%s,"$ref":%s,"$defs":%s}`, s.dialect, rawjson.Marshal("#/$defs/"+def), s.defs)))
	s.compiled[def] = compiledDef{c, err}
	return c, err
}

// schemaBound bounds the validation of one message.
const schemaBound = 2 * time.Second

// validate says how value breaks the definition, or "" (also when it
// cannot tell: the check's bound ran out).
func (s *mcpSchema) validate(def string, value []byte) string {
	if ve := s.broken(def, value); ve != nil {
		return ve.Error()
	}
	return ""
}

// broken is where and how value breaks the definition, or nil (also
// when it cannot tell: the check's bound ran out).
func (s *mcpSchema) broken(def string, value []byte) *jsonschema.ValidationError {
	c, err := s.compile(def)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), schemaBound)
	defer cancel()
	var ve *jsonschema.ValidationError
	errors.As(c.ValidateContext(ctx, value), &ve)
	return ve
}

// handClaim is a member of a result or notification that a check of its
// own judges: where the schema finds that member broken and the check
// finds the message broken too, the check's failure is the defect's,
// and jsonrpc.schema leaves it (one defect, one failure). Elsewhere the
// schema's failure is.
type handClaim struct {
	method string // of the request answered, or the notification; "" any
	member string // the first member of the path into the result (or params); "" any
	check  string
	// broken says whether the check finds the message broken; nil: the
	// check's watch does, or (a check without one) always.
	broken func(w *watchCtx, s seen) bool
}

// handClaims are the members judged by hand. A list's items are judged
// one by one (schemaItems), and the lint's rules claim them.
var handClaims = &lazy.Value[[]handClaim]{New: func() []handClaim {
	result := func(problem func(json.RawMessage) string) func(*watchCtx, seen) bool {
		return func(_ *watchCtx, s seen) bool { return problem(s.msg.Result) != "" }
	}
	claims := []handClaim{
		{"resources/read", "", "reading.resource-contents", result(contentsProblem)},
		{"prompts/get", "", "reading.prompt-messages", result(messagesProblem)},
		{"tools/call", "", "tools.result", result(resultProblem)},
		{"completion/complete", "", "reading.completion", result(completionProblem)},
		// These checks hold the whole result to the schema themselves.
		{"initialize", "", "lifecycle.initialize", nil},
		{"ping", "", "lifecycle.ping", nil},
		{"server/discover", "", "modern.discover", nil},
		{"notifications/progress", "progressToken", "utilities.progress-token", nil},
		{"notifications/progress", "progress", "utilities.progress", func(w *watchCtx, s seen) bool {
			return w.tokens[idKey(member(s.msg.Params, "progressToken"))] // a call's own, which the check judges
		}},
		{"", "resultType", "modern.result-type", nil},
		{"", "ttlMs", "modern.cache-hints", nil},
		{"", "cacheScope", "modern.cache-hints", nil},
		{"", "_meta", "jsonrpc.meta-keys", nil},
		{"elicitation/create", "", "asks.elicitation", nil},
		{"elicitation/create", "url", "asks.elicitation-url", nil},
		{"", "inputRequests", "asks.elicitation", nil},
		{"sampling/createMessage", "messages", "asks.sampling-messages", nil},
	}
	for _, l := range mcp.Lists {
		claims = append(claims, handClaim{l.Method, l.Key, "lists.shape", nil}, handClaim{l.Method, "nextCursor", "lists.shape", nil})
	}
	return claims
}}

// claimed reports whether a check of its own (but self) judges the
// member at path of s, a message of method, and finds s broken.
func claimed(w *watchCtx, s seen, method string, path []string, self string) bool {
	first := ""
	if len(path) > 0 {
		first = path[0]
	}
	for _, h := range handClaims.Get() {
		if h.method != "" && h.method != method || h.member != "" && h.member != first || h.check == self || !w.runs(h.check) {
			continue
		}
		if c := checkByID(h.check); h.broken != nil && h.broken(w, s) || h.broken == nil && (c.watch == nil || c.watch(w, s) != "") {
			return true
		}
	}
	return false
}

// pathOf is the path to what ve names: its pointer's members, and the
// first member missing, for "required".
func pathOf(ve *jsonschema.ValidationError) []string {
	var path []string
	if ve.Pointer != "" {
		for _, p := range strings.Split(ve.Pointer[1:], "/") {
			path = append(path, strings.NewReplacer("~1", "/", "~0", "~").Replace(p))
		}
	}
	if ve.Keyword == "required" && len(ve.Missing) > 0 {
		path = append(path, ve.Missing[0])
	}
	return path
}

// schemaProblem says how a message breaks its revision's schema, with
// the definition it was held to, or "": a request or notification by its
// method, a result by the request it answers (an input_required result as
// such, whatever the request), errors not (their shape is JSON-RPC's).
// What a check of its own judges and finds broken is left to it
// (claimed); a list page's items are judged by schemaItems.
func schemaProblem(w *watchCtx, s seen) string {
	if s.shape == objectShape {
		return "a result" + ofMethod(s) + " that is no JSON object, as every result of the schema is (JSONRPCResultResponse)"
	}
	sc := schemaOf(s.version)
	if sc == nil || s.bad != "" || s.shape != "" {
		return ""
	}
	m := s.msg
	var def string
	var value []byte
	method := m.Method
	switch {
	case m.IsRequest() || m.IsNotification():
		if def = sc.requests[m.Method]; m.IsNotification() {
			def = sc.notes[m.Method]
		}
		value = rebuilt(m)
	case m.Error == nil && m.Result != nil:
		method = s.method
		if rt, _ := str(member(m.Result, "resultType")); rt == "input_required" && sc.names["InputRequiredResult"] != nil {
			def = "InputRequiredResult"
		} else if s.method != "" {
			def = sc.resultDef(s.method)
		}
		value = m.Result
	}
	if def == "" {
		return ""
	}
	ve := sc.broken(def, value)
	if ve == nil {
		return ""
	}
	path := pathOf(ve)
	if m.Method != "" && len(path) > 0 && path[0] == "params" {
		path = path[1:]
	}
	if l, ok := mcp.ListOf(method); ok && len(path) > 1 && path[0] == l.Key && def != "InputRequiredResult" {
		return "" // an item's: schemaItems judges it
	}
	if claimed(w, s, method, path, "jsonrpc.schema") {
		return ""
	}
	return fmt.Sprintf("%s breaks %s (%s): %s", cmp.Or(m.Method, "the result of "+s.method), def, sc.rev, ve)
}

// schemaResultProblem is how res, t's result of method, breaks def in the
// revision sc, but for a member another check judges and finds broken
// (claimed): for the checks that hold a whole result to the schema.
func (t *T) schemaResultProblem(sc *mcpSchema, def, method string, res json.RawMessage) string {
	ve := sc.broken(def, res)
	if ve == nil {
		return ""
	}
	w := &watchCtx{f: t.r.facts, only: t.r.opts.Only, skip: t.r.opts.Skip}
	s := seen{msg: mcp.Message{ID: json.RawMessage(`0`), Result: res}, method: method, era: t.r.facts.era, version: sc.rev}
	if claimed(w, s, method, pathOf(ve), t.check.ID) {
		return ""
	}
	return fmt.Sprintf("the result breaks %s (%s): %s", def, sc.rev, ve)
}

// listItemDefs are the definitions of a list's items (made at first
// use: a run that checks nothing builds no map).
var listItemDefs = &lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{"tools/list": "Tool", "prompts/list": "Prompt", "resources/list": "Resource", "resources/templates/list": "ResourceTemplate"}
}}

// lintRules are, for each rule of the lint, the member of an item it
// judges ("" any) and the check that reports it: an item the lint finds
// broken there is that check's.
var lintRules = &lazy.Value[map[string][2]string]{New: func() map[string][2]string {
	return map[string][2]string{surface.RuleList: {"", "lists.shape"}, surface.RuleToolName: {"name", "surface.tool-names"},
		surface.RuleInputSchema: {"inputSchema", "surface.input-schema"}, surface.RuleOutputSchema: {"outputSchema", "surface.output-schema"},
		surface.RuleURI: {"uri", "surface.uris"}, surface.RuleURITemplate: {"uriTemplate", "surface.uri-templates"},
		surface.RuleAnnotations: {"annotations", "surface.annotations"}, surface.RuleIcons: {"icons", "surface.icons"}, surface.RuleMeta: {"_meta", "surface.meta-keys"}}
}}

// schemaItems holds every item of every list the server declares to its
// definition, and gives jsonrpc.schema each that breaks it where no rule
// of the lint (a check of its own) finds it broken.
func schemaItems(t *T) {
	sc := schemaOf(t.r.facts.version)
	if sc == nil {
		return
	}
	for _, l := range t.r.facts.lists() {
		items, _ := t.r.facts.items(t.ctx, l.Method)
		for i, it := range items {
			ve := sc.broken(listItemDefs.Get()[l.Method], it)
			if ve == nil {
				continue
			}
			path := pathOf(ve)
			obj := fmt.Sprintf("%s #%d", l.Item, i+1)
			if key, ok := str(member(it, l.Field)); ok && key != "" {
				obj = fmt.Sprintf("%s %q", l.Item, key)
			}
			if slices.ContainsFunc(t.r.facts.lint, func(f surface.Finding) bool {
				rule, judged := lintRules.Get()[f.Rule]
				return judged && f.Severity == surface.SeverityError && f.Object == obj && (rule[0] == "" || len(path) > 0 && path[0] == rule[0]) &&
					Selected(checkByID(rule[1]), t.r.opts.Only, t.r.opts.Skip)
			}) {
				continue
			}
			t.r.watches.add(t.check, seen{raw: string(it), method: l.Method}, fmt.Sprintf("%s, listed by %s, breaks %s (%s): %s", obj, l.Method, listItemDefs.Get()[l.Method], sc.rev, ve))
		}
	}
}

// rebuilt is a request or notification as an object, its members as they came.
func rebuilt(m mcp.Message) []byte {
	b := []byte(`{"jsonrpc":"2.0","method":` + string(rawjson.Marshal(m.Method)))
	if m.ID != nil {
		b = append(append(b, `,"id":`...), m.ID...)
	}
	if m.Params != nil {
		b = append(append(b, `,"params":`...), m.Params...)
	}
	return append(b, '}')
}
