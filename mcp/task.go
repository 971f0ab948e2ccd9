package mcp

// Tasks (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks):
// a tools/call the server runs in the background. The client is the
// requestor: it asks for a task with params.task, gets a CreateTaskResult,
// polls tasks/get at the server's pollInterval until the task is terminal
// or needs input, then collects the result with tasks/result (which blocks,
// and carries the server's questions meanwhile as requests of their own).

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mcpv/mcpv/internal/safetext"
)

// RelatedTaskKey is the _meta key that ties a message to a task.
const RelatedTaskKey = "io.modelcontextprotocol/related-task"

// Task statuses.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

const (
	defaultPollInterval = time.Second
	minPollInterval     = 50 * time.Millisecond
	taskCancelWait      = 2 * time.Second
)

// Task is the part of a task the client reads; callers print the rest as
// the server sent it.
type Task struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	// Milliseconds, read as any JSON number: the schema's integers are
	// numbers with nothing after the point, and a server may write 1500
	// as 1500.0.
	PollInterval *float64 `json:"pollInterval"`
	TTL          *float64 `json:"ttl"`
	// The modern era's names for the same.
	PollIntervalMs *float64 `json:"pollIntervalMs"`
	TTLMs          *float64 `json:"ttlMs"`
}

// Terminal reports whether the task has ended: completed, failed or cancelled.
func (t Task) Terminal() bool {
	return t.Status == TaskCompleted || t.Status == TaskFailed || t.Status == TaskCancelled
}

// Poll is how long to wait before asking tasks/get again: the server's
// pollInterval, at least minPollInterval, or a second when it gave none.
func (t Task) Poll() time.Duration {
	ms := cmp.Or(t.PollInterval, t.PollIntervalMs)
	if ms == nil {
		return defaultPollInterval
	}
	if *ms > float64(math.MaxInt64/time.Millisecond) { // as long as a Duration holds, not wrapped round to the floor
		return math.MaxInt64
	}
	return max(time.Duration(*ms)*time.Millisecond, minPollInterval)
}

// TaskEndedError reports a task that ended without a result: cancelled, or
// failed without tasks/result giving one.
type TaskEndedError struct {
	Task Task
}

// Error shows the server's id, status and message escaped where they hold
// characters a terminal would act on (internal/safetext).
func (e *TaskEndedError) Error() string {
	msg := fmt.Sprintf("task %s %s", safetext.Line(e.Task.TaskID), safetext.Line(e.Task.Status))
	if e.Task.StatusMessage != "" {
		msg += ": " + safetext.Prose(e.Task.StatusMessage)
	}
	return msg
}

// Failed reports a failed task, as opposed to a cancelled one.
func (e *TaskEndedError) Failed() bool { return e.Task.Status == TaskFailed }

// TaskParams are the params of tasks/get, tasks/result and tasks/cancel.
func TaskParams(id string) json.RawMessage {
	return mustJSON(map[string]string{"taskId": id})
}

// CreatedTask reads a CreateTaskResult: the task, and its JSON as sent.
func CreatedTask(res json.RawMessage) (Task, json.RawMessage, error) {
	var created struct {
		Task json.RawMessage `json:"task"`
	}
	var t Task
	if IsTaskResult(res) { // the modern era: the task is the result itself
		if json.Unmarshal(res, &t) != nil || t.TaskID == "" {
			return t, nil, &TransportError{Op: "tools/call", Err: errors.New("the server's task result has no taskId")}
		}
		return t, res, nil
	}
	if err := json.Unmarshal(res, &created); err != nil || json.Unmarshal(created.Task, &t) != nil || t.TaskID == "" {
		return t, nil, &TransportError{Op: "tools/call", Err: errors.New("the server's answer to a task-augmented call has no task")}
	}
	return t, created.Task, nil
}

// GetTask asks tasks/get for the task's status.
func (c *Client) GetTask(ctx context.Context, id string) (Task, json.RawMessage, error) {
	raw, err := c.Call(ctx, "tasks/get", TaskParams(id))
	if err != nil {
		return Task{}, nil, err
	}
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil || t.TaskID == "" {
		return t, raw, &TransportError{Op: "tasks/get", Err: errors.New("the answer is not a task")}
	}
	return t, raw, nil
}

