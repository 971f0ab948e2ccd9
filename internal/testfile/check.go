package testfile

// Checking a step's Outcome against its Expectations. Every expectation
// is checked, and each one not met is a failure that says what was
// expected and what came: a jq expression shows the values of its parts.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/mcpv/mcpv/internal/content"
	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/internal/toolargs"
)

// Outcome is how a step's command ended.
type Outcome struct {
	Value json.RawMessage // what the line printed (its result after its own --jq), else its error
	Raw   json.RawMessage // the JSON result before the line's --jq; nil when it printed text
	Err   error
	Code  int    // the exit code mcpv would end with
	Tool  string // the tool a call named
	// IsError: the tool's result says isError (or the call failed so).
	IsError bool
	// Structured is the result's structuredContent, if any.
	Structured json.RawMessage
	// RPC is the JSON-RPC error the step ended with, if it did.
	RPC *RPCError
}

// RPCError is a JSON-RPC error a server answered.
type RPCError struct {
	Code    int
	Message string
}

// The exit codes of mcpv's contract that expectations name.
const (
	exitOK        = 0
	exitToolError = 1
	exitServer    = 3
)

// checker checks outcomes: caps are the values of jq's variables.
type checker struct {
	caps map[string]json.RawMessage
}

// Check checks what came of a step against its expectations, with the
// captures so far (caps) as jq's variables; schema gives the outputSchema
// of the tool the step called. Notes are warnings: a schema check too
// costly to finish.
func (e *Expectations) Check(ctx context.Context, o Outcome, caps map[string]json.RawMessage, schema func() (json.RawMessage, error)) (fs []testreport.Failure, notes []string) {
	c := &checker{caps: caps}
	// is-error and error-code say why a step should end with exit 1 or 3;
	// when it ends otherwise they report it themselves.
	explained := e.exit == nil && (e.isError != nil && (o.Code == exitOK || o.Code == exitToolError) || e.errorCode != nil)
	if want := e.WantExit(); o.Code != want && !explained {
		f := failure{Kind: "exit", Expected: strconv.Itoa(want), Actual: strconv.Itoa(o.Code),
			Message: fmt.Sprintf("the step ended with exit %d", o.Code)}
		if o.Err != nil {
			f.Message += ": " + safetext.Prose(o.Err.Error())
		}
		fs = append(fs, f)
		if o.Err != nil && o.Value == nil {
			return fs, nil // nothing else can be checked
		}
	}
	if e.isError != nil && o.IsError != *e.isError {
		fs = append(fs, failure{Kind: "is-error", Expected: strconv.FormatBool(*e.isError), Actual: strconv.FormatBool(o.IsError),
			Message: fmt.Sprintf("the result's isError is %t", o.IsError)})
	}
	ce := o.RPC
	if e.errorCode != nil {
		switch {
		case ce == nil:
			fs = append(fs, failure{Kind: "error-code", Expected: strconv.Itoa(*e.errorCode), Actual: "none", Message: noCallError(o)})
		case ce.Code != *e.errorCode:
			fs = append(fs, failure{Kind: "error-code", Expected: strconv.Itoa(*e.errorCode), Actual: strconv.Itoa(ce.Code),
				Message: fmt.Sprintf("another JSON-RPC error: %s", safetext.Prose(ce.Message))})
		}
	}
	if e.errorMessage != nil {
		switch {
		case ce == nil:
			fs = append(fs, failure{Kind: "error-message", Expected: "/" + e.errorMessage.String() + "/", Actual: "none", Message: noCallError(o)})
		case !e.errorMessage.MatchString(ce.Message):
			fs = append(fs, failure{Kind: "error-message", Expected: "/" + e.errorMessage.String() + "/", Actual: quoteText(ce.Message),
				Message: "the error's message does not match"})
		}
	}
	value := o.Value
	if value == nil {
		value = json.RawMessage("null")
	}
	for _, q := range e.jq {
		if f := c.jq(ctx, q, value); f != nil {
			fs = append(fs, *f)
		}
	}
	if e.equals != nil {
		if path, ok := jsonDiff(e.equals, value); !ok {
			f := failure{Kind: "equals", Expected: clip(compactText(e.equals)), Actual: clip(compactText(value)), Message: "the value differs"}
			if e.equalsFile != "" {
				f.Kind, f.Message = "equals-file", "the value differs from "+e.equalsFile
			}
			if path != "" {
				f.Message += " at " + path
			}
			fs = append(fs, f)
		}
	}
	if len(e.matches) > 0 {
		text := valueText(value)
		for _, re := range e.matches {
			if !re.MatchString(text) {
				fs = append(fs, failure{Kind: "matches", Expected: "/" + re.String() + "/", Actual: quoteText(text),
					Message: "the text does not match"})
			}
		}
	}
	if e.schema != nil {
		kind := "schema"
		if e.schemaFile != "" {
			kind = "schema-file"
		}
		f, note := schemaChecked(kind, "the value", "the schema", value, e.schema.Validate(ctx, value))
		fs, notes = appendChecked(fs, notes, f, note)
	}
	if e.OutputSchema && (o.Raw != nil || len(fs) == 0) {
		f, note := checkOutputSchema(ctx, o, schema)
		fs, notes = appendChecked(fs, notes, f, note)
	}
	return fs, notes
}

