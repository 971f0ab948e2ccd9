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
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
