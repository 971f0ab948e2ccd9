package safefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// OpenNoFollow opens path with flag and perm as os.OpenFile does, but
// never through a symbolic link at path itself (a link someone put in a
// file's place is an *EscapeError, not followed), and without waiting on
// a named pipe or a device put there. It is how mcpv opens every file of
// its own places (tokens, server state, a kept session's lock): whatever
// it opened is at path, and the caller judges what it is.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return openNoFollow(path, flag|nonBlock, perm)
}

// openNoFollow is OpenNoFollow, waiting on a named pipe or a device as
// flag says. Where the system has no O_NOFOLLOW, the name is looked at
// before the open and after it: a link put in its place between the two
// was followed, and what was opened is closed and refused.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &EscapeError{path, "is a symbolic link, which is not followed"}
	}
	f, err := os.OpenFile(path, flag|noFollow, perm)
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok && errors.Is(pe.Err, syscall.ELOOP) {
			return nil, &EscapeError{path, "is a symbolic link, which is not followed"}
		}
		return nil, err
	}
	if noFollow == 0 {
		li, lerr := os.Lstat(path)
		fi, ferr := f.Stat()
		if lerr != nil || ferr != nil || li.Mode()&fs.ModeSymlink != 0 || !os.SameFile(li, fi) {
			f.Close()
			return nil, &EscapeError{path, "changed while it was opened (a symbolic link put in its place is not followed)"}
		}
	}
	return f, nil
}
