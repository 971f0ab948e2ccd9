package serve

// Tasks (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks,
// and the 2026-07-28 era's tasks extension) belong to the client that
// started them. A server's task ids may be guessed, and several clients
// share one session with the server: so no client ever sees the server's
// id, but a random one of serve's own. A client of the initialize era
// reaches only its own tasks, a modern one only those whose id it was
// given, and of its own bearer token; any other id is "not found", tasks/list lists the client's own
// alone, and what the server sends about a task goes to its client alone.

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// maxTasks bounds the tasks a session's book keeps: past it the oldest is
// forgotten (its client is then told it is not found).
const maxTasks = 16384

// maxTaskResult is the largest tools/call result looked into for a task
// the server made: a task result is a Task, a few hundred bytes.
const maxTaskResult = 1 << 20

// taskBook is an upstream session's tasks, by both ids.
type taskBook struct {
	mu     sync.Mutex // guards the fields below
	byOurs map[string]*taskEntry
	byUp   map[string]*taskEntry
	order  []*taskEntry // oldest first
}

// taskEntry is one task: serve's id, the server's, and whose it is (nil
// for a modern client's: whoever of its token holds the id).
type taskEntry struct {
	ours, up string
	owner    *client
	who      *View // the view of its client's bearer token
}

// addTask is b.add, telling Server.OnTask of a new task.
func (u *upstream) addTask(c *client, up string) string {
	ours, fresh := u.tasks.add(c, up)
	if fresh && u.srv.OnTask != nil {
		u.srv.OnTask(ours)
	}
	return ours
}

// add notes a task the server made for c's request (unless it is noted
// already); it returns serve's id for it, and whether it is new.
func (b *taskBook) add(c *client, up string) (string, bool) {
	var raw [12]byte
	rand.Read(raw[:])
	e := &taskEntry{ours: "mcpv-task-" + hex.EncodeToString(raw[:]), up: up, who: c.who}
	if !c.isModern() {
		e.owner = c
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if known := b.byUp[up]; known != nil {
		return known.ours, false
	}
	if len(b.order) >= maxTasks {
		b.drop(b.order[0])
	}
	lazy.Put(&b.byOurs, e.ours, e)
	lazy.Put(&b.byUp, up, e)
	b.order = append(b.order, e)
	return e.ours, true
}

// drop forgets e; b.mu is held.
func (b *taskBook) drop(e *taskEntry) {
	delete(b.byOurs, e.ours)
	if b.byUp[e.up] == e {
		delete(b.byUp, e.up)
	}
	b.order = slices.DeleteFunc(b.order, func(x *taskEntry) bool { return x == e })
}

// forget drops the tasks of a client that left: no one else may reach
// them.
func (b *taskBook) forget(c *client) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range slices.Clone(b.order) {
		if e.owner == c {
			b.drop(e)
		}
	}
}

// ours is c's task of serve's id: nil when there is none, or it is not
// c's (nor, a modern client's, its token's).
func (b *taskBook) ours(c *client, id string) *taskEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.byOurs[id]
	if e == nil || e.owner != nil && e.owner != c || e.who != c.who {
		return nil
	}
	return e
}

// upstream is the task of the server's id, nil when serve made none.
func (b *taskBook) upstream(id string) *taskEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byUp[id]
}

// taskMethods are the requests that name a task by its id.
var taskMethods = map[string]bool{"tasks/get": true, "tasks/result": true, "tasks/cancel": true, "tasks/update": true}

// TaskNotFound is the answer for a task id that is not the client's.
func TaskNotFound(id string) *mcp.RPCError {
	return &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "task not found: " + id}
}

// taskRequest is the params of a client's request that names a task, for
// the server: its id replaced by the server's. A task that is not the
// client's is not found.
func (u *upstream) taskRequest(c *client, method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	if !taskMethods[method] {
		return params, nil
	}
	id, _ := rawjson.String(rawjson.Member(params, "taskId"))
	e := u.tasks.ours(c, id)
	if e == nil {
		return nil, TaskNotFound(id)
	}
	return rawjson.With(params, "taskId", mustJSON(e.up)), nil
}

