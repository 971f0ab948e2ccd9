package testfile

// Text in a test file may use the environment, as config files do, with
// config's own expansion (${VAR}, ${env:VAR}, ${VAR:-default}, and
// ${workspaceFolder}, the test file's directory, and ${userHome}), expanded
// when the file is read, so that an unset variable is a mistake found
// before any server starts; and the values earlier steps captured
// ({{name}}, filled in when the step runs; {{{{ is a literal {{). The two
// never meet: a variable's value is not searched for {{...}}, nor a
// captured value for ${...}.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// tmpl is text with the captures it uses still to be filled.
type tmpl []tseg

// tseg is literal text, or (capture set) a captured value.
type tseg struct {
	lit string
	ref string
}

// captureRef is {{name}}, spaces allowed inside the braces.
var captureRef = &lazy.Regexp{Pattern: `\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`}

// literalBraces is how a file writes {{ that starts no capture.
const literalBraces = "{{{{"

// expander expands a file's text: env is the environment and folder the
// file's directory (${workspaceFolder}), known the captures defined by the
// steps before (nil where captures are not allowed), and secrets gathers
// the values of secret-named variables.
type expander struct {
	env     config.Env
	folder  string
	known   map[string]bool
	secrets *[]string
	// untrusted, when set, is why the file may not name the environment:
	// a ${VAR} is refused with it (${workspaceFolder} and ${userHome},
	// which name no variable, still expand).
	untrusted error
}

// expand turns text into a template, or says what is wrong with it.
func (x *expander) expand(text string) (tmpl, error) {
	var t tmpl
	for len(text) > 0 {
		i := strings.Index(text, "${")
		e := strings.Index(text, literalBraces)
		loc := captureRef.Get().FindStringSubmatchIndex(text)
		first := func(at int) bool {
			return at >= 0 && (i < 0 || at <= i) && (e < 0 || at <= e) && (loc == nil || at <= loc[0])
		}
		switch {
		case first(e):
			t = t.add(text[:e] + "{{")
			text = text[e+len(literalBraces):]
		case loc != nil && first(loc[0]):
			t = t.add(text[:loc[0]])
			name := text[loc[2]:loc[3]]
			if x.known == nil {
				return nil, fmt.Errorf("{{%s}}: captured values cannot be used here", name)
			}
			if !x.known[name] {
				return nil, fmt.Errorf("{{%s}}: no step before this one captures %q", name, name)
			}
			t = append(t, tseg{ref: name})
			text = text[loc[1]:]
		case first(i):
			t = t.add(text[:i])
			j := strings.IndexByte(text[i:], '}')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ${ in %q", text)
			}
			ref := text[i+2 : i+j]
			if x.untrusted != nil && ref != "workspaceFolder" && ref != "userHome" {
				return nil, fmt.Errorf("${%s}: %v", ref, x.untrusted)
			}
			v, secret, err := config.LookupVar(ref, x.env, x.folder)
			if err != nil {
				return nil, err
			}
			if secret && x.secrets != nil {
				*x.secrets = append(*x.secrets, v)
			}
			t = t.add(v)
			text = text[i+j+1:]
		default:
			t = t.add(text)
			text = ""
		}
	}
	return t, nil
}

func (t tmpl) add(lit string) tmpl {
	if lit == "" {
		return t
	}
	if n := len(t); n > 0 && t[n-1].ref == "" {
		t[n-1].lit += lit
		return t
	}
	return append(t, tseg{lit: lit})
}

// fill replaces each capture by its text: a string as it is, any other
// value as compact JSON.
func (t tmpl) fill(caps map[string]json.RawMessage) string {
	var b strings.Builder
	for _, s := range t {
		if s.ref == "" {
			b.WriteString(s.lit)
		} else {
			b.WriteString(captureText(caps[s.ref]))
		}
	}
	return b.String()
}

// uses adds the captures t uses to set.
// captures reports whether t has a captured value in it.
func (t tmpl) captures() bool {
	return slices.ContainsFunc(t, func(s tseg) bool { return s.ref != "" })
}

func (t tmpl) uses(set map[string]bool) {
	for _, s := range t {
		if s.ref != "" {
			set[s.ref] = true
		}
	}
}

func captureText(v json.RawMessage) string {
	var s string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// jtmpl is a JSON value from the file whose strings are templates: a
// string that is exactly {{name}} becomes the captured value itself, of
// whatever type; other strings have captures filled in as text.
type jtmpl struct {
	node *yamlnode.Node
	strs map[*yamlnode.Node]tmpl
}

func (p *fileParser) jsonTemplate(n *yamlnode.Node, x *expander) *jtmpl {
	j := &jtmpl{node: n, strs: map[*yamlnode.Node]tmpl{}}
	var walk func(n *yamlnode.Node)
	walk = func(n *yamlnode.Node) {
		switch n.Kind {
		case yamlnode.String:
			t, err := x.expand(text(n))
			if err != nil {
				p.errorf(n, "%v", err)
			}
			j.strs[n] = t
		case yamlnode.Array:
			for _, it := range n.Items {
				walk(it)
			}
		case yamlnode.Object:
			for i := range n.Keys {
				walk(n.Vals[i])
			}
		}
	}
	walk(n)
	return j
}

// render is the value with the captures in caps.
func (j *jtmpl) render(caps map[string]json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	j.node.WriteJSON(&b, func(b *bytes.Buffer, n *yamlnode.Node) {
		t := j.strs[n]
		if len(t) == 1 && t[0].ref != "" { // the template is one capture and no more
			b.Write(caps[t[0].ref])
		} else {
			text, _ := json.Marshal(t.fill(caps))
			b.Write(text)
		}
	})
	return b.Bytes()
}

func (j *jtmpl) uses(set map[string]bool) {
	for _, t := range j.strs {
		t.uses(set)
	}
}

// placeholderCaps are captures all 0, for checking a step before it runs.
func placeholderCaps(known map[string]bool) map[string]json.RawMessage {
	caps := map[string]json.RawMessage{}
	for name := range known {
		caps[name] = json.RawMessage("0")
	}
	return caps
}
