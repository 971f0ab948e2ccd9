//go:build !windows

package safedir

import (
	"fmt"
	"io/fs"
)

// modeWritable judges a directory by its mode bits, as Unix keeps them.
func modeWritable(d string, fi fs.FileInfo) (why, fix string, err error) {
	if perm := fi.Mode().Perm(); perm&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Sprintf("can be written by others (mode %04o)", perm), "chmod go-w " + quote(d), nil
	}
	return "", "", nil
}
