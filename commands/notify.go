package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// eventLog writes --events: one NDJSON line per notification.
type eventLog struct {
	mu sync.Mutex // serialises lines; mcpv's own events come from other goroutines
	f  *os.File
}

func openEventLog(path string) (*eventLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, usageErrorf("--events: %v", err)
	}
	return &eventLog{f: f}, nil
}

// write records one event; params is raw JSON (compacted so the line stays one line).
func (l *eventLog) write(method string, params json.RawMessage) {
	var b bytes.Buffer
	b.WriteString(`{"time":`)
	b.Write(mustJSON(time.Now().UTC().Format(time.RFC3339Nano)))
	b.WriteString(`,"method":`)
	b.Write(mustJSON(method))
	if len(bytes.TrimSpace(params)) > 0 {
		b.WriteString(`,"params":`)
		rawjson.WriteCompact(&b, params)
	}
	b.WriteString("}\n")
	l.mu.Lock()
	defer l.mu.Unlock()
	l.f.Write(b.Bytes())
}

func (l *eventLog) close() error { return l.f.Close() }

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// onNotification sees every server notification, in order, on the session's
// dispatcher goroutine.
func (a *app) onNotification(method string, params json.RawMessage) {
	if a.events != nil {
		a.events.write(method, params)
	}
	switch method {
	case "notifications/tools/list_changed":
		if a.tools != nil {
			a.tools.Reset()
		}
	case "notifications/progress":
		a.ios.Status.Set(progressText(params))
	case "notifications/tasks/status":
		var t mcp.Task
		if json.Unmarshal(params, &t) == nil && t.TaskID != "" {
			a.ios.Status.Set(taskStatus(t))
		}
	case "notifications/message":
		if !a.flags.Quiet {
			io.WriteString(a.ios.Err, logLine(params))
		}
	}
	a.listenMu.Lock()
	listeners := a.listeners
	a.listenMu.Unlock()
	for _, fn := range listeners {
		fn(method, params)
	}
}

// listen adds fn to the notification listeners; it runs on the dispatcher
// goroutine and must not block for long.
func (a *app) listen(fn func(method string, params json.RawMessage)) {
	a.listenMu.Lock()
	a.listeners = append(a.listeners, fn)
	a.listenMu.Unlock()
}

// progressText renders a progress notification for the status line.
func progressText(params json.RawMessage) string {
	var p struct {
		Progress json.Number `json:"progress"`
		Total    json.Number `json:"total"`
		Message  string      `json:"message"`
	}
	json.Unmarshal(params, &p)
	s := "mcpv: progress " + p.Progress.String()
	if p.Total != "" {
		s += "/" + p.Total.String()
		if done, err1 := strconv.ParseFloat(p.Progress.String(), 64); err1 == nil {
			if total, err2 := strconv.ParseFloat(p.Total.String(), 64); err2 == nil && total > 0 {
				s += fmt.Sprintf(" (%.0f%%)", 100*done/total)
			}
		}
	}
	if p.Message != "" {
		s += " " + p.Message
	}
	return s
}

// logLine renders notifications/message as "server[level] logger: message".
func logLine(params json.RawMessage) string {
	var p struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	json.Unmarshal(params, &p)
	var msg string
	if err := json.Unmarshal(p.Data, &msg); err != nil {
		var b bytes.Buffer
		rawjson.WriteCompact(&b, p.Data)
		msg = b.String()
	}
	msg = strings.TrimRight(msg, "\n")
	if p.Logger != "" {
		return fmt.Sprintf("server[%s] %s: %s\n", p.Level, p.Logger, msg)
	}
	return fmt.Sprintf("server[%s]: %s\n", p.Level, msg)
}
