package commands

import (
	"context"

	"github.com/mcpv/mcpv/internal/table"
)

type infoCmd struct{}

func (c *infoCmd) Help() string {
	return `Prints the server's answer as sent, with one member of mcpv's own at its end: clientCapabilities, what mcpv declared to the server, so that the extensions each side declares read alike (.capabilities.extensions, .clientCapabilities.extensions). An extension is in use when both declare it; --no-extension NAME keeps mcpv from declaring one.

Examples:

    $ mcpv info -- ./server
    $ mcpv info -o table -- ./server
    $ mcpv info -r -q .serverInfo.name -- ./server
    $ mcpv info -c \
        -q '[.capabilities.extensions, .clientCapabilities.extensions | keys]' \
        -- ./server`
}

func (c *infoCmd) Run(ctx context.Context, s *session, out *console) error {
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := client.Settle(ctx); err != nil { // the server's answer, not the one remembered
		return err
	}
	return out.printView(client.Info(), table.Info)
}
