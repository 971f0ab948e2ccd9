//go:build linux || darwin

package mcp

import "syscall"

// mapPiece maps size bytes of private memory, which the system provides
// zeroed and counts only once written.
func mapPiece(size int) ([]byte, bool) {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	return b, err == nil
}

func unmapPiece(b []byte) { syscall.Munmap(b) }
