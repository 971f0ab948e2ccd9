//go:build !windows

package oserr

// Unix's own errors are the portable ones.
var brokenPipe, refused, addrInUse, noAddress []error
