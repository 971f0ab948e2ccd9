//go:build unix

package safedir

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// foreign says why fi is not the user's own, or "".
func foreign(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	if uid := uint32(os.Getuid()); st.Uid != uid {
		return fmt.Sprintf("belongs to user %d, not to you (%d)", st.Uid, uid)
	}
	return ""
}
