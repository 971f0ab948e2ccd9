package mcp

import (
	"errors"
	"syscall"
)

// connRefused reports a dial that nothing listened to.
func connRefused(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	return wsaRefused != nil && errors.Is(err, wsaRefused)
}
