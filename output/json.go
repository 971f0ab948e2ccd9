package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/itchyny/gojq"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/tidwall/pretty"
)

// Format says how values are written.
type Format struct {
	Pretty bool // indented; otherwise compact, one value per line
	Color  bool
	Raw    bool // strings from a filter are written without quotes (jq -r)
}

// ErrFalsy is returned by Printer.Print under ExitStatus when the last filter
// output was false or null, or when there was none (jq -e).
var ErrFalsy = errors.New("the last output was false or null")

// Printer writes results to stdout: the server's JSON as received (key order,
// number text, unknown fields), or the outputs of a jq filter.
type Printer struct {
	Out        io.Writer
	Format     Format
	Filter     *Filter // nil prints the value itself
	ExitStatus bool    // jq -e
}

// ClosedError wraps a failed write to stdout: the reader went away (EPIPE)
// or the stream failed. A closed pipe ends mcpv quietly with success.
type ClosedError struct{ Err error }

func (e *ClosedError) Error() string { return "write to stdout: " + e.Err.Error() }
func (e *ClosedError) Unwrap() error { return e.Err }

// stdoutWriter marks write errors as stdout's own.
type stdoutWriter struct{ w io.Writer }

func (s stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = &ClosedError{Err: err}
	}
	return n, err
}

// writers are Print's buffers, reused: a batch prints thousands of values.
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

// Print writes one JSON value (or the filter's outputs for it).
func (p *Printer) Print(raw []byte) error {
	w := writers.Get().(*bufio.Writer)
	w.Reset(stdoutWriter{p.Out})
	defer func() {
		w.Reset(nil)
		writers.Put(w)
	}()
	var err error
	if p.Filter == nil {
		err = p.writeRaw(w, raw)
	} else {
		err = p.runFilter(w, raw)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

func (p *Printer) writeRaw(w *bufio.Writer, raw []byte) error {
	if p.Format.Pretty || p.Format.Color {
		out := raw
		if p.Format.Pretty {
			out = pretty.PrettyOptions(raw, &pretty.Options{Width: 80, Indent: "  "})
		} else {
			var b bytes.Buffer
			rawjson.WriteCompact(&b, raw)
			out = append(b.Bytes(), '\n')
		}
		if p.Format.Color {
			out = pretty.Color(terminalSafe(out), nil)
		}
		_, err := w.Write(out)
		return err
	}
	if err := rawjson.WriteCompact(w, raw); err != nil {
		return err
	}
	return w.WriteByte('\n')
}

// collectBefore is the size of a result from which a filter collects
// garbage before decoding it (see runFilter).
const collectBefore = 32 << 20

func (p *Printer) runFilter(w *bufio.Writer, raw []byte) error {
	if len(raw) >= collectBefore {
		// Reading a large result left about as much garbage behind (the
		// pieces a stdio line was read in, a body's buffer as it grew).
		// Collected and handed back to the system now, it is not still
		// held when the decoded copy is made: a 100 MB result's peak is
		// then about twice its size, not three times. (A collection alone
		// is not enough: the copy cannot always reuse the garbage's
		// memory, which is in pieces.) Both cost little next to decoding
		// such a result.
		debug.FreeOSMemory()
	}
	v, err := decodeExact(raw)
	if err != nil {
		return fmt.Errorf("decode result for --jq: %w", err)
	}
	iter := p.Filter.code.Run(v, p.Filter.values...)
	var last any
	got := false
	for {
		out, ok := iter.Next()
		if !ok {
			break
		}
		if ferr, isErr := out.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(ferr, &halt) && halt.Value() == nil {
				break
			}
			return &FilterError{Err: ferr, Runtime: true}
		}
		last, got = out, true
		if err := p.writeValue(w, out); err != nil {
			return err
		}
	}
	if p.ExitStatus && (!got || last == nil || last == false) {
		return ErrFalsy
	}
	return nil
}

func (p *Printer) writeValue(w *bufio.Writer, v any) error {
	if s, ok := v.(string); ok && p.Format.Raw {
		if _, err := w.WriteString(s); err != nil {
			return err
		}
		return w.WriteByte('\n')
	}
	b, err := gojq.Marshal(v)
	if err != nil {
		return err
	}
	return p.writeRaw(w, b)
}

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
}

func (e *FilterError) Error() string { return "jq: " + e.Err.Error() }
func (e *FilterError) Unwrap() error { return e.Err }

// CompileFilter parses and compiles a jq expression; environ (KEY=VALUE
// entries) is what $ENV and env show, and vars are its variables (a later
// one of the same name wins), also gathered in $ARGS.named as jq does.
// Parse errors point at the offending column.
func CompileFilter(expr string, environ []string, vars ...Variable) (*Filter, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		var pe *gojq.ParseError
		if errors.As(err, &pe) {
			return nil, &FilterError{Err: fmt.Errorf("%v\n    %s\n    %s^", err, expr, strings.Repeat(" ", caretColumn(expr, pe.Offset)))}
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

// CompileFilterVars compiles expr with variables of these names, whose
// values are given each time it runs (With): an expression run with
// values that change, compiled once.
func CompileFilterVars(expr string, environ []string, names ...string) (*Filter, error) {
	vars := make([]Variable, len(names))
	for i, name := range names {
		vars[i] = Variable{Name: name}
	}
	return CompileFilter(expr, environ, vars...)
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
	if offset > len(expr) {
		offset = len(expr)
	}
	if offset > 0 {
		offset--
	}
	return len([]rune(expr[:offset]))
}

// terminalSafe escapes, inside JSON strings, the characters a terminal may
// act on or that change how text reads: C1 controls (U+0080-U+009F, which
// some terminals obey as escape sequences) and bidirectional controls. JSON
// allows them raw; written as \uXXXX they are the same string, and coloured
// output goes to a terminal. (C0 controls are always escaped in JSON.)
// Plain output is left byte for byte as the server sent it.
func terminalSafe(b []byte) []byte {
	if !hasUnsafeRune(b) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if unsafeRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func hasUnsafeRune(b []byte) bool {
	// Every such character is encoded starting with 0xC2 (C1), 0xD8
	// (U+061C) or 0xE2 (the U+20xx marks): a quick scan first.
	if bytes.IndexByte(b, 0xc2) < 0 && bytes.IndexByte(b, 0xe2) < 0 && bytes.IndexByte(b, 0xd8) < 0 {
		return false
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if unsafeRune(r) {
			return true
		}
		i += size
	}
	return false
}

func unsafeRune(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r == 0x061c || r == 0x200e || r == 0x200f ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
