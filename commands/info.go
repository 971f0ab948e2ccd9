package commands

import "context"

type infoCmd struct{}

func (c *infoCmd) Help() string {
	return `Examples:

    $ mcpv info -- ./server
    $ mcpv info -r -q .serverInfo.name -- ./server`
}

func (c *infoCmd) Run(ctx context.Context, a *app) error {
	client, err := a.connect(ctx)
	if err != nil {
		return err
	}
	return a.print(client.InitializeResult())
}
