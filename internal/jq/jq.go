// Package jq is mcpv's jq: an expression compiled once (with the
// environment it may read and its variables, as jq's --arg and --argjson
// set them), a result decoded as jq sees JSON (numbers kept exact), and
// the run, as an iterator of its outputs. Expressions the user typed run
// as long as they take (Run); those someone else wrote (a test file's, a
// mock's responses file's) run within bounds of time and of what they
// allocate (RunWithin). How outputs are printed is output's.
package jq

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/itchyny/gojq"
)

// Filter is a compiled jq expression and the values of its variables.
type Filter struct {
	code   *gojq.Code
	vars   []Variable // as compiled: their names, in order
	values []any      // of the variables, in the order they were compiled
}

// Variable is a jq variable set from outside the expression, as jq's --arg
// and --argjson set them: $Name in the expression.
type Variable struct {
	Name  string
	Value any // a string, or a JSON value as DecodeJSON returns it
}

// FilterError is a jq expression that failed to parse or to run.
type FilterError struct {
	Err error
	// Runtime is set for an error while running on a result (such as
	// `.a` on a string), as opposed to one in the expression itself.
	Runtime bool
	// expr and column, for an expression that does not parse, say where
	// it breaks: Error shows the expression on a line of its own below
	// the error with a caret under that column, as jq does for one typed
	// on the command line; oneLine says it in words.
	expr    string
	column  int
	oneLine bool
}

func (e *FilterError) Error() string {
	switch {
	case e.expr == "":
		return "jq: " + e.Err.Error()
	case e.oneLine:
		return fmt.Sprintf("jq: %v (column %d of %q)", e.Err, e.column+1, e.expr)
	}
	return fmt.Sprintf("jq: %v\n    %s\n    %s^", e.Err, e.expr, strings.Repeat(" ", e.column))
}

func (e *FilterError) Unwrap() error { return e.Err }

// OneLine is err said on one line, as every mistake of a file is: a
// *FilterError's column in words instead of a caret under the expression;
// any other error as it is.
func OneLine(err error) error {
	// Also one that a usage error wraps without a word of its own.
	if fe := (*FilterError)(nil); errors.As(err, &fe) && fe.expr != "" && err.Error() == fe.Error() {
		line := *fe
		line.oneLine = true
		return &line
	}
	return err
}

// Compile parses and compiles a jq expression; environ (KEY=VALUE
// entries) is what $ENV and env show, and vars are its variables (a later
// one of the same name wins), also gathered in $ARGS.named as jq does.
// Parse errors point at the offending column. An expression longer than
// MaxLength, or nested deeper than MaxNesting, is refused before it is
// parsed: compiling recurses as deep as the expression nests, and an
// expression from a file someone else wrote (a test file's, a mock's) must
// not end the process with a stack overflow.
func Compile(expr string, environ []string, vars ...Variable) (*Filter, error) {
	if err := checkSize(expr); err != nil {
		return nil, &FilterError{Err: err}
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		if pe, ok := errors.AsType[*gojq.ParseError](err); ok {
			return nil, &FilterError{Err: err, expr: expr, column: caretColumn(expr, pe.Offset)}
		}
		return nil, &FilterError{Err: err}
	}
	names, values := variables(vars)
	code, err := gojq.Compile(q, gojq.WithEnvironLoader(func() []string { return environ }), gojq.WithVariables(names))
	if err != nil {
		return nil, &FilterError{Err: err}
	}
	return &Filter{code: code, vars: vars, values: values}, nil
}

// The largest expression Compile takes: no expression anyone writes comes
// near either.
const (
	MaxLength  = 64 << 10 // bytes
	MaxNesting = 256      // brackets, parentheses and braces open at once
)

