package connect

import (
	"io"
	"sync"

	"github.com/mcpv/mcpv/internal/trace"
	"github.com/mcpv/mcpv/mcp"
)

// traced gives the session about to be opened its part of the run's
// trace (Hooks.Tracer): every message, the transport's events and the
// server's stderr go into it. Without a trace, h is as it was.
func (h Hooks) traced() Hooks {
	if h.Tracer == nil || h.traceSession != nil {
		return h
	}
	ts := h.Tracer.Session()
	h.traceSession = ts
	own := h.Trace
	h.Trace = func(out bool, msg []byte) {
		ts.Message(out, msg)
		if own != nil {
			own(out, msg)
		}
	}
	return h
}

// onEvent is the transport's event hook: nil without a trace.
func (h Hooks) onEvent() func(mcp.TransportEvent) {
	if h.traceSession == nil {
		return nil
	}
	return h.traceSession.Event
}

// traceStderr is w (nil: nothing shown) with the server's stderr also
// written into the trace, a line at a time.
func (h Hooks) traceStderr(w io.Writer) io.Writer {
	if h.traceSession == nil {
		return w
	}
	lw := &stderrLines{ts: h.traceSession}
	if w == nil {
		return lw
	}
	return io.MultiWriter(w, lw)
}

// noteEra writes the era the session speaks, once it is open.
func (c *Conn) noteEra() {
	ts := c.hooks.traceSession
	if ts == nil {
		return
	}
	era := "initialize"
	if c.Client.Modern() {
		era = "modern"
	}
	m := map[string]any{"era": era, "protocolVersion": c.Client.ProtocolVersion(), "probed": c.probed}
	if c.http != nil && c.http.SessionID() != "" {
		m["sessionId"] = c.http.SessionID()
	}
	ts.Note("session", m)
}

// stderrLines writes what a server writes on stderr into its trace, a
// line at a time; a line longer than trace.MaxLine is written in pieces.
type stderrLines struct {
	ts  *trace.Session
	mu  sync.Mutex // guards buf
	buf []byte
}

func (l *stderrLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := 0
		for i < len(p) && p[i] != '\n' {
			i++
		}
		l.buf = append(l.buf, p[:i]...)
		if i < len(p) || len(l.buf) >= trace.MaxLine {
			l.ts.Stderr(l.buf)
			l.buf = l.buf[:0]
			if i < len(p) {
				i++
			}
		}
		p = p[i:]
	}
	return n, nil
}
