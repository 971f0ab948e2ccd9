// Package deadport gives a test an address on the loopback that refuses
// every connection for as long as the test runs.
//
// A port taken by a listener and given up again is free for the next
// listener of the run, and tests running in parallel open hundreds: the
// server of another test may be listening there by the time a test dials
// it, expecting a refusal. The port given here stays bound, without being
// listened on, until the test ends, so nothing else can take it.
package deadport

import (
	"net"
	"strconv"
	"testing"
)

// Addr is 127.0.0.1:PORT, where nothing listens until t ends.
func Addr(t testing.TB) string {
	t.Helper()
	port, release, err := hold()
	if err != nil {
		t.Fatalf("holding a port: %v", err)
	}
	t.Cleanup(release)
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// URL is http://Addr(t)/mcp.
func URL(t testing.TB) string { return "http://" + Addr(t) + "/mcp" }
