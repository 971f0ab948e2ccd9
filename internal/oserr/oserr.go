// Package oserr recognises the system errors mcpv acts on, on every OS: a
// write whose reader went away (a closed stdout, a server that exited) and
// a connection nothing listened to. Unix says EPIPE and ECONNREFUSED;
// Windows says ERROR_NO_DATA or ERROR_BROKEN_PIPE, and WSAECONNREFUSED,
// none of which Go's syscall constants match there.
package oserr

import (
	"errors"
	"syscall"
)

// BrokenPipe reports whether err is a write to a pipe whose reader is gone.
func BrokenPipe(err error) bool { return isAny(err, syscall.EPIPE, brokenPipe) }

// Refused reports whether err is a connection that nothing listened to.
func Refused(err error) bool { return isAny(err, syscall.ECONNREFUSED, refused) }

func isAny(err, portable error, platform []error) bool {
	if errors.Is(err, portable) {
		return true
	}
	for _, e := range platform {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
