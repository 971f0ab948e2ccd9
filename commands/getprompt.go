package commands

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/stringargs"
	"github.com/mcpv/mcpv/mcp"
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
		return forgottenDashes(err, "get-prompt", c.Name, c.Pairs)
	}
	c.members = ms
	return nil
}

func (c *getPromptCmd) Run(ctx context.Context, s *session, out *console) error {
	params := mustJSON(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}{c.Name, stringargs.Object(c.members)})
	client, err := s.required(ctx, "prompts", "prompts/get")
	if err != nil {
		return err
	}
	var names []string
	if s.pinning() {
		names, err = c.pinned(ctx, s, client)
	} else if !c.NoValidate {
		names, err = afresh(s, "prompts", nil, func() ([]string, error) {
			return stringargs.CheckListed(ctx, client, c.Name, c.members, out.warnf)
		})
	}
	if err != nil {
		return err
	}
	res, err := client.Call(ctx, "prompts/get", params)
	if err != nil {
		if s.keptServed("prompts") {
			s.forget("prompts")
			names = nil // listed again below, if need be
		}
		return refusedName(err, "prompt", c.Name, "list-prompts", func() ([]string, error) {
			if names != nil {
				return names, nil
			}
			return listedNames(ctx, client, "prompts/list", "prompts", "name")
		})
	}
	return out.print(res)
}

// pinned holds the prompt to the session's pin (a refusal on what was
// kept of the server between runs checked once more against what it
// lists now), and checks its arguments unless --no-validate; it returns
// the names of the prompts listed.
func (c *getPromptCmd) pinned(ctx context.Context, s *session, client *mcp.Client) ([]string, error) {
	items, err := afresh(s, "prompts", nil, func() ([]json.RawMessage, error) {
		items, err := stringargs.ListPrompts(ctx, client)
		if err != nil {
			return nil, fmt.Errorf("could not list the prompts to hold prompt %q to its pin: %w", c.Name, err)
		}
		first, n := listedAs(items, "name", c.Name)
		return items, s.checkPinListed(client, pin.Prompt, c.Name, first, n)
	})
	if err != nil || c.NoValidate {
		return nil, err
	}
	return stringargs.CheckAgainst(items, c.Name, c.members)
}

// listedNames walks a list (method, its items under key) for the member
// field of each item (a name, a URI).
func listedNames(ctx context.Context, client *mcp.Client, method, key, field string) ([]string, error) {
	var names []string
	for p, err := range client.Walk(ctx, method, key, 0) {
		if err != nil {
			return names, err
		}
		for _, it := range p.Items {
			rawjson.ForEachValidMember(it, func(k string, v []byte) error {
				if s, err := rawjson.String(v); k == field && err == nil {
					names = append(names, s)
				}
				return nil
			})
		}
	}
	return names, nil
}
