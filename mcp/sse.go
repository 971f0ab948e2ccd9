package mcp

// A Server-Sent Events parser (WHATWG HTML §9.2.6), as MCP's HTTP transports
// use it (transports, "Streamable HTTP"): events with ids, multi-line data,
// comments and retry.
// Events without data (a priming event carries only an id) update LastID and
// Retry but are not returned. There is no event size limit: a 100 MB data line
// is one event, gathered with bulk copies.

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

type sseEvent struct {
	Type string // "" means "message"
	ID   string // the last event id in force when the event was dispatched
	Data []byte
}

type sseReader struct {
	r       *bufio.Reader
	started bool // the leading BOM has been checked
	skipLF  bool // the last line ended in CR: a LF right after it belongs to it

	// LastID is the last event id seen (the Last-Event-ID to resume from).
	LastID string
	// Retry is the reconnection delay the server asked for; 0 if none.
	Retry time.Duration
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event that carries data; io.EOF at the end of the stream.
func (p *sseReader) Next() (sseEvent, error) {
	var (
		typ     string
		data    []byte
		hasData bool
	)
	for {
		line, err := p.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) == 0 {
				return sseEvent{}, io.EOF // an unterminated event is dropped
			}
			if !errors.Is(err, io.EOF) {
				return sseEvent{}, err
			}
		}
		if len(line) == 0 {
			if err != nil {
				return sseEvent{}, io.EOF
			}
			if hasData && len(data) > 0 {
				return sseEvent{Type: typ, ID: p.LastID, Data: data}, nil
			}
			typ, data, hasData = "", nil, false
			continue
		}
		if line[0] == ':' {
			continue // a comment, e.g. a keep-alive
		}
		field, value := line, []byte(nil)
		if f, v, ok := bytes.Cut(line, []byte{':'}); ok {
			field, value = f, v
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "event":
			typ = string(value)
		case "data":
			if !hasData {
				data, hasData = value, true // the line is ours: no copy
			} else {
				data = append(append(data, '\n'), value...)
			}
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				p.LastID = string(value)
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil {
				p.Retry = time.Duration(ms) * time.Millisecond
			}
		}
		if err != nil {
			return sseEvent{}, io.EOF
		}
	}
}

// readLine returns the next line without its terminator (CRLF, LF or CR) in
// a fresh slice; at the end of the stream it returns what is left and io.EOF.
func (p *sseReader) readLine() ([]byte, error) {
	var line []byte
	for {
		if p.r.Buffered() == 0 {
			if _, err := p.r.Peek(1); err != nil {
				return line, err
			}
		}
		buf, _ := p.r.Peek(p.r.Buffered())
		if p.skipLF {
			p.skipLF = false
			if buf[0] == '\n' {
				p.r.Discard(1)
				continue
			}
		}
		if !p.started {
			p.started = true
			if buf[0] == 0xef { // perhaps a BOM: wait for its three bytes
				if bom, _ := p.r.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
					p.r.Discard(3)
				}
				continue
			}
		}
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			line = append(line, buf...)
			p.r.Discard(len(buf))
			continue
		}
		line = append(line, buf[:i]...)
		p.r.Discard(i + 1)
		if buf[i] == '\r' {
			// Do not wait for the next byte: a CR alone ends a line too.
			p.skipLF = true
		}
		if line == nil {
			line = []byte{}
		}
		return line, nil
	}
}
