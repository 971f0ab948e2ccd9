//go:build unix

package safefile

import "syscall"

// noFollow opens the last name of a path without following a link;
// nonBlock opens a FIFO or a device without waiting for it.
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)
