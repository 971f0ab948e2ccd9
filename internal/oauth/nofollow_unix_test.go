//go:build unix

package oauth

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe where a token record or a handed-off login is kept is not
// waited on: the store reads past it (a record) or calls it damaged (a
// pending login), at once. Opening it waited for a writer that never came.
func TestStoreDoesNotWaitOnAPipe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tokens")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s := &Store{Dir: dir}
	for _, name := range []string{"0123456789abcdef01234567.json", filepath.Base(s.pendingPath("https://h/mcp"))} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan string, 2)
	go func() {
		records, err := s.Find(t.Context(), "https://h/mcp")
		if len(records) != 0 || err != nil {
			t.Errorf("records %v, %v", records, err)
		}
		done <- "find"
	}()
	go func() {
		p, err := s.LoadPending("https://h/mcp")
		if p != nil || err == nil || !strings.Contains(err.Error(), "the login waited for is damaged") {
			t.Errorf("pending %v, %v", p, err)
		}
		done <- "pending"
	}()
	for range 2 {
		select {
		case <-done:
		case <-time.After(time.Minute): // a hang guard
			for _, name := range []string{"0123456789abcdef01234567.json", filepath.Base(s.pendingPath("https://h/mcp"))} {
				if f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close() // lets a reader that waits go
				}
			}
			t.Fatal("the store waited on a named pipe")
		}
	}
}
