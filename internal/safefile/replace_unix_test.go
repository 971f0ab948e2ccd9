//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Replace puts a new file, its owner's alone, where a link, a named pipe
// or an older file was: the link's target is not touched, the pipe not
// opened, and nothing is left beside it.
func TestReplace(t *testing.T) {
	dir, victim, link, fifo := traps(t, "demo.json", "pipe.json")
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte("old"), 0o644)
	for _, path := range []string{link, fifo, old, filepath.Join(dir, "new.json")} {
		if err := Replace(path, []byte(`{"x":1}`)); err != nil {
			t.Fatalf("Replace(%s): %v", path, err)
		}
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; want a regular file of mode 0600", path, fi.Mode(), err)
		}
		if b, _ := os.ReadFile(path); string(b) != `{"x":1}` {
			t.Errorf("%s holds %q", path, b)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "the user's own\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if err := Replace(dir, []byte("x")); err == nil {
		t.Error("a directory was replaced")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("the directory holds %d entries, want the 4 files alone", len(entries))
	}
}

// traps is a directory a cloned repository could ship: at link, a
// symbolic link to victim (the user's own file, outside it), and at fifo
// a named pipe.
func traps(t *testing.T, linkName, fifoName string) (dir, victim, link, fifo string) {
	t.Helper()
	dir, outside := t.TempDir(), t.TempDir()
	victim = filepath.Join(outside, "bashrc")
	os.WriteFile(victim, []byte("the user's own\n"), 0o644)
	link = filepath.Join(dir, linkName)
	os.Symlink(victim, link)
	fifo = filepath.Join(dir, fifoName)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, victim, link, fifo
}
