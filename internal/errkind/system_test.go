package errkind

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

func TestBrokenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	_, werr := w.Write([]byte("x")) // the real error of this OS
	w.Close()
	if !BrokenPipe(werr) {
		t.Errorf("a write to a pipe without a reader: %#v is not recognised", werr)
	}
	if !BrokenPipe(&fs.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}) {
		t.Error("EPIPE is not recognised")
	}
	for _, e := range []error{errors.New("disk full"), syscall.ENOSPC, os.ErrDeadlineExceeded, nil} {
		if BrokenPipe(e) {
			t.Errorf("%v taken for a broken pipe", e)
		}
	}
}

func TestRefused(t *testing.T) {
	_, derr := net.Dial("tcp", testkit.DeadAddr(t)) // the real error of this OS
	if !Refused(derr) {
		t.Errorf("a dial nothing answered: %#v is not recognised", derr)
	}
	for _, e := range []error{errors.New("timeout"), syscall.EPIPE, nil} {
		if Refused(e) {
			t.Errorf("%v taken for a refused connection", e)
		}
	}
}

func TestAddrInUse(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, lerr := net.Listen("tcp4", ln.Addr().String()) // the real error of this OS
	if !AddrInUse(lerr) {
		t.Errorf("a listen on a held address: %#v is not recognised", lerr)
	}
	for _, e := range []error{errors.New("timeout"), syscall.ECONNREFUSED, nil} {
		if AddrInUse(e) {
			t.Errorf("%v taken for an address in use", e)
		}
	}
}

func TestNoAddress(t *testing.T) {
	_, lerr := net.Listen("tcp4", "192.0.2.1:0") // TEST-NET-1: no machine has it
	if !NoAddress(lerr) {
		t.Errorf("a listen on an address this machine lacks: %#v is not recognised", lerr)
	}
	if NoAddress(syscall.EADDRINUSE) || NoAddress(nil) {
		t.Error("other errors taken for a missing address")
	}
}
