package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// conn drives a fake served in-process through pipes.
type conn struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	log   *Buffer
	ended chan struct{} // closed when serve returns
	seen  []string      // the lines before the last answer awaited
}

func open(t *testing.T, behaviour string) *conn {
	t.Helper()
	cfg, err := parseConfig(behaviour, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &conn{t: t, in: inW, lines: make(chan string, 1000), log: &Buffer{}, ended: make(chan struct{})}
	go func() {
		newServer(cfg, inR, outW, c.log).serve()
		close(c.ended)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		for range c.lines {
		}
		<-c.ended
	})
	return c
}

func (c *conn) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *conn) next() string {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatal("the fake's output ended")
		}
		return l
	case <-time.After(5 * time.Second):
		c.t.Fatal("no line from the fake within 5s")
	}
	return ""
}

// call sends a request and returns its whole answer line, keeping the lines
// before it in c.seen.
func (c *conn) call(id int, method, params string) string {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	return c.await(id)
}

func (c *conn) await(id int) string {
	c.t.Helper()
	c.seen = nil
	prefix := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,`, id)
	for {
		l := c.next()
		if strings.HasPrefix(l, prefix) {
			return l
		}
		c.seen = append(c.seen, l)
	}
}

// result decodes an answer's result, failing on an error answer.
func (c *conn) result(line string) map[string]any {
	c.t.Helper()
	var m struct {
		Result map[string]any
		Error  any
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil {
		c.t.Fatalf("not a result: %s", line)
	}
	return m.Result
}

func wantError(t *testing.T, line string, code int, message string) {
	t.Helper()
	if want := fmt.Sprintf(`"error":{"code":%d,"message":%q}}`, code, message); !strings.HasSuffix(line, want) {
		t.Errorf("got %s\nwant error %s", line, want)
	}
}

func wantStatus(t *testing.T, task map[string]any, status string) {
	t.Helper()
	if task["status"] != status {
		t.Errorf("status = %v, want %s in %v", task["status"], status, task)
	}
}

const job = `{"name":"job","arguments":{},"task":{"ttl":60000},"_meta":{"progressToken":"p1"}}`

func TestTaskCapabilitiesAndTool(t *testing.T) {
	for behaviour, caps := range map[string]string{
		"tasks=completed": `{"prompts":{},"resources":{},"tasks":{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}},"tools":{}}`,
		"tasks=completed,no-task-cancel,no-task-list": `{"prompts":{},"resources":{},"tasks":{"requests":{"tools":{"call":{}}}},"tools":{}}`,
		"plain": `{"prompts":{},"resources":{},"tools":{}}`,
	} {
		c := open(t, behaviour)
		if got := c.call(1, "initialize", `{"protocolVersion":"2025-11-25"}`); !strings.Contains(got, `"capabilities":`+caps+`,`) {
			t.Errorf("%s: %s", behaviour, got)
		}
	}
	c := open(t, "tasks=completed,task-support=required,pages=2")
	want := `{"tools":[{"name":"tool0","inputSchema":{"type":"object"}},{"name":"job","description":"A slow job","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}],"nextCursor":"page-1"}`
	if got := c.call(1, "tools/list", `{}`); !strings.Contains(got, want) {
		t.Errorf("tools/list: %s", got)
	}
	if got := c.call(2, "tools/list", `{"cursor":"page-1"}`); !strings.Contains(got, `{"tools":[{"name":"tool1","inputSchema":{"type":"object"}},{"name":"x","inputSchema":{"type":"object"}}]}`) {
		t.Errorf("tools/list page 2: %s", got)
	}
	wantError(t, c.call(3, "tools/list", `{"cursor":"page-2"}`), -32602, `tools/list: invalid cursor "page-2"`)
	wantError(t, open(t, "plain").call(1, "tasks/get", `{"taskId":"task-1"}`), -32601, "method not found: tasks/get")
}

func TestTaskRunsToCompletion(t *testing.T) {
	c := open(t, "tasks=working/working/completed")
	task := c.result(c.call(1, "tools/call", job))["task"].(map[string]any)
	if task["taskId"] != "task-1" || task["status"] != "working" || task["ttl"] != 60000.0 || task["pollInterval"] != 50.0 {
		t.Errorf("created %v", task)
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		if _, err := time.Parse(time.RFC3339, task[k].(string)); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if got := c.next(); got != `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"total":2,"message":"job started","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"task-1"}}}}` {
		t.Errorf("first progress: %s", got)
	}
	for i, status := range []string{"working", "working", "completed", "completed"} {
		got := c.result(c.call(10+i, "tasks/get", `{"taskId":"task-1"}`))
		wantStatus(t, got, status)
		notes := 0
		if i == 2 {
			notes = 2
			if !strings.Contains(c.seen[0], `"progress":2,"total":2`) || !strings.Contains(c.seen[1], `"method":"notifications/tasks/status"`) || !strings.Contains(c.seen[1], `"status":"completed"`) {
				t.Errorf("notifications: %q", c.seen)
			}
		}
		if len(c.seen) != notes {
			t.Errorf("get %d: notifications %q", i, c.seen)
		}
	}
	want := `"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"task-1"}},"content":[{"type":"text","text":"job done"}]}}`
	if got := c.call(20, "tasks/result", `{"taskId":"task-1"}`); !strings.HasSuffix(got, want) {
		t.Errorf("tasks/result: %s", got)
	}
	if c.result(c.call(21, "tools/call", job))["task"].(map[string]any)["taskId"] != "task-2" {
		t.Error("the second task is not task-2")
	}
}

func TestTaskResultWaitsForTheEnd(t *testing.T) {
	for behaviour, want := range map[string]string{
		"tasks=working/working/completed": `"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"task-1"}},"content":[{"type":"text","text":"job done"}]}}`,
		"tasks=working/failed":            `"result":{"content":[{"type":"text","text":"the job broke"}],"isError":true,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"task-1"}}}}`,
		"tasks=working/cancelled":         `"error":{"code":-32603,"message":"the task was cancelled"}}`,
	} {
		c := open(t, behaviour)
		c.call(1, "tools/call", `{"name":"job","task":{}}`)
		got := c.call(2, "tasks/result", `{"taskId":"task-1"}`)
		if !strings.HasSuffix(got, want) {
			t.Errorf("%s: %s", behaviour, got)
		}
		// The answer came after the task's end: its last status came
		// before it (a time would not do: on a busy machine the task can
		// end before tasks/result is sent).
		last := c.seen[len(c.seen)-1]
		if !strings.Contains(last, "notifications/tasks/status") || strings.Contains(last, `"status":"working"`) {
			t.Errorf("%s: last notification %s", behaviour, last)
		}
		if behaviour == "tasks=working/failed" {
			wantStatus(t, c.result(c.call(3, "tasks/get", `{"taskId":"task-1"}`)), "failed")
			if !strings.Contains(last, `"statusMessage":"the job broke"`) {
				t.Errorf("failed task: %s", last)
			}
		}
	}
}

func TestTaskCancel(t *testing.T) {
	c := open(t, "tasks=working/working/completed")
	c.call(1, "tools/call", job)
	got := c.result(c.call(2, "tasks/cancel", `{"taskId":"task-1"}`))
	wantStatus(t, got, "cancelled")
	if got["statusMessage"] != "cancelled by the client" || len(c.seen) != 2 || !strings.Contains(c.seen[1], `"status":"cancelled"`) {
		t.Errorf("cancelled: %v, notifications %q", got, c.seen)
	}
	wantError(t, c.call(3, "tasks/cancel", `{"taskId":"task-1"}`), -32602, "Cannot cancel task: already in terminal status 'cancelled'")
	wantStatus(t, c.result(c.call(4, "tasks/get", `{"taskId":"task-1"}`)), "cancelled")
	wantError(t, c.call(5, "tasks/result", `{"taskId":"task-1"}`), -32603, "the task was cancelled")
	if !strings.Contains(c.log.String(), `"method":"tasks/cancel","params":{"taskId":"task-1"}`) {
		t.Errorf("log: %s", c.log.String())
	}
	c = open(t, "tasks=completed,no-task-cancel")
	c.call(1, "tools/call", job)
	wantError(t, c.call(2, "tasks/cancel", `{"taskId":"task-1"}`), -32601, "method not found: tasks/cancel")
}

func TestTaskExpiresAndUnknown(t *testing.T) {
	c := open(t, "tasks=expire")
	c.call(1, "tools/call", job)
	for i, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		wantError(t, c.call(2+i, method, `{"taskId":"task-1"}`), -32602, "Task not found or expired: task-1")
		wantError(t, c.call(10+i, method, `{"taskId":"task-9"}`), -32602, "Task not found: task-9")
	}
	if got := c.call(20, "tasks/list", `{}`); !strings.HasSuffix(got, `"result":{"tasks":[]}}`) {
		t.Errorf("tasks/list: %s", got)
	}
	c = open(t, "tasks=working/expire")
	c.call(1, "tools/call", job)
	wantStatus(t, c.result(c.call(2, "tasks/get", `{"taskId":"task-1"}`)), "working")
	wantError(t, c.call(3, "tasks/get", `{"taskId":"task-1"}`), -32602, "Task not found or expired: task-1")
}

func TestTaskSupportAndTTL(t *testing.T) {
	c := open(t, "tasks=completed,task-support=forbidden")
	wantError(t, c.call(1, "tools/call", job), -32601, "tools/call: the tool does not run as a task")
	if got := c.call(2, "tools/call", `{"name":"job"}`); !strings.HasSuffix(got, `"result":{"content":[{"type":"text","text":"job done"}]}}`) {
		t.Errorf("plain job: %s", got)
	}
	c = open(t, "tasks=completed,task-support=required")
	wantError(t, c.call(1, "tools/call", `{"name":"job"}`), -32601, "tools/call: the tool requires a task")
	wantError(t, c.call(2, "tools/call", `{"name":"tool0","task":{}}`), -32601, "tools/call: the tool does not run as a task")
	if got := c.call(3, "tools/call", `{"name":"tool0"}`); !strings.Contains(got, `"text":"ok"`) {
		t.Errorf("tool0: %s", got)
	}

	c = open(t, "tasks=completed,task-ttl=5000,poll=0")
	got := c.call(1, "tools/call", job)
	if !strings.Contains(got, `"ttl":5000}}}`) || strings.Contains(got, "pollInterval") {
		t.Errorf("ttl override: %s", got)
	}
	c = open(t, "tasks=completed,poll=200")
	if got := c.call(1, "tools/call", `{"name":"job","task":{}}`); !strings.Contains(got, `"pollInterval":200,`) || !strings.Contains(got, `"ttl":60000}}}`) {
		t.Errorf("no ttl asked: %s", got)
	}
	if c.call(2, "ping", `{}`); len(c.seen) != 0 {
		t.Errorf("notifications without a progressToken: %q", c.seen)
	}
	for _, bad := range []string{"tasks=working/done", "task-support=maybe", "poll=-1", "task-ttl=x", "bogus"} {
		if _, err := parseConfig(bad, nil, ""); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestTaskList(t *testing.T) {
	c := open(t, "tasks=working/completed")
	c.call(1, "tools/call", job)
	c.call(2, "tools/call", job)
	if got := c.call(3, "tasks/list", `{}`); !strings.Contains(got, `"taskId":"task-1"`) || !strings.Contains(got, `"taskId":"task-2"`) {
		t.Errorf("tasks/list: %s", got)
	}
	wantError(t, open(t, "tasks=working,no-task-list").call(1, "tasks/list", `{}`), -32601, "method not found: tasks/list")
}

// askID is the id of the server's request on line.
func askID(t *testing.T, line string) string {
	t.Helper()
	var m struct{ ID string }
	if json.Unmarshal([]byte(line), &m) != nil || m.ID == "" {
		t.Fatalf("not a request of the server's: %s", line)
	}
	return m.ID
}

func TestTaskInputRequired(t *testing.T) {
	c := open(t, "tasks=working/input_required/completed")
	c.call(1, "tools/call", job)
	for i, status := range []string{"working", "input_required", "input_required"} {
		wantStatus(t, c.result(c.call(2+i, "tasks/get", `{"taskId":"task-1"}`)), status)
	}
	c.send(`{"jsonrpc":"2.0","id":10,"method":"tasks/result","params":{"taskId":"task-1"}}`)
	ask := c.next()
	if want := `"method":"elicitation/create","params":` + elicitation[:len(elicitation)-1] + `,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"task-1"}}}}`; !strings.HasSuffix(ask, want) {
		t.Fatalf("got %s\nwant %s", ask, want)
	}
	// The fake keeps serving while it waits.
	if got := c.call(11, "ping", `{}`); got != `{"jsonrpc":"2.0","id":11,"result":{}}` {
		t.Errorf("ping: %s", got)
	}
	wantStatus(t, c.result(c.call(12, "tasks/get", `{"taskId":"task-1"}`)), "input_required")
	c.send(`{"jsonrpc":"2.0","id":` + mustString(askID(t, ask)) + `,"result":{"action":"accept","content":{"name":"a"}}}`)
	got := c.await(10)
	if want := `"text":"input: {\"action\":\"accept\",\"content\":{\"name\":\"a\"}}"`; !strings.Contains(got, want) || !strings.Contains(got, `"text":"job done"`) {
		t.Errorf("tasks/result: %s", got)
	}
	if len(c.seen) != 2 || !strings.Contains(c.seen[1], `"status":"completed"`) {
		t.Errorf("before the result: %q", c.seen)
	}
}

func TestTaskInputRequiredThenWorking(t *testing.T) {
	// tasks/result steps the task by itself, asks, then steps on to the end.
	c := open(t, "tasks=input_required/working/failed,poll=0")
	c.call(1, "tools/call", `{"name":"job","task":{}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"task-1"}}`)
	if got := c.next(); !strings.Contains(got, `"status":"input_required"`) {
		t.Errorf("first: %s", got)
	}
	ask := c.next()
	if !strings.Contains(ask, `"method":"elicitation/create"`) {
		t.Fatalf("second: %s", ask)
	}
	c.send(`{"jsonrpc":"2.0","id":` + mustString(askID(t, ask)) + `,"error":{"code":-1,"message":"declined"}}`)
	if got := c.await(2); !strings.Contains(got, `"isError":true`) {
		t.Errorf("tasks/result: %s", got)
	}
	if len(c.seen) != 2 || !strings.Contains(c.seen[0], `"status":"working"`) || !strings.Contains(c.seen[1], `"status":"failed"`) {
		t.Errorf("notifications: %q", c.seen)
	}
}

func TestPingFirstStillWaits(t *testing.T) {
	c := open(t, "ping-first")
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
	ping := c.next()
	id := askID(t, ping)
	if ping != `{"jsonrpc":"2.0","id":"`+id+`","method":"ping"}` {
		t.Fatalf("got %s", ping)
	}
	c.send(`{"jsonrpc":"2.0","id":"` + id + `","result":{}}`)
	if got := c.await(1); !strings.Contains(got, `"echo":"{\"id\":\"`+id+`\",\"result\":{}}"`) {
		t.Errorf("got %s", got)
	}
}

func TestTaskEOFWhileAsking(t *testing.T) {
	c := open(t, "tasks=input_required")
	c.call(1, "tools/call", `{"name":"job","task":{}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"task-1"}}`)
	for !strings.Contains(c.next(), "elicitation/create") {
	}
	c.in.Close()
	select {
	case <-c.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the fake did not end at EOF")
	}
}
