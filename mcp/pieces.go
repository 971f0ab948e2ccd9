package mcp

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
func joinPieces(pieces []piece, n int) []byte {
	line := make([]byte, n)
	at := 0
	for i := range pieces {
		at += copy(line[at:], pieces[i].b)
		pieces[i].free()
	}
	return line
}
