package keeper

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A keeper that does not read (stopped, starved) does not hold up a
// command whose request is cancelled mid-write: the write gives up with
// the context, and the connection, whose last message may be half
// written, is closed.
func TestWriteGivesUpWithItsContext(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "k") // short: a socket's path is bounded
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ours, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	keeper, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer keeper.Close()
	tr := &Transport{c: ours, r: bufio.NewReader(ours), name: "s", end: make(chan struct{})}
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { // ends when Write returns
		done <- tr.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"pad":"`+strings.Repeat("x", 2<<20)+`"}}`))
	}()
	if _, err := keeper.Read(make([]byte, 10)); err != nil { // the write has begun; the keeper reads no more
		t.Fatal(err)
	}
	stop := errors.New("interrupted")
	cancel(stop)
	select {
	case err := <-done:
		if !errors.Is(err, stop) {
			t.Errorf("Write: %v, want the context's cause", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Write still waits for a keeper that does not read, its context done")
	}
	if _, err := ours.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("the connection after a write cut short: %v, want it closed", err)
	}
}
