package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A server served in the process (CommandOptions.Serve) is a stdio server
// to the transport: what it writes is read, what it writes on stderr is
// kept, and its return is its exit, with its error said as a program's
// status would be.
func TestServedServerExits(t *testing.T) {
	var stderr mcptest.Buffer
	tr, err := StartCommand(CommandOptions{Path: "served", Stderr: &stderr, OnEvent: func(TransportEvent) {},
		Serve: func(in io.ReadCloser, out, errw io.WriteCloser) error {
			fmt.Fprintln(errw, "going")
			fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
			return errors.New("it broke")
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close(context.Background())
	msg, err := tr.Read()
	if err != nil || !strings.Contains(string(msg), `"hi"`) {
		t.Fatalf("read %q, %v: want the notification", msg, err)
	}
	_, err = tr.Read()
	var te *TransportError
	if !errors.As(err, &te) || te.Op != "server exited: it broke" {
		t.Fatalf("Read error = %v, want the server's exit with its error", err)
	}
	if tr.Pid() != 0 {
		t.Errorf("Pid = %d, want 0: no process", tr.Pid())
	}
	waitFor(t, tr.errDone)
	if stderr.String() != "going\n" {
		t.Errorf("stderr %q", stderr.String())
	}
}

// Close ends a served server that reads no more and writes on, with no
// process to signal: its stdout is closed, which fails its writes. With
// the context done it does not wait out the grace (an hour here).
func TestCloseEndsAServedServerThatWritesOn(t *testing.T) {
	returned := make(chan error, 1)
	tr, err := StartCommand(CommandOptions{Path: "served", Grace: time.Hour,
		Serve: func(in io.ReadCloser, out, _ io.WriteCloser) error {
			io.Copy(io.Discard, in) // until Close closes stdin; then on, regardless
			for {
				if _, err := fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"notifications/progress"}`); err != nil {
					returned <- err
					return err
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	closed := make(chan struct{})
	go func() { tr.Close(ctx); close(closed) }() // ends with Close, bounded below
	waitFor(t, closed)
	select {
	case err := <-returned:
		if err == nil {
			t.Error("the served server's write did not fail")
		}
	case <-time.After(time.Minute): // a hang guard only
		t.Fatal("the served server still writes a minute after Close")
	}
	waitFor(t, tr.exited)
}
