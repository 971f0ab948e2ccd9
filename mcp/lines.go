package mcp

// Reading lines of any length, for the stdio transport's messages and for
// SSE streams. A message can be hundreds of megabytes on one line, so the
// reader buffers what it reads itself rather than through a bufio.Reader,
// and no byte of a large message is copied more often than it must be:
//   - A line that fits the buffer is handed out as a sub-slice of it: a
//     line that is dropped (junk on stdout, an SSE comment) is never
//     copied, and one that is kept is copied out once, at its size.
//   - A line that outgrows the buffer is read straight from the stream
//     into pieces of growing size, then joined once into a slice of exactly
//     its length, which the caller keeps; each piece is given back as soon
//     as it is copied (pieces.go). (Growing one slice by doubling would
//     copy about as much, but leave up to three times the line in memory
//     at its peak, and slack in the slice kept.)
//   - A body of known length (Content-Length) is read straight into the
//     slice that is returned.

import (
	"bytes"
	"io"
)

// maxEmptyReads is how many reads in a row may return nothing and no error
// before the reader gives up with io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// maxPiece bounds the pieces a long line is read into.
const maxPiece = 4 << 20

// lineReader reads lines from src. One goroutine uses it.
type lineReader struct {
	// src must be done with the slice it reads into when Read returns
	// (every io.Reader's contract): a long line's pieces are unmapped
	// once joined (pieces.go), and a source that went on writing into
	// one from elsewhere would write into memory given back.
	src  io.Reader
	buf  []byte // buf[r:w] has been read and not yet consumed
	r, w int
	err  error // what src returned last; reported once buf[r:w] is used up
	// cr makes a CR alone end a line too, with a LF right after it
	// belonging to the same line ending (SSE).
	cr     bool
	skipLF bool // the last line ended in CR
	// large, when set, is called once a line being read reaches
	// largeMessage bytes, before more of it is read; it may wait. An
	// error ends the line, and is what line returns.
	large func() error
	// limit, when positive, is the longest line or body read: a longer
	// one ends the stream with a *MessageSizeError, past which nothing
	// more of it is read or kept.
	limit int64
}

// newLineReader reads from src through a buffer of size bytes (at least 16).
func newLineReader(src io.Reader, size int, cr bool) lineReader {
	return lineReader{src: src, buf: make([]byte, max(size, 16)), cr: cr}
}

