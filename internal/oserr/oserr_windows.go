package oserr

import "syscall"

var (
	brokenPipe = []error{
		syscall.Errno(232), // ERROR_NO_DATA: the pipe is being closed
		syscall.ERROR_BROKEN_PIPE,
	}
	refused = []error{syscall.Errno(10061)} // WSAECONNREFUSED
)
