//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package commands

import "golang.org/x/sys/unix"

const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA
)
