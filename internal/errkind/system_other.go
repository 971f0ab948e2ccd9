//go:build !windows

package errkind

// Unix's own errors are the portable ones.
var brokenPipe, refused, addrInUse, noAddress []error
