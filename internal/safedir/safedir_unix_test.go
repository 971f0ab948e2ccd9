//go:build unix

package safedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "mcpv", "oauth")
	if err := Check(root, dir); err != nil {
		t.Fatalf("nothing made yet: %v", err)
	}
	if err := MkdirAll(root, dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("made %v, %v; want mode 0700", fi.Mode(), err)
	}

	// Writable by others: refused with the chmod to run.
	mid := filepath.Join(root, "mcpv")
	os.Chmod(mid, 0o777)
	err := Check(root, dir)
	var se *Error
	if !errors.As(err, &se) || se.Path != mid || !strings.Contains(err.Error(), "can be written by others (mode 0777); fix it with: chmod go-w '"+mid+"'") {
		t.Errorf("world-writable: %v", err)
	}
	os.Chmod(mid, 0o700)

	// A symbolic link planted for a directory is refused, not followed.
	os.RemoveAll(dir)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	if err := Check(root, dir); !errors.As(err, &se) || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("symlink: %v", err)
	}
	if err := MkdirAll(root, dir); err == nil {
		t.Error("MkdirAll went through a symbolic link")
	}
}

// Modes, owners and symbolic links as Unix keeps them; on Windows the
// DACL decides (internal/winacl).

// Another user's directory is refused; only root can make one to test with.
func TestCheckOwner(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "mcpv")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	var se *Error
	if err := Check(root, dir); !errors.As(err, &se) || !strings.Contains(err.Error(), "belongs to user 4242") || !strings.Contains(se.Fix, "chown") {
		t.Errorf("foreign owner: %v", err)
	}
}
