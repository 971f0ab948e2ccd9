package commands

import (
	"context"
	"encoding/json"

	"github.com/mcpv/mcpv/internal/rawjson"
)

type callCmd struct {
	Tool     string   `arg:"" help:"The tool's name."`
	Pairs    []string `arg:"" optional:"" sep:"none" name:"key=value" help:"Arguments: key=value (a string) or key:=JSON (any JSON value)."`
	ArgsJSON string   `name:"args" placeholder:"JSON|@FILE|-" help:"Arguments as a JSON object, from a file (@FILE) or stdin (-); key=value pairs override its members."`

	members []member
}

func (c *callCmd) Help() string {
	return `Calls the tool and prints its result. A result with isError: true is printed and exits 1.

Examples:

    $ mcpv call echo message=hi -- ./server
    $ mcpv call add a:=2 b:=3 -q .structuredContent.sum -- ./server
    $ mcpv call search --args '{"query":"mcp","limit":5}' -- ./server
    $ echo '{"message":"from stdin"}' | mcpv call echo --args - -- ./server`
}

func (c *callCmd) Validate() error {
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
	res, err := a.request(ctx, "tools", "tools/call", params)
	if err != nil {
		return err
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
