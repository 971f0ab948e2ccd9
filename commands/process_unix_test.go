//go:build unix

package commands

import (
	"errors"
	"syscall"
)

// processExists reports whether a process pid exists (kill(pid, 0)).
func processExists(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
