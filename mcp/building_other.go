//go:build !linux

package mcp

// building is known on Linux alone (from /proc): elsewhere a server that
// go run builds is waited for as any server is.
func building(int) bool { return false }
