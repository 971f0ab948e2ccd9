package commands

import (
	"context"
	"encoding/json"
)

type getPromptCmd struct {
	Name  string   `arg:"" help:"The prompt's name."`
	Pairs []string `arg:"" optional:"" sep:"none" name:"key=value" help:"Prompt arguments (strings)."`

	members []member
}

func (c *getPromptCmd) Help() string {
	return `Examples:

    $ mcpv get-prompt greet name=Ada -- ./server`
}

func (c *getPromptCmd) Validate() error {
	ms, err := parsePairs(c.Pairs, true)
	if err != nil {
		return err
	}
	c.members = ms
	return nil
}

func (c *getPromptCmd) Run(ctx context.Context, a *app) error {
	params, err := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}{c.Name, encodeObject(c.members)})
	if err != nil {
		return err
	}
	res, err := a.request(ctx, "prompts", "prompts/get", params)
	if err != nil {
		return err
	}
	return a.print(res)
}
