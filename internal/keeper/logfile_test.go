package keeper

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clock is a time the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock               { return &clock{time.Unix(1e9, 0)} }
func size(t *testing.T, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// A log written without pause stays within its size: one full file, one
// rotated, and nothing else.
func TestLogRotates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.log")
	c := newClock()
	l, err := openLog(path, 1<<20, 1<<30, 1<<30, c.now)
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Repeat([]byte("x"), 1000)
	line[len(line)-1] = '\n'
	for range 30_000 { // 30 MB
		if n, err := l.Write(line); n != len(line) || err != nil {
			t.Fatalf("write: %d %v", n, err)
		}
		c.add(time.Millisecond)
	}
	l.Close()
	if s := size(t, path); s > 1<<20 || s == 0 {
		t.Errorf("the log has %d bytes", s)
	}
	if s := size(t, path+".1"); s > 1<<20 || s < 1<<20-1000 {
		t.Errorf("the rotated log has %d bytes", s)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files", len(entries))
	}
}

// Past its rate the log drops what is written, and says how much when it
// writes again.
func TestLogRateLimited(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.log")
	c := newClock()
	l, err := openLog(path, 10<<20, 1000, 4000, c.now)
	if err != nil {
		t.Fatal(err)
	}
	flood := bytes.Repeat([]byte("y"), 100)
	for range 100 { // 10,000 bytes at once: 4,000 pass
		l.Write(flood)
	}
	c.add(time.Second)
	l.Write([]byte("after\n"))
	l.Close()
	b, _ := os.ReadFile(path)
	if got := bytes.Count(b[:min(len(b), 4001)], []byte("y")); got != 4000 {
		t.Errorf("%d bytes of the flood written, want the burst of 4000", got)
	}
	if !strings.HasSuffix(string(b), "\nmcpv: 6000 bytes of output were dropped here: the session log takes 1000 bytes a second at most\nafter\n") {
		t.Errorf("the log ends %q", b[max(0, len(b)-200):])
	}
}
