package safetext

import (
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Writer passes a server's stderr to a terminal: colours and other SGR
// sequences (ESC [ parameters m) go through, since servers colour their
// logs; every other escape sequence and unsafe character is shown escaped,
// as Text does. Lines, tabs and a CR before a LF are kept. A sequence or
// character split between two writes is put together: the incomplete end of
// a write is held back until the next one, or Flush. Each write leaves the
// terminal's colours as it found them (a reset at its end, the server's
// colours put again at the next one's start), so that no line of mcpv's
// own written between two is coloured, blinking or hidden by the server's.
// It is safe for concurrent use.
type Writer struct {
	w io.Writer

	mu    sync.Mutex // guards held and style, and serialises writes
	held  []byte     // an incomplete escape sequence, UTF-8 character or CR
	style []byte     // the SGR sequences passed since the server's last reset
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// maxSGR bounds what is taken for one SGR sequence; a longer one is escaped.
const maxSGR = 64

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	data := p
	if len(w.held) > 0 {
		data = append(w.held, p...)
		w.held = nil
	}
	start := len(w.style)
	out := append(make([]byte, 0, len(data)+len(w.style)+16), w.style...) // the server's colours, put again
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == 0x1b:
			n, complete := sgrLen(data[i:])
			if !complete {
				w.held = append([]byte(nil), data[i:]...)
				i = len(data)
				continue
			}
			if n > 0 {
				out = append(out, data[i:i+n]...)
				w.keepStyle(data[i : i+n])
				i += n
				continue
			}
			out = append(out, `\x1b`...)
			i++
		case c == '\r':
			if i+1 == len(data) {
				w.held = []byte{'\r'}
				i++
				continue
			}
			if data[i+1] == '\n' {
				out = append(out, '\r')
			} else {
				out = append(out, `\r`...)
			}
			i++
		case c < utf8.RuneSelf:
			out = append(out, escape(string(c), true)...)
			i++
		default:
			if !utf8.FullRune(data[i:]) {
				w.held = append([]byte(nil), data[i:]...)
				i = len(data)
				continue
			}
			_, size := utf8.DecodeRune(data[i:])
			out = append(out, escape(string(data[i:i+size]), true)...)
			i += size
		}
	}
	if len(out) == start {
		return len(p), nil // all held back
	}
	if len(w.style) > 0 {
		out = append(out, "\x1b[0m"...)
	}
	if _, err := w.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// keepStyle notes an SGR sequence passed on: a reset (no parameters, or
// zeros alone) ends the server's colours; any other adds to them, within a
// bound past which the oldest are let go.
func (w *Writer) keepStyle(seq []byte) {
	if strings.Trim(string(seq[2:len(seq)-1]), "0;:") == "" {
		w.style = w.style[:0]
		return
	}
	if len(w.style)+len(seq) > 4*maxSGR {
		w.style = w.style[:0]
	}
	w.style = append(w.style, seq...)
}

// Flush writes what was held back, escaped.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.held) == 0 {
		return nil
	}
	_, err := io.WriteString(w.w, Line(string(w.held)))
	w.held = nil
	return err
}

// sgrLen is the length of the SGR sequence at the start of b (which starts
// with ESC), or 0 when it is no SGR sequence; complete is false when b
// ends before that can be told.
func sgrLen(b []byte) (n int, complete bool) {
	if len(b) < 2 {
		return 0, false
	}
	if b[1] != '[' {
		return 0, true
	}
	for i := 2; i < len(b); i++ {
		switch c := b[i]; {
		case c == 'm':
			return i + 1, true
		case (c >= '0' && c <= '9') || c == ';' || c == ':':
			if i >= maxSGR {
				return 0, true
			}
		default:
			return 0, true
		}
	}
	return 0, len(b) > maxSGR
}
