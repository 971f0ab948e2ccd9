package loaddata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// Template is an argument whose value is a jq expression, evaluated for
// each iteration: key~=EXPR. Its value is the expression's first output,
// as JSON (a number stays a number: no schema types it).
type Template struct {
	Key    string
	Expr   string
	filter *jq.Filter
	path   []string // the keys into the row of an expression that is a path into it (rowPath)
}

// Mark is what marks a template in mcpv's key=value grammar: key~=EXPR.
const Mark = "~="

// Bounds bound one evaluation of a template: far more than an expression
// over an iteration's numbers and row needs, far less than would stall the
// run or fill memory (an expression from a cloned repository's mix or
// scenario file may try either). What is allocated is counted over the
// whole process, where every session of the run reads its answers at
// once: a busy run allocates tens of MiB while one evaluation waits for
// its turn on a loaded machine, so the bound is that of a test file's
// expressions, not the 64 MiB of a predicate run alone.
var Bounds = jq.Bounds{Time: jq.Default.Time, Alloc: 512 << 20}

// Split takes the templates out of a command's key=value words: the words
// left, and the templates, compiled. A template is a word whose key ends
// in ~ (key~=EXPR); an expression that does not compile is an error.
func Split(words []string) (rest []string, ts []Template, err error) {
	for _, w := range words {
		key, expr, ok := strings.Cut(w, Mark)
		if !ok || strings.Contains(key, "=") {
			rest = append(rest, w)
			continue
		}
		if key == "" || strings.HasSuffix(key, ":") {
			return nil, nil, fmt.Errorf("argument %q: want key~=EXPR (a jq expression over .iteration, .session, .row and .random)", w)
		}
		f, err := jq.Compile(expr, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("argument %s: %w", key, jq.OneLine(err))
		}
		ts = append(ts, Template{Key: key, Expr: expr, filter: f, path: rowPath(expr)})
	}
	return rest, ts, nil
}

// Input is what a template sees: .iteration (from 0, across the run),
// .session (the virtual user, from 0), .row (the data file's row for the
// iteration, or null) and .random (in [0, 1), from the seed and the
// iteration).
type Input struct {
	Iteration int64
	Session   int
	Row       any
	Random    float64
}

// Value is the input as jq sees it.
func (in Input) Value() any {
	return map[string]any{"iteration": int(in.Iteration), "session": in.Session, "row": in.Row, "random": in.Random}
}

// ErrNoValue is a template that gave no output.
var ErrNoValue = errors.New("gave no value")

// Eval is the template's value for in (as Value returns it), as JSON,
// within Bounds.
func (t Template) Eval(ctx context.Context, in any) ([]byte, error) {
	v, err := t.Value(ctx, in)
	if err != nil {
		return nil, err
	}
	return v.AppendTo(make([]byte, 0, v.Len())), nil
}

// Value is a template's value, to be written as JSON where it goes: a
// string that needs no escape is kept as it is (a row's string, not a
// copy of it) and written once, in place.
type Value struct {
	text  string // a string that needs no escape, when plain
	plain bool
	json  []byte // else the value's JSON
}

// Len is the length of the value's JSON.
func (v Value) Len() int {
	if v.plain {
		return len(v.text) + 2
	}
	return len(v.json)
}

// AppendTo appends the value's JSON to b.
func (v Value) AppendTo(b []byte) []byte {
	if v.plain {
		return rawjson.AppendString(b, v.text)
	}
	return append(b, v.json...)
}

// Value is the template's value for in (as Input.Value returns it),
// within Bounds.
func (t Template) Value(ctx context.Context, in any) (Value, error) {
	for out, err := range t.filter.RunWithin(ctx, in, Bounds) {
		if err != nil {
			return Value{}, fmt.Errorf("argument %s: %w", t.Key, err)
		}
		if s, ok := out.(string); ok && rawjson.Plain(s) {
			return Value{text: s, plain: true}, nil
		}
		b, err := jq.Marshal(out)
		if err != nil {
			return Value{}, fmt.Errorf("argument %s: %w", t.Key, err)
		}
		return Value{json: b}, nil
	}
	return Value{}, fmt.Errorf("argument %s: %s %w", t.Key, t.Expr, ErrNoValue)
}

// argKey is what an argument's key is made of (dotted keys nest).
func argKey(key string) bool {
	for i, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && (c == '.' || c == '-')) {
			return false
		}
	}
	return key != ""
}

// Once is words with each template (key~=EXPR) evaluated for in, once: a
// call's as key:=JSON, a prompt's (command "get-prompt") as key=TEXT, the
// string's own text for a string. It is what a command that runs a step
// once (mcpv test) makes of a load scenario's templates, with the input
// of a first iteration.
func Once(ctx context.Context, command string, words []string, in Input) ([]string, error) {
	out := make([]string, 0, len(words))
	for _, w := range words {
		if key, _, ok := strings.Cut(w, Mark); !ok || !argKey(key) {
			out = append(out, w) // no template: a flag's value, say
			continue
		}
		_, ts, err := Split([]string{w}) // a key argKey takes is a template's
		if err != nil {
			return nil, err
		}
		v, err := ts[0].Eval(ctx, in.Value())
		if err != nil {
			return nil, err
		}
		var s string
		switch {
		case command != "get-prompt":
			out = append(out, ts[0].Key+":="+string(v))
		case json.Unmarshal(v, &s) == nil:
			out = append(out, ts[0].Key+"="+s)
		default:
			out = append(out, ts[0].Key+"="+string(v))
		}
	}
	return out, nil
}
