package commands

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/mcp"
)

// refusal is a request mcpv will not send or a result it will not accept
// (exit 3, like a missing capability).
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

// followTask waits for a task to end, showing its status, then prints what
// tasks/result returns. When cancelOnStop is set, an interrupt or timeout
// cancels the task on the server first.
func followTask(ctx context.Context, client *mcp.Client, out *console, t mcp.Task, cancelOnStop bool, printResult func(json.RawMessage) error) error {
	res, final, err := client.WaitTask(ctx, t, func(t mcp.Task) { out.ios.Status.Set(connect.TaskStatus(t)) })
	if err != nil {
		if cancelOnStop && (ctx.Err() != nil || isA[*mcp.TimeoutError](err)) {
			cancelTask(ctx, client, out, t.TaskID)
		}
		return err
	}
	err = printResult(res)
	if final.Status == mcp.TaskFailed && (err == nil || errors.Is(err, toolcall.ErrFailed)) {
		return &mcp.TaskEndedError{Task: final}
	}
	return err
}

// cancelTask asks the server to cancel a task we gave up on; a server
// without tasks.cancel already got notifications/cancelled for the request
// in flight.
func cancelTask(ctx context.Context, client *mcp.Client, out *console, id string) {
	switch err := client.CancelTask(ctx, id); {
	case errors.Is(err, mcp.ErrNoTaskCancel):
	case err != nil:
		out.warnf("could not cancel task %s: %v", id, err)
	default:
		out.notef("task %s cancelled", id)
	}
}

// createdTask reads a CreateTaskResult and reports the new task.
func createdTask(s *session, out *console, res json.RawMessage) (mcp.Task, error) {
	t, raw, err := mcp.CreatedTask(res)
	if err != nil {
		return t, err
	}
	out.notef("task %s created (%s)", t.TaskID, t.Status)
	s.hooks.Events.Write("mcpv/task-created", raw) // an event of mcpv's own, in --events
	return t, nil
}
