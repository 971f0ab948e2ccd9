//go:build unix

package output

import (
	"os"

	"golang.org/x/sys/unix"
)

// columns is the width of the terminal f is, 0 when unknown.
func columns(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
