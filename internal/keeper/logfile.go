package keeper

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// The session log's bounds: a server that writes to stderr without pause
// costs at most LogMax bytes of disk twice over (the log and one rotated
// file), and the keeper writes at most LogRate bytes a second of it, after
// a first LogBurst.
const (
	LogMax   = 10 << 20
	LogRate  = 256 << 10
	LogBurst = 1 << 20
)

// Log is a keeper's log file. Past its size limit the file is renamed
// NAME.log.1 (replacing the one before) and a new one begun; past its rate,
// writes are dropped and counted, and the count is written when writing
// resumes. Writes never fail, so that a server's stderr is always drained.
// It is safe for concurrent use.
type Log struct {
	max         int64
	rate, burst float64
	now         func() time.Time

	mu      sync.Mutex // guards the fields below
	path    string
	f       *os.File
	size    int64
	tokens  float64 // bytes that may be written now
	last    time.Time
	dropped int64
}

// OpenLog appends to the log at path, bounded by LogMax, LogRate and LogBurst.
func OpenLog(path string) (*Log, error) {
	return openLog(path, LogMax, LogRate, LogBurst, time.Now)
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

// Write writes what the rate allows of p and drops the rest.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	l.last = now
	if l.dropped > 0 && l.tokens >= 256 {
		note := fmt.Appendf(nil, "\nmcpv: %d bytes of output were dropped here: the session log takes %d bytes a second at most\n", l.dropped, int(l.rate))
		l.dropped = 0
		l.put(note)
	}
	n := min(len(p), int(max(l.tokens, 0)))
	l.dropped += int64(len(p) - n)
	if n > 0 {
		l.put(p[:n])
	}
	return len(p), nil
}

// put writes b, rotating the file first when b would take it past max.
func (l *Log) put(b []byte) {
	l.tokens -= float64(len(b))
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

// Close closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
