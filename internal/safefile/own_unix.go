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
