// Package brokenpipe tells a write that failed because the reader went
// away (a closed stdout, a server that exited) from other write errors, on
// every OS: Unix says EPIPE, Windows ERROR_NO_DATA ("the pipe is being
// closed") or ERROR_BROKEN_PIPE.
package brokenpipe

import (
	"errors"
	"syscall"
)

// Is reports whether err is a write to a pipe whose reader is gone.
func Is(err error) bool {
	if errors.Is(err, syscall.EPIPE) {
		return true
	}
	for _, e := range platform {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
