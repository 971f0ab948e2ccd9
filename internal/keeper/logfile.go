package keeper

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"time"
)

// The session log's bounds: a server that writes to stderr without pause
// costs at most LogMax bytes of disk twice over (the log and one rotated
// file), and the keeper writes at most LogRate bytes a second of what the
// server says, after a first LogBurst.
const (
	LogMax   = 10 << 20
	LogRate  = 256 << 10
	LogBurst = 1 << 20
)

// maxHeld bounds the part of a line the server's stream holds while it
// waits for the line's end: a longer one is taken as a line of its own.
const maxHeld = 64 << 10

// Log is a keeper's log file. Past its size limit the file is renamed
// NAME.log.1 (replacing the one before) and a new one begun. What the
// keeper writes itself (Write) is bounded by that size only; what the
// server says (Server: its stderr, its log messages) is also bounded by
// the rate, a whole line at a time: past the rate, lines are dropped and
// counted, and the count is written when writing resumes. Writes never
// fail, so that a server's stderr is always drained. It is safe for
// concurrent use.
type Log struct {
	max         int64
	rate, burst float64
	now         func() time.Time

	mu           sync.Mutex // guards the fields below
	path         string
	f            *os.File
	size         int64
	tokens       float64 // bytes of the server's that may be written now
	last         time.Time
	held         []byte // the server's line so far, without its end
	droppedLines int64
	droppedBytes int64
}

// OpenLog begins the log at path anew, bounded by LogMax, LogRate and
// LogBurst: a keeper opens it once it holds the session's name (Listen).
func OpenLog(path string) (*Log, error) {
	l, err := openLog(path, LogMax, LogRate, LogBurst, time.Now)
	if err == nil && l.f.Truncate(0) == nil {
		l.size = 0
	}
	return l, err
}

func openLog(path string, max int64, rate, burst int, now func() time.Time) (*Log, error) {
	l := &Log{path: path, max: max, rate: float64(rate), burst: float64(burst), now: now, tokens: float64(burst), last: now()}
	if err := l.open(); err != nil {
		return nil, err
	}
	if fi, err := l.f.Stat(); err == nil {
		l.size = fi.Size()
	}
	return l, nil
}

func (l *Log) open() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	l.f, l.size = f, 0
	return nil
}

// Write writes the keeper's own p, whole.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.put(p)
	return len(p), nil
}

// Server is the writer of what the server says, bounded by the rate.
func (l *Log) Server() *ServerLog { return &ServerLog{l} }

// ServerLog writes what the server says to its Log, a whole line or none.
type ServerLog struct{ l *Log }

// Write writes each line of p that the rate allows, and holds a line's
// beginning until its end is written.
func (s *ServerLog) Write(p []byte) (int, error) {
	l := s.l
	l.mu.Lock()
	defer l.mu.Unlock()
	rest := p
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			l.held = append(l.held, rest...)
			if len(l.held) > maxHeld {
				l.line(l.held)
				l.held = l.held[:0]
			}
			break
		}
		line := rest[:i+1]
		rest = rest[i+1:]
		if len(l.held) > 0 {
			line = append(l.held, line...)
			l.held = l.held[:0]
		}
		l.line(line)
	}
	return len(p), nil
}

// line writes one line of the server's when the rate allows, else counts it.
// A line longer than the burst passes when the burst is whole. Once lines
// are dropped, writing resumes only when a quarter of a second's worth is
// back: the note of what was dropped counts against the rate too, and a
// note before every short line would be most of the log.
func (l *Log) line(b []byte) {
	now := l.now()
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	l.last = now
	need := float64(len(b))
	if l.droppedLines > 0 {
		need = max(need, min(l.burst, l.rate/4))
	}
	if l.tokens < need && l.tokens < l.burst {
		l.droppedLines++
		l.droppedBytes += int64(len(b))
		return
	}
	l.tokens -= float64(l.noteDropped() + len(b))
	l.put(b)
}

// noteDropped says how much of the server's output was dropped, if any,
// and returns the length of what it wrote.
func (l *Log) noteDropped() int {
	if l.droppedLines == 0 {
		return 0
	}
	note := fmt.Appendf(nil, "mcpv: %d lines (%d bytes) of the server's output were dropped here: the session log takes %d bytes a second of it at most\n", l.droppedLines, l.droppedBytes, int(l.rate))
	l.droppedLines, l.droppedBytes = 0, 0
	l.put(note)
	return len(note)
}

// put writes b, rotating the file first when b would take it past max.
func (l *Log) put(b []byte) {
	if l.f == nil {
		return
	}
	if l.size > 0 && l.size+int64(len(b)) > l.max {
		l.f.Close()
		l.f = nil
		os.Rename(l.path, l.path+".1")
		if l.open() != nil {
			return // nothing more is logged rather than everything failing
		}
	}
	m, _ := l.f.Write(b)
	l.size += int64(m)
}

// Close writes the server's last line, if it did not end it, and closes
// the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.held) > 0 {
		l.line(append(l.held, '\n'))
		l.held = nil
	}
	l.noteDropped()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
