package safefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// CreateOwn opens the file at path for mcpv to write from its start,
// readable and writable by its owner alone: a new file (mode 0600), or the
// user's own regular file there, emptied and made 0600. Whatever else is at
// path is refused, never written through: a symbolic link (to ~/.bashrc,
// say, in a cloned repository), a named pipe or a device (opened without
// waiting, and closed at once), a directory, another user's file.
func CreateOwn(path string) (*os.File, error) {
	f, err := OpenNoFollow(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if pe, ok := errors.AsType[*fs.PathError](err); ok && errors.Is(pe.Err, syscall.ENXIO) {
		return nil, errors.New("not a regular file but a named pipe")
	}
	return emptied(f, err, false, 0o600)
}
