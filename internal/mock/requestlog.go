// The request log (mcpv mock --log) writes what clients said to a server mcpv serves
// (a mock) and what each request was answered, one JSON line per message,
// for a test to assert on:
//
//	{"time":"2026-01-02T15:04:05.123Z","client":1,"id":2,"method":"tools/call","params":{...},"result":{...},"ms":0.42}
//
// A request's line has its result, its error, or "cancelled": true, and
// is written once it is answered (so lines come in the order answers
// went); a notification's has no id and no answer. A question the mock
// put to a client (elicitation, sampling, roots) has "asked": true, no
// id, and the client's answer. Secrets are masked:
// the values a Scrubber knows (the environment's, in every form a client
// may send them in), and the string values of members whose names say
// they hold one. A value (params, result, an error's data) larger than
// MaxLogValue is written as a string saying its size, so that one huge
// request cannot make a huge line; past MaxLogSize in all, a last line says
// what came after is left out.

package mock

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/trace"
	"github.com/mcpv/mcpv/mcp"
)

// MaxLogValue bounds each value a line holds.
const MaxLogValue = 1 << 20

// MaxLogSize bounds the log as a whole: past it, a last line says that what
// came after is left out, and nothing more is written.
const MaxLogSize = 256 << 20

// ErrLogFull is the failure a log that reached its bound reports.
var ErrLogFull = errors.New("the log reached its bound of 256 MiB: what came after is left out")

// RequestLog writes the lines.
type RequestLog struct {
	secrets *redact.Scrubber
	failed  func(error)

	max int64 // MaxLogSize, or less in tests

	mu      sync.Mutex // guards w, written and err, and keeps lines whole
	w       io.Writer
	written int64
	err     error // the first write's failure: nothing more is written
}

// NewRequestLog is a log written to w, masking what secrets knows; failed is told,
// once, when a write fails, and the log stops there.
func NewRequestLog(w io.Writer, secrets *redact.Scrubber, failed func(error)) *RequestLog {
	return &RequestLog{w: w, secrets: cmp.Or(secrets, redact.NewScrubber(nil)), failed: failed, max: MaxLogSize}
}

// Observe writes the line of one message (serve.Server.Observe).
func (l *RequestLog) Observe(e serve.Exchange) {
	line := l.line(e)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	var err error
	if l.written+int64(len(line)) > l.max {
		line, err = append(rawjson.Marshal(map[string]string{"time": e.Time.UTC().Format(time.RFC3339Nano), "leftOut": ErrLogFull.Error()}), '\n'), ErrLogFull
	}
	n, werr := l.w.Write(line)
	l.written += int64(n)
	if err = cmp.Or(werr, err); err != nil {
		l.err = err
		if l.failed != nil {
			l.failed(err)
		}
	}
}

// errLogStopped ends a log that Stop stopped.
var errLogStopped = errors.New("the log was stopped")

// Stop writes nothing more, so that w may be closed while a request still
// being answered is told to Observe.
func (l *RequestLog) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.err = cmp.Or(l.err, errLogStopped)
}

// line is the JSON line of e, masked.
func (l *RequestLog) line(e serve.Exchange) []byte {
	var b bytes.Buffer
	b.WriteString(`{"time":`)
	b.Write(rawjson.MustMarshal(e.Time.UTC().Format(time.RFC3339Nano)))
	fmt.Fprintf(&b, `,"client":%d`, e.Client)
	if e.ID != nil {
		b.WriteString(`,"id":`)
		logValue(&b, e.ID)
	}
	b.WriteString(`,"method":`)
	b.Write(rawjson.MustMarshal(e.Method))
	if e.Asked {
		b.WriteString(`,"asked":true`)
	}
	if e.Params != nil {
		b.WriteString(`,"params":`)
		logValue(&b, e.Params)
	}
	if e.ID != nil || e.Asked {
		switch {
		case e.Cancelled:
			b.WriteString(`,"cancelled":true`)
		case e.Err != nil:
			var re *mcp.RPCError
			if !errors.As(e.Err, &re) {
				re = &mcp.RPCError{Code: mcp.CodeInternalError, Message: e.Err.Error()}
			}
			fmt.Fprintf(&b, `,"error":{"code":%d,"message":`, re.Code)
			b.Write(rawjson.MustMarshal(re.Message))
			if re.Data != nil {
				b.WriteString(`,"data":`)
				logValue(&b, re.Data)
			}
			b.WriteByte('}')
		default:
			b.WriteString(`,"result":`)
			logValue(&b, orEmpty(e.Result))
		}
		fmt.Fprintf(&b, `,"ms":%s`, trace.Millis(e.Took))
	}
	b.WriteString("}\n")
	return l.secrets.Mask(redact.JSON(b.Bytes()))
}

// logValue writes a JSON value of the client's or the server's, on one line,
// or, past MaxLogValue or not JSON, a string saying so.
func logValue(b *bytes.Buffer, raw json.RawMessage) {
	switch {
	case len(raw) > MaxLogValue:
		b.Write(rawjson.MustMarshal(fmt.Sprintf("(%d bytes, left out: the log holds values of at most %d MiB)", len(raw), MaxLogValue>>20)))
	case json.Compact(b, raw) != nil:
		b.Write(rawjson.MustMarshal(fmt.Sprintf("(%d bytes that are not JSON)", len(raw))))
	}
}
