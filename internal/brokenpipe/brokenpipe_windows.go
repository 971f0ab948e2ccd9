package brokenpipe

import "syscall"

var platform = []error{
	syscall.Errno(232), // ERROR_NO_DATA: the pipe is being closed
	syscall.ERROR_BROKEN_PIPE,
}
