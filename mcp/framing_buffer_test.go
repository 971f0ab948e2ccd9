package mcp

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// The reader's own buffering: lines and bodies longer than the shared
// buffer, lines that end on its edges, and sources that hand over data a
// byte at a time or with their error. Every message read must stay as it
// was while later ones are read (the session keeps them all).
func TestMessageReaderBuffering(t *testing.T) {
	long := func(n int) string { return `{"s":"` + strings.Repeat("x", n) + `"}` }
	var lines []string
	for n := range 40 { // around the 16-byte buffer and twice and four times it
		lines = append(lines, long(n))
	}
	lines = append(lines, long(1000), long(5000))
	linesIn := strings.Join(lines, "\n") + "\r\n" + "junk " + strings.Repeat("j", 100) + "\n\n" + long(3) // the last one unterminated
	wantLines := append(append([]string{}, lines...), long(3))

	var framed strings.Builder
	var bodies []string
	for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 100, 1000, 5000} {
		body := "[" + strings.Repeat("1,", n) + "1]"
		bodies = append(bodies, body)
		framed.Write(frame([]byte(body)))
	}

	sources := map[string]func(string) io.Reader{
		"whole":       func(s string) io.Reader { return strings.NewReader(s) },
		"byte a time": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half reads":  func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"data with its error": func(s string) io.Reader {
			return iotest.DataErrReader(strings.NewReader(s))
		},
	}
	for name, src := range sources {
		for _, tt := range []struct {
			kind  string
			input string
			want  []string
			junk  []string
		}{
			{"lines", linesIn, wantLines, []string{"junk " + strings.Repeat("j", 100)}},
			{"framed", framed.String(), bodies, nil},
		} {
			t.Run(name+"/"+tt.kind, func(t *testing.T) {
				m := newMessageReader(src(tt.input), 16)
				var junk []string
				m.junk = func(line []byte) { junk = append(junk, string(line)) }
				var kept [][]byte
				for {
					msg, err := m.next()
					if err != nil {
						if !errors.Is(err, io.EOF) {
							t.Fatalf("after %d messages: %v", len(kept), err)
						}
						break
					}
					kept = append(kept, msg)
				}
				var got []string
				for _, k := range kept {
					got = append(got, string(k))
				}
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("messages (-want +got):\n%s", d)
				}
				if d := cmp.Diff(tt.junk, junk); d != "" {
					t.Errorf("junk (-want +got):\n%s", d)
				}
			})
		}
	}
}

// stallReader returns nothing, and no error, for ever.
type stallReader struct{}

func (stallReader) Read([]byte) (int, error) { return 0, nil }

// A source that returns nothing and no error, over and over, ends the
// reading (io.ErrNoProgress, as bufio says) instead of spinning for ever,
// in a line and in a body.
func TestMessageReaderNoProgress(t *testing.T) {
	for name, src := range map[string]io.Reader{
		"line": io.MultiReader(strings.NewReader(`{"a":`), stallReader{}),
		"body": io.MultiReader(strings.NewReader("Content-Length: 100\r\n\r\n{"), stallReader{}),
	} {
		m := newMessageReader(src, 16)
		m.junk = func([]byte) {}
		// An unterminated line is a message of its own, then the error comes.
		var err error
		for range 2 {
			if _, err = m.next(); err != nil {
				break
			}
		}
		if !errors.Is(err, io.ErrNoProgress) {
			t.Errorf("%s: error %v, want io.ErrNoProgress", name, err)
		}
	}
}

// A body grows towards its Content-Length as it arrives; what a server
// announces and never sends is not allocated up front.
func TestMessageReaderBodyGrowth(t *testing.T) {
	body := bytes.Repeat([]byte("b"), 100_000)
	m := newMessageReader(bytes.NewReader(frame(body)), 1024)
	got, err := m.next()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("next = %d bytes, %v; want the body of %d", len(got), err, len(body))
	}
	if cap(got) != len(body) {
		t.Errorf("the body's slice has room for %d bytes, want exactly its %d", cap(got), len(body))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m = newMessageReader(strings.NewReader("Content-Length: 1000000000000\r\n\r\n{}"), 1024)
	_, err = m.next()
	runtime.ReadMemStats(&after)
	var fe *FramingError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "ended after 2 of the 1000000000000 bytes") {
		t.Errorf("error = %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("reading 2 bytes of an announced terabyte allocated %d bytes", grew)
	}
}
