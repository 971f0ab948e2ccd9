package testkit

import (
	"net"
	"strconv"
	"testing"

	"github.com/mcpv/mcpv/internal/errkind"
)

// The address refuses a connection, and no listener can take its port
// while the test runs.
func TestAddrRefusesAndStaysFree(t *testing.T) {
	addr := DeadAddr(t)
	if _, err := net.Dial("tcp", addr); !errkind.Refused(err) {
		t.Errorf("dial %s: %v, want connection refused", addr, err)
	}
	if !holds {
		return // the port is given up at once here
	}
	if ln, err := net.Listen("tcp", addr); err == nil {
		ln.Close()
		t.Errorf("a listener took %s", addr)
	}
	for range 200 { // the listeners of other tests, on ports the system picks
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if ln.Addr().String() == addr {
			t.Fatalf("a listener on port 0 was given %s", addr)
		}
	}
}

// A free port is below the range the system hands out, and a listener can
// take it.
func TestFreeIsOutOfTheSystemsWay(t *testing.T) {
	port := FreePort(t)
	if port >= systemRangeStart() {
		t.Errorf("port %d is in the system's range, from %d", port, systemRangeStart())
	}
	ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("listening on the free port: %v", err)
	}
	ln.Close()
	for range 200 { // the listeners of other tests, on ports the system picks
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if ln.Addr().(*net.TCPAddr).Port == port {
			t.Fatalf("a listener on port 0 was given the free port %d", port)
		}
	}
}
