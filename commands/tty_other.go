//go:build !windows

package commands

import "os"

// openConsole opens the controlling terminal, for reading and writing.
func openConsole() (in, out *os.File, err error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	return f, f, err
}
