package deadport

import (
	"net"
	"testing"

	"github.com/mcpv/mcpv/internal/oserr"
)

// The address refuses a connection, and no listener can take its port
// while the test runs.
func TestAddrRefusesAndStaysFree(t *testing.T) {
	addr := Addr(t)
	if _, err := net.Dial("tcp", addr); !oserr.Refused(err) {
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
