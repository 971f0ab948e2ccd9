package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/uritemplate"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// Responses is a responses file: who the mock says it is, and what it
// answers. Each list is tried in order and the first entry that matches
// answers (an entry of exactly the call's arguments first).
//
//	server:                         # optional: the initialize result's
//	  serverInfo: {name: demo, version: 1.0.0}
//	  instructions: Call add to add.
//	  capabilities: {tools: {}, logging: {}}
//	tools:                          # tools/call
//	  - name: add
//	    arguments: {a: 1}           # matches when the call's arguments hold this (a JSON subset)
//	    jq: '.b > 1'                # and/or when this is true of the arguments
//	    times: 1                    # answers the first call it matches only
//	    steps: [{wait: 1s}, {progress: {progress: 1, total: 2}}, {log: {level: info, data: hi}}]
//	    result: {content: [{type: text, text: "3"}]}
//	  - name: book                  # or error: {code, message, data}, or
//	    steps: [{ask: {method: elicitation/create, params: {...}}}]
//	    result-jq: '{content: [{type: text, text: $answers[0].content.date}]}'
//	resources:                      # resources/read, and resources/list
//	  - uri: demo://readme          # or template: demo://items/{id} (jq sees the variables)
//	    resource: {uri: demo://readme, name: readme}  # as resources/list shows it (optional)
//	    result: {contents: [{uri: demo://readme, text: hello}]}
//	prompts:                        # prompts/get, matched as tools are
//	completions:                    # completion/complete
//	  - ref: {type: ref/prompt, name: greet}
//	    argument: {name: name}
//	    result: {completion: {values: [Ada]}}
//
// An entry with neither arguments nor jq matches every call of its name.
type Responses struct {
	Server      *Server `json:"server,omitempty"`
	Tools       []Entry `json:"tools,omitempty"`
	Resources   []Entry `json:"resources,omitempty"`
	Prompts     []Entry `json:"prompts,omitempty"`
	Completions []Entry `json:"completions,omitempty"`
}

// Server is who the mock says it is, as a server's initialize result has
// it; what it leaves out the mock makes up (mcpv-mock, no instructions,
// the capabilities of what the files serve).
type Server struct {
	ServerInfo   json.RawMessage `json:"serverInfo,omitempty"`
	Instructions *string         `json:"instructions,omitempty"`
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
}

// Entry is one answer and what it answers.
type Entry struct {
	Name      string          `json:"name,omitempty"`
	URI       string          `json:"uri,omitempty"`
	Template  string          `json:"template,omitempty"`
	Ref       json.RawMessage `json:"ref,omitempty"`
	Argument  json.RawMessage `json:"argument,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	JQ        string          `json:"jq,omitempty"`
	Times     int             `json:"times,omitempty"`
	Resource  json.RawMessage `json:"resource,omitempty"`
	Steps     []Step          `json:"steps,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	ResultJQ  string          `json:"result-jq,omitempty"`
	Error     *ErrorAnswer    `json:"error,omitempty"`

	code   *jq.Filter            // of JQ
	result *jq.Filter            // of ResultJQ
	tmpl   *uritemplate.Template // of Template
	where  string                // where the file has it ("tools[2]"), by check
	want   any                   // Arguments decoded, by check
	sure   bool                  // want is decoded
	group  int                   // which file it comes from, first 0
	logs   bool                  // it has a log step
	// used counts the calls it answered, against Times (New makes it).
	used *atomic.Int64
}

