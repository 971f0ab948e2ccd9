//go:build unix

package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRecordFollowsNoLink: a cloned repository that ships the
// recording's file names as links to the user's files gets its links
// replaced, the user's files untouched; the recordings are the owner's
// alone; a directory that is a link out of the tree is refused.
func TestServeRecordFollowsNoLink(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.env.Cwd = t.TempDir()
	home := t.TempDir()
	victims := map[string]string{"demo.json": ".bashrc", "demo.responses.json": "authorized_keys"}
	for name, victim := range victims {
		os.WriteFile(filepath.Join(home, victim), []byte("the user's own\n"), 0o600)
		if err := os.Symlink(filepath.Join(home, victim), filepath.Join(w.env.Cwd, name)); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(home, filepath.Join(w.env.Cwd, "tests"))
	r := w.mcpv(t, mockInit, args([]string{"serve", "--record", "demo.json"}, demo())...)
	if r.code != 0 {
		t.Fatalf("serve --record: exit %d\n%s", r.code, r.stderr)
	}
	for name, victim := range victims {
		if b, _ := os.ReadFile(filepath.Join(home, victim)); string(b) != "the user's own\n" {
			t.Errorf("%s was written through %s: %.60q", victim, name, b)
		}
		fi, err := os.Lstat(filepath.Join(w.env.Cwd, name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want a regular file of mode 0600", name, fi.Mode(), err)
		}
	}
	r = w.mcpv(t, mockInit, args([]string{"serve", "--record", "tests/server.json"}, demo())...)
	if r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("--record through a linked directory: exit %d\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 2 {
		t.Errorf("the linked directory holds %d files, want the user's 2", len(entries))
	}
}
