package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/toolcall"
)

type requestCmd struct {
	Method string `arg:"" help:"The JSON-RPC method, e.g. tools/list."`
	Params string `arg:"" optional:"" placeholder:"PARAMS" help:"The params: a JSON object, @FILE, or - for stdin."`
}

func (c *requestCmd) Help() string {
	return `Sends the request as given, with no capability check, and prints the raw result. A method under notifications/ is sent as a notification and prints nothing.

Examples:

    $ mcpv request tools/list '{"cursor":"abc"}' -- ./server
    $ mcpv request logging/setLevel '{"level":"debug"}' -- ./server
    $ mcpv request notifications/roots/list_changed -- ./server`
}

func (c *requestCmd) Validate() error {
	if c.Method == "" {
		return fmt.Errorf("the method cannot be empty")
	}
	return nil
}

func (c *requestCmd) Run(ctx context.Context, s *session, out *console) error {
	var params []byte
	if c.Params != "" {
		var err error
		if params, err = readJSONObject("params", c.Params, out); err != nil {
			return err
		}
	}
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	if strings.HasPrefix(c.Method, "notifications/") {
		ctx, cancel := toolcall.Checker{Timeout: s.settings.Timeout}.Bounded(ctx, c.Method)
		defer cancel()
		return client.Notify(ctx, c.Method, params)
	}
	if err := s.pinRequest(ctx, client, c.Method, params); err != nil {
		return err
	}
	return out.printOf(client.Call(ctx, c.Method, params))
}