// checkSize refuses an expression past MaxLength or MaxNesting. Brackets
// in a string literal count only inside an interpolation, \(...).
func checkSize(expr string) error {
	if len(expr) > MaxLength {
		return fmt.Errorf("the expression is %d bytes long, more than the %d a jq expression may be", len(expr), MaxLength)
	}
	// open holds, for each bracket open, whether it is an interpolation's:
	// its close returns to the string around it.
	var open []bool
	inString := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		if inString {
			switch c {
			case '\\':
				if i+1 < len(expr) && expr[i+1] == '(' {
					open = append(open, true)
					inString = false
				}
				i++
			case '"':
				inString = false
			}
		} else {
			switch c {
			case '"':
				inString = true
			case '#': // a comment, to the end of the line
				for i < len(expr) && expr[i] != '\n' {
					i++
				}
			case '(', '[', '{':
				open = append(open, false)
			case ')', ']', '}':
				if n := len(open); n > 0 {
					inString = open[n-1]
					open = open[:n-1]
				}
			}
		}
		if len(open) > MaxNesting {
			return fmt.Errorf("the expression nests more than %d deep", MaxNesting)
		}
	}
	return nil
}

// CompileVars compiles expr with variables of these names, whose values
// are given each time it runs (With): an expression run with values that
// change, compiled once.
func CompileVars(expr string, environ []string, names ...string) (*Filter, error) {
	vars := make([]Variable, len(names))
	for i, name := range names {
		vars[i] = Variable{Name: name}
	}
	return Compile(expr, environ, vars...)
}

// With is the filter with the variables it was compiled with set to the
// values of those given by the same name, and the others null; $ARGS.named
// holds the ones given.
func (f *Filter) With(vars ...Variable) *Filter {
	given := map[string]any{}
	for _, v := range vars {
		given[v.Name] = v.Value
	}
	declared := make([]Variable, len(f.vars))
	named := map[string]any{}
	args := true // $ARGS is jq's, not a variable of the same name
	for i, v := range f.vars {
		x, ok := given[v.Name]
		if ok {
			named[v.Name] = x
		}
		declared[i] = Variable{Name: v.Name, Value: x}
		args = args && v.Name != "ARGS"
	}
	_, values := variables(declared)
	if args {
		values[0] = map[string]any{"positional": []any{}, "named": named}
	}
	return &Filter{code: f.code, vars: f.vars, values: values}
}

// variables returns gojq's names ("$x") and values for vars, each name
// once, and $ARGS unless a variable is named so.
func variables(vars []Variable) (names []string, values []any) {
	named := map[string]any{}
	for _, v := range vars {
		named[v.Name] = v.Value
	}
	if _, ok := named["ARGS"]; !ok {
		names, values = append(names, "$ARGS"), append(values, map[string]any{"positional": []any{}, "named": named})
	}
	seen := map[string]bool{}
	for _, v := range vars {
		if !seen[v.Name] {
			seen[v.Name] = true
			names, values = append(names, "$"+v.Name), append(values, named[v.Name])
		}
	}
	return names, values
}

// Run runs f on input (a value as Decode returns it): ranging over it
// yields each output in turn. An error the expression raises is yielded
// as a *FilterError (Runtime) and ends the run; halt ends it quietly, as
// in jq.
func (f *Filter) Run(input any) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		outputs(f.code.Run(input, f.values...), yield)
	}
}

// outputs hands the outputs of a run to yield, as Run describes.
func outputs(it gojq.Iter, yield func(any, error) bool) {
	for {
		out, ok := it.Next()
		if !ok {
			return
		}
		if err, isErr := out.(error); isErr {
			if halt, ok := errors.AsType[*gojq.HaltError](err); !ok || halt.Value() != nil {
				yield(nil, &FilterError{Err: err, Runtime: true})
			}
			return
		}
		if !yield(out, nil) {
			return
		}
	}
}

// Marshal is an output of a run as compact JSON text.
func Marshal(v any) ([]byte, error) { return gojq.Marshal(v) }

// DecodeJSON decodes one JSON text as a filter sees JSON: numbers stay
// exact (json.Number). Anything after the value is an error.
func DecodeJSON(text []byte) (any, error) {
	if v, ok := decodeValue(text); ok {
		return v, nil
	}
	if !json.Valid(text) {
		var v any
		err := json.Unmarshal(text, &v) // says what is wrong, and where
		return nil, err
	}
	return decodeStream(text)
}

func caretColumn(expr string, offset int) int {
	offset = min(offset, len(expr))
	if offset > 0 {
		offset--
	}
	return len([]rune(expr[:offset]))
}
