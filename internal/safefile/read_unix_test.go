//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Read reads a regular file, through a link; whatever else a name may be
// (a named pipe no one writes, a directory, a device, a socket) is
// refused at once and named, and so is a file past MaxSize, before a byte
// of it is read.
func TestRead(t *testing.T) {
	dir, _, link, fifo := traps(t, "config.json", "pipe.json")
	if data, err := Read(link); err != nil || string(data) != "the user's own\n" {
		t.Errorf("through a link: %q, %v", data, err)
	}
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, MaxSize+1); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo:                       "not a regular file but a named pipe",
		dir:                        "not a regular file but a directory",
		"/dev/null":                "not a regular file but a character device",
		sock:                       "no such device or address", // a socket cannot be opened at all
		huge:                       "larger than 128 MiB",
		filepath.Join(dir, "none"): "no such file",
	} {
		if data, err := Read(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Read(%s) = %d bytes, %v; want %q", path, len(data), err, want)
		}
	}
}

// kindOf names each kind of file that is not a regular one.
func TestKindOf(t *testing.T) {
	for mode, want := range map[fs.FileMode]string{
		fs.ModeDir:                        "a directory",
		fs.ModeNamedPipe:                  "a named pipe",
		fs.ModeSocket:                     "a socket",
		fs.ModeDevice | fs.ModeCharDevice: "a character device",
		fs.ModeDevice:                     "a device",
		fs.ModeIrregular:                  "a special file",
	} {
		if got := kindOf(mode); got != want {
			t.Errorf("kindOf(%v) = %q, want %q", mode, got, want)
		}
	}
}

// ReadOwn refuses a file others may write (mode or owner); ReadPrivate
// also one others may read, saying how to mend it. Both are Read too: a
// pipe is refused without waiting.
func TestReadOwnAndPrivate(t *testing.T) {
	dir, _, _, fifo := traps(t, "link", "pipe")
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	private, shared, open := write("private", 0o600), write("shared", 0o644), write("open", 0o666)
	for _, tc := range []struct {
		read       func(string) ([]byte, error)
		path, want string // want: "" to read the file
	}{
		{ReadOwn, private, ""},
		{ReadOwn, shared, ""},
		{ReadOwn, open, "mode 0666"},
		{ReadOwn, fifo, "not a regular file but a named pipe"},
		{ReadPrivate, private, ""},
		{ReadPrivate, shared, "chmod 600 it"},
		{ReadPrivate, open, "mode 0666"},
		{ReadPrivate, filepath.Join(dir, "none"), "no such file"},
	} {
		data, err := tc.read(tc.path)
		switch {
		case tc.want == "" && (err != nil || string(data) != filepath.Base(tc.path)):
			t.Errorf("%s: %q, %v", tc.path, data, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
	// Another user's file is refused by both, unless it is the system's
	// and others may not write it.
	if os.Getuid() != 0 {
		t.Skip("changing a file's owner takes root")
	}
	theirs := write("theirs", 0o600)
	if err := os.Chown(theirs, 1, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadOwn(theirs); err == nil || !strings.Contains(err.Error(), "belongs to user 1") {
		t.Errorf("another user's file: %v", err)
	}
}

// Replace into a directory that does not exist fails and creates nothing.
func TestReplaceWhereNoDirectoryIs(t *testing.T) {
	dir := t.TempDir()
	err := Replace(filepath.Join(dir, "missing", "state.json"), []byte("{}"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}
