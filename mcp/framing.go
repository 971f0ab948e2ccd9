package mcp

// Framing of the stdio transport. MCP's stdio messages are JSON, one per
// line. Some servers frame them as the Language Server Protocol does
// instead: a header block ("Content-Length: N", other headers, a blank line)
// and then exactly N bytes of JSON. Such a server cannot read mcpv's first
// line, so mcpv learns the framing from the first bytes the server writes:
// a header block there switches reading, and writing, to headers for the
// rest of the session (see CommandTransport). Until the server has written
// anything, mcpv writes lines.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
)

// framing is how the server's stdout is split into messages.
type framing int

const (
	framingUnknown framing = iota // nothing but blank lines read yet
	framingLines                  // newline-delimited JSON (MCP's own)
	framingHeaders                // Content-Length header blocks (LSP's)
)

// maxHeaderBlock bounds the header block of one framed message: a server
// that never ends its headers must not make mcpv buffer without end.
const maxHeaderBlock = 64 << 10

// messageReader splits the server's stdout into messages. Only the
// session's reader goroutine uses it. Its lines and bodies are read as
// lines.go says: a large message is read straight from the pipe and copied
// once more at most, and a dropped line is not copied.
type messageReader struct {
	lines lineReader
	mode  framing
	// junk is told about every line skipped in line framing.
	junk func(line []byte)
	// decided is told the framing once, when the server's first bytes show it.
	decided func(framing)
	// spoke is called at the first line that is not blank, whatever the
	// framing; spoken records that it was.
	spoke  func()
	spoken bool
}

// heard notes a line that is not blank.
func (m *messageReader) heard() {
	if !m.spoken {
		m.spoken = true
		if m.spoke != nil {
			m.spoke()
		}
	}
}

// junkWarner warns about the lines a messageReader skips, up to
// maxJunkWarnings and once more to say it stops: a peer that floods its
// output with junk must not flood the user with warnings.
type junkWarner struct {
	log   *slog.Logger
	where string // where the lines were read, such as "on the server's stdout"
	n     int    // lines skipped so far; the reader goroutine only
}

func (w *junkWarner) warn(line []byte) {
	w.n++
	switch {
	case w.n <= maxJunkWarnings:
		w.log.Warn("skipped a line " + w.where + " that is not JSON: " + quoteClip(line, 200))
	case w.n == maxJunkWarnings+1:
		w.log.Warn("more non-JSON lines " + w.where + "; no longer reporting them")
	}
}

// newMessageReader reads from src through a buffer of size bytes (at
// least 16).
func newMessageReader(src io.Reader, size int) *messageReader {
	return &messageReader{lines: newLineReader(src, size, false)}
}

func (m *messageReader) decide(f framing) {
	if m.mode != framingUnknown {
		return
	}
	m.mode = f
	if m.decided != nil {
		m.decided(f)
	}
}

// next returns the next message: a JSON line, or the body of a framed
// message. The slice is the caller's to keep.
func (m *messageReader) next() ([]byte, error) {
	if m.mode == framingHeaders {
		return m.nextFramed()
	}
	for {
		line, own, err := m.lines.line()
		line = bytes.TrimRight(line, "\r\n")
		if trimmed := bytes.TrimLeft(line, " \t"); len(trimmed) > 0 {
			m.heard()
			if m.mode == framingUnknown && isFramingHeader(trimmed) {
				m.decide(framingHeaders)
				return m.framedBody(headerBlock{length: -1}, line)
			}
			m.decide(framingLines)
			// A message, or the end of an answer cut in two by another
			// written into it: the session ties it to its request.
			if first := trimmed[0]; first == '{' || first == '[' || trailingID(line) != nil {
				if !own {
					line = bytes.Clone(line)
				}
				return line, nil
			}
			m.junk(line)
		}
		if err != nil {
			return nil, err
		}
	}
}

// nextFramed reads one header block and the body it announces.
func (m *messageReader) nextFramed() ([]byte, error) {
	for {
		line, _, err := m.lines.line()
		if len(bytes.TrimSpace(line)) > 0 {
			m.heard()
			return m.framedBody(headerBlock{length: -1}, bytes.TrimRight(line, "\r\n"))
		}
		if err != nil {
			return nil, err // blank lines between messages are tolerated
		}
	}
}

// headerBlock is what mcpv needs of one message's headers.
type headerBlock struct {
	length int64 // -1 until Content-Length is read
	size   int   // bytes of headers read so far
}

// framedBody reads the rest of a header block whose first line is first,
// then the body.
func (m *messageReader) framedBody(h headerBlock, first []byte) ([]byte, error) {
	line := first
	for {
		if err := h.add(line); err != nil {
			return nil, &FramingError{Err: err}
		}
		raw, _, err := m.lines.line()
		if err != nil {
			if errors.Is(err, io.EOF) && len(raw) > 0 {
				return nil, &FramingError{Err: errors.New("the server's output ended inside a header block")}
			}
			return nil, err
		}
		line = bytes.TrimRight(raw, "\r\n")
		if len(line) == 0 {
			break
		}
	}
	if h.length < 0 {
		return nil, &FramingError{Err: errors.New("a header block without Content-Length")}
	}
	body, err := m.lines.body(h.length)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &FramingError{Err: fmt.Errorf("the server's output ended after %d of the %d bytes its Content-Length announced", len(body), h.length)}
		}
		return nil, err
	}
	return body, nil
}

// add takes one header line.
func (h *headerBlock) add(line []byte) error {
	h.size += len(line) + 2
	if h.size > maxHeaderBlock {
		return fmt.Errorf("a header block longer than %d bytes", maxHeaderBlock)
	}
	name, value, ok := bytes.Cut(line, []byte(":"))
	// A header name is letters, digits and hyphens (a JSON line, say, is not).
	if name = bytes.TrimSpace(name); !ok || len(name) == 0 || len(bytes.Trim(name, alnum+"-")) > 0 {
		return fmt.Errorf("not a header line: %s", quoteClip(line, 80))
	}
	if !strings.EqualFold(string(name), "Content-Length") {
		return nil // Content-Type and the like say nothing mcpv needs
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("a Content-Length that is not a length: %s", quoteClip(value, 40))
	}
	if h.length >= 0 && h.length != n {
		return errors.New("two different Content-Length headers")
	}
	h.length = n
	return nil
}

// isFramingHeader reports whether line is one of the headers that begin
// an LSP-style header block: Content-Length or Content-Type.
func isFramingHeader(line []byte) bool {
	name, _, ok := bytes.Cut(line, []byte(":"))
	n := string(bytes.TrimSpace(name))
	return ok && (strings.EqualFold(n, "Content-Length") || strings.EqualFold(n, "Content-Type"))
}

// frame returns msg with its Content-Length header block.
func frame(msg []byte) []byte { return slices.Concat(frameHeader(int64(len(msg))), msg) }

// frameHeader is the Content-Length header block of a message of n bytes.
func frameHeader(n int64) []byte {
	return []byte("Content-Length: " + strconv.FormatInt(n, 10) + "\r\n\r\n")
}

// FramingError is a server's stdout that breaks the Content-Length framing
// it chose: the stream cannot be followed any further.
type FramingError struct{ Err error }

func (e *FramingError) Error() string {
	return "the server's Content-Length framing is broken: " + e.Err.Error()
}

func (e *FramingError) Unwrap() error { return e.Err }
