//go:build unix

package safedir

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// notPrivate says why directory d is not the user's alone, and the command
// that fixes it; "" when it is.
func notPrivate(d string, fi fs.FileInfo) (why, fix string, err error) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if uid := uint32(os.Getuid()); st.Uid != uid {
			return fmt.Sprintf("belongs to user %d, not to you (%d)", st.Uid, uid), "chown \"$(id -u)\" " + quote(d), nil
		}
	}
	return modeWritable(d, fi)
}

func removeCommand(d string) string { return "rm " + quote(d) }