// taskResult is a result for the client: the tasks the server made for
// it noted and named by serve's ids, the ids of the server's tasks in it
// replaced by serve's, and a task list cut to the client's own.
func (u *upstream) taskResult(c *client, method string, res json.RawMessage) json.RawMessage {
	switch method {
	case "tools/call":
		if len(res) > maxTaskResult {
			return res // no task: a call's large result is not read for one
		}
		if created := rawjson.Member(res, "task"); rawjson.IsObject(created) {
			// The initialize era's CreateTaskResult: {"task": Task}.
			return rawjson.With(res, "task", u.renameTask(c, created, true))
		}
		if mcp.IsTaskResult(res) { // the modern era's: the Task itself
			return u.renameTask(c, res, true)
		}
	case "tasks/get", "tasks/cancel", "tasks/update":
		return u.renameTask(c, res, false)
	case "tasks/result":
		return u.renameRelated(res)
	case "tasks/list": // cut to c's tasks, named by serve's ids
		kept := []json.RawMessage{}
		rawjson.ForEachElement(rawjson.Member(res, "tasks"), func(_ int, t []byte) {
			id, _ := rawjson.String(rawjson.Member(t, "taskId"))
			if e := u.tasks.upstream(id); e != nil && e.owner == c {
				kept = append(kept, rawjson.With(t, "taskId", mustJSON(e.ours)))
			}
		})
		return rawjson.With(res, "tasks", mustJSON(kept))
	}
	return res
}

// renameTask is a Task (or a modern task result) with the server's id
// replaced by serve's, made for c if made is set.
func (u *upstream) renameTask(c *client, task json.RawMessage, made bool) json.RawMessage {
	id, _ := rawjson.String(rawjson.Member(task, "taskId"))
	if id == "" {
		return task
	}
	if made { // addTask names a task noted already by the id it has
		return rawjson.With(task, "taskId", mustJSON(u.addTask(c, id)))
	}
	if e := u.tasks.upstream(id); e != nil {
		return rawjson.With(task, "taskId", mustJSON(e.ours))
	}
	return task
}

// relatedTask is the server's id of the task a message's params name in
// their _meta, "" when they name none.
func relatedTask(params json.RawMessage) string {
	meta := rawjson.Member(params, "_meta")
	id, _ := rawjson.String(rawjson.Member(rawjson.Member(meta, mcp.RelatedTaskKey), "taskId"))
	return id
}

// renameRelated is a message's params (or a result) whose _meta names a
// task of the server's, naming it by serve's id.
func (u *upstream) renameRelated(params json.RawMessage) json.RawMessage {
	e := u.tasks.upstream(relatedTask(params))
	if e == nil {
		return params
	}
	meta := rawjson.Member(params, "_meta")
	related := rawjson.With(rawjson.Member(meta, mcp.RelatedTaskKey), "taskId", mustJSON(e.ours))
	return rawjson.With(params, "_meta", rawjson.With(meta, mcp.RelatedTaskKey, related))
}

// taskOwner is the request a message of the server about a task (its
// status, its question) goes to: the task's client. ok is false for a
// message that names no task; r is nil for a task no client of the
// initialize era holds (one serve never relayed, or a modern client's,
// which polls): it reaches no one.
func (u *upstream) taskOwner(method string, params json.RawMessage) (r *relayed, ok bool) {
	id := relatedTask(params)
	if id == "" && method == "notifications/tasks/status" {
		id, _ = rawjson.String(rawjson.Member(params, "taskId"))
	}
	if id == "" {
		return nil, false
	}
	e := u.tasks.upstream(id)
	if e == nil || e.owner == nil {
		return nil, true
	}
	return &relayed{c: e.owner, id: e.owner.latest()}, true
}
