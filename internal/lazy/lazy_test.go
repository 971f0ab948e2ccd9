package lazy

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var made atomic.Int32

var table = &Value[map[string]int]{New: func() map[string]int {
	made.Add(1)
	return map[string]int{"one": 1}
}}

var (
	word  = &Regexp{Pattern: `^[a-z]+$`}
	built = &Regexp{From: func() string { return "^" + strings.Repeat("[0-9]", 3) + "$" }}
)

// Nothing is built before the first Get; then it is built once, however
// many ask at the same time, and every one of them sees it.
func TestValueBuiltOnceOnFirstUse(t *testing.T) {
	if n := made.Load(); n != 0 {
		t.Fatalf("built %d times before any Get", n)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := table.Get()["one"]; got != 1 {
				t.Errorf(`table.Get()["one"] = %d`, got)
			}
		})
	}
	wg.Wait()
	if n := made.Load(); n != 1 {
		t.Errorf("built %d times, want once", n)
	}
	if a := testing.AllocsPerRun(100, func() { table.Get() }); a != 0 {
		t.Errorf("a Get after the first allocates %v times", a)
	}
}

func TestRegexp(t *testing.T) {
	if !word.Get().MatchString("abc") || word.Get().MatchString("a1") {
		t.Error("the compiled expression is not the pattern's")
	}
	if !built.Get().MatchString("123") || built.Get().MatchString("12") {
		t.Error("the expression compiled is not what From built")
	}
	if first := word.Get(); word.Get() != first {
		t.Error("compiled again")
	}
	if a := testing.AllocsPerRun(100, func() { word.Get() }); a != 0 {
		t.Errorf("a Get after the first allocates %v times", a)
	}
}
