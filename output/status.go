package output

import (
	"io"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/safetext"
)

// StatusLine is a stderr writer that can show one transient line (progress)
// at the bottom of a terminal. Everything written through it appears above
// the status line: the line is erased before the write and drawn again after
// it, once the write has ended a line. On a writer that is not a terminal the
// status line is never drawn and writes pass straight through. The line is
// cut to the terminal's width, so that it never wraps (a wrapped line
// cannot be erased), and masked (MaskWith) as everything on stderr is.
type StatusLine struct {
	mu      sync.Mutex // guards every field and serialises writes to w
	w       io.Writer
	enabled bool
	width   func() int          // the terminal's columns now, 0 when unknown; nil: unknown
	mask    func(string) string // nil: nothing to mask
	given   string              // the text as Set was given it
	text    string              // given, masked and cut: what is drawn
	drawn   bool                // text is on the screen now
	midLine bool                // the last write did not end its line: do not draw over it
	stopped bool                // Stop was called: nothing is drawn any more
}

// NewStatusLine wraps w; enabled says whether w is a terminal.
func NewStatusLine(w io.Writer, enabled bool) *StatusLine {
	return &StatusLine{w: w, enabled: enabled}
}

const eraseLine = "\r\x1b[K"

// Enabled reports whether the line is drawn at all: w is a terminal.
func (s *StatusLine) Enabled() bool { return s.enabled }

// MaskWith masks every text shown from now on with mask (the secrets a run
// knows). mask is called without the line's lock held.
func (s *StatusLine) MaskWith(mask func(string) string) {
	s.mu.Lock()
	s.mask = mask
	s.mu.Unlock()
}

// SetWidth tells the line how to learn the terminal's width, asked at
// each draw (a terminal may be resized).
func (s *StatusLine) SetWidth(width func() int) {
	s.mu.Lock()
	s.width = width
	s.mu.Unlock()
}

func (s *StatusLine) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.erase()
	n, err := s.w.Write(p)
	if len(p) > 0 {
		s.midLine = p[len(p)-1] != '\n'
	}
	s.draw()
	return n, err
}

// Set shows text as the status line (a terminal only); "" clears it.
func (s *StatusLine) Set(text string) { s.set(text, nil) }

// Replace shows text as the status line only if the line shows old now
// (as given to Set or Replace; "" when it shows nothing), and reports
// whether it did: a line that one part of mcpv keeps up is never drawn
// over another's.
func (s *StatusLine) Replace(old, text string) bool { return s.set(text, &old) }

func (s *StatusLine) set(text string, old *string) bool {
	if !s.enabled {
		return false
	}
	shown := s.prepare(text)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || old != nil && *old != s.given {
		return false
	}
	s.erase()
	s.given, s.text = text, shown
	// Fewer than width terminal columns (a CJK character or an emoji takes
	// two), ending with "…" when cut: a line as wide as the terminal wraps
	// on some. Width 0 is unknown: text is left whole.
	if s.width != nil {
		if w := s.width(); w >= 2 {
			s.text = safetext.Fit(shown, w-1)
		}
	}
	s.draw()
	return true
}

// prepare is text on one line, masked.
func (s *StatusLine) prepare(text string) string {
	text = strings.ReplaceAll(text, "\n", " ")
	s.mu.Lock()
	mask := s.mask
	s.mu.Unlock()
	if mask != nil && text != "" {
		text = mask(text)
	}
	return text
}

// Clear removes the status line.
func (s *StatusLine) Clear() { s.Set("") }

// Stop removes the status line for good: after an interrupt, progress that
// still arrives while the server shuts down is not shown, and the terminal
// is left clean, even if the process exits at once.
func (s *StatusLine) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.erase()
	s.given, s.text, s.stopped = "", "", true
}

// erase takes the line off the screen, if it is drawn.
func (s *StatusLine) erase() {
	if s.drawn {
		io.WriteString(s.w, eraseLine)
		s.drawn = false
	}
}

func (s *StatusLine) draw() {
	if s.enabled && s.text != "" && !s.midLine && !s.drawn {
		io.WriteString(s.w, s.text)
		s.drawn = true
	}
}
