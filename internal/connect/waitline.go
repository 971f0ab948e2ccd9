// The line a terminal shows while mcpv waits for a
// server to start: after a second of silence, what it waits for, for how
// long, and the last line the server wrote on its stderr, redrawn each
// second in place (and soon after the server writes another line) and
// gone when the wait ends.
//
// It costs a run nothing until the second has passed (a timer, no
// goroutine), and it never draws over another line: it shows itself only
// on an empty status line, and keeps it only while the line is still its
// own (a progress line that comes meanwhile wins).

package connect

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// WaitStatus is the terminal's one transient line.
type WaitStatus interface {
	// Replace shows text only if the line shows old now ("" when it shows
	// nothing), and reports whether it did.
	Replace(old, text string) bool
}

// WaitLineDelay is the silence after which the line first shows.
const WaitLineDelay = time.Second

// waitLinePokeGap is how soon after a Poke the line is drawn again: a server that
// writes its stderr without pause redraws it ten times a second at most.
const waitLinePokeGap = 100 * time.Millisecond

// WaitLine is a wait being shown. Its methods are safe for concurrent use.
type WaitLine struct {
	status WaitStatus
	what   string
	last   func() string
	begin  time.Time
	every  time.Duration // between draws

	up    atomic.Bool // the line has been drawn
	poked atomic.Bool // a Poke waits for its draw

	mu      sync.Mutex  // guards the fields below
	timer   *time.Timer // draws the line when it fires
	shown   string      // the text on the status line, "" before the first draw
	stopped bool
}

// ShowWaitLine starts showing, after delay and then each second, "mcpv: waiting
// for WHAT (Ns)", and the server's last words (what last returns, already
// safe to show, "" for none) after a colon; what is, for instance, "npx
// to start". The wait began at begin. Stop ends it.
func ShowWaitLine(status WaitStatus, what string, last func() string, begin time.Time, delay time.Duration) *WaitLine {
	return showWaitLine(status, what, last, begin, delay, time.Second)
}

func showWaitLine(status WaitStatus, what string, last func() string, begin time.Time, delay, every time.Duration) *WaitLine {
	l := &WaitLine{status: status, what: what, last: last, begin: begin, every: every}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = time.AfterFunc(delay, l.draw) // stopped by Stop
	return l
}

// draw puts the line up, or up to date, and has it drawn again in a
// second; it gives up for good when the status line is another's.
func (l *WaitLine) draw() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.poked.Store(false)
	text := l.text(time.Now())
	// up before the line is: a poke that comes as it is drawn (whoever
	// watches the terminal may see it and poke at once) is kept, not lost
	// until the next second
	l.up.Store(true)
	if !l.status.Replace(l.shown, text) {
		l.up.Store(false)
		l.stopped = true // another line holds the terminal: leave it be
		return
	}
	l.shown = text
	next := l.every
	if l.poked.Load() {
		next = waitLinePokeGap // poked while this draw read the server's words
	}
	l.timer.Reset(next)
}

// Poke says the server's last words have changed: a line that is up is
// drawn again soon, not at its next second. It never waits (it is called
// as the server's stderr is read, and a terminal may hold a draw), and it
// does nothing before the line first shows.
func (l *WaitLine) Poke() {
	if l != nil && l.up.Load() && !l.poked.Swap(true) {
		l.timer.Reset(waitLinePokeGap)
	}
}

// text is the line at now.
func (l *WaitLine) text(now time.Time) string {
	s := fmt.Sprintf("mcpv: waiting for %s (%ds)", l.what, int(now.Sub(l.begin).Seconds()))
	if l.last != nil {
		if last := l.last(); last != "" {
			s += ": " + last
		}
	}
	return s
}

// Stop ends the wait: the line is drawn no more, and cleared if it is
// still on the terminal. A nil WaitLine has nothing to stop.
func (l *WaitLine) Stop() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.stopped = true
	l.up.Store(false)
	l.timer.Stop()
	if l.shown != "" {
		l.status.Replace(l.shown, "")
	}
}
