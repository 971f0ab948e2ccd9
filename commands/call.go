package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

type callCmd struct {
	Tool     string   `arg:"" help:"The tool's name."`
	Pairs    []string `arg:"" optional:"" sep:"none" name:"key=value" help:"Arguments: key=value (a string) or key:=JSON (any JSON value)."`
	ArgsJSON string   `name:"args" placeholder:"JSON|@FILE|-" help:"Arguments as a JSON object, from a file (@FILE) or stdin (-); key=value pairs override its members."`

	Task   bool          `name:"task" help:"Run the call as a task, if the tool allows it: report its id, poll its status, print its result. A tool that requires a task gets one without asking."`
	TTL    time.Duration `name:"ttl" placeholder:"DURATION" help:"Ask the server to keep the task (and its result) this long."`
	Detach bool          `name:"detach" help:"With a task: print the created task and exit at once; collect it later with mcpv tasks result ID."`

	members []member
}

func (c *callCmd) Help() string {
	return `Calls the tool and prints its result. A result with isError: true is printed and exits 1.

As a task (--task, or always for a tool whose execution.taskSupport is required), the call reports the task's id on stderr, polls tasks/get at the server's interval and prints what tasks/result returns: a failed task exits 1 with its status message, a cancelled one exits 3. --timeout bounds the whole wait; on expiry or Ctrl-C the task is cancelled on the server (exit 124 or 130).

Examples:

    $ mcpv call echo message=hi -- ./server
    $ mcpv call add a:=2 b:=3 -q .structuredContent.sum -- ./server
    $ mcpv call search --args '{"query":"mcp","limit":5}' -- ./server
    $ echo '{"message":"from stdin"}' | mcpv call echo --args - -- ./server
    $ mcpv call research topic=mcp --task --ttl 1h -u https://example.com/mcp
    $ id=$(mcpv call research topic=mcp --detach -r -q .task.taskId -u https://example.com/mcp)`
}

func (c *callCmd) Validate() error {
	if c.TTL < 0 {
		return fmt.Errorf("--ttl cannot be negative")
	}
	ms, err := parsePairs(c.Pairs, false)
	if err != nil {
		return err
	}
	c.members = ms
	return nil
}

func (c *callCmd) Run(ctx context.Context, a *app) error {
	members := c.members
	if c.ArgsJSON != "" {
		raw, err := readJSONArg("--args", c.ArgsJSON, a.ios.In)
		if err != nil {
			return usageError{err}
		}
		base, err := objectMembers("--args", raw)
		if err != nil {
			return usageError{err}
		}
		members = mergeMembers(base, members)
	}
	params, err := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{c.Tool, encodeObject(members)})
	if err != nil {
		return err
	}
	client, err := a.connect(ctx)
	if err != nil {
		return err
	}
	if err := client.Require("tools", "tools/call"); err != nil {
		return err
	}
	asTask, err := a.useTask(ctx, client, c.Tool, c.Task || c.Detach)
	if err != nil {
		return err
	}
	if asTask {
		if params, err = taskParams(params, c.TTL); err != nil {
			return err
		}
	}
	res, err := client.Call(ctx, "tools/call", params)
	if err != nil {
		return err
	}
	if asTask {
		t, err := a.createdTask(res)
		if err != nil {
			return err
		}
		if c.Detach {
			return a.print(res)
		}
		return a.followTask(ctx, client, t, true)
	}
	if err := a.print(res); err != nil {
		return err
	}
	if isToolError(res) {
		return errToolFailed
	}
	return nil
}

// isToolError reports a CallToolResult with isError: true.
func isToolError(res json.RawMessage) bool {
	failed := false
	rawjson.ForEachMember(res, func(k string, v []byte) error {
		if k == "isError" && string(v) == "true" {
			failed = true
		}
		return nil
	})
	return failed
}
