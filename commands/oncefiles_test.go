package commands

import (
	"sync"
	"sync/atomic"
	"testing"
)

// An @FILE is read once however many calls, on however many goroutines,
// name it (mcpv check builds a call's arguments for each check that
// calls): a FIFO gives its text once, and would block a second read.
func TestFileReadOnce(t *testing.T) {
	var reads atomic.Int32
	read := onceFiles(func(string) ([]byte, error) {
		reads.Add(1)
		return []byte("text"), nil
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if data, err := read("f"); err != nil || string(data) != "text" {
				t.Errorf("read = %q, %v", data, err)
			}
		})
	}
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Errorf("the file was read %d times", n)
	}
}