// read reads once from src into p.
func (l *lineReader) read(p []byte) (int, error) {
	for range maxEmptyReads {
		if n, err := l.src.Read(p); n > 0 || err != nil {
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}

// fill reads once into the free end of the buffer, which must have room.
func (l *lineReader) fill() {
	n, err := l.read(l.buf[l.w:])
	l.w += n
	l.err = err
}

// ending returns the index of the first line ending in b, or -1.
func (l *lineReader) ending(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if !l.cr {
		return i
	}
	before := b
	if i >= 0 {
		before = b[:i]
	}
	if j := bytes.IndexByte(before, '\r'); j >= 0 {
		return j
	}
	return i
}

// line returns the next line without its ending; at the end of the stream,
// what is left and the error. A line that fits the buffer is a sub-slice of
// it, good until the next call (own is false); a longer one is a slice of
// its own, which the caller may keep (own is true).
func (l *lineReader) line() (line []byte, own bool, err error) {
	if l.skipLF {
		if l.r == l.w && l.err == nil {
			l.r, l.w = 0, 0
			l.fill()
		}
		l.skipLF = false
		if l.r < l.w && l.buf[l.r] == '\n' {
			l.r++
		}
	}
	scanned := l.r // buf[r:scanned] holds no line ending
	for {
		if i := l.ending(l.buf[scanned:l.w]); i >= 0 {
			end := scanned + i
			if l.limit > 0 && int64(end-l.r) > l.limit {
				l.err = &MessageSizeError{Limit: l.limit}
				return nil, false, l.err
			}
			line = l.buf[l.r:end]
			l.skipLF = l.buf[end] == '\r'
			l.r = end + 1
			return line, false, nil
		}
		scanned = l.w
		if l.err != nil {
			line = l.buf[l.r:l.w]
			l.r = l.w
			return line, false, l.err
		}
		if l.w == len(l.buf) {
			if l.r == 0 {
				line, err = l.long()
				return line, true, err
			}
			l.w = copy(l.buf, l.buf[l.r:l.w]) // make room: the partial line moves to the front
			scanned, l.r = l.w, 0
		}
		l.fill()
	}
}

// long reads the rest of a line that fills the buffer: straight from src
// into pieces of growing size, then joined once (pieces.go).
func (l *lineReader) long() ([]byte, error) {
	first := newPiece(l.w - l.r)
	copy(first.b, l.buf[l.r:l.w])
	pieces, total := []piece{first}, len(first.b)
	defer func() {
		for i := range pieces {
			pieces[i].free() // those a panic left; joinPieces frees the rest
		}
	}()
	l.r, l.w = 0, 0
	size := len(l.buf)
	asked := false // whether large has been called for this line
	for {
		size = min(2*size, maxPiece)
		p := newPiece(size)
		pieces = append(pieces, p)
		for n := 0; n < len(p.b); {
			if l.large != nil && !asked && total+n >= largeMessage {
				asked = true
				if err := l.large(); err != nil {
					l.err = err
					return nil, err
				}
			}
			// No read takes more than the buffer holds, so that what
			// follows the line fits back into it.
			k, err := l.read(p.b[n:min(len(p.b), n+len(l.buf))])
			if i := l.ending(p.b[n : n+k]); i >= 0 {
				end := n + i
				if l.limit > 0 && int64(total+end) > l.limit {
					// The read that crossed the limit held the line's end.
					l.err = &MessageSizeError{Limit: l.limit}
					return nil, l.err
				}
				l.skipLF = p.b[end] == '\r'
				l.w = copy(l.buf, p.b[end+1:n+k])
				l.err = err
				return joinPieces(pieces, total+end), nil
			}
			n += k
			if err != nil {
				l.err = err
				return joinPieces(pieces, total+n), err
			}
			if l.limit > 0 && int64(total+n) > l.limit {
				l.err = &MessageSizeError{Limit: l.limit}
				return nil, l.err
			}
		}
		total += len(p.b)
	}
}

// body returns the next n bytes. They are read straight into the slice
// returned, which grows as they arrive (doubling, and to n at once when n
// is within four times what has arrived), so that a length announced and
// never sent costs a few times what was sent, not n. With an error it
// returns what it read.
func (l *lineReader) body(n int64) ([]byte, error) {
	if l.limit > 0 && n > l.limit {
		l.err = &MessageSizeError{Limit: l.limit}
		return nil, l.err
	}
	if buffered := l.w - l.r; int64(buffered) >= n {
		b := bytes.Clone(l.buf[l.r : l.r+int(n)])
		l.r += int(n)
		return b, nil
	}
	b := make([]byte, 0, int(min(n, int64(max(len(l.buf), l.w-l.r)))))
	b = append(b, l.buf[l.r:l.w]...)
	l.r, l.w = 0, 0
	for int64(len(b)) < n {
		if l.err != nil {
			return b, l.err
		}
		if len(b) == cap(b) {
			size := 2 * int64(cap(b))
			if 2*size >= n {
				size = n
			}
			b = append(make([]byte, 0, int(min(size, n))), b...)
		}
		k, err := l.read(b[len(b):int(min(int64(cap(b)), n))])
		b = b[:len(b)+k]
		l.err = err
	}
	return b, nil
}

// skipPrefix consumes p if the stream starts with it, reading no more than
// it takes to tell.
func (l *lineReader) skipPrefix(p string) {
	for l.w-l.r < len(p) && l.err == nil && bytes.HasPrefix([]byte(p), l.buf[l.r:l.w]) {
		if l.w == len(l.buf) {
			l.w = copy(l.buf, l.buf[l.r:l.w])
			l.r = 0
		}
		l.fill()
	}
	if bytes.HasPrefix(l.buf[l.r:l.w], []byte(p)) {
		l.r += len(p)
	}
}
