// Package trace writes what a run of mcpv saw (mcpv --trace FILE): one
// JSON Lines file holding every message in both directions, the
// transports' own events (a server process started and exited, each HTTP
// exchange's status and headers, a stream resumed), the server's stderr,
// the session's era, signals, and the exit code at the end. Its lines
// are described by docs/mcpv-trace.schema.json:
//
//	{"type":"trace","version":1,"t":0,"time":"2026-11-25T10:00:00.000Z","mcpv":"v1.2.3","args":["call","add","a:=1"]}
//	{"type":"event","t":3.2,"session":1,"event":"process.start","pid":4242,"program":"./server"}
//	{"type":"send","t":3.4,"session":1,"message":{"jsonrpc":"2.0","id":1,"method":"initialize",...}}
//	{"type":"receive","t":9.9,"session":1,"message":{"jsonrpc":"2.0","id":1,"result":{...}}}
//	{"type":"stderr","t":10.1,"session":1,"line":"listening"}
//	{"type":"end","t":12.5,"code":0}
//
// t is milliseconds since the run began, from the monotonic clock, to
// the microsecond. Secrets are masked as everywhere mcpv writes: every
// value the run knows as a secret (the opener's), in every form, and
// the string values of members whose names say they hold one. The file
// is bounded: a message larger than MaxMessage is kept as its head, its
// size and its SHA-256 digest ("cut": true); past MaxFile in all, a line
// of type "cut" says that what came after is left out, and only the end
// line follows it. Each line is written whole by one write; a write
// that fails part way (a full disk) is taken back, so that the file
// never ends in half a line.
package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/mcp"
)

// Version is the version of the trace's format, in its first line.
const Version = 1

// MaxMessage bounds each message a trace holds whole: a larger one is
// kept as its first Head bytes, its size and its digest.
const MaxMessage = 1 << 20

// Head is how much of a message larger than MaxMessage is kept.
const Head = 16 << 10

// MaxFile bounds the trace as a whole: past it, a line says that what
// came after is left out, and only the end line follows.
const MaxFile = 64 << 20

// MaxLine bounds a line of the server's stderr that a trace holds.
const MaxLine = 4 << 10

// endRoom is kept free under MaxFile for the cut line and the end line.
const endRoom = 4 << 10

// Header is what the first line says of the run.
type Header struct {
	Mcpv string   // mcpv's version
	Args []string // the command line, its secrets masked
}

// file is what a trace writes to: an *os.File, or a fake in tests.
type file interface {
	io.Writer
	Truncate(size int64) error
	Close() error
}

// Writer writes one trace. It is safe for use by several sessions at
// once; each line is written whole, in the order its write began.
type Writer struct {
	start time.Time // the run's start, whose monotonic reading t counts from
	mask  func([]byte) []byte
	// Failed, when set, is told once when the trace cannot be written
	// (a full disk), and the trace stops there.
	Failed func(error)

	sessions atomic.Int64 // the last session number given

	mu      sync.Mutex // guards the fields below, and keeps lines whole and in order
	f       file
	max     int64 // MaxFile, or less in tests
	written int64 // bytes of whole lines written
	cut     bool  // past max: only the end line is written
	err     error // the first write's failure: nothing more is written
	ended   bool
}

// Create starts a trace at path, a file written as mcpv writes a file
// that may hold a secret: never through a symbolic link, never into a
// named pipe or a device, readable by its owner alone. start is when
// the run began; mask hides the run's secrets (nil hides only those
// that members' names mark).
func Create(path string, start time.Time, mask func([]byte) []byte, h Header) (*Writer, error) {
	f, err := safefile.CreateOwn(path)
	if err != nil {
		return nil, err
	}
	w := newWriter(f, start, mask)
	w.header(h)
	if w.err != nil {
		f.Close()
		return nil, w.err
	}
	return w, nil
}

