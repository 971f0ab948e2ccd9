package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// serverPipe makes a pipe between mcpv and a server: the server's end and
// mcpv's; fromServer says which way it goes. An anonymous pipe (os.Pipe)
// takes no deadlines on Windows, so a write to a server that stops reading
// could not be abandoned when its request is cancelled, nor a read of a
// stdout that an exited server's child holds open. mcpv's end is a named
// pipe opened for overlapped I/O, which the Go runtime polls and which
// takes deadlines; the server's end is an ordinary synchronous handle, as a
// console program expects. The name is random, the pipe the first and only
// instance of it, and remote clients are refused.
func serverPipe(fromServer bool) (child, ours *os.File, err error) {
	var nonce [16]byte
	rand.Read(nonce[:])
	name, err := windows.UTF16PtrFromString(fmt.Sprintf(`\\.\pipe\mcpv-%d-%s`, os.Getpid(), hex.EncodeToString(nonce[:])))
	if err != nil {
		return nil, nil, err
	}
	access, childAccess := uint32(windows.PIPE_ACCESS_OUTBOUND), uint32(windows.GENERIC_READ)
	if fromServer {
		access, childAccess = windows.PIPE_ACCESS_INBOUND, windows.GENERIC_WRITE
	}
	h, err := windows.CreateNamedPipe(name,
		access|windows.FILE_FLAG_OVERLAPPED|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		1, 64<<10, 64<<10, 0, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("CreateNamedPipe: %w", err)
	}
	c, err := windows.CreateFile(name, childAccess, 0, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		windows.CloseHandle(h)
		return nil, nil, fmt.Errorf("opening the pipe's other end: %w", err)
	}
	return os.NewFile(uintptr(c), "|server"), os.NewFile(uintptr(h), "|mcpv"), nil
}

// stdinWriter writes to the server's stdin; arm is called before each
// write, which may wait.
type stdinWriter struct {
	f   *os.File
	arm func()
}

func newStdinWriter(f *os.File, arm func()) *stdinWriter { return &stdinWriter{f: f, arm: arm} }

func (w *stdinWriter) write(b []byte) error {
	w.arm()
	_, err := w.f.Write(b)
	return err
}
