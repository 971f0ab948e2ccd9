package serve

import (
	"io"
	"net"
	"testing"
)

// Connections the kernel completed before the listener closed, which no
// Accept had taken, are handed out after Close, each with what its peer
// sent, and then Accept fails.
func TestKeepBacklogHandsOutWhatWaited(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := KeepBacklog(raw)
	for i := range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte{'a' + byte(i)})
	}
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for range 3 {
		c, err := ln.Accept()
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		b := make([]byte, 1)
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatal(err)
		}
		got = append(got, b[0])
		c.Close()
	}
	if string(got) != "abc" {
		t.Errorf("read %q from the connections that waited", got)
	}
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Error("Accept after the backlog was handed out gave a connection")
	}
}
