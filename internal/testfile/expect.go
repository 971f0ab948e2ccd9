package testfile

// A step's Expectations, read from its expect: mapping. Each is checked
// before any server starts: jq expressions compile (with the captures of
// the steps before as variables), regular expressions compile, schemas
// compile in their dialect, and files are read.

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/internal/toolargs"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// Expectations are what a step's Outcome must be. Without any, the step
// must succeed (exit 0).
type Expectations struct {
	At    *yamlnode.Node
	given bool

	exit         *int
	isError      *bool
	errorCode    *int
	errorMessage *regexp.Regexp
	jq           []query
	equals       json.RawMessage
	equalsFile   string // as written, for messages; equals holds its content
	matches      []*regexp.Regexp
	schema       *toolargs.Validator
	schemaFile   string
	OutputSchema bool
}

var expectKeys = []string{"exit", "is-error", "error-code", "error-message", "jq", "equals", "equals-file",
	"matches", "schema", "schema-file", "output-schema"}

func (p *fileParser) expectations(n *yamlnode.Node, st *Step, f *File, known map[string]bool) Expectations {
	e := Expectations{At: n, given: true}
	p.members(n, "expect", expectKeys, func(key string, k, v *yamlnode.Node) {
		switch key {
		case "exit":
			if c, ok := p.integer(v, "exit"); ok {
				if c < 0 || c > 255 {
					p.errorf(v, "exit: an exit code is between 0 and 255")
				}
				e.exit = &c
			}
		case "is-error":
			if v.Kind != yamlnode.Bool {
				p.errorf(v, "is-error must be true or false, not %s", v.Kind.Noun())
				break
			}
			e.isError = new(text(v) == "true")
		case "error-code":
			if c, ok := p.integer(v, "error-code"); ok {
				e.errorCode = &c
			}
		case "error-message":
			if s, ok := p.str(v, "error-message"); ok {
				e.errorMessage = p.regexpText(v, "error-message", s)
			}
		case "jq":
			exprs := p.strs(v, "jq")
			for _, expr := range exprs {
				q := compileQuery(expr, known, p.environ, p.bounds)
				if q.err != nil {
					p.errorf(v, "%s", q.err) // on one line (compileQuery)
				}
				e.jq = append(e.jq, q)
			}
		case "equals":
			e.equals = nodeJSON(v)
		case "equals-file":
			if s, ok := p.str(v, "equals-file"); ok {
				e.equalsFile = s
				e.equals = p.jsonFile(v, f.Dir, s, "equals-file")
			}
		case "matches":
			exprs := p.strs(v, "matches")
			for _, s := range exprs {
				if re := p.regexpText(v, "matches", s); re != nil {
					e.matches = append(e.matches, re)
				}
			}
		case "schema":
			if v.Kind != yamlnode.Object && v.Kind != yamlnode.Bool {
				p.errorf(v, "schema must be a JSON Schema (a mapping, or true or false), not %s", v.Kind.Noun())
				break
			}
			e.schema = p.compileSchema(v, nodeJSON(v), "schema")
		case "schema-file":
			if s, ok := p.str(v, "schema-file"); ok {
				e.schemaFile = s
				if raw := p.jsonFile(v, f.Dir, s, "schema-file"); raw != nil {
					e.schema = p.compileSchema(v, raw, "schema-file "+s)
				}
			}
		case "output-schema":
			if v.Kind != yamlnode.Bool {
				p.errorf(v, "output-schema must be true or false, not %s", v.Kind.Noun())
			}
			e.OutputSchema = text(v) == "true"
		}
	})
	if e.equals != nil && n.Get("equals") != nil && n.Get("equals-file") != nil {
		p.errorf(n.Get("equals-file"), "give equals or equals-file, not both")
	}
	if n.Get("schema") != nil && n.Get("schema-file") != nil {
		p.errorf(n.Get("schema-file"), "give schema or schema-file, not both")
	}
	if e.exit != nil {
		if e.isError != nil && *e.isError && *e.exit != exitToolError {
			p.errorf(n.Get("exit"), "is-error: true means exit 1, not %d", *e.exit)
		}
		if e.errorCode != nil && *e.exit != exitServer {
			p.errorf(n.Get("exit"), "error-code means exit 3 (a JSON-RPC error), not %d", *e.exit)
		}
	}
	if e.isError != nil && *e.isError && e.errorCode != nil {
		p.errorf(n.Get("error-code"), "a step ends with a tool error (is-error) or a JSON-RPC error (error-code), not both")
	}
	if e.errorMessage != nil && e.errorCode == nil && e.exit == nil {
		e.exit = new(exitServer)
	}
	return e
}

// WantExit is the exit code the step must end with.
func (e *Expectations) WantExit() int {
	switch {
	case e.exit != nil:
		return *e.exit
	case e.isError != nil && *e.isError:
		return exitToolError
	case e.errorCode != nil:
		return exitServer
	}
	return exitOK
}

func (p *fileParser) integer(v *yamlnode.Node, what string) (int, bool) {
	if i, err := strconv.Atoi(text(v)); err == nil && v.Kind == yamlnode.Number {
		return i, true
	}
	p.errorf(v, "%s must be an integer, not %s", what, v.Kind.Noun())
	return 0, false
}

func (p *fileParser) regexpText(v *yamlnode.Node, what, s string) *regexp.Regexp {
	re, err := regexp.Compile(s)
	if err != nil {
		p.errorf(v, "%s: %v", what, err)
		return nil
	}
	return re
}

// jsonFile reads a JSON (or YAML) file the test file in dir names: path,
// as written, inside dir's tree.
func (p *fileParser) jsonFile(v *yamlnode.Node, dir, path, what string) json.RawMessage {
	data, err := (&safefile.Tree{Dir: dir}).Read(path)
	if err != nil {
		p.errorf(v, "%s: %v", what, err)
		return nil
	}
	n, fe := ParseYAML(data, "the file")
	if fe != nil {
		fe.File = path
		p.errorf(v, "%s: %v", what, fe)
		return nil
	}
	return nodeJSON(n)
}

func (p *fileParser) compileSchema(v *yamlnode.Node, raw json.RawMessage, what string) *toolargs.Validator {
	val, err := toolargs.Compile(context.Background(), raw)
	if err != nil {
		p.errorf(v, "%s: not a usable JSON Schema: %v", what, err)
		return nil
	}
	return val
}

// failure is one expectation a step did not meet.
type failure = testreport.Failure
