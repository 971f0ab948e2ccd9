package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/output"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

func TestTaskPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		behaviour string
		args      []string
		code      int
		outHas    string
		errHas    string
		sent      string // the fake must have received this
		notSent   string // ...and not this
	}{
		{name: "completed", behaviour: "tasks=working/working/completed", args: []string{"call", "job", "--task"},
			outHas: `"text":"job done"`, errHas: "task task-1 created (working)", sent: `"task":{}`},
		{name: "required without asking", behaviour: "tasks=completed,task-support=required", args: []string{"call", "job"},
			outHas: `"io.modelcontextprotocol/related-task":{"taskId":"task-1"}`, errHas: "task task-1 created"},
		{name: "optional not asked", behaviour: "tasks=completed", args: []string{"call", "job"},
			outHas: `"text":"job done"`, notSent: `"task":`},
		{name: "forbidden refused", behaviour: "tasks=completed,task-support=forbidden", args: []string{"call", "job", "--task"},
			code: 3, errHas: `tool "job" does not support tasks`, notSent: `"tools/call"`},
		{name: "server without tasks", behaviour: "plain", args: []string{"call", "job", "--task"},
			code: 3, errHas: `"tasks.requests.tools.call" capability`, notSent: `"tools/call"`},
		{name: "failed", behaviour: "tasks=working/failed", args: []string{"call", "job", "--task"},
			code: 1, outHas: `"isError":true`, errHas: "task task-1 failed: the job broke"},
		{name: "cancelled by the server", behaviour: "tasks=working/cancelled", args: []string{"call", "job", "--task"},
			code: 3, errHas: "task task-1 cancelled"},
		{name: "input required", behaviour: "tasks=working/input_required/completed", args: []string{"--elicitation", "accept", "call", "job", "--task"},
			outHas: `input: {\"action\":\"accept\",\"content\":{\"name\":\"mcpv\"}`, sent: `"result":{"action":"accept","content":{"name":"mcpv"},"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"task-1"}}}`},
		{name: "expired", behaviour: "tasks=expire", args: []string{"call", "job", "--task"},
			code: 3, errHas: "Task not found or expired: task-1"},
		{name: "ttl overridden", behaviour: "tasks=working/completed,task-ttl=500", args: []string{"call", "job", "--ttl", "10s", "--detach"},
			outHas: `"ttl":500`, sent: `"task":{"ttl":10000}`, notSent: `"tasks/get"`},
		{name: "server without pollInterval", behaviour: "tasks=completed,poll=0", args: []string{"call", "job", "--task"},
			outHas: `"text":"job done"`},
		{name: "tasks list", behaviour: "tasks=completed", args: []string{"tasks", "list"}, outHas: `{"tasks":[]}`},
		{name: "tasks list not declared", behaviour: "tasks=completed,no-task-list", args: []string{"tasks", "list"},
			code: 3, errHas: `"tasks.list" capability`},
		{name: "tasks get unknown", behaviour: "tasks=completed", args: []string{"tasks", "get", "nope"},
			code: 3, errHas: "Task not found: nope"},
		{name: "tasks cancel not declared", behaviour: "tasks=completed,no-task-cancel", args: []string{"tasks", "cancel", "task-1"},
			code: 3, errHas: `"tasks.cancel" capability`, notSent: `"tasks/cancel"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.behaviour, "poll=0") {
				testkit.SkipLong(t, "polls at the default interval, a second")
			}
			t.Parallel()
			tail, log := fakeLogged(t, tt.behaviour)
			r := mcpv(t, "", args(tt.args, tail)...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", r.code, tt.code, r.stderr)
			}
			if !strings.Contains(r.stdout, tt.outHas) {
				t.Errorf("stdout %q lacks %q", r.stdout, tt.outHas)
			}
			if !strings.Contains(r.stderr, tt.errHas) {
				t.Errorf("stderr %q lacks %q", r.stderr, tt.errHas)
			}
			got := readLogIfAny(log)
			if tt.sent != "" && !strings.Contains(got, tt.sent) {
				t.Errorf("the server did not get %s; it got:\n%s", tt.sent, got)
			}
			if tt.notSent != "" && strings.Contains(got, tt.notSent) {
				t.Errorf("the server got %s:\n%s", tt.notSent, got)
			}
		})
	}
}

func TestTaskStoppedIsCancelledOnTheServer(t *testing.T) {
	t.Parallel()
	t.Run("timeout", func(t *testing.T) {
		tail, log := fakeLogged(t, "tasks=working")
		code, stderr := timeoutWhen(t, 500*time.Millisecond, `"method":"tasks/get"`, args([]string{"--timeout", "500ms", "call", "job", "--task"}, tail))
		if code != 124 || !logHas(log, `"method":"tasks/cancel","params":{"taskId":"task-1"}`) {
			t.Errorf("exit %d, stderr %q; server got:\n%s", code, stderr, readLog(t, log))
		}
	})
	t.Run("interrupt", func(t *testing.T) {
		tail, log := fakeLogged(t, "tasks=working")
		code, stderr := interruptWhen(t, `"method":"tasks/get"`, args([]string{"call", "job", "--task"}, tail))
		if code != 130 || !logHas(log, `"method":"tasks/cancel"`) {
			t.Errorf("exit %d, stderr %q; server got:\n%s", code, stderr, readLog(t, log))
		}
	})
	t.Run("no tasks/cancel declared", func(t *testing.T) {
		tail, log := fakeLogged(t, "tasks=working,no-task-cancel")
		code, stderr := timeoutWhen(t, 500*time.Millisecond, `"method":"tasks/get"`, args([]string{"--timeout", "500ms", "call", "job", "--task"}, tail))
		if code != 124 || strings.Contains(readLog(t, log), `"tasks/cancel"`) {
			t.Errorf("exit %d, stderr %q; server got:\n%s", code, stderr, readLog(t, log))
		}
	})
}

func TestTaskEvents(t *testing.T) {
	t.Parallel()
	events := filepath.Join(t.TempDir(), "events.ndjson")
	r := mcpv(t, "", args([]string{"--events", events, "call", "job", "--task"}, fake("tasks=working/completed"))...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(events)
	for _, want := range []string{`"method":"mcpv/task-created","params":{"createdAt"`, `"taskId":"task-1","ttl"`, `"method":"notifications/tasks/status"`, `"method":"notifications/progress"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("events lack %s:\n%s", want, data)
		}
	}
}

