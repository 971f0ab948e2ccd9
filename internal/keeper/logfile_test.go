package keeper

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// Past its rate the log drops what the server says, a line at a time, and
// says how much when it writes again.
func TestLogRateLimited(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.log")
	c := newClock()
	l, err := openLog(path, 10<<20, 1000, 4000, c.now)
	if err != nil {
		t.Fatal(err)
	}
	server := l.Server()
	flood := append(bytes.Repeat([]byte("y"), 99), '\n')
	for range 100 { // 10,000 bytes at once: 4,000 pass
		server.Write(flood)
	}
	c.add(time.Second)
	server.Write([]byte("after\n"))
	l.Close()
	b, _ := os.ReadFile(path)
	if got := bytes.Count(b, flood); got*len(flood) != 4000 {
		t.Errorf("%d bytes of the flood written, want the burst of 4000", got*len(flood))
	}
	if !strings.HasSuffix(string(b), "\nmcpv: 60 lines (6000 bytes) of the server's output were dropped here: the session log takes 1000 bytes a second of it at most\nafter\n") {
		t.Errorf("the log ends %q", b[max(0, len(b)-200):])
	}
}

// Past its rate, the log keeps only whole lines of the server's, however
// they are written; the keeper's own lines are written all the same.
func TestLogKeepsWholeLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.log")
	c := newClock()
	l, err := openLog(path, 10<<20, 1000, 1000, c.now)
	if err != nil {
		t.Fatal(err)
	}
	server := l.Server()
	for i := range 2000 { // 200 lines a second, 5,000 bytes a second
		line := fmt.Appendf(nil, "server[info] flood: log %d\n", i)
		server.Write(line[:7]) // as a pipe or a scrubber may split it
		server.Write(line[7:])
		if i == 1000 {
			fmt.Fprintf(l, "mcpv: the keeper's own line\n")
		}
		c.add(5 * time.Millisecond)
	}
	l.Close()
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for _, line := range lines {
		if !regexp.MustCompile(`^(server\[info\] flood: log \d+|mcpv: \d+ lines \(\d+ bytes\) of the server's output were dropped here: .*|mcpv: the keeper's own line)$`).MatchString(line) {
			t.Errorf("a broken line: %q", line[:min(len(line), 80)])
			break
		}
	}
	if !slices.Contains(lines, "mcpv: the keeper's own line") {
		t.Error("the keeper's own line was dropped")
	}
}

// A flood of short lines, dropped and resumed over and over, is written
// at the rate, the notes of what was dropped included.
func TestLogFloodWithinRate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.log")
	c := newClock()
	const rate, burst = 10_000, 20_000
	l, err := openLog(path, 10<<20, rate, burst, c.now)
	if err != nil {
		t.Fatal(err)
	}
	server := l.Server()
	line := []byte("flooding-the-log\n")
	for range 1_000_000 { // 17 MB in 10 s
		server.Write(line)
		c.add(10 * time.Microsecond)
	}
	l.Close()
	b, _ := os.ReadFile(path)
	if limit := burst + 10*rate + 200; len(b) > limit {
		t.Errorf("%d bytes logged in 10 s, more than the rate allows (%d)", len(b), limit)
	}
	notes := strings.Count(string(b), "of the server's output were dropped here")
	if kept := bytes.Count(b, line); notes == 0 || notes > 50 || kept < 5000 {
		t.Errorf("%d lines kept, %d notes of what was dropped", kept, notes)
	}
}
