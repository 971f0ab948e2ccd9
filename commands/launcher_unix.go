//go:build unix

package commands

import (
	"os"

	"golang.org/x/sys/unix"
)

// launcherPipe is descriptor fd as a file, when it is a pipe or a socket
// (Node's pipes are socket pairs), kept from the processes mcpv starts.
func launcherPipe(fd int) *os.File {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO && st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "launcher")
}
