package mcp

import (
	"strings"
	"unsafe"
)

// The pieces a long line is read into before it is joined. Where the
// system allows (pieces_mmap.go), they are mapped outside Go's heap and
// each is unmapped the moment it has been copied into the line, so that
// joining a line holds it once and a piece more, not twice: the line's
// slice, fresh from the system, takes up memory only as it is written.
// Elsewhere they are ordinary slices, which the collector takes back
// later. A piece never leaves lineReader.long.

// piece is a slice to read into, and whether it must be unmapped.
type piece struct {
	b      []byte
	mapped bool
}

// newPiece returns a piece of size bytes.
func newPiece(size int) piece {
	if b, ok := mapPiece(size); ok {
		return piece{b, true}
	}
	return piece{make([]byte, size), false}
}

// free gives the piece's memory back; the piece is not used again.
func (p *piece) free() {
	if p.mapped {
		unmapPiece(p.b)
	}
	*p = piece{}
}

// joinPieces returns the first n bytes of the pieces, in order, in one
// slice of exactly that length, and frees every piece as soon as it has
// been copied.
//
// The line is not zeroed before the pieces are copied in: strings.Builder
// allocates what it grows to without clearing it, and every byte is
// written. Memory fresh from the system costs nothing to zero, but memory
// the heap held before (a process that read a large line earlier, such as
// a session keeper) is cleared by make, page by page, before the first
// piece is copied and freed: a 100 MB line then briefly held 200 MB.
func joinPieces(pieces []piece, n int) []byte {
	var line strings.Builder
	line.Grow(n)
	for i := range pieces {
		line.Write(pieces[i].b[:min(len(pieces[i].b), n-line.Len())])
		pieces[i].free()
	}
	// The builder's bytes, which nothing else holds, as the slice they
	// were written into.
	s := line.String()
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
