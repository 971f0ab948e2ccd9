package mcp

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// Lines longer than the reader's buffer: data lines read into pieces of
// their own, events gathered from long and short lines, long comments
// dropped, and every kind of line ending on either side of a buffer's or a
// piece's edge.
func TestSSELongLines(t *testing.T) {
	t.Parallel()
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	big := long("a", 200_000)
	var in strings.Builder
	var want []Event
	lastID := "" // the id in force, from the round before on
	for _, end := range []string{"\n", "\r\n", "\r"} {
		in.WriteString(": " + long("c", 150_000) + end) // a long comment
		in.WriteString("x-unknown: " + long("u", 70_000) + end)
		in.WriteString("data: " + big + end + end)
		want = append(want, Event{ID: lastID, Data: []byte(big)})
		lastID = "7"
		in.WriteString("id: 7" + end + "data: short" + end + "data: " + long("b", 100_000) + end + "data:" + end + "data: " + long("d", 65_530) + end + end)
		want = append(want, Event{ID: "7", Data: []byte("short\n" + long("b", 100_000) + "\n\n" + long("d", 65_530))})
		in.WriteString("event: big" + end + "data: " + long("e", 64<<10-6) + end + "data: " + long("f", 64<<10-7) + end + end) // lines of the buffer's size, and one less
		want = append(want, Event{Type: "big", ID: "7", Data: []byte(long("e", 64<<10-6) + "\n" + long("f", 64<<10-7))})
	}
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"whole":               func(r io.Reader) io.Reader { return r },
		"byte a time":         iotest.OneByteReader,
		"half reads":          iotest.HalfReader,
		"data with its error": iotest.DataErrReader,
	} {
		t.Run(name, func(t *testing.T) {
			got, p := readAllEvents(t, wrap(strings.NewReader(in.String())))
			if len(got) != len(want) {
				t.Fatalf("%d events, want %d", len(got), len(want))
			}
			for i := range want {
				if want[i].Type != got[i].Type || want[i].ID != got[i].ID || string(want[i].Data) != string(got[i].Data) {
					t.Errorf("event %d (-want +got):\n%.2000s", i, cmp.Diff(want[i], got[i]))
				}
			}
			if p.LastID != "7" {
				t.Errorf("LastID %q, want 7", p.LastID)
			}
		})
	}
}
