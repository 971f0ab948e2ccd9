//go:build unix

package commands

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// The reader of a pipe closes its end: the writer's watch sees it.
func TestPipeReaderGone(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	gone, stop := watchHangup(w)
	defer stop()
	select {
	case <-gone:
		t.Fatal("gone while the reader is there")
	case <-time.After(50 * time.Millisecond):
	}
	r.Close()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the reader closed its end and the watch did not see it")
	}
}

// The peer of a socket closes it: the watch sees it.
func TestSocketPeerGone(t *testing.T) {
	a, b, err := hangupSocketPair()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	gone, stop := watchHangup(a)
	defer stop()
	b.Close()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the peer closed the socket and the watch did not see it")
	}
}

// stop ends a watch of a file nobody hangs up, and gone stays open.
func TestHangupStop(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gone, stop := watchHangup(f)
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("stop did not end the watch")
	}
	select {
	case <-gone:
		t.Fatal("a file was said to have hung up")
	default:
	}
}

func hangupSocketPair() (*os.File, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b"), nil
}
