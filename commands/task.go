package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/mcp"
)

// refusal is a request mcpv will not send or a result it will not accept
// (exit 3, like a missing capability).
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

// findTool returns the definition of the tool called name: from the batch's
// cache when there is one, else by walking tools/list until it is found.
func (a *app) findTool(ctx context.Context, client *mcp.Client, name string) (mcp.Tool, error) {
	if a.tools != nil {
		return a.tools.Find(ctx, client, name)
	}
	return client.FindTool(ctx, name)
}

// followTask waits for a task to end, showing its status, then prints what
// tasks/result returns. When cancelOnStop is set, an interrupt or timeout
// cancels the task on the server first.
func (a *app) followTask(ctx context.Context, client *mcp.Client, t mcp.Task, cancelOnStop bool, printResult func(json.RawMessage) error) error {
	res, final, err := client.WaitTask(ctx, t, func(t mcp.Task) { a.ios.Status.Set(taskStatus(t)) })
	if err != nil {
		var timeout *mcp.TimeoutError
		if cancelOnStop && (ctx.Err() != nil || errors.As(err, &timeout)) {
			a.cancelTask(ctx, client, t.TaskID)
		}
		return err
	}
	err = printResult(res)
	if final.Status == mcp.TaskFailed && (err == nil || errors.Is(err, errToolFailed)) {
		return &mcp.TaskEndedError{Task: final}
	}
	return err
}

func taskStatus(t mcp.Task) string {
	return strings.TrimSpace(fmt.Sprintf("mcpv: task %s: %s %s", t.TaskID, t.Status, t.StatusMessage))
}

// cancelTask asks the server to cancel a task we gave up on; a server
// without tasks.cancel already got notifications/cancelled for the request
// in flight.
func (a *app) cancelTask(ctx context.Context, client *mcp.Client, id string) {
	switch err := client.CancelTask(ctx, id); {
	case errors.Is(err, mcp.ErrNoTaskCancel):
	case err != nil:
		fmt.Fprintf(a.ios.Err, "mcpv: warning: could not cancel task %s: %v\n", id, err)
	default:
		fmt.Fprintf(a.ios.Err, "mcpv: task %s cancelled\n", id)
	}
}

// createdTask reads a CreateTaskResult and reports the new task.
func (a *app) createdTask(res json.RawMessage) (mcp.Task, error) {
	t, raw, err := mcp.CreatedTask(res)
	if err != nil {
		return t, err
	}
	fmt.Fprintf(a.ios.Err, "mcpv: task %s created (%s)\n", t.TaskID, t.Status)
	if a.events != nil {
		a.events.write("mcpv/task-created", raw)
	}
	return t, nil
}