func newWriter(f file, start time.Time, mask func([]byte) []byte) *Writer {
	if mask == nil {
		mask = func(b []byte) []byte { return b }
	}
	return &Writer{f: f, start: start, mask: mask, max: MaxFile}
}

// header writes the first line.
func (w *Writer) header(h Header) {
	b := w.begin("trace", 0)
	fmt.Fprintf(b, `,"version":%d,"time":`, Version)
	str(b, w.start.UTC().Format(time.RFC3339Nano))
	b.WriteString(`,"mcpv":`)
	str(b, h.Mcpv)
	b.WriteString(`,"args":`)
	b.Write(rawjson.Marshal(h.Args))
	w.write(b)
}

// Session is one session's part of a trace: its lines carry its number.
type Session struct {
	w  *Writer
	id int64
}

// Session gives a new session its number.
func (w *Writer) Session() *Session {
	return &Session{w: w, id: w.sessions.Add(1)}
}

// Message writes a message sent (out) or received, bytes as on the wire
// (mcp.SessionOptions.Trace).
func (s *Session) Message(out bool, msg []byte) {
	kind := "receive"
	if out {
		kind = "send"
	}
	b := s.w.begin(kind, s.id)
	s.w.message(b, msg)
	s.w.write(b)
}

// Event writes an event of the session's transport.
func (s *Session) Event(e mcp.TransportEvent) {
	b := s.w.begin("event", s.id)
	fields(b, e)
	s.w.write(b)
}

// Note writes an event of mcpv's own about the session (its era, once
// negotiated), with its members.
func (s *Session) Note(event string, members map[string]any) {
	s.w.Note(s.id, event, members)
}

// Stderr writes a line of the server's stderr, without its newline,
// clipped at MaxLine.
func (s *Session) Stderr(line []byte) {
	b := s.w.begin("stderr", s.id)
	b.WriteString(`,"line":`)
	if len(line) > MaxLine {
		fmt.Fprintf(b, `%s,"size":%d,"cut":true`, quoted(s.w.head(line, MaxLine)), len(line))
	} else {
		b.Write(quoted(line))
	}
	s.w.write(b)
}

// Note writes an event of mcpv's own (a signal), of session when not 0.
func (w *Writer) Note(session int64, event string, members map[string]any) {
	b := w.begin("event", session)
	m := map[string]any{"event": event}
	maps.Copy(m, members)
	fields(b, m)
	w.write(b)
}

// End writes the last line, with the run's exit code and the error line
// mcpv printed (without "mcpv: "), and closes the file. Nothing is
// written after it. It returns the first failure to write the trace.
func (w *Writer) End(code int, errLine string) error {
	b := w.begin("end", 0)
	fmt.Fprintf(b, `,"code":%d`, code)
	if errLine != "" {
		b.WriteString(`,"error":`)
		str(b, errLine)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return w.err
	}
	w.cut = false // the end line has its room kept
	w.writeLocked(b)
	w.ended = true
	if err := w.f.Close(); w.err == nil && err != nil {
		w.err = err
	}
	return w.err
}

// Err is the first failure to write the trace, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// begin starts a line of type kind.
func (w *Writer) begin(kind string, session int64) *bytes.Buffer {
	b := new(bytes.Buffer)
	b.WriteString(`{"type":"`)
	b.WriteString(kind)
	b.WriteString(`","t":`)
	b.WriteString(Millis(time.Since(w.start)))
	if session != 0 {
		b.WriteString(`,"session":`)
		b.WriteString(strconv.FormatInt(session, 10))
	}
	return b
}

// write ends b's line and writes it, masked.
func (w *Writer) write(b *bytes.Buffer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeLocked(b)
}

// ErrFull is why a trace that reached MaxFile left out what came after.
var ErrFull = errFull{}

type errFull struct{}

func (errFull) Error() string {
	return "the trace reached its bound of " + strconv.Itoa(MaxFile>>20) + " MiB: what came after is left out"
}

