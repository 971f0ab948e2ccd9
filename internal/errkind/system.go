package errkind

// The system errors mcpv acts on, recognised on every OS: a
// write whose reader went away (a closed stdout, a server that exited), a
// connection nothing listened to, and an address another socket holds or
// this machine lacks. Unix says EPIPE, ECONNREFUSED, EADDRINUSE and
// EADDRNOTAVAIL; Windows says ERROR_NO_DATA or ERROR_BROKEN_PIPE and the
// WSAE... codes, none of which Go's syscall constants match there.

import (
	"errors"
	"slices"
	"syscall"
)

// BrokenPipe reports whether err is a write to a pipe whose reader is gone.
func BrokenPipe(err error) bool { return isAny(err, syscall.EPIPE, brokenPipe) }

// Refused reports whether err is a connection that nothing listened to.
func Refused(err error) bool { return isAny(err, syscall.ECONNREFUSED, refused) }

// AddrInUse reports whether err is a listen on an address another socket
// holds.
func AddrInUse(err error) bool { return isAny(err, syscall.EADDRINUSE, addrInUse) }

// NoAddress reports whether err is a listen on an address this machine
// does not have (the IPv6 loopback address where IPv6 is off).
func NoAddress(err error) bool {
	return isAny(err, syscall.EADDRNOTAVAIL, noAddress) || errors.Is(err, syscall.EAFNOSUPPORT)
}

func isAny(err, portable error, platform []error) bool {
	return errors.Is(err, portable) || slices.ContainsFunc(platform, func(e error) bool { return errors.Is(err, e) })
}
