//go:build unix

package serverstate

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a link at it and
// without waiting on a FIFO or a device.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
