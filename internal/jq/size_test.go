package jq

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// HARDENING, a cloned repository: an expression nested a million deep
// (in a test file's expectation, a mock's responses file) once ended the
// process with a stack overflow while it compiled; one of a million terms
// took seconds and hundreds of megabytes. Both are refused, in a line,
// before they are parsed; expressions of ordinary shape and size compile.
func TestCompileRefusesExplodingExpressions(t *testing.T) {
	for name, tc := range map[string]struct {
		expr string
		want string // "" compiles
	}{
		"nested 30,000 deep":      {strings.Repeat("[", 30_000) + strings.Repeat("]", 30_000), "nests more than 256 deep"},
		"nested past the bound":   {strings.Repeat("(", MaxNesting+1) + "." + strings.Repeat(")", MaxNesting+1), "nests more than 256 deep"},
		"nested to the bound":     {strings.Repeat("(", MaxNesting) + "." + strings.Repeat(")", MaxNesting), ""},
		"a million terms":         {"1" + strings.Repeat("+1", 500_000), "more than the 65536 a jq expression may be"},
		"brackets in a string":    {`"` + strings.Repeat("((", 300) + `"`, ""},
		"brackets in a comment":   {"# " + strings.Repeat("[", 300) + "\n.", ""},
		"interpolations, nested":  {`"a\(.b | "c\(.d)")"`, ""},
		"escaped quote, then (":   {`"\"" | ` + strings.Repeat("(", MaxNesting+1) + "." + strings.Repeat(")", MaxNesting+1), "nests more than 256 deep"},
		"long, of an honest kind": {strings.Repeat(".a | ", 10_000) + ".", ""},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := Compile(tc.expr, nil)
			var fe *FilterError
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Compile: %v", err)
			case tc.want != "" && (!errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), "\n") > 0):
				t.Errorf("Compile = %v, want one line with %q", err, tc.want)
			}
			t.Logf("%v", time.Since(start))
		})
	}
}
