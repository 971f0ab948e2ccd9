package connect

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
)

// EventLog writes --events: one NDJSON line per notification, and per event
// of mcpv's own (a task created), each with the time it was seen. Secrets
// are masked as in --trace: the values of secret-named members, and what
// the run's mask knows (a server may echo a token it was given).
type EventLog struct {
	mu   sync.Mutex // guards the lines: events come from several goroutines
	w    io.Writer
	mask func([]byte) []byte
}

// NewEventLog writes events to w, each line through mask (nil masks only
// secret-named members).
func NewEventLog(w io.Writer, mask func([]byte) []byte) *EventLog {
	return &EventLog{w: w, mask: mask}
}

// Write records one event; params is raw JSON, compacted so that the line
// stays one line. A nil log records nothing.
func (l *EventLog) Write(method string, params json.RawMessage) {
	if l == nil {
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"time":`)
	b.Write(rawjson.MustMarshal(time.Now().UTC().Format(time.RFC3339Nano)))
	b.WriteString(`,"method":`)
	b.Write(rawjson.MustMarshal(method))
	if len(bytes.TrimSpace(params)) > 0 {
		b.WriteString(`,"params":`)
		rawjson.WriteCompact(&b, params)
	}
	b.WriteString("}\n")
	line := redact.JSON(b.Bytes())
	if l.mask != nil {
		line = l.mask(line)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(line)
}
