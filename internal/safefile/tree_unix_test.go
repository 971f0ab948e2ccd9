//go:build unix

package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// tree makes a directory tree with links in and out of it:
//
//	outside/secret
//	in/a.json
//	in/sub/b.json
//	in/link.json -> ../outside/secret
//	in/out -> ../outside
//	in/alias -> sub
//	in/loop -> loop
//	in/fifo
func tree(t *testing.T) (Tree, string) {
	t.Helper()
	base := t.TempDir()
	outside, in := filepath.Join(base, "outside"), filepath.Join(base, "in")
	for _, d := range []string{outside, in, filepath.Join(in, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{"outside/secret": "secret", "in/a.json": "1", "in/sub/b.json": "2"} {
		if err := os.WriteFile(filepath.Join(base, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"in/link.json": "../outside/secret", "in/out": "../outside", "in/alias": "sub", "in/loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(in, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Tree{Dir: in}, base
}

func TestTreeRead(t *testing.T) {
	tr, base := tree(t)
	tests := []struct {
		name, want, err string
	}{
		{"a.json", "1", ""},
		{"sub/b.json", "2", ""},
		{"./sub/../a.json", "1", ""},
		{"alias/b.json", "2", ""}, // a link of a directory that stays inside
		{filepath.Join(base, "in", "a.json"), "1", ""},
		{"../outside/secret", "", "leads out of"},
		{filepath.Join(base, "outside", "secret"), "", "leads out of"},
		{"link.json", "", "is a symbolic link"},
		{"out/secret", "", "through a symbolic link"},
		{"fifo", "", "not a regular file but a named pipe"},
		{"none.json", "", "no such file"},
	}
	for _, tt := range tests {
		got, err := tr.Read(tt.name)
		switch {
		case tt.err == "" && (err != nil || string(got) != tt.want):
			t.Errorf("Read(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Read(%q) = %q, %v; want an error saying %q", tt.name, got, err, tt.err)
		}
	}
}

// TestTreeCreate: a file is written in the tree, never through a symbolic
// link at the file, nor through one of a directory that leads out of the
// tree or nowhere; a directory's link that stays in the tree is followed,
// as Read follows it.
func TestTreeCreate(t *testing.T) {
	tr, base := tree(t)
	for _, name := range []string{"new/deep/c.json", "a.json", "sub/d.json", "alias/e.json", "alias/deep/e.json"} {
		if err := tr.WriteFile(name, []byte("x")); err != nil {
			t.Errorf("WriteFile(%q): %v", name, err)
		}
		if got, err := os.ReadFile(filepath.Join(tr.Dir, name)); err != nil || string(got) != "x" {
			t.Errorf("%s holds %q, %v", name, got, err)
		}
	}
	for _, name := range []string{"../outside/secret", "link.json", "out/secret", "out/new.json", "out/deep/new.json", "loop/d.json", "loop", "fifo"} {
		err := tr.WriteFile(name, []byte("x"))
		if err == nil || name != "fifo" && name != "loop" && !errors.As(err, new(*EscapeError)) {
			t.Errorf("WriteFile(%q) = %v, want it refused", name, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(base, "outside", "secret")); string(got) != "secret" {
		t.Errorf("the file outside was written: %q", got)
	}
	for _, p := range []string{"outside/new.json", "outside/deep", "in/sub/d.json/x"} {
		if _, err := os.Stat(filepath.Join(base, p)); err == nil {
			t.Errorf("%s was made", p)
		}
	}
	for _, p := range []string{"d.json", "e.json", "deep/e.json"} { // alias's, where it leads
		if got, _ := os.ReadFile(filepath.Join(base, "in", "sub", p)); string(got) != "x" {
			t.Errorf("sub/%s holds %q", p, got)
		}
	}
}

func TestCreateNoFollow(t *testing.T) {
	_, base := tree(t)
	if _, err := CreateNoFollow(filepath.Join(base, "in", "link.json"), 0o644); err == nil {
		t.Error("CreateNoFollow wrote through a link")
	}
	f, err := CreateNoFollow(filepath.Join(base, "outside", "report.xml"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, _ := os.ReadFile(filepath.Join(base, "outside", "secret")); string(got) != "secret" {
		t.Errorf("the file behind the link was written: %q", got)
	}
	// A link in /dev to a pipe mcpv was given (the shell's /dev/stderr,
	// >(…) as /dev/fd/63) is written through.
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	toPipe := "/dev/fd/" + strconv.Itoa(int(pw.Fd()))
	if li, err := os.Lstat(toPipe); err != nil || li.Mode()&os.ModeSymlink == 0 {
		pw.Close()
		t.Skipf("%s is no link here", toPipe)
	}
	w, err := CreateNoFollow(toPipe, 0o644)
	pw.Close()
	if err != nil {
		t.Fatalf("a link to a pipe: %v", err)
	}
	w.WriteString("events")
	w.Close()
	if got, _ := io.ReadAll(r); string(got) != "events" {
		t.Errorf("read %q from the pipe behind the link", got)
	}
	fifo := filepath.Join(base, "in", "fifo")
	fr, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	if _, err := CreateNoFollow(filepath.Join(base, "in", "out"), 0o644); err == nil {
		t.Error("CreateNoFollow opened a link to a directory")
	}
	// Another user's link, even in /dev and to a pipe, is refused: it
	// leads where they chose, not the user.
	if os.Getuid() != 0 {
		return // only root can give a link to another user
	}
	theirs := filepath.Join("/dev/shm", filepath.Base(base)+"-theirs")
	if err := os.Symlink(fifo, theirs); err != nil {
		t.Skipf("no link in /dev/shm: %v", err)
	}
	defer os.Remove(theirs)
	if err := os.Lchown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if f, err := CreateNoFollow(theirs, 0o644); err == nil {
		f.Close()
		t.Error("CreateNoFollow wrote through another user's link")
	}
}

// TestCreateNoFollowRefusesARepositorysLink: a cloned repository's link
// is the user's (git made it), and may lead to a pipe another user reads
// (/tmp/theirs/fifo) or to a device: -o report.json there is refused,
// as every link outside /dev is, rather than written through.
func TestCreateNoFollowRefusesARepositorysLink(t *testing.T) {
	_, base := tree(t)
	r, err := os.OpenFile(filepath.Join(base, "in", "fifo"), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	repo := t.TempDir()
	for name, target := range map[string]string{"report.json": filepath.Join(base, "in", "fifo"), "events.log": "/dev/null"} {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
		if f, err := CreateNoFollow(filepath.Join(repo, name), 0o644); err == nil {
			f.Close()
			t.Errorf("CreateNoFollow wrote through the repository's %s -> %s", name, target)
		}
	}
}

// CreateNoFollow at 0600 makes a file its owner's alone, new or the
// user's own emptied; at 0644 it leaves the mode of a file it empties.
func TestCreateNoFollowOwn(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		perm, had, want os.FileMode // had 0: no file before
	}{
		{0o600, 0, 0o600},
		{0o600, 0o664, 0o600},
		{0o644, 0o664, 0o664},
	} {
		path := filepath.Join(dir, "f")
		os.Remove(path)
		if c.had != 0 {
			os.WriteFile(path, []byte("before"), 0)
			os.Chmod(path, c.had)
		}
		f, err := CreateNoFollow(path, c.perm)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		fi, _ := os.Stat(path)
		if b, _ := os.ReadFile(path); fi.Mode().Perm() != c.want || len(b) != 0 {
			t.Errorf("a file of mode %o: %o, holding %q; want %o, empty", c.had, fi.Mode().Perm(), b, c.want)
		}
	}
	tr := Tree{Dir: dir}
	f, err := tr.CreateOwn("d/events")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(filepath.Join(dir, "d", "events")); fi.Mode().Perm() != 0o600 {
		t.Errorf("Tree.CreateOwn made %o", fi.Mode().Perm())
	}
}
