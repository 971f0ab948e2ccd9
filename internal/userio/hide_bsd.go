//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package userio

import "golang.org/x/sys/unix"

const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA
)
