//go:build unix

package safefile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

func judge(_ string, _ *os.File, fi fs.FileInfo, uid int, want Want) (string, Want, error) {
	if want&Mine != 0 {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid && (want&RootMay == 0 || st.Uid != 0) {
			return fmt.Sprintf("belongs to user %d, not to you (%d)", st.Uid, uid), Mine, nil
		}
	}
	perm := fi.Mode().Perm()
	switch {
	case want&Unread != 0 && perm&0o077 != 0:
		return fmt.Sprintf("can be read by others (mode %04o)", perm), Unread, nil
	case want&Unwritten != 0 && perm&0o022 != 0 && !(fi.IsDir() && fi.Mode()&fs.ModeSticky != 0):
		return fmt.Sprintf("can be written by others (mode %04o)", perm), Unwritten, nil
	case want&NotWorldWritten != 0 && perm&0o002 != 0:
		return fmt.Sprintf("is writable by every user of the machine (mode %04o)", perm), NotWorldWritten, nil
	}
	return "", 0, nil
}
