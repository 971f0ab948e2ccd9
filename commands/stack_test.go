package commands

import (
	"sync"
	"testing"
	"unsafe"
)

// deep recurses through about n bytes of stack, and returns where its
// innermost frame was, so that the recursion cannot be optimised away.
//
//go:noinline
func deep(n int) uintptr {
	var frame [512]byte
	if n <= len(frame) {
		return uintptr(unsafe.Pointer(&frame[0]))
	}
	frame[n%len(frame)] = byte(n)
	return deep(n-len(frame)) + uintptr(frame[(n+1)%len(frame)])
}

// TestGrowStackLeavesRoomForARun: once growStack has run, a run's depth of
// calls does not move the goroutine's stack (a copy of it would move the
// caller's variables); growStack itself moved it, while it was shallow.
func TestGrowStackLeavesRoomForARun(t *testing.T) {
	type moves struct{ grow, run bool }
	got := make(chan moves)
	go func() { // ends when it has sent
		var here byte
		at := func() uintptr { return uintptr(unsafe.Pointer(&here)) }
		before := at()
		growStack()
		grown := at()
		deep(stackAhead / 2)
		got <- moves{grow: grown != before, run: at() != grown}
	}()
	m := <-got
	if !m.grow {
		t.Error("growStack did not grow a new goroutine's stack")
	}
	if m.run {
		t.Errorf("a depth of %d KB moved the stack after growStack", stackAhead/2>>10)
	}
}

// Runs grow their stacks at once (the tests run mcpv side by side in one
// process): growStack shares nothing they write (a race under -race).
func TestGrowStackAtOnce(t *testing.T) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { growStack() })
	}
	wg.Wait()
}
