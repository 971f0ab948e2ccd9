package commands

import "context"

type pingCmd struct{}

func (c *pingCmd) Help() string {
	return `Examples:

    $ mcpv ping -- ./server`
}

func (c *pingCmd) Run(ctx context.Context, s *session, out *console) error {
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	res, err := client.Call(ctx, "ping", nil)
	if err != nil {
		return err
	}
	return out.print(res)
}
