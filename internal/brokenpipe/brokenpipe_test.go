package brokenpipe

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestIs(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	_, werr := w.Write([]byte("x")) // the real error of this OS
	w.Close()
	if !Is(werr) {
		t.Errorf("a write to a pipe without a reader: %#v is not recognised", werr)
	}
	if !Is(&fs.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}) {
		t.Error("EPIPE is not recognised")
	}
	for _, e := range []error{errors.New("disk full"), syscall.ENOSPC, os.ErrDeadlineExceeded, nil} {
		if Is(e) {
			t.Errorf("%v taken for a broken pipe", e)
		}
	}
}
