package connect

import (
	"regexp"
	"sync"
	"testing"
	"time"
)

// waitStatus is a terminal's status line, as output.StatusLine keeps it: one
// text, replaced only when it holds what the caller expects. Each change
// is sent on changes.
type waitStatus struct {
	mu      sync.Mutex // guards text
	text    string
	changes chan string
	refused chan struct{} // a Replace refused
	// hold, when set, keeps a Replace from returning, after its line is
	// shown, until it is closed: a terminal that holds the draw
	hold chan struct{}
}

func newWaitStatus() *waitStatus {
	return &waitStatus{changes: make(chan string, 100), refused: make(chan struct{}, 100)}
}

func (s *waitStatus) Replace(old, text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.text != old {
		s.refused <- struct{}{}
		return false
	}
	s.text = text
	s.changes <- text
	if s.hold != nil {
		<-s.hold
	}
	return true
}

func (s *waitStatus) set(text string) {
	s.mu.Lock()
	s.text = text
	s.mu.Unlock()
}

func (s *waitStatus) next(t *testing.T) string {
	t.Helper()
	select {
	case text := <-s.changes:
		return text
	case <-time.After(10 * time.Second):
		t.Fatal("the line was never drawn")
		return ""
	}
}

// lastWords is what the server said last, changed by the test.
type lastWords struct {
	mu   sync.Mutex // guards text
	text string
}

func (l *lastWords) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text
}

func (l *lastWords) set(text string) {
	l.mu.Lock()
	l.text = text
	l.mu.Unlock()
}

func TestLineShowsTheWaitAndGoes(t *testing.T) {
	s := newWaitStatus()
	var last lastWords
	begin := time.Now().Add(-3 * time.Second)
	l := showWaitLine(s, "npx to start", last.get, begin, 0, time.Millisecond)
	// Three seconds or more: a busy machine's draw may come a second late.
	waiting := regexp.MustCompile(`^mcpv: waiting for npx to start \(([3-9]|[1-9][0-9]+)s\)$`)
	downloading := regexp.MustCompile(`^mcpv: waiting for npx to start \(([3-9]|[1-9][0-9]+)s\): Downloading…$`)
	if got := s.next(t); !waiting.MatchString(got) {
		t.Errorf("first line %q", got)
	}
	last.set("Downloading…")
	for got := s.next(t); !downloading.MatchString(got); got = s.next(t) {
		if !waiting.MatchString(got) {
			t.Fatalf("line %q", got)
		}
	}
	l.Stop()
	for got := s.next(t); got != ""; got = s.next(t) {
	}
	select {
	case got := <-s.changes:
		t.Errorf("drawn after Stop: %q", got)
	case <-time.After(20 * time.Millisecond):
	}
}

// A server that answers within the delay leaves nothing on the terminal.
func TestLineNotShownForAQuickServer(t *testing.T) {
	s := newWaitStatus()
	ShowWaitLine(s, "x to start", nil, time.Now(), time.Hour).Stop()
	if len(s.changes) != 0 {
		t.Errorf("drawn: %q", <-s.changes)
	}
	var nothing *WaitLine
	nothing.Stop()
}

// Another line on the terminal (a progress line) is never drawn over,
// nor cleared at the end.
func TestLineLeavesAnotherLineAlone(t *testing.T) {
	s := newWaitStatus()
	l := showWaitLine(s, "x to start", nil, time.Now(), 0, time.Millisecond)
	s.next(t)
	s.set("mcpv: progress 1/2")
	select {
	case <-s.refused: // the next draw
	case <-time.After(10 * time.Second):
		t.Fatal("the line was not drawn again")
	}
	l.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.text != "mcpv: progress 1/2" {
		t.Errorf("the status line shows %q", s.text)
	}
}

// A line the server's stderr changes is drawn again at once, not at its
// next second; before the line first shows, a poke draws nothing.
func TestPokeRedrawsTheServersLastWords(t *testing.T) {
	s := newWaitStatus()
	var last lastWords
	early := showWaitLine(s, "x to start", last.get, time.Now(), time.Hour, time.Hour)
	early.Poke()
	early.Stop()
	select {
	case got := <-s.changes:
		t.Fatalf("a poke before the delay drew %q", got)
	case <-time.After(3 * waitLinePokeGap):
	}

	// The first draw is held after its line is shown, and the server's
	// words change then: the poke is kept, not lost until the next draw.
	s.hold = make(chan struct{})
	l := showWaitLine(s, "x to start", last.get, time.Now(), 0, time.Hour)
	defer l.Stop()
	// The seconds are the machine's: a busy one draws late.
	if got := s.next(t); !regexp.MustCompile(`^mcpv: waiting for x to start \([0-9]+s\)$`).MatchString(got) {
		t.Fatalf("first line %q", got)
	}
	last.set("fake: starting up")
	l.Poke()
	close(s.hold)
	if got := s.next(t); !regexp.MustCompile(`^mcpv: waiting for x to start \([0-9]+s\): fake: starting up$`).MatchString(got) {
		t.Errorf("after the poke: %q", got)
	}
	var nothing *WaitLine
	nothing.Poke()
}
