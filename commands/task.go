package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// Tasks (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks): a tools/call
// the server runs in the background, polled
// with tasks/get and collected with tasks/result.

const (
	defaultPollInterval = time.Second
	minPollInterval     = 50 * time.Millisecond
	relatedTaskKey      = "io.modelcontextprotocol/related-task"
)

// task is the part of a Task mcpv reads; the rest is printed as sent.
type task struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	PollInterval  *int64 `json:"pollInterval"`
	TTL           *int64 `json:"ttl"`
}

func (t task) terminal() bool {
	return t.Status == "completed" || t.Status == "failed" || t.Status == "cancelled"
}

func (t task) poll() time.Duration {
	if t.PollInterval == nil {
		return defaultPollInterval
	}
	return max(time.Duration(*t.PollInterval)*time.Millisecond, minPollInterval)
}

var errMalformedTask = errors.New("the answer is not a task")

// refusal is a request mcpv will not send because the server or tool does
// not allow it (exit 3, like a missing capability).
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

// taskEnded reports a task that ended without a result to print.
type taskEnded struct {
	t      task
	failed bool // exit 1; otherwise it was cancelled (exit 3)
}

func (e *taskEnded) Error() string {
	msg := fmt.Sprintf("task %s %s", e.t.TaskID, e.t.Status)
	if e.t.StatusMessage != "" {
		msg += ": " + e.t.StatusMessage
	}
	return msg
}

// useTask decides whether tools/call carries a task, exactly as the spec
// gates it: the server must declare tasks.requests.tools.call, and the tool's
// execution.taskSupport must be optional (and asked for) or required.
func (a *app) useTask(ctx context.Context, client *mcp.Client, tool string, asked bool, def toolDef) (bool, error) {
	if !client.HasCapability("tasks.requests.tools.call") {
		if asked {
			return false, &mcp.CapabilityError{Capability: "tasks.requests.tools.call", Method: "tools/call with a task"}
		}
		return false, nil
	}
	switch def.Execution.TaskSupport {
	case "required":
		return true, nil
	case "optional":
		return asked, nil
	}
	if asked {
		if !def.found {
			return false, &refusal{fmt.Sprintf("the server lists no tool %q, so it cannot run it as a task", tool)}
		}
		return false, &refusal{fmt.Sprintf("tool %q does not support tasks (its execution.taskSupport is %q)", tool, def.Execution.TaskSupport)}
	}
	return false, nil
}

// toolCache keeps a batch's tool definitions, so that a thousand call lines
// cost one tools/list walk; notifications/tools/list_changed empties it.
type toolCache struct {
	mu    sync.Mutex
	tools map[string]json.RawMessage // guarded by mu; nil until listed
}

func (t *toolCache) reset() {
	t.mu.Lock()
	t.tools = nil
	t.mu.Unlock()
}

// findTool returns the definition of the tool called name, or nil.
func (a *app) findTool(ctx context.Context, client *mcp.Client, name string) (json.RawMessage, error) {
	if a.tools == nil {
		return findTool(ctx, client, name, nil)
	}
	a.tools.mu.Lock()
	defer a.tools.mu.Unlock()
	if a.tools.tools == nil {
		all := map[string]json.RawMessage{}
		if _, err := findTool(ctx, client, "", all); err != nil {
			return nil, err
		}
		a.tools.tools = all
	}
	return a.tools.tools[name], nil
}

// findTool walks tools/list, page by page, for the tool called name; with
// all non-nil it walks every page and keeps every tool there.
func findTool(ctx context.Context, client *mcp.Client, name string, all map[string]json.RawMessage) (json.RawMessage, error) {
	var found json.RawMessage
	err := client.Each(ctx, "tools/list", "tools", func(tools []json.RawMessage) bool {
		for _, t := range tools {
			var n struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(t, &n) != nil {
				continue
			}
			if all != nil {
				all[n.Name] = t
			} else if n.Name == name {
				found = t
				return true
			}
		}
		return false
	})
	return found, err
}

