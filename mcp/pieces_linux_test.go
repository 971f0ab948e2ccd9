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
)

// A long line read where the heap held a long line before costs its size
// once in resident memory, not twice: the line is not zeroed before the
// pieces, still mapped, are copied into it. The runtime zeroes a large
// allocation in memory it has held before unless every page of it went
// back to the system, which depends on what else the heap did meanwhile:
// with the line made by make, this failed in about one run of three (a
// 64 MiB line grew the peak by 126 MiB), and a session keeper reading one
// large result after another held some of them twice.
func TestLongLineInReusedMemory(t *testing.T) {
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
	line = nil
	debug.FreeOSMemory() // the line's memory is the heap's again, given back to the system

	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("the peak resident memory cannot be reset: %v", err)
	}
	before := status(t, "VmHWM")
	line = read()
	grew := status(t, "VmHWM") - before
	if bytes.Count(line, []byte("x")) != size {
		t.Fatal("the second line is not what was read")
	}
	runtime.KeepAlive(line)
	if grew > size+size/4 {
		t.Errorf("reading a %d MiB line grew the peak resident memory by %d MiB", size>>20, grew>>20)
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
