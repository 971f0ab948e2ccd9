//go:build unix

package serverstate

import (
	"fmt"
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a link at it and
// without waiting on a FIFO or a device.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// private refuses a file that is not the user's, or that others may read.
func private(f *os.File, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: its owner cannot be told", f.Name())
	}
	if uid := uint32(os.Getuid()); st.Uid != uid {
		return fmt.Errorf("%s belongs to user %d, not to you (%d)", f.Name(), st.Uid, uid)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s can be read by others (mode %04o)", f.Name(), perm)
	}
	return nil
}
