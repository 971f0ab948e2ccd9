// Package requestlog writes what clients said to a server mcpv serves
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
// MaxValue is written as a string saying its size, so that one huge
// request cannot make a huge line; past MaxLog in all, a last line says
// what came after is left out.
package requestlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/mcp"
)

// MaxValue bounds each value a line holds.
const MaxValue = 1 << 20

// MaxLog bounds the log as a whole: past it, a last line says that what
// came after is left out, and nothing more is written.
const MaxLog = 256 << 20

// ErrFull is the failure a log that reached its bound reports.
var ErrFull = errors.New("the log reached its bound of 256 MiB: what came after is left out")

// Log writes the lines.
type Log struct {
	secrets *redact.Scrubber
	failed  func(error)

	max int64 // MaxLog, or less in tests

	mu      sync.Mutex // guards w, written and err, and keeps lines whole
	w       io.Writer
	written int64
	err     error // the first write's failure: nothing more is written
}

// New is a log written to w, masking what secrets knows; failed is told,
// once, when a write fails, and the log stops there.
func New(w io.Writer, secrets *redact.Scrubber, failed func(error)) *Log {
	if secrets == nil {
		secrets = redact.NewScrubber(nil)
	}
	return &Log{w: w, secrets: secrets, failed: failed, max: MaxLog}
}

// Observe writes the line of one message (serve.Server.Observe).
func (l *Log) Observe(e serve.Exchange) {
	line := l.line(e)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	var err error
	if l.written+int64(len(line)) > l.max {
		last, _ := json.Marshal(map[string]string{"time": e.Time.UTC().Format(time.RFC3339Nano), "leftOut": ErrFull.Error()})
		line, err = append(last, '\n'), ErrFull
	}
	n, werr := l.w.Write(line)
	l.written += int64(n)
	if werr != nil {
		err = werr
	}
	if err != nil {
		l.err = err
		if l.failed != nil {
			l.failed(err)
		}
	}
}

// errStopped ends a log that Stop stopped.
var errStopped = errors.New("the log was stopped")

// Stop writes nothing more, so that w may be closed while a request still
// being answered is told to Observe.
func (l *Log) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = errStopped
	}
}

// line is the JSON line of e, masked.
func (l *Log) line(e serve.Exchange) []byte {
	var b bytes.Buffer
	b.WriteString(`{"time":`)
	b.Write(rawjson.MustMarshal(e.Time.UTC().Format(time.RFC3339Nano)))
	fmt.Fprintf(&b, `,"client":%d`, e.Client)
	if e.ID != nil {
		b.WriteString(`,"id":`)
		value(&b, e.ID)
	}
	b.WriteString(`,"method":`)
	b.Write(rawjson.MustMarshal(e.Method))
	if e.Asked {
		b.WriteString(`,"asked":true`)
	}
	if e.Params != nil {
		b.WriteString(`,"params":`)
		value(&b, e.Params)
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
				value(&b, re.Data)
			}
			b.WriteByte('}')
		default:
			result := e.Result
			if result == nil {
				result = json.RawMessage(`{}`)
			}
			b.WriteString(`,"result":`)
			value(&b, result)
		}
		fmt.Fprintf(&b, `,"ms":%s`, millis(e.Took))
	}
	b.WriteString("}\n")
	return l.secrets.Mask(redact.JSON(b.Bytes()))
}

// value writes a JSON value of the client's or the server's, on one line,
// or, past MaxValue or not JSON, a string saying so.
func value(b *bytes.Buffer, raw json.RawMessage) {
	switch {
	case len(raw) > MaxValue:
		b.Write(rawjson.MustMarshal(fmt.Sprintf("(%d bytes, left out: the log holds values of at most %d MiB)", len(raw), MaxValue>>20)))
	case json.Compact(b, raw) != nil:
		b.Write(rawjson.MustMarshal(fmt.Sprintf("(%d bytes that are not JSON)", len(raw))))
	}
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) string {
	return fmt.Sprint(math.Round(float64(d)/float64(time.Microsecond)) / 1000)
}