// TestTaskDetachAndCollectOverHTTP creates a task in one invocation and
// collects it in another, against a server that keeps tasks across sessions.
func TestTaskDetachAndCollectOverHTTP(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	polls := 0
	// Stateless: the tasks outlive each invocation's session.
	f := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		reply := func(result string) { x.Reply(x.Result(result)) }
		switch x.RPCMethod {
		case "initialize":
			reply(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"t","version":"0"}}`)
		case "tools/list":
			reply(`{"tools":[{"name":"report","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}`)
		case "tools/call":
			reply(`{"task":{"taskId":"t-42","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":60000,"pollInterval":20}}`)
		case "tasks/get":
			mu.Lock()
			polls++
			status := "working"
			if polls >= 3 {
				status = "completed"
			}
			mu.Unlock()
			reply(`{"taskId":"t-42","status":"` + status + `","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":60000,"pollInterval":20}`)
		case "tasks/result":
			reply(`{"content":[{"type":"text","text":"the report"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-42"}}}`)
		default:
			return false
		}
		return true
	}})
	r := mcpv(t, "", "-u", f.URL, "call", "report", "--detach", "-r", "-q", ".task.taskId")
	if r.code != 0 || r.stdout != "t-42\n" {
		t.Fatalf("detach: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = mcpv(t, "", "-u", f.URL, "tasks", "result", "t-42", "-r", "-q", ".content[0].text")
	if r.code != 0 || r.stdout != "the report\n" {
		t.Fatalf("collect: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if polls < 3 {
		t.Errorf("collected after %d polls; it should have waited for completed", polls)
	}
}

func TestTaskStatusOnATerminal(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	ios := output.NewStreams(strings.NewReader(""), &out, &errb)
	ios.Status = output.NewStatusLine(&errb, true)
	ios.Err, ios.ErrTTY = ios.Status, true
	code := run(context.Background(), args([]string{"--elicitation", "decline", "call", "job", "--task"}, fake("tasks=working/working/completed")), ios, testEnv(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "\r\x1b[Kmcpv: task task-1: working") || !strings.HasSuffix(errb.String(), "\r\x1b[K") {
		t.Errorf("stderr %q", errb.String())
	}
}
