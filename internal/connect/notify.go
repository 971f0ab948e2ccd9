package connect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/serverstate"
	"github.com/mcpv/mcpv/mcp"
)

// notifier sees the server's notifications, in order, on the session's
// dispatcher goroutine: it draws progress and task status, shows log
// messages, empties the tool cache when the tools change, and passes each
// on to Hooks.OnNotification. A flood beyond the session's queue reaches
// it thinned (mcp/notes.go); --events is written by the session's reader,
// and misses none.
type notifier struct {
	hooks Hooks
	quiet bool
	tools *mcp.ToolCache
	kept  *serverstate.Store // nil when nothing is kept between runs
}

func (n *notifier) notify(method string, params json.RawMessage) {
	if n.kept != nil {
		n.kept.Notified(method)
	}
	switch method {
	case mcp.Tools.Changed:
		n.tools.Reset()
	case "notifications/progress":
		if s := progressText(params); s != "" {
			n.hooks.setStatus(s)
		} else {
			n.leftOut(method)
		}
	case "notifications/tasks/status":
		var t mcp.Task
		if json.Unmarshal(params, &t) == nil && t.TaskID != "" {
			n.hooks.setStatus(TaskStatus(t))
		}
	case "notifications/message":
		if line := logLine(params); line == "" {
			n.leftOut(method)
		} else if !n.quiet && !n.hooks.LogsElsewhere {
			io.WriteString(n.hooks.Stderr, line)
		}
	}
	if n.hooks.OnNotification != nil {
		n.hooks.OnNotification(method, params)
	}
}

// leftOut says that a notification whose params do not decode was not
// shown.
func (n *notifier) leftOut(method string) {
	fmt.Fprintf(n.hooks.Stderr, "mcpv: the server's %s was left out: its params do not decode\n", method)
}

// TaskStatus renders a task's status for the progress line.
func TaskStatus(t mcp.Task) string {
	return strings.TrimSpace(fmt.Sprintf("mcpv: task %s: %s %s", safetext.Line(t.TaskID), safetext.Line(t.Status), safetext.Line(t.StatusMessage)))
}

// progressText renders a progress notification for the status line; ""
// for params that do not decode.
func progressText(params json.RawMessage) string {
	var p struct {
		Progress json.Number `json:"progress"`
		Total    json.Number `json:"total"`
		Message  string      `json:"message"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	s := "mcpv: progress " + safetext.Line(p.Progress.String())
	if p.Total != "" {
		s += "/" + safetext.Line(p.Total.String())
		done, err1 := strconv.ParseFloat(p.Progress.String(), 64)
		total, err2 := strconv.ParseFloat(p.Total.String(), 64)
		if share := 100 * done / total; err1 == nil && err2 == nil && total > 0 && !math.IsInf(share, 0) { // 5 of 1e-320 is none
			s += fmt.Sprintf(" (%.0f%%)", share)
		}
	}
	if p.Message != "" {
		s += " " + safetext.Line(p.Message)
	}
	return s
}

// logLine renders notifications/message as "server[level] logger:
// message"; "" for params that do not decode.
func logLine(params json.RawMessage) string {
	var p struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	var msg string
	if err := json.Unmarshal(p.Data, &msg); err != nil {
		var b bytes.Buffer
		rawjson.WriteCompact(&b, p.Data)
		msg = b.String()
	}
	// A message of several lines keeps them, indented under the first, so
	// that none can pass for a line of mcpv's own.
	msg = strings.ReplaceAll(safetext.Text(strings.TrimRight(msg, "\n")), "\n", "\n  ")
	level := safetext.Line(p.Level)
	if p.Logger != "" {
		return fmt.Sprintf("server[%s] %s: %s\n", level, safetext.Line(p.Logger), msg)
	}
	return fmt.Sprintf("server[%s]: %s\n", level, msg)
}
