package serve

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
)

// TestTasksAreTheirClients: with one server shared by two clients, a task
// is its client's: the other does not see it listed, cannot get it,
// collect its result or cancel it, by serve's id or the server's (which
// never reaches a client), and the server's question about it goes to its
// client alone, whose answer is the one the task gets.
func TestTasksAreTheirClients(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.FakeStdio("tasks=working/input_required/completed,hang"), nil, false)
	u := serveHTTP(t, srv, "")
	a, arec := servetest.HTTPClient(t, u, "legacy", "a")
	b, brec := servetest.HTTPClient(t, u, "legacy", "b")

	created := servetest.Call(t, a, "tools/call", `{"name":"job","arguments":{},"task":{"ttl":60000}}`)
	task, _, err := mcp.CreatedTask(created)
	if err != nil {
		t.Fatal(err)
	}
	if task.TaskID == "task-1" || !strings.HasPrefix(task.TaskID, "mcpv-task-") {
		t.Fatalf("the client got task id %q: the server's, or not serve's", task.TaskID)
	}
	if list := servetest.Call(t, b, "tasks/list", `{}`); strings.Contains(string(list), "task-") {
		t.Errorf("client B lists %s: another client's task", list)
	}
	if list := servetest.Call(t, a, "tasks/list", `{}`); !strings.Contains(string(list), task.TaskID) || strings.Contains(string(list), `"task-1"`) {
		t.Errorf("client A lists %s, want its task by serve's id", list)
	}
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		for _, id := range []string{task.TaskID, "task-1"} {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			res, err := b.Call(ctx, method, mcp.TaskParams(id))
			cancel()
			var ce *mcp.CallError
			if !errors.As(err, &ce) || ce.Err.Code != mcp.CodeInvalidParams || !strings.Contains(ce.Err.Message, "not found") {
				t.Errorf("client B's %s of %s: %s, %v; want not found", method, id, res, err)
			}
		}
	}
	// B is busy too while A collects its result: the question about A's
	// task is A's all the same.
	bctx, bcancel := context.WithCancel(context.Background())
	defer bcancel()
	go b.Call(bctx, "tools/call", json.RawMessage(`{"name":"never","arguments":{}}`)) // hangs
	for deadline := time.Now().Add(30 * time.Second); len(srv.shared.clientsWhere((*client).busy)) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("client B's call never started")
		}
	}
	res := servetest.Call(t, a, "tasks/result", string(mcp.TaskParams(task.TaskID)))
	if !strings.Contains(string(res), "job done") || !strings.Contains(string(res), `\"name\":\"a\"`) || !strings.Contains(string(res), task.TaskID) {
		t.Errorf("client A's result %s, want A's answer in it, under serve's id", res)
	}
	for _, m := range brec.All() {
		if strings.Contains(string(m), "elicitation/create") || strings.Contains(string(m), "notifications/tasks/status") {
			t.Errorf("client B got %s, about A's task", m)
		}
	}
	for _, m := range arec.All() {
		if strings.Contains(string(m), `"task-1"`) {
			t.Errorf("client A got the server's task id: %s", m)
		}
	}
}

// TestModernTaskIDs: a modern client's task (the tasks extension, from a
// modern server) is named by serve's id, which another client cannot
// guess; its holder reaches it by that id.
func TestModernTaskIDs(t *testing.T) {
	t.Parallel()
	up := &upstream{srv: &Server{}}
	c := &client{modern: true}
	res := up.taskResult(c, "tools/call", json.RawMessage(`{"resultType":"task","taskId":"1","status":"working"}`))
	var got struct {
		TaskID string `json:"taskId"`
	}
	json.Unmarshal(res, &got)
	if got.TaskID == "1" || !strings.HasPrefix(got.TaskID, "mcpv-task-") {
		t.Fatalf("task result %s, want serve's id", res)
	}
	other := &client{modern: true}
	if _, rerr := up.taskRequest(other, "tasks/get", json.RawMessage(`{"taskId":"1"}`)); rerr == nil {
		t.Errorf("the server's id reached the server's task")
	}
	params, rerr := up.taskRequest(other, "tasks/get", json.RawMessage(`{"taskId":"`+got.TaskID+`"}`))
	if rerr != nil || string(params) != `{"taskId":"1"}` {
		t.Errorf("tasks/get by serve's id: %s %v, want the server's id sent", params, rerr)
	}
}

// TestModernTaskIsItsTokens: a modern client's task id reaches the task
// for a client of the same bearer token alone; another token's is told
// it is not found, as for an id never given.
func TestModernTaskIsItsTokens(t *testing.T) {
	t.Parallel()
	up := &upstream{srv: &Server{}}
	one, two := &View{Name: "one"}, &View{Name: "two"}
	res := up.taskResult(&client{modern: true, who: one}, "tools/call", json.RawMessage(`{"resultType":"task","taskId":"1","status":"working"}`))
	id, _ := rawjson.String(rawjson.Member(res, "taskId"))
	if _, rerr := up.taskRequest(&client{modern: true, who: two}, "tasks/result", json.RawMessage(`{"taskId":"`+id+`"}`)); rerr == nil || rerr.Error() != TaskNotFound(id).Error() {
		t.Errorf("another token's tasks/result: %v, want task not found", rerr)
	}
	if params, rerr := up.taskRequest(&client{modern: true, who: one}, "tasks/result", json.RawMessage(`{"taskId":"`+id+`"}`)); rerr != nil || string(params) != `{"taskId":"1"}` {
		t.Errorf("the token's own tasks/result: %s %v, want the server's id sent", params, rerr)
	}
}