// taskRequest is the task member of tools/call params: {} or {"ttl": ms}.
type taskRequest struct {
	TTL int64 `json:"ttl,omitempty"`
}

// newTaskRequest returns the task member, or nil when the call is no task.
func newTaskRequest(asTask bool, ttl time.Duration) *taskRequest {
	if !asTask {
		return nil
	}
	return &taskRequest{TTL: ttl.Milliseconds()}
}

// followTask waits for a task to end, polling tasks/get at the server's
// interval and showing its status, then prints what tasks/result returns.
// When cancelOnStop is set, an interrupt or timeout cancels the task on the
// server first.
func (a *app) followTask(ctx context.Context, client *mcp.Client, t task, cancelOnStop bool, printResult func(json.RawMessage) error) error {
	if d := a.flags.Timeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, &mcp.TimeoutError{Method: "task " + t.TaskID, Timeout: d})
		defer cancel()
	}
	err := a.waitTask(ctx, client, t, printResult)
	if err != nil && ctx.Err() != nil && cancelOnStop {
		a.cancelTask(client, t.TaskID)
	}
	return err
}

func (a *app) waitTask(ctx context.Context, client *mcp.Client, t task, printResult func(json.RawMessage) error) error {
	idParams := mustJSON(map[string]string{"taskId": t.TaskID})
	for !t.terminal() && t.Status != "input_required" {
		a.ios.Status.Set(strings.TrimSpace(fmt.Sprintf("mcpv: task %s: %s %s", t.TaskID, t.Status, t.StatusMessage)))
		timer := time.NewTimer(t.poll())
		select {
		case <-ctx.Done():
			timer.Stop()
			return context.Cause(ctx)
		case <-timer.C:
		}
		raw, err := client.Call(ctx, "tasks/get", idParams)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return &mcp.TransportError{Op: "tasks/get", Err: err}
		}
	}
	if t.Status == "cancelled" {
		return &taskEnded{t: t}
	}
	// Terminal, or waiting for input: tasks/result blocks until the end and
	// carries the server's questions meanwhile (answered by serveRequest).
	res, err := client.Call(ctx, "tasks/result", idParams)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if !t.terminal() { // learn how it ended
		if raw, gerr := client.Call(ctx, "tasks/get", idParams); gerr == nil {
			json.Unmarshal(raw, &t)
		}
	}
	if err != nil {
		if t.Status == "cancelled" || t.Status == "failed" {
			return &taskEnded{t: t, failed: t.Status == "failed"}
		}
		return err
	}
	err = printResult(res)
	if t.Status == "failed" && (err == nil || errors.Is(err, errToolFailed)) {
		return &taskEnded{t: t, failed: true}
	}
	return err
}

// cancelTask asks the server to cancel a task we gave up on (bounded); a
// server without tasks.cancel already got notifications/cancelled for the
// request in flight.
func (a *app) cancelTask(client *mcp.Client, id string) {
	if !client.HasCapability("tasks.cancel") {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := client.Call(ctx, "tasks/cancel", mustJSON(map[string]string{"taskId": id})); err != nil {
		fmt.Fprintf(a.ios.Err, "mcpv: warning: could not cancel task %s: %v\n", id, err)
		return
	}
	fmt.Fprintf(a.ios.Err, "mcpv: task %s cancelled\n", id)
}

// createdTask reads a CreateTaskResult and reports the new task.
func (a *app) createdTask(res json.RawMessage) (task, error) {
	var created struct {
		Task json.RawMessage `json:"task"`
	}
	var t task
	if err := json.Unmarshal(res, &created); err != nil || json.Unmarshal(created.Task, &t) != nil || t.TaskID == "" {
		return t, &mcp.TransportError{Op: "tools/call", Err: errors.New("the server's answer to a task-augmented call has no task")}
	}
	fmt.Fprintf(a.ios.Err, "mcpv: task %s created (%s)\n", t.TaskID, t.Status)
	if a.events != nil {
		a.events.write("mcpv/task-created", created.Task)
	}
	return t, nil
}
