package commands

import (
	"context"
	"encoding/json"
)

type readCmd struct {
	URI string `arg:"" name:"uri" help:"The resource's URI."`
}

func (c *readCmd) Help() string {
	return `Examples:

    $ mcpv read file:///etc/hosts -- ./server
    $ mcpv read demo://readme -r -q '.contents[0].text' -- ./server`
}

func (c *readCmd) Run(ctx context.Context, s *session, out *console) error {
	params, _ := json.Marshal(struct {
		URI string `json:"uri"`
	}{c.URI})
	res, err := s.request(ctx, "resources", "resources/read", params)
	if err != nil {
		return err
	}
	return out.print(res)
}
