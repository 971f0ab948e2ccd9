package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/stringargs"
)

type completeCmd struct {
	Prompt   string   `name:"prompt" placeholder:"NAME" xor:"ref" help:"Complete an argument of this prompt."`
	Template string   `name:"template" placeholder:"URI-TEMPLATE" xor:"ref" help:"Complete an argument of this resource template (as listed, e.g. file:///{path})."`
	Arg      string   `name:"arg" placeholder:"NAME=PARTIAL" required:"" help:"The argument to complete and what has been typed so far (may be empty)."`
	Context  []string `name:"context" sep:"none" placeholder:"NAME=VALUE" help:"An argument already chosen, sent as context (repeatable)."`

	argName, argValue string
	context           []stringargs.Member
}

func (c *completeCmd) Help() string {
	return `Asks the server for completion values (completion/complete) and prints its result: {"completion":{"values":[...],"total":N,"hasMore":false}}.

Examples:

    $ mcpv complete --prompt review --arg language=ja -- ./server
    $ mcpv complete --template 'demo://notes/{id}' --arg id=4 \
        -r -q '.completion.values[]' -- ./server
    $ mcpv complete --template 'db://{schema}/{table}' --arg table=us \
        --context schema=public -- ./server`
}

func (c *completeCmd) Validate() error {
	if c.Prompt == "" && c.Template == "" {
		return fmt.Errorf("give --prompt NAME or --template URI-TEMPLATE")
	}
	if c.Arg == "" {
		return fmt.Errorf("missing flag --arg NAME=PARTIAL")
	}
	name, value, ok := strings.Cut(c.Arg, "=")
	if !ok || name == "" {
		return fmt.Errorf("--arg %q: want NAME=PARTIAL", c.Arg)
	}
	c.argName, c.argValue = name, value
	for _, kv := range c.Context {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("--context %q: want NAME=VALUE", kv)
		}
	}
	ms, err := stringargs.Parse(c.Context, "context values")
	if err != nil {
		return fmt.Errorf("--context: %w", err)
	}
	c.context = ms
	return nil
}

func (c *completeCmd) Run(ctx context.Context, s *session, out *console) error {
	type ref struct {
		Type string `json:"type"`
		Name string `json:"name,omitempty"`
		URI  string `json:"uri,omitempty"`
	}
	type argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	type completeContext struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	params := struct {
		Ref      ref              `json:"ref"`
		Argument argument         `json:"argument"`
		Context  *completeContext `json:"context,omitempty"`
	}{Ref: ref{Type: "ref/resource", URI: c.Template}, Argument: argument{c.argName, c.argValue}}
	if c.Prompt != "" {
		params.Ref = ref{Type: "ref/prompt", Name: c.Prompt}
	}
	if len(c.context) > 0 {
		params.Context = &completeContext{stringargs.Object(c.context)}
	}
	return out.printOf(s.request(ctx, "completions", "completion/complete", mustJSON(params)))
}
