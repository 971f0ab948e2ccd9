package mcptest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that the goroutines of a session (or of a fake
// server) may write to at once while a test reads it.
type Buffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string { return locked(&b.mu, b.b.String) }

// locked is f's value, got with mu held.
func locked[T any](mu *sync.Mutex, f func() T) T {
	mu.Lock()
	defer mu.Unlock()
	return f()
}

// withLock runs f with mu held.
func withLock(mu *sync.Mutex, f func()) {
	mu.Lock()
	defer mu.Unlock()
	f()
}
