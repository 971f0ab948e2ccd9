package mcp

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

// A long line is held on the heap once: its pieces are mapped outside the
// heap and given back as they are joined, so reading a 32 MiB line
// allocates the line and little more (the pieces on the heap cost the line
// twice over).
func TestLongLineHeldOnce(t *testing.T) {
	if _, ok := mapPiece(1); !ok {
		t.Skip("pieces are on the heap on " + runtime.GOOS)
	}
	const size = 32 << 20
	src := io.MultiReader(bytes.NewReader(bytes.Repeat([]byte("x"), size)), bytes.NewReader([]byte("\nnext\n")))
	l := newLineReader(src, 64<<10, false)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	line, own, err := l.line()
	runtime.ReadMemStats(&after)
	if err != nil || !own || len(line) != size || bytes.Count(line, []byte("x")) != size {
		t.Fatalf("line of %d bytes (own %v, %v)", len(line), own, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size+size/10 {
		t.Errorf("reading a line of %d bytes allocated %d on the heap", size, got)
	}
	if next, _, err := l.line(); string(next) != "next" || err != nil {
		t.Errorf("the line after: %q, %v", next, err)
	}
}

// joinPieces copies what each piece holds, in order, up to n bytes, and
// leaves every piece freed.
func TestJoinPieces(t *testing.T) {
	var pieces []piece
	for _, s := range []string{"ab", "cde", "fghij"} {
		p := newPiece(len(s))
		copy(p.b, s)
		pieces = append(pieces, p)
	}
	if got := string(joinPieces(pieces, 8)); got != "abcdefgh" {
		t.Errorf("joined %q", got)
	}
	for i, p := range pieces {
		if p.b != nil || p.mapped {
			t.Errorf("piece %d not freed", i)
		}
	}
}

// A line longer than the limit is refused wherever its end falls: in the
// buffer, in the read that crosses the limit, or after it.
func TestLineLimitWhereverItEnds(t *testing.T) {
	for _, tt := range []struct {
		name               string
		buf, limit, length int
	}{
		{"within the buffer", 64, 10, 20},
		{"in the read that crosses the limit", 16, 40, 45},
		{"after the read that crosses the limit", 16, 40, 80},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := bytes.NewReader(append(bytes.Repeat([]byte("x"), tt.length), "\n{}\n"...))
			l := newLineReader(src, tt.buf, false)
			l.limit = int64(tt.limit)
			line, _, err := l.line()
			var se *MessageSizeError
			if !errors.As(err, &se) {
				t.Fatalf("a line of %d bytes with a limit of %d: %d bytes, %v; want a MessageSizeError", tt.length, tt.limit, len(line), err)
			}
		})
	}
}
