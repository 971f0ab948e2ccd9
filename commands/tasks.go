package commands

import (
	"cmp"
	"context"
	"encoding/json"

	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/mcp"
)

type tasksCmd struct {
	List   tasksListCmd   `cmd:"" help:"List the server's tasks (every page)."`
	Get    tasksGetCmd    `cmd:"" help:"Print a task's status."`
	Result tasksResultCmd `cmd:"" help:"Wait for a task to end and print its result."`
	Cancel tasksCancelCmd `cmd:"" help:"Cancel a task."`
}

func (c *tasksCmd) Help() string {
	return `Tasks are tool calls the server runs in the background (mcpv call --task). These commands look after tasks created earlier, by this or another session.

Against a server of the 2026-07-28 era tasks are an extension (io.modelcontextprotocol/tasks): the server decides which calls become tasks, get, result and cancel work by id (result polls tasks/get until the task ends), and there is no list.

Examples:

    $ mcpv tasks list -u https://example.com/mcp
    $ mcpv tasks result "$id" -u https://example.com/mcp
    $ mcpv tasks cancel "$id" -u https://example.com/mcp`
}

type tasksListCmd struct{ pageFlags }

func (c *tasksListCmd) Run(ctx context.Context, s *session, out *console) error {
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	if client.Modern() {
		return &refusal{"a server of the 2026-07-28 era has no tasks/list: tasks are looked after by id (tasks get, result, cancel)"}
	}
	return list(ctx, s, out, c.pageFlags, "tasks.list", "tasks/list", "tasks", nil)
}

type taskID struct {
	ID string `arg:"" name:"id" help:"The task's id."`
}

func (t taskID) params() json.RawMessage { return mcp.TaskParams(t.ID) }

type tasksGetCmd struct{ taskID }

func (c *tasksGetCmd) Run(ctx context.Context, s *session, out *console) error {
	return out.printOf(s.request(ctx, "tasks", "tasks/get", c.params()))
}

type tasksResultCmd struct{ taskID }

func (c *tasksResultCmd) Help() string {
	return `Polls the task at the server's interval until it ends, then prints what tasks/result returns, with the exit codes of a call: isError or a failed task 1, a cancelled task 3. --timeout bounds the wait; an interrupted wait leaves the task running.`
}

func (c *tasksResultCmd) Run(ctx context.Context, s *session, out *console) error {
	client, err := s.required(ctx, "tasks", "tasks/get")
	if err != nil {
		return err
	}
	t, _, err := client.GetTask(ctx, c.ID)
	if err != nil {
		return err
	}
	return followTask(ctx, client, out, t, false, func(res json.RawMessage) error {
		return cmp.Or(out.print(res), toolcall.ResultFields(res).Err(res))
	})
}

type tasksCancelCmd struct{ taskID }

func (c *tasksCancelCmd) Run(ctx context.Context, s *session, out *console) error {
	return out.printOf(s.request(ctx, "tasks.cancel", "tasks/cancel", c.params()))
}
