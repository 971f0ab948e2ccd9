//go:build e2e

package e2e

import (
	"errors"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// pty is a pseudo-terminal: the terminal's side (master), which a test
// reads as a terminal emulator would, and the program's (tty).
type pty struct {
	master, tty *os.File
	name        string // the tty's path
}

func openPTY() (*pty, error) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	var n int
	raw, err := master.SyscallConn() // not Fd(), which would make reads block the thread
	if err == nil {
		cerr := raw.Control(func(fd uintptr) {
			if n, err = unix.IoctlGetInt(int(fd), unix.TIOCGPTN); err == nil {
				err = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0)
			}
		})
		if err == nil {
			err = cerr
		}
	}
	p := &pty{master: master, name: "/dev/pts/" + strconv.Itoa(n)}
	if err == nil {
		p.tty, err = os.OpenFile(p.name, os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		master.Close()
		return nil, err
	}
	return p, nil
}

// full reports whether the terminal holds all it can: a program writing
// to it waits until the terminal's side reads. It writes a NUL (which a
// terminal shows as nothing) unless the terminal is full.
func (p *pty) full() bool {
	f, err := os.OpenFile(p.name, os.O_WRONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	raw, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var werr error
	raw.Control(func(fd uintptr) { _, werr = unix.Write(int(fd), []byte{0}) })
	return errors.Is(werr, unix.EAGAIN)
}

// setColumns makes the terminal cols wide.
func (p *pty) setColumns(cols int) error {
	return unix.IoctlSetWinsize(int(p.tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)})
}

func (p *pty) close() {
	p.master.Close()
	p.tty.Close()
}
