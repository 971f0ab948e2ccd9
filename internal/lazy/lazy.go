// Package lazy holds values built on first use that cost nothing before
// it. Every mcpv command, --version included, runs every linked package's
// init; sync.OnceValue allocates twice there (its closure and the state it
// shares), for each table or regular expression a package declares with
// it. A Value or Regexp declared as a composite literal is laid out by the
// linker instead, and builds on the first Get.
package lazy

import (
	"regexp"
	"sync"
)

// Value is what New returns, called once, on the first Get. Declare it
// as a composite literal with a function literal that captures nothing:
//
//	var table = &lazy.Value[map[string]int]{New: func() map[string]int { ... }}
//
// Get is safe for concurrent use. As with sync.Once, a New that panics
// is not called again.
type Value[T any] struct {
	once sync.Once
	New  func() T
	v    T
}

// Get is the value, built by the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.New() })
	return l.v
}

// Regexp is a regular expression compiled, with regexp.MustCompile, on
// the first Get:
//
//	var name = &lazy.Regexp{Pattern: `^[a-z]+$`}
type Regexp struct {
	once    sync.Once
	Pattern string
	re      *regexp.Regexp
}

// Get is the compiled expression.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.Pattern) })
	return r.re
}