// WaitTask waits for task t to end: it polls tasks/get at the server's
// interval, calling onStatus (if set) with each status seen before the end,
// then returns what tasks/result answers and the task as it ended. The
// client's Timeout bounds the whole wait (a *TimeoutError). A task that is
// cancelled, or fails without a result, is a *TaskEndedError; a failed task
// that has a result returns it, with the task's status saying it failed.
func (c *Client) WaitTask(ctx context.Context, t Task, onStatus func(Task)) (json.RawMessage, Task, error) {
	if d := c.opts.Timeout; d > 0 {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		over := &TimeoutError{Method: "task " + t.TaskID, Timeout: d} // made now: the wait moves t on
		whole := c.startTimer(d, func() { cancel(over) })             // on the client's clock, as each request's
		defer whole.Stop()
	}
	if c.era().modern {
		return c.waitModern(ctx, t, onStatus)
	}
	for !t.Terminal() && t.Status != TaskInputRequired {
		next, _, err := c.nextStatus(ctx, t, onStatus)
		if err != nil {
			return nil, t, err
		}
		t = next
	}
	if t.Status == TaskCancelled {
		return nil, t, &TaskEndedError{Task: t}
	}
	// Terminal, or waiting for input: tasks/result blocks until the end and
	// carries the server's questions meanwhile.
	res, err := c.Call(ctx, "tasks/result", TaskParams(t.TaskID))
	if ctx.Err() != nil {
		return nil, t, context.Cause(ctx)
	}
	if !t.Terminal() { // learn how it ended
		if final, _, gerr := c.GetTask(ctx, t.TaskID); gerr == nil {
			t = final
		}
	}
	if err != nil {
		if t.Status == TaskCancelled || t.Status == TaskFailed {
			return nil, t, &TaskEndedError{Task: t}
		}
		return nil, t, err
	}
	return res, t, nil
}

// nextStatus reports t to onStatus (if set), waits its poll interval and
// asks tasks/get again: the task as it is now, and as the server sent it.
// A status that suggests no interval keeps the last one suggested.
func (c *Client) nextStatus(ctx context.Context, t Task, onStatus func(Task)) (Task, json.RawMessage, error) {
	if onStatus != nil {
		onStatus(t)
	}
	if !sleep(ctx, t.Poll()) {
		return t, nil, context.Cause(ctx)
	}
	next, raw, err := c.GetTask(ctx, t.TaskID)
	if err == nil && next.PollInterval == nil && next.PollIntervalMs == nil {
		next.PollInterval, next.PollIntervalMs = t.PollInterval, t.PollIntervalMs
	}
	return next, raw, err
}

// ErrNoTaskCancel means the server did not declare tasks.cancel.
var ErrNoTaskCancel = errors.New(`the server does not declare the "tasks.cancel" capability`)

// CancelTask asks the server to cancel a task the client gave up on, within
// a bound of its own (ctx may be the one that just ended).
func (c *Client) CancelTask(ctx context.Context, id string) error {
	if !c.HasCapability("tasks.cancel") {
		return ErrNoTaskCancel
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), taskCancelWait)
	defer cancel()
	_, err := c.Call(ctx, "tasks/cancel", TaskParams(id))
	return err
}

// RefusedError is a request the client will not send because the server or
// the tool does not allow it.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// TaskWanted decides whether a tools/call of tool carries a task, exactly as
// the specification gates it: the server must declare
// tasks.requests.tools.call, and the tool's execution.taskSupport must be
// "optional" (and the caller asked) or "required". Asking for a task the
// server or tool does not allow is a *CapabilityError or *RefusedError.
func (c *Client) TaskWanted(tool Tool, asked bool) (bool, error) {
	if c.era().modern {
		// The server decides per call and answers with a task or not;
		// the request asks for nothing.
		if asked && !c.hasTasksExtension() {
			return false, c.RequireExtension(TasksExtension, "tools/call as a task")
		}
		return false, nil
	}
	switch has := c.HasCapability("tasks.requests.tools.call"); {
	case !has && asked:
		return false, &CapabilityError{Capability: "tasks.requests.tools.call", Method: "tools/call with a task"}
	case has && tool.TaskSupport == "required":
		return true, nil
	case !has || !asked:
		return false, nil
	case tool.TaskSupport == "optional":
		return true, nil
	case tool.Raw == nil:
		return false, &RefusedError{fmt.Sprintf("the server lists no tool %q, so it cannot run it as a task", tool.Name)}
	}
	return false, &RefusedError{fmt.Sprintf("tool %q does not support tasks (its execution.taskSupport is %q)", tool.Name, tool.TaskSupport)}
}
