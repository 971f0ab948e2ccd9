//go:build unix

package safefile

import (
	"errors"
	"io/fs"
)

// notOwn says that the file at path, of fi, is another user's.
func notOwn(path string, fi fs.FileInfo) error {
	return judged(path, fi, Mine)
}

// othersMayWrite says that another user may change the file at path, of
// fi: it is another user's (root's aside), or writable by everyone.
func othersMayWrite(path string, fi fs.FileInfo) error {
	return judged(path, fi, Mine|RootMay|NotWorldWritten)
}

func judged(path string, fi fs.FileInfo, want Want) error {
	why, _, err := Judge(path, nil, fi, want)
	if err == nil && why != "" {
		err = errors.New(path + " " + why)
	}
	return err
}

// othersMayRead says that users other than the file's owner may read (or
// write) the file at path, of fi.
func othersMayRead(path string, fi fs.FileInfo) error {
	err := judged(path, fi, Unread)
	if err != nil {
		err = errors.New(err.Error() + "; chmod 600 it")
	}
	return err
}
