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
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/jsonschema"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/mcp"
)

//go:embed schemas/2025-11-25.json schemas/2026-07-28.json
var schemaFiles embed.FS

// schemaRevisions are the revisions whose schema is embedded, by the
// protocol version they are.
var schemaRevisions = []string{"2025-11-25", mcp.ModernVersion}

// mcpSchema is one revision's schema.
type mcpSchema struct {
	rev      string
	dialect  json.RawMessage
	defs     json.RawMessage            // $defs, as they are
	names    map[string]json.RawMessage // $defs, by name
	requests map[string]string          // a request's method → its definition
	notes    map[string]string          // a notification's method → its definition

	mu       sync.Mutex                    // guards compiled and errs: checks compile definitions at once
	compiled map[string]*jsonschema.Schema // by definition
	errs     map[string]error
}

var (
	schemasOnce sync.Once
	schemas     map[string]*mcpSchema // by revision; a schema that does not load is none (a test keeps both loading)
)

// schemaOf is the schema of a protocol version, or nil when none is
// embedded for it.
func schemaOf(version string) *mcpSchema {
	schemasOnce.Do(func() {
		schemas = map[string]*mcpSchema{}
		for _, rev := range schemaRevisions {
			if s, err := loadSchema(rev); err == nil {
				schemas[rev] = s
			}
		}
	})
	return schemas[version]
}

func loadSchema(rev string) (*mcpSchema, error) {
	data, err := schemaFiles.ReadFile("schemas/" + rev + ".json")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Schema json.RawMessage `json:"$schema"`
		Defs   json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("the %s schema: %w", rev, err)
	}
	s := &mcpSchema{rev: rev, dialect: doc.Schema, defs: doc.Defs, requests: map[string]string{}, notes: map[string]string{},
		compiled: map[string]*jsonschema.Schema{}, errs: map[string]error{}}
	if err := json.Unmarshal(doc.Defs, &s.names); err != nil {
		return nil, fmt.Errorf("the %s schema: %w", rev, err)
	}
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
	return s, nil
}

// resultDef is the definition of the result of a request of method, or
// "" when the schema has none.
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
	if c := s.compiled[def]; c != nil {
		return c, nil
	}
	if err := s.errs[def]; err != nil {
		return nil, err
	}
	ref, _ := json.Marshal("#/$defs/" + def)
	doc := fmt.Sprintf(`{"$schema":%s,"$ref":%s,"$defs":%s}`, s.dialect, ref, s.defs)
	c, err := jsonschema.Compile([]byte(doc))
	if err != nil {
		s.errs[def] = err
		return nil, err
	}
	s.compiled[def] = c
	return c, nil
}

// schemaBound bounds the validation of one message.
const schemaBound = 2 * time.Second

// validate says how value breaks the definition, or "" (also when it
// cannot tell: the check's bound ran out).
func (s *mcpSchema) validate(def string, value []byte) string {
	c, err := s.compile(def)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), schemaBound)
	defer cancel()
	err = c.ValidateContext(ctx, value)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return ve.Error()
	}
	return ""
}

// shapeJudged are the methods whose results, and the notification,
// whose shape a check of their own judges (naming the defect), and which
// jsonrpc.schema leaves to them: one defect, one failure. Built on first
// use: a run that checks no server does not pay for the map.
var shapeJudged = &lazy.Value[map[string]string]{New: func() map[string]string {
	m := map[string]string{
		"resources/read": "reading.resource-contents", "prompts/get": "reading.prompt-messages", "tools/call": "tools.result",
		"completion/complete": "reading.completion", "initialize": "lifecycle.initialize", "ping": "lifecycle.ping",
		"server/discover": "modern.discover", "notifications/progress": "utilities.progress",
	}
	for _, l := range mcp.Lists {
		m[l.Method] = "lists.shape"
	}
	return m
}}

// schemaProblem says how a message breaks its revision's schema, with
// the definition it was held to, or "": a request or notification by its
// method, a result by the request it answers (an input_required result as
// such, whatever the request), errors not (their shape is JSON-RPC's).
func schemaProblem(s seen) string {
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
	switch {
	case m.IsRequest() || m.IsNotification():
		if _, judged := shapeJudged.Get()[m.Method]; judged {
			return ""
		}
		if def = sc.requests[m.Method]; m.IsNotification() {
			def = sc.notes[m.Method]
		}
		value = rebuilt(m)
	case m.Error == nil && m.Result != nil:
		if rt, _ := str(member(m.Result, "resultType")); rt == "input_required" && sc.names["InputRequiredResult"] != nil {
			def = "InputRequiredResult"
		} else if _, judged := shapeJudged.Get()[s.method]; !judged && s.method != "" {
			def = sc.resultDef(s.method)
		}
		value = m.Result
	}
	if def == "" {
		return ""
	}
	if p := sc.validate(def, value); p != "" {
		what := cmp.Or(m.Method, "the result of "+s.method)
		return fmt.Sprintf("%s breaks %s (%s): %s", what, def, sc.rev, p)
	}
	return ""
}

// rebuilt is a request or notification as an object, its members as
// they came.
func rebuilt(m mcp.Message) []byte {
	method, _ := json.Marshal(m.Method)
	b := []byte(`{"jsonrpc":"2.0","method":` + string(method))
	if m.ID != nil {
		b = append(append(b, `,"id":`...), m.ID...)
	}
	if m.Params != nil {
		b = append(append(b, `,"params":`...), m.Params...)
	}
	return append(b, '}')
}
