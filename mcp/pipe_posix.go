//go:build !windows

package mcp

import "os"

// serverPipe makes a pipe between mcpv and a server: the server's end and
// mcpv's, which takes deadlines. fromServer says which way it goes.
func serverPipe(fromServer bool) (child, ours *os.File, err error) {
	r, w, err := os.Pipe()
	if fromServer {
		return w, r, err
	}
	return r, w, err
}
