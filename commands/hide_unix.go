//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package commands

import (
	"cmp"
	"os"

	"golang.org/x/sys/unix"
)

// hideInput turns the terminal's echo off, keeping lines (ICANON) and
// Ctrl-C (ISIG); restore turns it back as it was.
func hideInput(f *os.File) (restore func(), err error) {
	conn, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var was *unix.Termios
	ctlErr := conn.Control(func(fd uintptr) {
		if was, err = unix.IoctlGetTermios(int(fd), getTermios); err != nil {
			return
		}
		hidden := *was
		hidden.Lflag &^= unix.ECHO
		hidden.Lflag |= unix.ICANON | unix.ISIG
		err = unix.IoctlSetTermios(int(fd), setTermios, &hidden)
	})
	if err = cmp.Or(ctlErr, err); err != nil {
		return nil, err
	}
	return func() {
		conn.Control(func(fd uintptr) { unix.IoctlSetTermios(int(fd), setTermios, was) })
	}, nil
}
