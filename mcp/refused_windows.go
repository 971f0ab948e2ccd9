package mcp

import "syscall"

// wsaRefused is what Winsock says for a refused connection (WSAECONNREFUSED):
// Go's syscall.ECONNREFUSED is another number on Windows.
var wsaRefused error = syscall.Errno(10061)