func (w *Writer) writeLocked(b *bytes.Buffer) {
	if w.err != nil || w.ended || w.cut {
		return
	}
	b.WriteString("}\n")
	line := w.mask(redact.JSON(b.Bytes()))
	if w.written+int64(len(line)) > w.max-endRoom && !bytes.HasPrefix(line, []byte(`{"type":"end"`)) {
		cut := w.begin("cut", 0)
		cut.WriteString(`,"reason":`)
		str(cut, ErrFull.Error())
		cut.WriteString("}\n")
		line, w.cut = cut.Bytes(), true
	}
	n, err := w.f.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		// Half a line is taken back: the file ends with a whole one.
		if n > 0 {
			w.f.Truncate(w.written)
		}
		w.err = err
		if w.Failed != nil {
			w.Failed(err)
		}
		return
	}
	w.written += int64(n)
}

// message writes msg as the line's "message", or, larger than
// MaxMessage or no JSON, as its head ("text" when it is whole), its size
// and its digest.
func (w *Writer) message(b *bytes.Buffer, msg []byte) {
	if len(msg) <= MaxMessage && utf8.Valid(msg) {
		mark := b.Len()
		b.WriteString(`,"message":`)
		if json.Compact(b, msg) == nil {
			return
		}
		b.Truncate(mark)
	}
	sum := sha256.Sum256(msg)
	whole := len(msg) <= Head
	head := w.head(msg, Head)
	if whole {
		b.WriteString(`,"text":`)
	} else {
		b.WriteString(`,"head":`)
	}
	b.Write(quoted(head))
	fmt.Fprintf(b, `,"size":%d,"sha256":"%s"`, len(msg), hex.EncodeToString(sum[:]))
	if !whole {
		b.WriteString(`,"cut":true`)
	}
	id, method := idAndMethod(msg)
	if id != nil {
		b.WriteString(`,"id":`)
		b.Write(id)
	}
	if method != "" {
		b.WriteString(`,"method":`)
		str(b, method)
	}
}

// head is p's first n bytes or fewer, its secrets masked before the
// cut: a secret that the cut would split is masked whole, and shows
// none of its start.
func (w *Writer) head(p []byte, n int) []byte {
	h := w.mask(redact.JSON(p[:min(len(p), n+headMargin)]))
	return h[:min(len(h), n)]
}

// headMargin is how far past the cut p is masked: a secret that
// begins before the cut ends within it.
const headMargin = 8 << 10

// idAndMethod are a message's id and method, read from its start, for
// a message kept as its head alone: what it answered or asked.
func idAndMethod(msg []byte) (json.RawMessage, string) {
	dec := json.NewDecoder(bytes.NewReader(msg[:min(len(msg), 4096)]))
	var id json.RawMessage
	method := ""
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, ""
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		switch k {
		case "id":
			id = v
		case "method":
			if json.Unmarshal(v, &method) != nil {
				return nil, "" // a method of another type: no head to read
			}
		}
	}
	return id, method
}

// fields writes the members of v (a struct or a map) after the line's.
func fields(b *bytes.Buffer, v any) {
	raw, err := json.Marshal(v)
	if err != nil || len(raw) < 2 || string(raw) == "{}" {
		return
	}
	b.WriteByte(',')
	b.Write(raw[1 : len(raw)-1])
}

// quoted is p as a JSON string (invalid UTF-8 replaced).
func quoted(p []byte) []byte { return rawjson.AppendString(nil, string(p)) }

func str(b *bytes.Buffer, s string) { b.Write(rawjson.AppendString(b.AvailableBuffer(), s)) }

// Millis is d in milliseconds, to the microsecond.
func Millis(d time.Duration) string {
	return strconv.FormatFloat(math.Round(float64(d)/float64(time.Microsecond))/1000, 'f', -1, 64)
}

// IsTrace says whether data begins as a trace does: a first line of
// type "trace".
func IsTrace(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte(`{"type":"trace"`))
}
