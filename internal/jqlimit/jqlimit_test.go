package jqlimit

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/itchyny/gojq"
)

func run(t *testing.T, expr string, input any) ([]any, error) {
	t.Helper()
	q, err := gojq.Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	code, err := Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	var outs []any
	err = Run(context.Background(), code, input, Default, func(v any) bool { outs = append(outs, v); return true })
	return outs, err
}

func TestRun(t *testing.T) {
	t.Parallel()
	outs, err := run(t, ".b > 1, .a", map[string]any{"a": 1, "b": 2})
	if err != nil || len(outs) != 2 || outs[0] != true || outs[1] != 1 {
		t.Errorf("outputs %v, %v", outs, err)
	}
	if _, err := run(t, ".a.b.c[0]", "x"); err == nil {
		t.Error("an error of the expression was not returned")
	}
}

// An expression that never ends, or grows without end, fails its run
// (which bound it meets first depends on the machine's speed, except
// for one that allocates nothing: range allocates each number beyond
// 255 it yields, repeat(null) and a recursion nothing).
func TestRunBounded(t *testing.T) {
	t.Parallel()
	for expr, what := range map[string]string{
		"def f: f; f":                       "time",
		"last(repeat(null))":                "time",
		"last(range(1e12))":                 "",
		"[range(1e9)] | length > 0":         "",
		"[range(1e8)] | length > 0":         "",
		`"x" | until(length > 1e10; . + .)`: "",
		"[limit(1e9; repeat(1))] | length":  "",
	} {
		_, err := run(t, expr, nil)
		var le *LimitError
		if !errors.As(err, &le) || what != "" && le.What != what {
			t.Errorf("%s: %v, want the bound of %s", expr, err, what)
		}
	}
}

// The environment is not the expression's to read.
func TestNoEnvironment(t *testing.T) {
	t.Setenv("JQLIMIT_TEST_SECRET", "s3cr3t")
	outs, err := run(t, `[env.JQLIMIT_TEST_SECRET, $ENV.JQLIMIT_TEST_SECRET]`, nil)
	if err != nil || len(outs) != 1 {
		t.Fatalf("%v %v", outs, err)
	}
	if got := outs[0].([]any); got[0] != nil || got[1] != nil {
		t.Errorf("the expression read the environment: %v", got)
	}
}

// TestRunVariables: an expression sees the variables it was compiled
// with, set to the values of its run.
func TestRunVariables(t *testing.T) {
	q, err := gojq.Parse(`[., $a, $b.n]`)
	if err != nil {
		t.Fatal(err)
	}
	code, err := Compile(q, "$a", "$b")
	if err != nil {
		t.Fatal(err)
	}
	var got any
	err = Run(context.Background(), code, 1, Default, func(v any) bool { got = v; return false }, "x", map[string]any{"n": 2})
	if err != nil || fmt.Sprint(got) != "[1 x 2]" {
		t.Errorf("got %v, %v", got, err)
	}
}
