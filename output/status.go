package output

import (
	"bytes"
	"io"
	"sync"
)

// StatusLine is a stderr writer that can show one transient line (progress)
// at the bottom of a terminal. Everything written through it appears above
// the status line: the line is erased before the write and drawn again after
// it, once the write has ended a line. On a writer that is not a terminal the
// status line is never drawn and writes pass straight through.
type StatusLine struct {
	mu      sync.Mutex // guards every field and serialises writes to w
	w       io.Writer
	enabled bool
	text    string
	drawn   bool // text is on the screen now
	midLine bool // the last write did not end its line: do not draw over it
	stopped bool // Stop was called: nothing is drawn any more
}

// NewStatusLine wraps w; enabled says whether w is a terminal.
func NewStatusLine(w io.Writer, enabled bool) *StatusLine {
	return &StatusLine{w: w, enabled: enabled}
}

const eraseLine = "\r\x1b[K"

func (s *StatusLine) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drawn {
		io.WriteString(s.w, eraseLine)
		s.drawn = false
	}
	n, err := s.w.Write(p)
	if len(p) > 0 {
		s.midLine = p[len(p)-1] != '\n'
	}
	s.draw()
	return n, err
}

// Set shows text as the status line (a terminal only); "" clears it.
func (s *StatusLine) Set(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.enabled || s.stopped {
		return
	}
	text = string(bytes.ReplaceAll([]byte(text), []byte("\n"), []byte(" ")))
	if s.drawn {
		io.WriteString(s.w, eraseLine)
		s.drawn = false
	}
	s.text = text
	s.draw()
}

// Clear removes the status line.
func (s *StatusLine) Clear() { s.Set("") }

// Stop removes the status line for good: after an interrupt, progress that
// still arrives while the server shuts down is not shown, and the terminal
// is left clean, even if the process exits at once.
func (s *StatusLine) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drawn {
		io.WriteString(s.w, eraseLine)
		s.drawn = false
	}
	s.text, s.stopped = "", true
}

func (s *StatusLine) draw() {
	if s.enabled && s.text != "" && !s.midLine && !s.drawn {
		io.WriteString(s.w, s.text)
		s.drawn = true
	}
}
