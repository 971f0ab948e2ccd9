//go:build !windows

package mcp

// wsaRefused is Winsock's own code for a refused connection; Windows alone.
var wsaRefused error
