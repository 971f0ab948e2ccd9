package commands

import "context"

type pingCmd struct{}

func (c *pingCmd) Help() string {
	return `Examples:

    $ mcpv ping -- ./server`
}

func (c *pingCmd) Run(ctx context.Context, a *app) error {
	client, err := a.connect(ctx)
	if err != nil {
		return err
	}
	res, err := client.Call(ctx, "ping", nil)
	if err != nil {
		return err
	}
	return a.print(res)
}
