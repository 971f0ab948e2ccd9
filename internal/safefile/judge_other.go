//go:build !unix && !windows

package safefile

import (
	"io/fs"
	"os"
)

// judge: this system tells neither owners nor who may read; only the
// mode's write bits are judged.
func judge(_ string, _ *os.File, fi fs.FileInfo, _ int, want Want) (string, Want, error) {
	if perm := fi.Mode().Perm(); want&(Unwritten|NotWorldWritten) != 0 && perm&0o022 != 0 && !(fi.IsDir() && fi.Mode()&fs.ModeSticky != 0) {
		return "can be written by others (mode " + perm.String() + ")", want & (Unwritten | NotWorldWritten), nil
	}
	return "", 0, nil
}
