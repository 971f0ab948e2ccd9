//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// CreateOwn opens a new file of its owner's alone, or empties the user's
// own; a link, a named pipe (with a reader waiting or none), a device, a
// directory and another user's file are refused, untouched, at once.
func TestCreateOwn(t *testing.T) {
	dir, victim, link, fifo := traps(t, "mock.log", "pipe.log")
	read := filepath.Join(dir, "read.log") // a pipe someone reads
	if err := syscall.Mkfifo(read, 0o644); err != nil {
		t.Fatal(err)
	}
	reader, err := os.OpenFile(read, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for path, want := range map[string]string{
		link:        "symbolic link",
		fifo:        "named pipe",
		read:        "named pipe",
		"/dev/zero": "not a regular file",
		dir:         "is a directory",
	} {
		done := make(chan error, 1)
		go func() {
			f, err := CreateOwn(path)
			if f != nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("CreateOwn(%s) = %v, want %q", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("CreateOwn(%s) hangs", path)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "the user's own\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	old := filepath.Join(dir, "old.log")
	os.WriteFile(old, []byte("yesterday's lines\n"), 0o644)
	for _, path := range []string{old, filepath.Join(dir, "new.log")} {
		f, err := CreateOwn(path)
		if err != nil {
			t.Fatalf("CreateOwn(%s): %v", path, err)
		}
		f.WriteString("today\n")
		f.Close()
		fi, _ := os.Stat(path)
		if b, _ := os.ReadFile(path); string(b) != "today\n" || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %q, mode %v; want today's line alone, 0600", path, b, fi.Mode().Perm())
		}
	}
	if os.Getuid() != 0 {
		t.Log("another user's file: not tried (it takes root to make one)")
		return
	}
	theirs := filepath.Join(dir, "theirs.log")
	os.WriteFile(theirs, []byte("theirs\n"), 0o666)
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if f, err := CreateOwn(theirs); err == nil || !strings.Contains(err.Error(), "belongs to user 65534") {
		f.Close()
		t.Errorf("another user's file: %v", err)
	}
	if b, _ := os.ReadFile(theirs); string(b) != "theirs\n" {
		t.Errorf("another user's file was written: %q", b)
	}
}
