package connect

import (
	"errors"
	"strings"

	"github.com/mcpv/mcpv/mcp"
)

// startupHint says what may be the cause of err, the failure of a stdio
// server's start-up, when it has written nothing on its stdout: still
// starting (it speaks on stderr), or expecting Content-Length frames (it
// says so on stderr, or says nothing at all). A server that has written
// on its stdout has shown its framing and that it runs.
func startupHint(err error, s *Settings, t mcp.Transport) {
	ct, ok := t.(*mcp.CommandTransport)
	if !ok || !ct.Silent() {
		return
	}
	tail := ct.StderrTail(10)
	framing := s.Framing == mcp.FramingAuto
	framed := false
	for _, l := range tail { // "bad header", "missing Content-Length", "invalid header line" (no regular expression: none is compiled at start-up)
		l = strings.ToLower(l)
		framed = framed || strings.Contains(l, "content-length") || strings.Contains(l, "header")
	}
	const (
		longer  = "if it is still starting, give it longer with --connect-timeout"
		framedH = "--framing content-length"
	)
	var te *mcp.TimeoutError
	var tr *mcp.TransportError
	switch {
	case errors.As(err, &te) && te.Connect:
		switch {
		case framing && framed:
			te.Hint = "it wrote nothing on its stdout, and its stderr speaks of headers: a server that reads only Content-Length frames needs " + framedH
		case len(tail) > 0:
			te.Hint = "it wrote on its stderr but nothing on its stdout: " + longer
		case framing:
			te.Hint = "it wrote nothing at all: " + longer + "; if it reads only Content-Length frames, it needs " + framedH
		default:
			te.Hint = "it wrote nothing at all: " + longer
		}
	case errors.As(err, &tr) && framing && framed:
		tr.Hint = "it wrote nothing on its stdout: a server that reads only Content-Length frames needs " + framedH
	}
}
