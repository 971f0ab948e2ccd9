package commands

import (
	"context"
)

type pingCmd struct{}

func (c *pingCmd) Help() string {
	return `Examples:

    $ mcpv ping -- ./server

Against a server of the modern era (2026-07-28), which has no ping, it sends server/discover and prints {} when it is answered.`
}

func (c *pingCmd) Run(ctx context.Context, s *session, out *console) error {
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	// The modern era has no ping: server/discover is the cheapest request
	// a server must answer (mcp.Client.Ping). Its result is not printed:
	// {} is, as a ping's.
	return out.printOf(client.Ping(ctx))
}
