//go:build !windows

package mcp

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// serverPipe makes a pipe between mcpv and a server: the server's end and
// mcpv's, which takes deadlines. fromServer says which way it goes.
func serverPipe(fromServer bool) (child, ours *os.File, err error) {
	r, w, err := os.Pipe()
	if fromServer {
		return w, r, err
	}
	return r, w, err
}

// stdinWriter writes to the server's stdin, a pipe the runtime polls, and
// calls arm once before a write waits for room in it: a write the pipe
// takes at once (nearly every message) then costs no watch on its context.
// One write at a time.
type stdinWriter struct {
	f   *os.File
	rc  syscall.RawConn
	arm func()
	b   []byte             // what is left of the write under way
	err error              // its error
	try func(uintptr) bool // w.attempt, made once
}

func newStdinWriter(f *os.File, arm func()) *stdinWriter {
	w := &stdinWriter{f: f, arm: arm}
	w.rc, _ = f.SyscallConn() // fails only for a nil file
	w.try = w.attempt
	return w
}

func (w *stdinWriter) write(b []byte) error {
	w.b, w.err = b, nil
	err := w.rc.Write(w.try)
	werr := w.err
	w.b, w.err = nil, nil
	switch {
	case werr != nil:
		err = werr
	case err == nil:
		return nil
	case !errors.Is(err, os.ErrDeadlineExceeded):
		err = os.ErrClosed // the poller's word for it, as f.Write says it
	}
	return &os.PathError{Op: "write", Path: w.f.Name(), Err: err}
}

// attempt writes what is left without waiting; false when the pipe is full,
// for the runtime to wait for room (or the deadline arm may set).
func (w *stdinWriter) attempt(fd uintptr) bool {
	for len(w.b) > 0 {
		n, err := syscall.Write(int(fd), w.b)
		if n > 0 {
			w.b = w.b[n:]
		}
		switch {
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			w.arm()
			return false
		case err != nil:
			w.err = err
			return true
		case n == 0:
			w.err = io.ErrShortWrite
			return true
		}
	}
	return true
}