// ErrorAnswer is a JSON-RPC error an entry answers with.
type ErrorAnswer struct {
	Code    *int            `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	raw     json.RawMessage // a trace's error that is no error object, sent as it is
}

// ParseResponses reads a responses file, JSON or YAML.
func ParseResponses(data []byte) (*Responses, error) {
	doc := bytes.TrimSpace(data)
	if len(doc) == 0 || doc[0] != '{' {
		n, err := yamlnode.Parse(data, yamlnode.Options{What: "a responses file"})
		if err != nil {
			return nil, err
		}
		// As written: members in order, numbers as written.
		if doc, err = n.MarshalJSON(); err != nil {
			return nil, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	var r Responses
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	if err := r.Server.check(); err != nil {
		return nil, err
	}
	for g, l := range r.lists() {
		for i := range *l {
			if err := (*l)[i].check(listKeys[g], fmt.Sprintf("%s[%d]", listKeys[g], i)); err != nil {
				return nil, err
			}
		}
	}
	return &r, nil
}

// listKeys name a responses file's lists, in the order of lists.
var listKeys = [...]string{"tools", "prompts", "resources", "completions"}

// lists are r's lists: tools, prompts, resources, completions.
func (r *Responses) lists() [4]*[]Entry {
	return [...]*[]Entry{&r.Tools, &r.Prompts, &r.Resources, &r.Completions}
}

func (s *Server) check() error {
	if s == nil {
		return nil
	}
	for _, m := range []struct {
		key string
		raw json.RawMessage
	}{{"serverInfo", s.ServerInfo}, {"capabilities", s.Capabilities}} {
		if m.raw != nil && !bytes.HasPrefix(bytes.TrimSpace(m.raw), []byte("{")) {
			return fmt.Errorf("server.%s must be an object", m.key)
		}
	}
	return nil
}

// check checks an entry of the list key, which the file has at where,
// and compiles its jq expressions and template.
func (e *Entry) check(key, where string) error {
	e.where = where
	if err := e.checkKey(key); err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	switch {
	case given(e.Result != nil, e.ResultJQ != "", e.Error != nil) != 1:
		return fmt.Errorf("%s: give one of result, result-jq and error", where)
	case e.Error != nil && (e.Error.Code == nil || e.Error.Message == ""):
		return fmt.Errorf("%s: an error has a code and a message", where)
	case e.Times < 0:
		return fmt.Errorf("%s: times must be 1 or more", where)
	}
	for _, m := range []struct {
		key string
		raw json.RawMessage
	}{{"arguments", e.Arguments}, {"ref", e.Ref}, {"argument", e.Argument}} {
		if m.raw != nil && !bytes.HasPrefix(bytes.TrimSpace(m.raw), []byte("{")) {
			return fmt.Errorf("%s: %s must be an object", where, m.key)
		}
	}
	if err := e.checkSteps(); err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	e.wanted() // decoded once, not at every call
	var err error
	if e.code, err = compileJQ(e.JQ); err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	if e.result, err = compileJQ(e.ResultJQ, "answers", "params"); err != nil {
		return fmt.Errorf("%s: result-jq: %v", where, err)
	}
	return nil
}

// checkKey checks what an entry of the list key names: a name (tools,
// prompts), a uri or a template (resources), a ref (completions).
func (e *Entry) checkKey(key string) error {
	switch key {
	case "tools", "prompts":
		if e.Name == "" || e.URI != "" || e.Template != "" || e.Ref != nil || e.Argument != nil || e.Resource != nil {
			return fmt.Errorf("give a name, and no uri, template, ref or argument")
		}
	case "resources":
		if (e.URI == "") == (e.Template == "") || e.Name != "" || e.Arguments != nil || e.Ref != nil || e.Argument != nil {
			return fmt.Errorf("give a uri or a template, and no name, arguments, ref or argument")
		}
		if e.URI != "" && e.JQ != "" {
			return fmt.Errorf("jq goes with a template, whose variables it sees")
		}
		if e.Template != "" {
			t, err := uritemplate.Parse(e.Template)
			if err == nil {
				err = t.Matchable()
			}
			if err != nil {
				return fmt.Errorf("template %q %v", e.Template, err)
			}
			e.tmpl = t
		}
	case "completions":
		if e.Ref == nil || e.Name != "" || e.URI != "" || e.Template != "" || e.Arguments != nil || e.Resource != nil {
			return fmt.Errorf("give a ref (and an argument), and no name, uri, template or arguments")
		}
	}
	return nil
}

// compileJQ compiles a jq expression of the file's (none: nil), to run
// within jq's bounds with the variables named; it reads no environment.
// An error is said on one line, as every mistake of a responses file
// is, with the column where the expression breaks (jq.OneLine).
func compileJQ(expr string, vars ...string) (*jq.Filter, error) {
	if expr == "" {
		return nil, nil
	}
	f, err := jq.CompileVars(expr, nil, vars...)
	return f, jq.OneLine(err) // nil and nil, or no filter and the error
}

// wanted is the entry's arguments, decoded (an empty object when it has
// none; nil when they do not decode).
func (e *Entry) wanted() any {
	if !e.sure {
		e.want, e.sure = map[string]any{}, true
		if e.Arguments != nil {
			e.want, _ = decode(e.Arguments)
		}
	}
	return e.want
}

// Merge is the responses of several files as one: each list the files'
// entries in the order given, an entry of one file tried before any of
// the next (an entry of exactly a call's arguments comes first within
// its own file only); the first file with a server section gives it.
func Merge(files ...*Responses) *Responses {
	out := &Responses{}
	for g, r := range files {
		if r == nil {
			continue
		}
		if out.Server == nil {
			out.Server = r.Server
		}
		to := out.lists()
		for k, from := range r.lists() {
			for i := range *from {
				(*from)[i].group = g
			}
			*to[k] = append(*to[k], *from...)
		}
	}
	return out
}

// Marshal writes the responses as indented JSON.
func (r *Responses) Marshal() []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}
