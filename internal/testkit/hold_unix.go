//go:build unix

package testkit

import "syscall"

// holds says that the port stays bound until the test ends.
const holds = true

// hold binds a TCP socket to a port of the loopback and does not listen:
// a connection to it is refused, and, without SO_REUSEADDR, no listener
// can bind it.
func hold() (port int, release func(), err error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return 0, nil, err
	}
	release = func() { syscall.Close(fd) }
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		release()
		return 0, nil, err
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		release()
		return 0, nil, err
	}
	return sa.(*syscall.SockaddrInet4).Port, release, nil
}
