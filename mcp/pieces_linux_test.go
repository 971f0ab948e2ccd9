package mcp

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// A long line read where the heap held a long line before costs its size
// once in resident memory, not twice: the line is not zeroed before the
// pieces, still mapped, are copied into it. The runtime zeroes a large
// allocation in memory it has held before unless every page of it went
// back to the system, which depends on what else the heap did meanwhile;
// each round uses a little of the freed memory again first, as a keeper
// reading one large result after another does. With the line made by
// make, this failed in the first round of each of 10 runs (a 64 MiB line
// grew the peak by 126-127 MiB; without that use, in about one of three).
func TestLongLineInReusedMemory(t *testing.T) {
	testkit.SkipLong(t, "five lines of 64 MiB read, the heap given back to the system between them")
	if raceEnabled {
		t.Skip("the race detector shadows every write to the heap")
	}
	const size = 64 << 20
	read := func() []byte {
		src := io.MultiReader(io.LimitReader(xs{}, size), strings.NewReader("\n"))
		l := newLineReader(src, 64<<10, false)
		line, _, err := l.line()
		if err != nil || len(line) != size {
			t.Fatalf("line of %d bytes, %v", len(line), err)
		}
		return line
	}
	line := read()
	if bytes.Count(line, []byte("x")) != size {
		t.Fatal("the first line is not what was read")
	}
	for round := range 4 {
		line = nil
		debug.FreeOSMemory() // the line's memory is the heap's again, given back to the system
		// A little of it in use again, then free again but not given back:
		// the runtime zeroes a large allocation unless all of it was given
		// back, and a process that reads one large message after another
		// seldom gives all of it back.
		again := make([]byte, 1<<20)
		for i := range again {
			again[i] = 1
		}
		runtime.KeepAlive(again)
		again = nil
		runtime.GC()

		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			t.Skipf("the peak resident memory cannot be reset: %v", err)
		}
		before := status(t, "VmHWM")
		line = read()
		grew := status(t, "VmHWM") - before
		if bytes.Count(line, []byte("x")) != size {
			t.Fatal("the line is not what was read")
		}
		if grew > size+size/4 {
			t.Fatalf("round %d: reading a %d MiB line grew the peak resident memory by %d MiB", round, size>>20, grew>>20)
		}
	}
}

// status is a field of /proc/self/status in bytes.
func status(t *testing.T, field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// xs reads as x without end.
type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
