//go:build unix

package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// OpenNoFollow opens a file, or creates one, at its name; a link there is
// refused, its target untouched; a named pipe with nobody at the other end
// is opened without waiting, and reads as ended.
func TestOpenNoFollow(t *testing.T) {
	dir, victim, link, fifo := traps(t, "tokens.json", "state.json")
	var esc *EscapeError
	for _, flag := range []int{os.O_RDONLY, os.O_RDWR | os.O_CREATE, os.O_WRONLY | os.O_CREATE | os.O_TRUNC} {
		if f, err := OpenNoFollow(link, flag, 0o600); !errors.As(err, &esc) {
			f.Close()
			t.Errorf("flag %#x: a link was opened: %v", flag, err)
		}
	}
	if data, _ := os.ReadFile(victim); string(data) != "the user's own\n" {
		t.Errorf("the link's target became %q", data)
	}

	f, err := OpenNoFollow(fifo, os.O_RDONLY, 0)
	if err != nil {
		t.Fatalf("a pipe: %v", err)
	}
	if fi, err := f.Stat(); err != nil || fi.Mode().IsRegular() {
		t.Errorf("a pipe opened as %v, %v", fi, err)
	}
	if n, err := f.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("a pipe nobody writes read %d bytes, %v", n, err)
	}
	f.Close()

	path := filepath.Join(dir, "new.lock")
	f, err = OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	if fi.Mode().Perm() != 0o600 || !fi.Mode().IsRegular() {
		t.Errorf("created as %v", fi.Mode())
	}
	if _, err := OpenNoFollow(filepath.Join(dir, "none"), os.O_RDONLY, 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
