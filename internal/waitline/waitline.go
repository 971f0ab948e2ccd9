// Package waitline is the line a terminal shows while mcpv waits for a
// server to start: after a second of silence, what it waits for, for how
// long, and the last line the server wrote on its stderr, redrawn each
// second in place (and soon after the server writes another line) and
// gone when the wait ends.
//
// It costs a run nothing until the second has passed (a timer, no
// goroutine), and it never draws over another line: it shows itself only
// on an empty status line, and keeps it only while the line is still its
// own (a progress line that comes meanwhile wins).
package waitline

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Status is the terminal's one transient line.
type Status interface {
	// Replace shows text only if the line shows old now ("" when it shows
	// nothing), and reports whether it did.
	Replace(old, text string) bool
}

// Delay is the silence after which the line first shows.
const Delay = time.Second

// pokeGap is how soon after a Poke the line is drawn again: a server that
// writes its stderr without pause redraws it ten times a second at most.
const pokeGap = 100 * time.Millisecond

// Line is a wait being shown. Its methods are safe for concurrent use.
type Line struct {
	status Status
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

// Show starts showing, after delay and then each second, "mcpv: waiting
// for WHAT (Ns)", and the server's last words (what last returns, already
// safe to show, "" for none) after a colon; what is, for instance, "npx
// to start". The wait began at begin. Stop ends it.
func Show(status Status, what string, last func() string, begin time.Time, delay time.Duration) *Line {
	return show(status, what, last, begin, delay, time.Second)
}

func show(status Status, what string, last func() string, begin time.Time, delay, every time.Duration) *Line {
	l := &Line{status: status, what: what, last: last, begin: begin, every: every}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = time.AfterFunc(delay, l.draw) // stopped by Stop
	return l
}

// draw puts the line up, or up to date, and has it drawn again in a
// second; it gives up for good when the status line is another's.
func (l *Line) draw() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.poked.Store(false)
	text := l.text(time.Now())
	if !l.status.Replace(l.shown, text) {
		l.stopped = true // another line holds the terminal: leave it be
		return
	}
	l.shown = text
	l.up.Store(true)
	next := l.every
	if l.poked.Load() {
		next = pokeGap // poked while this draw read the server's words
	}
	l.timer.Reset(next)
}

// Poke says the server's last words have changed: a line that is up is
// drawn again soon, not at its next second. It never waits (it is called
// as the server's stderr is read, and a terminal may hold a draw), and it
// does nothing before the line first shows.
func (l *Line) Poke() {
	if l != nil && l.up.Load() && !l.poked.Swap(true) {
		l.timer.Reset(pokeGap)
	}
}

// text is the line at now.
func (l *Line) text(now time.Time) string {
	s := fmt.Sprintf("mcpv: waiting for %s (%ds)", l.what, int(now.Sub(l.begin).Seconds()))
	if l.last != nil {
		if last := l.last(); last != "" {
			s += ": " + last
		}
	}
	return s
}

// Stop ends the wait: the line is drawn no more, and cleared if it is
// still on the terminal. A nil Line has nothing to stop.
func (l *Line) Stop() {
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
