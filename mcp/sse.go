package mcp

// A Server-Sent Events parser (WHATWG HTML §9.2.6), as MCP's HTTP transports
// use it (transports, "Streamable HTTP"): events with ids, multi-line data,
// comments and retry.
// Events without data (a priming event carries only an id) update LastID and
// Retry but are not returned. There is no event size limit: a 100 MB data line
// is one event, read as lines.go says and handed over without another copy;
// comments and fields mcpv ignores are not copied at all.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"
)

type sseReader struct {
	lines   lineReader
	started bool // the leading BOM has been checked

	// LastID is the last event id seen (the Last-Event-ID to resume from).
	LastID string
	// Retry is the reconnection delay the server asked for, within
	// [minRetry, maxRetry]; 0 if none.
	Retry time.Duration
	// ids are the event ids of the stream, up to maxSeenIDs, each with
	// the connection (conn, from 0: resumed) it came on: an event under
	// one of an earlier connection's is a replay.
	ids  map[string]int
	conn int
	// bare: Next returns events without data too, when they carry an id
	// or a retry (a priming event), for a caller that judges them.
	bare bool

	// gate, when set, is held (under ctx) from when an event's data line
	// or data reaches largeMessage bytes, before more is read, until the
	// caller takes the event's hold (take) or asks for the next event.
	gate    *largeGate
	ctx     context.Context
	holding bool // the gate is held for the event being read or last returned
	asked   bool // the gate was waited for, for the event being read
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{lines: newLineReader(r, sseBufferSize, true)}
}

// sseBufferSize is the buffer of a request's answer stream.
const sseBufferSize = 64 << 10

// sseBuffers are the buffers of answer streams read to their end: each
// request's answer is a stream of its own, and a load run reads thousands
// a second (a buffer made for each was nine tenths of the bytes a call
// allocated, and a third of its CPU time went to clearing and collecting
// them).
var sseBuffers = sync.Pool{New: func() any { return new([sseBufferSize]byte) }}

// done gives back the buffer of a reader newGatedSSEReader made, and the
// gate if it holds it: for a caller that reads no more of the stream. The
// events it returned hold none of the buffer (eventData copies).
func (p *sseReader) done() {
	p.release()
	if len(p.lines.buf) == sseBufferSize {
		sseBuffers.Put((*[sseBufferSize]byte)(p.lines.buf))
	}
	p.lines.buf = nil
}

// newGatedSSEReader is an sseReader that reads one large event at a time
// among all those of gate (see largeGate), through a buffer of
// sseBuffers that done gives back.
func newGatedSSEReader(ctx context.Context, r io.Reader, gate *largeGate) *sseReader {
	p := &sseReader{lines: lineReader{src: r, buf: sseBuffers.Get().(*[sseBufferSize]byte)[:], cr: true}}
	p.gate, p.ctx = gate, ctx
	p.lines.limit = gate.limit
	p.lines.large = p.hold
	return p
}

// hold holds the gate for the event being read, if it has not asked for
// it yet; a gate not had in time is not asked for again for that event.
func (p *sseReader) hold() error {
	if p.holding || p.asked {
		return nil
	}
	p.asked = true
	held, err := p.gate.hold(p.ctx)
	p.holding = held
	return err
}

// take says whether the event last returned holds the gate, and hands that
// hold to the caller, who must release it once the event is used.
func (p *sseReader) take() bool {
	held := p.holding
	p.holding = false
	return held
}

// release gives the gate back if the reader holds it: for a caller done
// with the stream.
func (p *sseReader) release() {
	if p.holding {
		p.holding = false
		p.gate.release()
	}
}

