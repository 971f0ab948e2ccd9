// Package lazy holds values built on first use that cost nothing before
// it. sync.OnceValue allocates twice at init, which every command pays;
// a Value or Regexp declared as a composite literal is laid out by the
// linker instead, and built on the first Get. Wake, Closed and Signal are
// the other things its importers share: a wake-up that never waits for the
// one woken, a look at whether a channel is closed that never waits, and a
// wake-up of every waiter at once.
package lazy

import (
	"regexp"
	"sync"
)

// Value is what New returns, called once, on the first Get; New is a
// function literal that captures nothing. Get is safe for concurrent use;
// as with sync.Once, a New that panics is not called again.
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

// Regexp is a regular expression compiled on the first Get: Pattern, or
// what From returns when it is set.
type Regexp struct {
	once    sync.Once
	Pattern string
	From    func() string
	re      *regexp.Regexp
}

// Get is the compiled expression.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(func() {
		if r.From != nil {
			r.Pattern = r.From()
		}
		r.re = regexp.MustCompile(r.Pattern)
	})
	return r.re
}

// Put sets m[k] to v, making the map first when there is none.
func Put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}
