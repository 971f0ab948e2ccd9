package jq

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runString runs f on the JSON text in, and returns its outputs as
// compact JSON, one a line, and the error that ended the run.
func runString(t *testing.T, f *Filter, in string) (string, error) {
	t.Helper()
	v, err := Decode([]byte(in))
	if err != nil {
		t.Fatalf("Decode(%q): %v", in, err)
	}
	var b strings.Builder
	for out, err := range f.Run(v) {
		if err != nil {
			return b.String(), err
		}
		text, err := Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(text)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

func mustCompile(t *testing.T, expr string) *Filter {
	t.Helper()
	f, err := Compile(expr, nil)
	if err != nil {
		t.Fatalf("Compile(%q): %v", expr, err)
	}
	return f
}

// A run yields every output, then stops: quietly at halt, with a
// *FilterError at an error the expression raises (after the outputs
// before it), or when the loop over it stops.
func TestRun(t *testing.T) {
	for _, tt := range []struct {
		expr, in, want, wantErr string
	}{
		{".[]", `[1,"x",{"a":[1, 2]}]`, "1\n\"x\"\n{\"a\":[1,2]}\n", ""},
		{"empty", `{}`, "", ""},
		{"1, halt, 2", `{}`, "1\n", ""},
		{".a + 1", `{"a":12345678901234567890}`, "12345678901234567891\n", ""},
		{`1, error("custom"), 2`, `{}`, "1\n", "jq: error: custom"},
		{".a.b", `{"a":1}`, "", "jq: expected an object but got: number (1)"},
		{`"x" | halt_error`, `{}`, "", "jq: halt error: x"},
	} {
		got, err := runString(t, mustCompile(t, tt.expr), tt.in)
		if got != tt.want {
			t.Errorf("%s on %s: %q, want %q", tt.expr, tt.in, got, tt.want)
		}
		var fe *FilterError
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s on %s: %v", tt.expr, tt.in, err)
		case tt.wantErr != "" && (!errors.As(err, &fe) || !fe.Runtime || !strings.HasPrefix(err.Error(), tt.wantErr)):
			t.Errorf("%s on %s: %v, want a runtime *FilterError starting %q", tt.expr, tt.in, err, tt.wantErr)
		}
	}
	var seen []any
	for out, err := range mustCompile(t, "range(5)").Run(nil) {
		if err != nil {
			t.Fatal(err)
		}
		if seen = append(seen, out); len(seen) == 2 {
			break
		}
	}
	if len(seen) != 2 {
		t.Errorf("a loop that stops after two outputs saw %v", seen)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		expr, want string
	}{
		{".a | | .b", "jq: unexpected token \"|\"\n    .a | | .b\n         ^"},
		{`"é" | | .`, "jq: unexpected token \"|\"\n    \"é\" | | .\n          ^"},
		{"{", "jq: unexpected EOF\n    {\n    ^"},
		{"$undefined", "jq: variable not defined: $undefined"},
		{"nosuchfunc(1)", "jq: function not defined: nosuchfunc/1"},
	}
	for _, tt := range tests {
		f, err := Compile(tt.expr, nil)
		var fe *FilterError
		if f != nil || !errors.As(err, &fe) {
			t.Errorf("Compile(%q) = %v, %v; want a *FilterError", tt.expr, f, err)
			continue
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("Compile(%q) error (-want +got):\n%s", tt.expr, diff)
		}
		// On one line, as a file's mistakes are said: the caret's column
		// in words, the error still a *FilterError.
		line := OneLine(err)
		first, _, caret := strings.Cut(tt.want, "\n")
		want := first
		if caret {
			want = fmt.Sprintf("%s (column %d of %q)", first, strings.Index(tt.want, "^")-strings.LastIndex(tt.want, "\n")-4, tt.expr)
		}
		if got := line.Error(); got != want || !errors.As(line, &fe) {
			t.Errorf("OneLine(Compile(%q)) = %q, want %q", tt.expr, got, want)
		}
	}
}

// A filter compiled with its variables' names runs with values given
// later, each run its own; $ARGS.named holds the ones given.
func TestFilterWith(t *testing.T) {
	f, err := CompileVars(`[$a, $b, $ARGS.named]`, nil, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		vars []Variable
		want string
	}{
		{[]Variable{{Name: "a", Value: "x"}, {Name: "b", Value: json.Number("1")}}, `[["x",1,{"a":"x","b":1}]]`},
		{[]Variable{{Name: "a", Value: "y"}, {Name: "c", Value: "ignored"}}, `[["y",null,{"a":"y"}]]`},
	} {
		out, err := runString(t, f.With(tt.vars...), `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if got := "[" + strings.TrimSpace(out) + "]"; got != tt.want {
			t.Errorf("%v: %s, want %s", tt.vars, got, tt.want)
		}
	}
	if _, err := CompileVars(`$c`, nil, "a"); err == nil {
		t.Error("an undeclared variable compiled")
	}
}
