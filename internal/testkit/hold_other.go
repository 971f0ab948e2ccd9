//go:build !unix

package testkit

import "net"

// holds says that the port stays bound until the test ends.
const holds = false

// hold takes a port and gives it up: here another listener of the run may
// take it before the test dials it.
func hold() (port int, release func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, nil, err
	}
	port = ln.Addr().(*net.TCPAddr).Port
	return port, func() {}, ln.Close()
}
