package commands

import (
	"context"

	"github.com/mcpv/mcpv/internal/table"
)

type infoCmd struct{}

func (c *infoCmd) Help() string {
	return `Examples:

    $ mcpv info -- ./server
    $ mcpv info -o table -- ./server
    $ mcpv info -r -q .serverInfo.name -- ./server`
}

func (c *infoCmd) Run(ctx context.Context, s *session, out *console) error {
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := client.Settle(ctx); err != nil { // the server's answer, not the one remembered
		return err
	}
	return out.printView(client.InitializeResult(), table.Info)
}
