package check

import (
	"context"
	"sync"
)

// onces are what a run makes once, by key, for several checks: a tool's
// call, a task, a read. The first check that asks makes it, on its own
// goroutine and within its own time; a check that asks meanwhile waits
// for it, within its time (which stands while the maker's server starts,
// as the maker's does). A maker that ends without it (its check
// skipped, failed or ran out of time) leaves the key to the next check
// that asks or waits. The zero value is ready.
type onces[K comparable, V any] struct {
	mu    sync.Mutex // guards slots
	slots map[K]*onceSlot[V]
}

// onceSlot is one key's: made, or being made.
type onceSlot[V any] struct {
	done  chan struct{} // closed when its maker ends, with v or without
	ok    bool          // v was made; set before done is closed
	v     V
	maker *clock // the maker's time: a waiter's stands while it does
}

// get is key's value, made by build on t's goroutine when no check has
// made it; t ends (out of time) when its time runs out while it waits.
func (o *onces[K, V]) get(t *T, key K, build func() V) V {
	for {
		o.mu.Lock()
		s, making := o.slots[key]
		if !making {
			s = &onceSlot[V]{done: make(chan struct{}), maker: t.clock}
			store(&o.slots, key, s)
		}
		o.mu.Unlock()
		if !making {
			o.make(key, s, build)
			return s.v
		}
		// The maker's server's start is no more counted in a waiter's
		// time than in the maker's own.
		unfollow := t.clock.follow(s.maker)
		select {
		case <-s.done:
			unfollow()
			if s.ok {
				return s.v
			}
		case <-t.ctx.Done():
			unfollow()
			t.failErr("waiting for what another check makes once a run", context.Cause(t.ctx))
		}
	}
}

// make runs build for s; when build does not return (runtime.Goexit, a
// panic) the key is free again before s's waiters are woken.
func (o *onces[K, V]) make(key K, s *onceSlot[V], build func() V) {
	defer close(s.done)
	defer func() {
		if !s.ok {
			withLock(&o.mu, func() { delete(o.slots, key) })
		}
	}()
	s.v = build()
	s.ok = true
}

// locked is f's value, got with mu held.
func locked[T any](mu *sync.Mutex, f func() T) T {
	mu.Lock()
	defer mu.Unlock()
	return f()
}

// taken is *p, left zero, with mu held: what was there is the caller's
// alone (v starts zero, and the two swap).
func taken[T any](mu *sync.Mutex, p *T) (v T) {
	withLock(mu, func() { v, *p = *p, v })
	return v
}

// lastOf is the last of s, or the zero value when s is empty.
func lastOf[E any](s []E) (e E) {
	if len(s) > 0 {
		e = s[len(s)-1]
	}
	return e
}

// store sets (*m)[k] to v, making the map first when *m is nil.
func store[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

// withLock runs f with mu held.
func withLock(mu *sync.Mutex, f func()) {
	mu.Lock()
	defer mu.Unlock()
	f()
}
