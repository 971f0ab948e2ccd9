package testkit

// DeadAddr gives a test an address on the loopback that refuses
// every connection for as long as the test runs (DeadAddr), and a port free
// for a server of the test to listen on later (FreePort).
//
// A port taken by a listener and given up again is free for the next
// listener of the run, and tests running in parallel open hundreds: the
// server of another test may be listening there by the time a test dials
// it, expecting a refusal. The port given here stays bound, without being
// listened on, until the test ends, so nothing else can take it.

import (
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// DeadAddr is 127.0.0.1:PORT, where nothing listens until t ends.
func DeadAddr(t testing.TB) string {
	t.Helper()
	port, release, err := hold()
	if err != nil {
		t.Fatalf("holding a port: %v", err)
	}
	t.Cleanup(release)
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// DeadURL is http://DeadAddr(t)/mcp.
func DeadURL(t testing.TB) string { return "http://" + DeadAddr(t) + "/mcp" }

// FreePort is a loopback port nothing listens on, for a server the test starts
// to listen on later (a fixed redirect port, which cannot be held): one
// below the range from which the system hands out ports to listeners of
// port 0 and to outgoing connections, so that the hundreds of those the
// tests running beside it open cannot take it meanwhile; only a listener
// that names it can.
func FreePort(t testing.TB) int {
	t.Helper()
	const floor = 10000 // below it, the ports of services a machine runs
	top := systemRangeStart()
	if top <= floor+1000 {
		t.Fatalf("the system hands out ports from %d: no room below it", top)
	}
	ipv6 := false
	if ln, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		ln.Close()
		ipv6 = true
	}
	for range 100 {
		port := floor + rand.IntN(top-floor)
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		ln, err := net.Listen("tcp4", addr)
		if err != nil {
			continue
		}
		ln.Close()
		if ipv6 {
			ln6, err := net.Listen("tcp6", net.JoinHostPort("::1", strconv.Itoa(port)))
			if err != nil {
				continue // taken on ::1
			}
			ln6.Close()
		}
		return port
	}
	t.Fatalf("no free port between %d and %d", floor, top)
	return 0
}

// systemRangeStart is the first port the system hands out on its own:
// Linux says where (ip_local_port_range); elsewhere it is the range IANA
// names for it, which macOS, the BSDs and Windows use.
func systemRangeStart() int {
	if runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
			if f := strings.Fields(string(b)); len(f) == 2 {
				if n, err := strconv.Atoi(f[0]); err == nil && n > 0 {
					return n
				}
			}
		}
	}
	return 49152
}