// schemaChecked says what came of checking value (named what) against a
// schema (named against): nothing, a failure of kind for a violation or a
// check the context ended, or a note for a check too costly to finish,
// which mcpv call only warns about too.
func schemaChecked(kind, what, against string, value json.RawMessage, err error) (*failure, string) {
	var violation *toolargs.Violation
	switch {
	case err == nil:
		return nil, ""
	case errors.As(err, &violation):
		return &failure{Kind: kind, Message: fmt.Sprintf("%s breaks %s at %s", what, against, safetext.Line(violation.Error())), Actual: clip(compactText(value))}, ""
	case errors.As(err, new(*toolargs.CostError)):
		return nil, fmt.Sprintf("warning: %s is not checked against %s: %s", what, against, safetext.Line(err.Error()))
	default: // the step's context ended
		return &failure{Kind: kind, Message: fmt.Sprintf("%s is not checked against %s: %s", what, against, safetext.Line(err.Error()))}, ""
	}
}

func appendChecked(fs []failure, notes []string, f *failure, note string) ([]failure, []string) {
	if f != nil {
		fs = append(fs, *f)
	}
	if note != "" {
		notes = append(notes, note)
	}
	return fs, notes
}

// noCallError says how a step that should have had a JSON-RPC error ended.
func noCallError(o Outcome) string {
	if o.Err == nil {
		return fmt.Sprintf("no JSON-RPC error: the step succeeded (exit %d)", o.Code)
	}
	return fmt.Sprintf("no JSON-RPC error: exit %d: %s", o.Code, safetext.Prose(o.Err.Error()))
}

// checkOutputSchema checks the result's structuredContent against the
// tool's own outputSchema.
func checkOutputSchema(ctx context.Context, o Outcome, outputSchema func() (json.RawMessage, error)) (*failure, string) {
	fail := func(format string, args ...any) (*failure, string) {
		return &failure{Kind: "output-schema", Message: fmt.Sprintf(format, args...)}, ""
	}
	if o.Raw == nil {
		return fail("no result to check")
	}
	schema, err := outputSchema()
	switch {
	case err != nil:
		return fail("could not get the tool's outputSchema: %v", err)
	case len(schema) == 0:
		return fail("the tool declares no outputSchema")
	case o.Structured == nil:
		return fail("the result has no structuredContent")
	}
	v, err := toolargs.Compile(ctx, schema)
	switch {
	case ctx.Err() != nil && err != nil:
		return schemaChecked("output-schema", "structuredContent", "the outputSchema", o.Structured, err)
	case err != nil:
		return fail("the tool's outputSchema cannot be used: %v", err)
	}
	return schemaChecked("output-schema", "structuredContent", "the outputSchema", o.Structured, v.Validate(ctx, o.Structured))
}

// jq checks that expr is true of value: it has outputs, and none is false
// or null. A failure shows the outputs, and for a comparison (or the first
// false part of an and) the values of its two sides.
func (c *checker) jq(ctx context.Context, expect query, value json.RawMessage) *failure {
	expr := expect.expr
	outs, err := expect.eval(ctx, value, c.caps)
	if err != nil {
		return &failure{Kind: "jq", Message: fmt.Sprintf("%s: %v", expr, err), Expected: "true"}
	}
	if truthy(outs) {
		return nil
	}
	f := &failure{Kind: "jq", Message: expr, Expected: "true", Actual: describeOutputs(outs)}
	q, perr := gojq.Parse(expr)
	if perr != nil {
		return f
	}
	for q.Op == gojq.OpAnd {
		left, _ := expect.part(q.Left.String()).eval(ctx, value, c.caps)
		if !truthy(left) {
			q = q.Left
		} else {
			q = q.Right
		}
		if q.Op != gojq.OpAnd {
			f.Details = append(f.Details, "false: "+q.String())
		}
	}
	switch q.Op {
	case gojq.OpEq, gojq.OpNe, gojq.OpLt, gojq.OpLe, gojq.OpGt, gojq.OpGe:
		for _, side := range []*gojq.Query{q.Left, q.Right} {
			if literal(side) {
				continue // its value is what it says
			}
			if outs, err := expect.part(side.String()).eval(ctx, value, c.caps); err != nil {
				f.Details = append(f.Details, fmt.Sprintf("%s: %v", side, err))
			} else {
				f.Details = append(f.Details, fmt.Sprintf("%s = %s", side, describeOutputs(outs)))
			}
		}
	}
	return f
}

// literal reports a jq expression that is a constant: null, true, false,
// a number, a string without interpolation, or an array or object of them.
func literal(q *gojq.Query) bool {
	switch {
	case q == nil: // the inside of []
		return true
	case q.Op == gojq.OpComma:
		return literal(q.Left) && literal(q.Right)
	case q.Op != 0 || q.Term == nil || len(q.FuncDefs) > 0:
		return false
	}
	return literalTerm(q.Term)
}

