package mock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// Responses is a responses file: what the mock answers. Each list is
// tried in order and the first entry that matches answers.
//
//	tools:                          # tools/call
//	  - name: add
//	    arguments: {a: 1}           # matches when the call's arguments hold this (a JSON subset)
//	    jq: '.b > 1'                # and/or when this is true of the arguments
//	    result: {content: [{type: text, text: "3"}]}
//	resources:                      # resources/read, and resources/list
//	  - uri: demo://readme
//	    resource: {uri: demo://readme, name: readme}  # as resources/list shows it (optional)
//	    result: {contents: [{uri: demo://readme, text: hello}]}
//	prompts:                        # prompts/get
//	  - name: greet
//	    arguments: {name: Ada}
//	    result: {messages: [...]}
//
// An entry with neither arguments nor jq matches every call of its name.
type Responses struct {
	Tools     []Entry `json:"tools,omitempty"`
	Resources []Entry `json:"resources,omitempty"`
	Prompts   []Entry `json:"prompts,omitempty"`
}

// Entry is one answer and what it answers.
type Entry struct {
	Name      string          `json:"name,omitempty"`
	URI       string          `json:"uri,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	JQ        string          `json:"jq,omitempty"`
	Resource  json.RawMessage `json:"resource,omitempty"`
	Result    json.RawMessage `json:"result"`

	code  *jq.Filter
	where string // where the file has it ("tools[2]"), by check
	want  any    // Arguments decoded, by check
	sure  bool   // want is decoded
}

// ResponsesPath is where the responses of the snapshot at path are when
// none are named: beside it, demo.json -> demo.responses.json.
func ResponsesPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".responses.json"
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
	for i := range r.Tools {
		if err := r.Tools[i].check(fmt.Sprintf("tools[%d]", i), true); err != nil {
			return nil, err
		}
	}
	for i := range r.Prompts {
		if err := r.Prompts[i].check(fmt.Sprintf("prompts[%d]", i), true); err != nil {
			return nil, err
		}
	}
	for i, e := range r.Resources {
		if e.URI == "" || e.Name != "" || e.Arguments != nil || e.JQ != "" {
			return nil, fmt.Errorf("resources[%d]: give a uri, and no name, arguments or jq", i)
		}
		if e.Result == nil {
			return nil, fmt.Errorf("resources[%d]: no result", i)
		}
	}
	return &r, nil
}

func (e *Entry) check(where string, named bool) error {
	if named && (e.Name == "" || e.URI != "") {
		return fmt.Errorf("%s: give a name, and no uri", where)
	}
	if e.Result == nil {
		return fmt.Errorf("%s: no result", where)
	}
	if e.Arguments != nil && !bytes.HasPrefix(bytes.TrimSpace(e.Arguments), []byte("{")) {
		return fmt.Errorf("%s: arguments must be an object", where)
	}
	e.wanted() // decoded once, not at every call
	e.where = where
	if e.JQ != "" {
		// An error is said as -q says it: the expression, a caret under
		// where it went wrong. The expression has no environment to read.
		var err error
		if e.code, err = jq.Compile(e.JQ, nil); err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
	}
	return nil
}

// wanted is the entry's arguments, decoded (an empty object when it has
// none; nil when they do not decode).
func (e *Entry) wanted() any {
	if !e.sure {
		e.want, e.sure = map[string]any{}, true
		if e.Arguments != nil {
			e.want = nil
			json.Unmarshal(e.Arguments, &e.want)
		}
	}
	return e.want
}

// matches reports whether the entry answers a call with args (an object,
// decoded). Its jq expression, which the file's author wrote, runs within
// jq's bounds for them (and ctx): one that goes past them is an error, not a
// mismatch; one that fails on these arguments does not match.
func (e *Entry) matches(ctx context.Context, args any) (bool, error) {
	if e.Arguments != nil {
		if want := e.wanted(); want == nil || !subset(want, args) {
			return false, nil
		}
	}
	if e.code == nil {
		return true, nil
	}
	some, all := false, true
	var err error
	for v, rerr := range e.code.RunWithin(ctx, args, jq.Default) {
		if err = rerr; err != nil {
			break
		}
		if some, all = true, v != nil && v != false; !all {
			break
		}
	}
	var le *jq.LimitError
	if errors.As(err, &le) || ctx.Err() != nil {
		return false, fmt.Errorf("%s: %w", e.where, err)
	}
	return err == nil && some && all, nil
}

// subset reports whether got holds want: every member of an object in
// want is in got and holds its value; arrays match element by element;
// other values are equal.
func subset(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !subset(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !subset(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return want == got
}

// exactly reports whether want (decoded arguments) is got.
func exactly(want, got any) bool {
	return want != nil && subset(want, got) && subset(got, want)
}

// agreement is how many of want's top-level members got holds: how close
// an entry comes to a call it does not answer.
func agreement(want, got any) int {
	w, _ := want.(map[string]any)
	g, _ := got.(map[string]any)
	n := 0
	for k, wv := range w {
		if gv, ok := g[k]; ok && subset(wv, gv) {
			n++
		}
	}
	return n
}

// Marshal writes the responses as indented JSON.
func (r *Responses) Marshal() []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}
