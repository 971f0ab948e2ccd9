//go:build unix

// Whether the reader at the other end of a pipe or socket that mcpv
// writes to has gone, told without writing to it: a client of mcpv serve
// on stdin and stdout that closes its end of serve's stdout (or dies) has
// left, even while serve has nothing to say to it.

package commands

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// watchHangup returns a channel that is closed when f's reader has gone: the
// other end of a pipe is closed, or a socket hangs up. Where that cannot
// be known (a file, a terminal on some systems, Windows) it is never
// closed. The func returned ends the watch; call it before f is closed.
func watchHangup(f *os.File) (<-chan struct{}, func()) {
	gone := make(chan struct{})
	never := func() (<-chan struct{}, func()) { return make(chan struct{}), func() {} }
	rc, err := f.SyscallConn()
	if err != nil {
		return never()
	}
	fd := -1
	rc.Control(func(u uintptr) { fd = int(u) })
	wakeR, wakeW, err := os.Pipe()
	if fd < 0 || err != nil {
		return never()
	}
	var once sync.Once
	stopped := make(chan struct{})
	stop := func() {
		once.Do(func() {
			wakeW.Close() // the poll below sees wakeR readable
			<-stopped
			wakeR.Close()
		})
	}
	// A poll for no event at all still reports an error or a hang-up: on
	// a pipe whose reader has closed its end, POLLERR; on a socket whose
	// peer has gone, POLLHUP.
	fds := []unix.PollFd{{Fd: int32(fd)}, {Fd: int32(wakeR.Fd()), Events: unix.POLLIN}}
	go func() { // hang-up watcher: ends when f hangs up, or stop is called
		defer close(stopped)
		for {
			_, err := unix.Poll(fds, -1)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			switch {
			case err != nil, fds[1].Revents != 0, fds[0].Revents&unix.POLLNVAL != 0:
				return // stopped, or nothing this poll can tell (macOS refuses terminals)
			case fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0:
				close(gone)
				return
			}
		}
	}()
	return gone, stop
}