func literalTerm(t *gojq.Term) bool {
	if len(t.SuffixList) > 0 {
		return false
	}
	switch t.Type {
	case gojq.TermTypeNull, gojq.TermTypeTrue, gojq.TermTypeFalse, gojq.TermTypeNumber:
		return true
	case gojq.TermTypeString:
		return len(t.Str.Queries) == 0
	case gojq.TermTypeUnary:
		return literalTerm(t.Unary.Term)
	case gojq.TermTypeArray:
		return literal(t.Array.Query)
	case gojq.TermTypeQuery:
		return literal(t.Query)
	case gojq.TermTypeObject:
		for _, kv := range t.Object.KeyVals {
			constKey := kv.Key != "" && !strings.HasPrefix(kv.Key, "$") || kv.KeyString != nil && len(kv.KeyString.Queries) == 0
			if !constKey || kv.Val == nil || !literal(kv.Val) {
				return false
			}
		}
		return true
	}
	return false
}

// query is a jq expression of a file, compiled once, when the file is
// read, with the captures of the steps before it as its variables.
type query struct {
	expr    string
	filter  *jq.Filter
	err     error    // compiling it: reported when it runs (a capture's)
	names   []string // its variables
	environ []string
	bounds  jq.Bounds
}

// JQBounds are what each jq expression of a test file may take, when its
// Options say nothing: its expectations' and captures' (here) and a
// step's --jq (which the command line runs). A file from a cloned
// repository may hold one that never ends or grows without end: the step
// fails with a *jq.LimitError instead, and the run goes on.
var JQBounds = jq.Bounds{Time: 5 * time.Second, Alloc: 512 << 20}

// compileQuery compiles expr with the captures in known as variables, to
// run within bounds.
func compileQuery(expr string, known map[string]bool, environ []string, bounds jq.Bounds) query {
	return query{names: slices.Sorted(maps.Keys(known)), environ: environ, bounds: bounds}.part(expr)
}

// part is another expression (a part of q's), with q's variables.
func (q query) part(expr string) query {
	p := query{expr: expr, names: q.names, environ: q.environ, bounds: q.bounds}
	p.filter, p.err = jq.CompileVars(expr, q.environ, q.names...)
	p.err = jq.OneLine(p.err) // a file's mistake: FILE:LINE:COL says where, on one line
	return p
}

// eval runs q on value within q's bounds (and ctx), and returns its
// outputs as compact JSON, with the captures in caps as its variables.
func (q query) eval(ctx context.Context, value json.RawMessage, caps map[string]json.RawMessage) ([]string, error) {
	if q.err != nil {
		return nil, q.err
	}
	v, err := jq.Decode(value)
	if err != nil {
		return nil, fmt.Errorf("decode result for --jq: %w", err)
	}
	var outs []string
	for out, err := range q.filter.With(variables(caps)...).RunWithin(ctx, v, q.bounds) {
		if err != nil {
			return nil, err
		}
		text, err := jq.Marshal(out)
		if err != nil {
			return nil, err
		}
		outs = append(outs, string(text))
	}
	return outs, nil
}

func truthy(outs []string) bool {
	return len(outs) > 0 && !slices.ContainsFunc(outs, func(o string) bool { return o == "false" || o == "null" })
}

func describeOutputs(outs []string) string {
	if len(outs) == 0 {
		return "no output"
	}
	return clip(strings.Join(outs, ", "))
}

// valueText is what matches: looks at: a string as it is; a result's
// content, resource contents or prompt messages, as --text prints them;
// anything else as compact JSON.
func valueText(v json.RawMessage) string {
	var s string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	if t, err := content.Text(v); err == nil {
		return t
	}
	return compactText(v)
}

func compactText(v json.RawMessage) string {
	var b bytes.Buffer
	if rawjson.WriteCompact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// maxShown bounds a value shown in a report.
const maxShown = 400

func clip(s string) string { return safetext.Runes(safetext.Line(s), maxShown) }

func quoteText(s string) string { return clip(strconv.Quote(s)) }

// variables are the captures as jq variables ($name).
func variables(caps map[string]json.RawMessage) []jq.Variable {
	var vars []jq.Variable
	for _, name := range slices.Sorted(maps.Keys(caps)) {
		if v, err := jq.DecodeJSON(caps[name]); err == nil {
			vars = append(vars, jq.Variable{Name: name, Value: v})
		}
	}
	return vars
}

// Capture keeps the step's captures from value, what it printed, in caps;
// a capture that fails or gives no value is a failure.
func (s *Step) Capture(ctx context.Context, value json.RawMessage, caps map[string]json.RawMessage) []failure {
	var fs []failure
	for _, cs := range s.Captures {
		outs, err := cs.query.eval(ctx, value, caps)
		switch {
		case err != nil:
			fs = append(fs, failure{Kind: "capture", Message: fmt.Sprintf("%s: %s: %v", cs.Name, cs.Expr, err)})
		case len(outs) == 0:
			fs = append(fs, failure{Kind: "capture", Message: fmt.Sprintf("%s: %s gave no value", cs.Name, cs.Expr)})
		default:
			caps[cs.Name] = json.RawMessage(outs[0])
		}
	}
	return fs
}
