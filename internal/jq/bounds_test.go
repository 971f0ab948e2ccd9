package jq

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

func run(t *testing.T, expr string, input any) ([]any, error) {
	t.Helper()
	f, err := Compile(expr, nil)
	if err != nil {
		t.Fatal(err)
	}
	var outs []any
	for v, err := range f.RunWithin(context.Background(), input, Default) {
		if err != nil {
			return outs, err
		}
		outs = append(outs, v)
	}
	return outs, nil
}

func TestRunWithin(t *testing.T) {
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
func TestRunWithinBounds(t *testing.T) {
	testkit.SkipLong(t, "expressions run to their time and memory bounds")
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

// A nil environ leaves the environment out of the expression's reach.
func TestNoEnvironment(t *testing.T) {
	t.Setenv("JQ_TEST_SECRET", "s3cr3t")
	outs, err := run(t, `[env.JQ_TEST_SECRET, $ENV.JQ_TEST_SECRET]`, nil)
	if err != nil || len(outs) != 1 {
		t.Fatalf("%v %v", outs, err)
	}
	if got := outs[0].([]any); got[0] != nil || got[1] != nil {
		t.Errorf("the expression read the environment: %v", got)
	}
}

// RunWithin runs an expression with the variables it was compiled with,
// set to the values With gives.
func TestRunWithinVariables(t *testing.T) {
	f, err := CompileVars(`[., $a, $b.n]`, nil, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for v, err := range f.With(Variable{"a", "x"}, Variable{"b", map[string]any{"n": 2}}).RunWithin(context.Background(), 1, Default) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if fmt.Sprint(got) != "[[1 x 2]]" {
		t.Errorf("got %v", got)
	}
}
