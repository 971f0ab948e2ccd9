package serverstate

import (
	"errors"
	"os"
)

// openNoFollow opens path for reading, refusing a link (a reparse point).
func openNoFollow(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("is a symbolic link")}
	}
	return os.Open(path)
}
