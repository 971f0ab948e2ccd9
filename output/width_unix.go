//go:build unix

package output

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalWidth is the number of columns of the terminal f is, 0 when f
// is none or does not say.
func terminalWidth(f *os.File) int {
	conn, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	cols := 0
	conn.Control(func(fd uintptr) {
		if ws, err := unix.IoctlGetWinsize(int(fd), unix.TIOCGWINSZ); err == nil {
			cols = int(ws.Col)
		}
	})
	return cols
}
