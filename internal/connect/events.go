package connect

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// EventLog writes --events: one NDJSON line per notification, and per event
// of mcpv's own (a task created), each with the time it was seen.
type EventLog struct {
	mu sync.Mutex // guards the lines: events come from several goroutines
	w  io.Writer
}

// NewEventLog writes events to w.
func NewEventLog(w io.Writer) *EventLog { return &EventLog{w: w} }

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
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(b.Bytes())
}
