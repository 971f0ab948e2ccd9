//go:build unix

package safefile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// notOwn says that the file at path, of fi, is another user's.
func notOwn(path string, fi fs.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if uid := uint32(os.Getuid()); st.Uid != uid {
			return fmt.Errorf("%s belongs to user %d, not to you (%d)", path, st.Uid, uid)
		}
	}
	return nil
}

// othersMayWrite says that another user may change the file at path, of
// fi: it is another user's (root's aside), or writable by everyone.
func othersMayWrite(path string, fi fs.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
		if err := notOwn(path, fi); err != nil {
			return err
		}
	}
	if fi.Mode().Perm()&0o002 != 0 {
		return fmt.Errorf("%s is writable by every user of the machine (mode %v)", path, fi.Mode().Perm())
	}
	return nil
}

// othersMayRead says that users other than the file's owner may read the
// file at path, of fi.
func othersMayRead(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o044 != 0 {
		return fmt.Errorf("%s may be read by other users of the machine (mode %v); chmod 600 it", path, fi.Mode().Perm())
	}
	return nil
}
