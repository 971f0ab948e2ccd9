package commands

import (
	"context"
	"encoding/json"

	"github.com/mcpv/mcpv/internal/stringargs"
)

type getPromptCmd struct {
	Name       string   `arg:"" help:"The prompt's name."`
	Pairs      []string `arg:"" optional:"" sep:"none" name:"key=value" help:"Prompt arguments (strings)."`
	NoValidate bool     `name:"no-validate" help:"Send the arguments without checking them against the prompt's declared arguments."`

	members []stringargs.Member
}

func (c *getPromptCmd) Help() string {
	return `The arguments are checked against the ones the prompt declares (prompts/list): every required one must be given, and unknown ones are refused (exit 2), unless --no-validate.

Examples:

    $ mcpv get-prompt greet name=Ada -- ./server`
}

func (c *getPromptCmd) Validate() error {
	ms, err := stringargs.Parse(c.Pairs, "prompt arguments")
	if err != nil {
		return err
	}
	c.members = ms
	return nil
}

func (c *getPromptCmd) Run(ctx context.Context, s *session, out *console) error {
	params, err := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}{c.Name, stringargs.Object(c.members)})
	if err != nil {
		return err
	}
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := client.Require("prompts", "prompts/get"); err != nil {
		return err
	}
	if !c.NoValidate {
		if err := stringargs.CheckPrompt(ctx, client, c.Name, c.members, out.warnf); err != nil {
			return err
		}
	}
	res, err := client.Call(ctx, "prompts/get", params)
	if err != nil {
		return err
	}
	return out.print(res)
}
