package serve

import (
	"net"
	"os"
	"syscall"
)

// takeBacklog accepts, without waiting, each connection waiting on l.
func takeBacklog(l *net.TCPListener) []net.Conn {
	var out []net.Conn
	raw, err := l.SyscallConn()
	if err != nil {
		return nil
	}
	raw.Control(func(fd uintptr) {
		for {
			nfd, _, err := syscall.Accept4(int(fd), syscall.SOCK_CLOEXEC)
			if err != nil {
				return
			}
			f := os.NewFile(uintptr(nfd), "backlog")
			if c, err := net.FileConn(f); err == nil {
				out = append(out, c)
			}
			f.Close()
		}
	})
	return out
}
