package connect

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// A task's status notification shows on the progress line; a log message
// whose data is not a string shows as compact JSON; every notification
// reaches the command's hook after mcpv has shown it.
func TestNotifier(t *testing.T) {
	t.Parallel()
	st := &status{}
	var stderr bytes.Buffer
	var seen []string
	n := &notifier{hooks: Hooks{Status: st, Stderr: &stderr, OnNotification: func(m string, _ json.RawMessage) { seen = append(seen, m) }}, tools: &mcp.ToolCache{}}
	n.notify("notifications/tasks/status", json.RawMessage(`{"taskId":"t1","status":"working","statusMessage":"half way"}`))
	n.notify("notifications/tasks/status", json.RawMessage(`{"status":"working"}`)) // no task: nothing to show
	n.notify("notifications/message", json.RawMessage(`{"level":"warning","data":{"rows": 3,"table":"t"}}`))
	n.notify("notifications/tools/list_changed", nil)
	if len(st.shown) != 1 || st.shown[0] != "mcpv: task t1: working half way" {
		t.Errorf("status %q", st.shown)
	}
	if got := stderr.String(); got != "server[warning]: {\"rows\":3,\"table\":\"t\"}\n" {
		t.Errorf("stderr %q", got)
	}
	if strings.Join(seen, " ") != "notifications/tasks/status notifications/tasks/status notifications/message notifications/tools/list_changed" {
		t.Errorf("the hook saw %q", seen)
	}
}

// --verbose clips a huge message, says how much it left out, and masks
// secrets in what it shows.
func TestTracerClips(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	trace := tracer(&b)
	trace(true, []byte(`{"params":{"authorization":"Bearer s3cret"}}`))
	trace(false, []byte(`{"result":"`+strings.Repeat("x", 5000)+`"}`))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], "s3cret") || !strings.HasPrefix(lines[0], "mcpv: -> {") {
		t.Errorf("outgoing: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "mcpv: <- {") || !strings.HasSuffix(lines[1], "… (917 more bytes)") || len(lines[1]) > 4200 {
		t.Errorf("incoming, clipped: %d bytes, ending %q", len(lines[1]), lines[1][max(0, len(lines[1])-30):])
	}
}

// A progress or log notification whose params do not decode is not shown
// as an empty one: it is left out, and stderr says so, once each.
func TestNotifierLeavesOutMalformed(t *testing.T) {
	t.Parallel()
	st := &status{}
	var stderr bytes.Buffer
	n := &notifier{hooks: Hooks{Status: st, Stderr: &stderr}, tools: &mcp.ToolCache{}}
	n.notify("notifications/progress", json.RawMessage(`{"progressToken":1,"progress":{"done":1}}`))
	n.notify("notifications/message", json.RawMessage(`{"level":5,"data":"hi"}`))
	if len(st.shown) != 0 {
		t.Errorf("status %q", st.shown)
	}
	want := "mcpv: the server's notifications/progress was left out: its params do not decode\n" +
		"mcpv: the server's notifications/message was left out: its params do not decode\n"
	if got := stderr.String(); got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}
