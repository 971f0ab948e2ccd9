package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Replace writes data to path as a new file, readable and writable by
// its owner alone, put in place by a rename in path's directory: a
// reader sees the old file or the new one, never part of either, and
// whatever was at path (a symbolic link to ~/.bashrc, a named pipe) is
// replaced, never written through or opened. A directory at path is
// refused.
func Replace(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	// CreateTemp makes the file 0600, whatever the umask; a file that
	// may hold what a server said keeps that mode (on Windows, protect
	// gives it an access list that lets its owner alone in, before it
	// takes the name).
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr, protect(tmp.Name())); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		if le, ok := errors.AsType[*os.LinkError](err); ok {
			return &fs.PathError{Op: "replace", Path: path, Err: le.Err}
		}
		return err
	}
	return nil
}
