package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Tree is a directory and everything under it. The paths a file names
// (a test file's snapshot, its expected values, its event log) are
// confined to the tree the file is in: a path that leads out of it, by
// "..", by an absolute path or through a symbolic link of a directory,
// is refused, and the file itself is never a symbolic link that is
// followed, so that what a file in a cloned repository reads and writes
// stays inside the repository.
type Tree struct {
	Dir string // absolute
}

// EscapeError is a path that leads out of its tree, or is a symbolic link.
type EscapeError struct {
	Path   string // as named
	Reason string
}

func (e *EscapeError) Error() string { return e.Path + " " + e.Reason }

// Path checks name (relative to the tree's directory, or absolute) and
// returns it absolute and clean. Cleaned, it must lie inside the tree;
// with the symbolic links of the directories above it resolved (those
// that exist yet), still inside the tree's own resolved directory; and it
// must not itself be a symbolic link.
func (t Tree) Path(name string) (string, error) {
	abs := name
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(t.Dir, abs)
	}
	abs = filepath.Clean(abs)
	if !inside(t.Dir, abs) {
		return "", &EscapeError{name, "leads out of " + t.Dir}
	}
	realDir, err := filepath.EvalSymlinks(t.Dir)
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(abs)
	for { // the nearest directory above that exists
		if _, err := os.Lstat(parent); err == nil || parent == t.Dir {
			break
		}
		parent = filepath.Dir(parent)
	}
	realParent, err := filepath.EvalSymlinks(parent)
	if err != nil {
		return "", &EscapeError{name, "leads through a symbolic link that goes nowhere (" + err.Error() + ")"}
	}
	if !inside(realDir, realParent) {
		return "", &EscapeError{name, "leads out of " + t.Dir + " through a symbolic link"}
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return "", &EscapeError{name, "is a symbolic link, which is not followed"}
	}
	return abs, nil
}

// inside reports whether path is dir or under it; both are clean and
// absolute.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// open opens name in the tree with flag: checked by Path, then opened
// through an os.Root on the tree (each directory opened in turn without
// following a link out of it), and refused when what was opened is not
// the file Path saw (a link put in its place).
func (t Tree) open(name string, flag int, perm os.FileMode) (*os.File, error) {
	abs, err := t.Path(name)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(t.Dir, abs)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(t.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, flag|noFollow, perm)
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: pe.Err} // as named, not "openat" a path relative to the root
	}
	if err != nil {
		return nil, err
	}
	lfi, lerr := root.Lstat(rel)
	fi, err := f.Stat()
	if err == nil && (lerr != nil || !os.SameFile(fi, lfi)) {
		err = &EscapeError{name, "is a symbolic link, which is not followed"}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads name in the tree by Read's rule (a regular file, opened
// without blocking, at most MaxSize), without following a link.
func (t Tree) Read(name string) ([]byte, error) {
	f, err := t.open(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f)
}

// Create creates name in the tree, or truncates it, with the directories
// above it, following no link out of the tree and none at name itself (a
// directory's link that stays in the tree is the tree's own, as Read
// follows it); it must be a regular file.
func (t Tree) Create(name string) (*os.File, error) { return t.create(name, 0o644) }

// CreateOwn is Create for a file readable by its owner alone, as
// CreateOwn makes one.
func (t Tree) CreateOwn(name string) (*os.File, error) { return t.create(name, 0o600) }

func (t Tree) create(name string, perm os.FileMode) (*os.File, error) {
	abs, err := t.Path(name)
	if err != nil {
		return nil, err
	}
	if err := t.mkdirAll(filepath.Dir(abs)); err != nil {
		return nil, err
	}
	f, err := t.open(name, os.O_WRONLY|os.O_CREATE|nonBlock, perm)
	return emptied(f, err, false, perm)
}

// WriteFile writes data to name in the tree as Create makes it.
func (t Tree) WriteFile(name string, data []byte) error {
	f, err := t.Create(name)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	return errors.Join(werr, f.Close())
}

// mkdirAll makes dir, absolute and inside the tree, through an os.Root,
// which follows no link out of the tree.
func (t Tree) mkdirAll(dir string) error {
	rel, err := filepath.Rel(t.Dir, dir)
	if err != nil || rel == "." {
		return err
	}
	root, err := os.OpenRoot(t.Dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return root.MkdirAll(rel, 0o755)
}

// CreateNoFollow creates or truncates the file at path, anywhere, but not
// through a symbolic link at path itself: a link someone else put there
// is refused rather than written through. A path the user names may be a
// device or a named pipe (/dev/null, a pipe a reader waits on), which is
// opened as it is, and so may a link in /dev or /proc to one, the user's
// or the system's: the shell's /dev/stderr and >(…) (/dev/fd/63). Opened
// without create or truncate, it is used only when no regular file or
// directory: a link to a file, another user's, and one elsewhere (a cloned
// repository's is the user's, and may lead to a pipe another user reads)
// are refused, whatever it is made to point at while it is opened. A new
// file has perm; when that is 0600 (what only its owner may read), the
// user's own file there is made 0600 too, as CreateOwn makes it.
func CreateNoFollow(path string, perm os.FileMode) (*os.File, error) {
	f, err := openNoFollow(path, os.O_WRONLY|os.O_CREATE, perm)
	if errors.As(err, new(*EscapeError)) {
		if f := openStream(path); f != nil {
			return f, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return emptied(f, nil, true, perm)
}

// openStream opens for writing what the link at path (in /dev or /proc,
// the user's or the system's) leads to when a pipe, a socket or a device,
// else nil; it neither creates nor truncates a regular file found there.
func openStream(path string) *os.File {
	if abs, err := filepath.Abs(path); err != nil || !inside("/dev", abs) && !inside("/proc", abs) {
		return nil
	} else if li, err := os.Lstat(path); err != nil {
		return nil
	} else if why, _, err := Judge(path, nil, li, Mine|RootMay); err != nil || why != "" {
		return nil
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		f.Close()
		return nil
	}
	return f
}

// emptied truncates a regular file just opened for writing, made perm
// when that is 0600 and the file the user's own; any other file is closed
// and refused, unless special.
func emptied(f *os.File, err error, special bool, perm os.FileMode) (*os.File, error) {
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	switch {
	case err != nil:
	case st.Mode().IsRegular() && perm == 0o600:
		if err = notOwn(f.Name(), st); err == nil {
			if err = f.Chmod(perm); err == nil {
				err = f.Truncate(0)
			}
		}
	case st.Mode().IsRegular():
		err = f.Truncate(0)
	case !special:
		err = fmt.Errorf("not a regular file but %s", kindOf(st.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
