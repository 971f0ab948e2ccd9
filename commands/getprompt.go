package commands

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/mcp"
)

type getPromptCmd struct {
	Name       string   `arg:"" help:"The prompt's name."`
	Pairs      []string `arg:"" optional:"" sep:"none" name:"key=value" help:"Prompt arguments (strings)."`
	NoValidate bool     `name:"no-validate" help:"Send the arguments without checking them against the prompt's declared arguments."`

	members []member
}

func (c *getPromptCmd) Help() string {
	return `The arguments are checked against the ones the prompt declares (prompts/list): every required one must be given, and unknown ones are refused (exit 2), unless --no-validate.

Examples:

    $ mcpv get-prompt greet name=Ada -- ./server`
}

func (c *getPromptCmd) Validate() error {
	ms, err := parseStringPairs(c.Pairs, "prompt arguments")
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
	}{c.Name, encodeObject(c.members)})
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
		if err := c.check(ctx, out, client); err != nil {
			return err
		}
	}
	res, err := client.Call(ctx, "prompts/get", params)
	if err != nil {
		return err
	}
	return out.print(res)
}

// check compares the arguments with the ones the prompt declares.
func (c *getPromptCmd) check(ctx context.Context, out *console, client *mcp.Client) error {
	res, _, err := client.List(ctx, "prompts/list", "prompts", mcp.Pages{})
	var ce *mcp.CallError
	if errors.As(err, &ce) {
		out.warnf("could not list the prompts (%v); arguments not checked", err)
		return nil
	}
	if err != nil {
		return err
	}
	var list struct {
		Prompts []struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"arguments"`
		} `json:"prompts"`
	}
	json.Unmarshal(res, &list)
	for _, p := range list.Prompts {
		if p.Name != c.Name {
			continue
		}
		var declared, missing []string
		for _, arg := range p.Arguments {
			declared = append(declared, arg.Name)
			if arg.Required && !slices.ContainsFunc(c.members, func(m member) bool { return m.key == arg.Name }) {
				missing = append(missing, arg.Name)
			}
		}
		if len(missing) > 0 {
			return usageErrorf("prompt %q needs %s; nothing sent", c.Name, strings.Join(missing, ", "))
		}
		for _, m := range c.members {
			if !slices.Contains(declared, m.key) {
				return usageErrorf("prompt %q has no argument %q (it takes: %s); nothing sent (--no-validate sends anyway)", c.Name, m.key, strings.Join(declared, ", "))
			}
		}
		return nil
	}
	return nil // not listed: the server will say
}
