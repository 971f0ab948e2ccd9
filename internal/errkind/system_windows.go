package errkind

import "syscall"

var (
	brokenPipe = []error{
		syscall.Errno(232), // ERROR_NO_DATA: the pipe is being closed
		syscall.ERROR_BROKEN_PIPE,
	}
	refused   = []error{syscall.Errno(10061)} // WSAECONNREFUSED
	addrInUse = []error{syscall.Errno(10048)} // WSAEADDRINUSE
	noAddress = []error{
		syscall.Errno(10049), // WSAEADDRNOTAVAIL
		syscall.Errno(10047), // WSAEAFNOSUPPORT
	}
)