// Next returns the next event that carries data; io.EOF at the end of the stream.
func (p *sseReader) Next() (Event, error) {
	p.release() // the last event's hold, which its caller did not take
	p.asked = false
	if !p.started {
		p.started = true
		p.lines.skipPrefix("\xef\xbb\xbf")
	}
	var typ, evID, retry string // evID: the event's own id field
	var hasData, hasID, hasRe bool
	var data eventData
	for {
		line, own, err := p.lines.line()
		if err != nil && !errors.Is(err, io.EOF) {
			return Event{}, err
		}
		if err != nil && len(line) == 0 {
			return Event{}, io.EOF // an unterminated event is dropped
		}
		if len(line) == 0 {
			replay := hasID && p.note(evID)
			if hasData && data.size > 0 || p.bare && (hasID || hasRe) {
				return Event{Type: typ, ID: p.LastID, Data: data.bytes(), Retry: retry, Replay: replay}, nil
			}
			typ, data, hasData, hasID, hasRe, retry = "", eventData{}, false, false, false, ""
			p.asked = p.holding
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
			if hasData {
				data.add([]byte{'\n'}, false)
			}
			data.add(value, own)
			hasData = true
			if p.lines.limit > 0 && int64(data.size) > p.lines.limit {
				return Event{}, &MessageSizeError{Limit: p.lines.limit}
			}
			if p.gate != nil && data.size >= largeMessage {
				if err := p.hold(); err != nil {
					return Event{}, err
				}
			}
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				p.LastID, evID, hasID = string(value), string(value), true
			}
		case "retry":
			retry, hasRe = string(value), true
			if d, ok := retryField(retry); ok {
				p.Retry = d
			}
		}
		if err != nil {
			return Event{}, io.EOF
		}
	}
}

// retryField reads a retry field (WHATWG: ASCII digits, else ignored) as
// the delay the client waits, bounded: under minRetry a server that
// closes at once is not asked again at once, past maxRetry (10^12 ms
// too, which no integer type holds) the wait stays one a user sits out.
func retryField(v string) (time.Duration, bool) {
	ms, err := strconv.ParseUint(v, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || v == "" || v[0] == '+' {
		return 0, false
	}
	if err != nil || ms > uint64(maxRetry/time.Millisecond) {
		return maxRetry, true
	}
	return max(time.Duration(ms)*time.Millisecond, minRetry), true
}

// maxSeenIDs bounds the ids a stream keeps to know a replay (note): past
// it, a replay of a later event is taken as new.
const maxSeenIDs = 1 << 14

// note notes an event id and says whether an earlier connection of the
// stream had it.
func (p *sseReader) note(id string) bool {
	if c, ok := p.ids[id]; ok {
		return c < p.conn
	}
	if p.ids == nil {
		p.ids = map[string]int{}
	}
	if len(p.ids) < maxSeenIDs {
		p.ids[id] = p.conn
	}
	return false
}

// resumed is next, the reader of the stream's next connection, carrying
// on from p: its last event id, its retry, the ids it had.
func (p *sseReader) resumed(next *sseReader) *sseReader {
	next.LastID, next.Retry, next.bare, next.ids, next.conn = p.LastID, p.Retry, p.bare, p.ids, p.conn+1
	return next
}

// eventData gathers the data lines of one event. Each byte is copied once
// into a piece, pieces growing as the event does; an event whose data is one
// piece is handed out as it is, and one of several pieces is joined once
// into a slice of its exact size. A long line the reader handed over as
// its own becomes a piece without a copy.
type eventData struct {
	pieces [][]byte // full pieces, oldest first
	cur    []byte   // the piece being filled
	size   int      // bytes gathered
}

// maxDataPiece bounds the pieces eventData allocates.
const maxDataPiece = 4 << 20

// add appends b; own says that b is the caller's to give away.
func (d *eventData) add(b []byte, own bool) {
	d.size += len(b)
	if own && len(b) > 0 {
		if d.cur != nil {
			d.pieces = append(d.pieces, d.cur)
		}
		d.cur = b[:len(b):len(b)] // full: the next add starts a new piece
		return
	}
	for len(b) > 0 {
		if len(d.cur) == cap(d.cur) {
			if d.cur != nil {
				d.pieces = append(d.pieces, d.cur)
			}
			// The first piece is exactly the first line, the usual event's
			// whole data; later ones grow with the event.
			size := len(b)
			if d.cur != nil {
				size = max(size, min(2*cap(d.cur), maxDataPiece))
			}
			d.cur = make([]byte, 0, size)
		}
		n := min(len(b), cap(d.cur)-len(d.cur))
		d.cur = append(d.cur, b[:n]...)
		b = b[n:]
	}
}

// bytes returns the data gathered.
func (d *eventData) bytes() []byte {
	if len(d.pieces) == 0 {
		return d.cur
	}
	return bytes.Join(append(d.pieces, d.cur), nil)
}
