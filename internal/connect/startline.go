package connect

import (
	"io"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// startWait is the line a terminal shows while the server starts (see
// waitline.go): from the transport's start to the server's first
// message (initialize's answer, or, for a server whose era is
// remembered, the answer to whatever was sent first), or to a browser
// sign-in, which has its own words.
type startWait struct {
	line     atomic.Pointer[WaitLine] // nil until shown
	spoke    atomic.Bool              // the server's first message was read
	building atomic.Bool              // the Go toolchain is building the server (watchBuild)
	built    func()                   // ends watchBuild; set before the session starts
}

// signingIn ends the line when a browser flow begins, then opens url.
func (w *startWait) signingIn(open func(string) error) func(string) error {
	if open == nil {
		return nil
	}
	return func(url string) error {
		w.stop()
		return open(url)
	}
}

// show starts the line for t, begun at begin, if stderr is a terminal.
func (w *startWait) show(s *Settings, h Hooks, t mcp.Transport, begin time.Time) {
	if h.Status == nil || !h.Status.Enabled() {
		return
	}
	var last func() string
	if ct, ok := t.(*mcp.CommandTransport); ok {
		last = func() string {
			if w.building.Load() {
				return buildingNote
			}
			if s.Quiet {
				return ""
			}
			return safetext.Line(ct.LastStderrLine())
		}
	}
	w.line.Store(ShowWaitLine(h.Status, WaitingFor(s), last, begin, WaitLineDelay))
}

// stderrPoke is a stdio server's stderr as it comes, passed on to next:
// each write redraws the line soon, whose last words it changed.
type stderrPoke struct {
	w    *startWait
	next io.Writer
}

func (p stderrPoke) Write(b []byte) (int, error) {
	p.w.line.Load().Poke() // the transport keeps its tail before it writes here
	return p.next.Write(b)
}

func (w *startWait) stop() {
	if w != nil {
		if w.built != nil {
			w.built()
		}
		w.line.Load().Stop()
	}
}

// heard wraps a session's read gate so that the server's first message
// ends the line; next, if set, is called as before.
func (w *startWait) heard(next func(int)) func(int) {
	return func(last int) {
		if last > 0 && !w.spoke.Load() && !w.spoke.Swap(true) {
			if w.built != nil {
				w.built()
			}
			if w.line.Load() != nil {
				// Not on the reader: a terminal that does not read holds
				// the line's write. It returns once the line is cleared.
				go w.stop() // progress line stopper
			}
		}
		if next != nil {
			next(last)
		}
	}
}

// WaitingFor is what a start-up waits for, said in the line a terminal
// shows meanwhile: "npx to start", "https://example.com/mcp to answer".
func WaitingFor(s *Settings) string {
	if s.URL != "" {
		return safetext.Line(redact.URL(s.URL)) + " to answer"
	}
	if len(s.Command) == 0 {
		return "the server to start"
	}
	return safetext.Line(filepath.Base(s.Command[0])) + " to start"
}
