package commands

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/gcstart"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/table"
	"github.com/mcpv/mcpv/mcp"
)

// pageFlags are shared by the list commands.
type pageFlags struct {
	Cursor   string `name:"cursor" placeholder:"CURSOR" help:"Fetch the one page that starts at this cursor; its nextCursor is kept."`
	MaxPages int    `name:"max-pages" placeholder:"N" help:"Stop after N pages (the output then keeps nextCursor); by default every page is followed to the end."`
}

// list runs one paginated list command: check the capability, walk the
// pages, print (what shape makes of the list, unless nil).
func list(ctx context.Context, s *session, out *console, p pageFlags, capability, method, key string, shape func(json.RawMessage) (json.RawMessage, error)) error {
	return listChecked(ctx, s, out, p, func(c *mcp.Client) error { return c.Require(capability, method) }, method, key, shape)
}

// listChecked is list with the server's declaration checked by require.
func listChecked(ctx context.Context, s *session, out *console, p pageFlags, require func(*mcp.Client) error, method, key string, shape func(json.RawMessage) (json.RawMessage, error)) error {
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := require(client); err != nil {
		return undeclaredList(out, out.flags.IfDeclared || s.settings.IfDeclared, key, err)
	}
	pages := mcp.Pages{Cursor: p.Cursor, Max: p.MaxPages, Keep: headerChecked(s, out, client, method)}
	if v, ok := out.streamList(key, shape != nil); ok {
		// Each page written as it comes: the list's length costs no memory.
		n := 0
		next, err := client.ListTo(ctx, method, key, pages, func(piece []byte) error {
			if piece == nil {
				if n++; n == settlePages {
					gcstart.Settle() // a long list: collected as it goes, from a small heap
				}
				return v.Flush()
			}
			return v.Write(piece)
		})
		err = cmp.Or(err, v.Close())
		return listDone(out, p, next, err)
	}
	res, next, err := client.List(ctx, method, key, pages)
	if err := listDone(out, p, next, err); err != nil {
		return err
	}
	if shape != nil {
		if res, err = shape(res); err != nil {
			return err
		}
	}
	return out.printList(res, key, next == "")
}

// undeclaredList is a list of a capability the server did not declare
// (err): exit 3, or with ifDeclared the empty list in the list's own shape,
// exit 0, so that a loop over servers under set -e goes on; stderr says so.
func undeclaredList(out *console, ifDeclared bool, key string, err error) error {
	if !isA[*mcp.CapabilityError](err) {
		return err
	}
	if v := out.env.Getenv("MCPV_IF_DECLARED"); v != "" && !ifDeclared {
		on, perr := strconv.ParseBool(v)
		if perr != nil {
			return usageErrorf("MCPV_IF_DECLARED=%q: want true or false", v)
		}
		ifDeclared = on
	}
	if !ifDeclared {
		return err
	}
	out.notef("%v; its list is empty (--if-declared)", err)
	return out.printList(json.RawMessage(`{"`+key+`":[]}`), key, true)
}

// settlePages is how many pages make a list long: its garbage is then
// collected as it goes (gcstart.Settle), not let grow to the start's bound.
const settlePages = 64

// listDone says what stopped a walk: a list that never ends (with the way
// to take a part of it), or --max-pages.
func listDone(out *console, p pageFlags, next string, err error) error {
	if isA[*mcp.EndlessListError](err) {
		return fmt.Errorf("%w (--max-pages N takes N pages, keeping nextCursor)", err)
	}
	if err != nil {
		return err
	}
	if next != "" {
		out.notef("stopped after %d pages (--max-pages); continue with --cursor %q", p.MaxPages, next)
	}
	return nil
}

type listToolsCmd struct {
	listToolsArgs
	Names bool `name:"names" help:"Print each tool's name and the first line of its description alone."`
	// Usage prints the tool's usage block: what 'mcpv call TOOL --help'
	// with a server prints.
	Usage bool `name:"usage" hidden:"" help:"Print the tool's arguments as a usage block (mcpv call TOOL --help)."`
}

type listToolsArgs struct {
	pageFlags
	Name string `arg:"" optional:"" name:"tool" help:"Print only this tool's definition: its description and the arguments its inputSchema takes."`
}

// leanForm is list-tools without --names and --usage, unless words name
// one: kong reads two fields' tags fewer on the way of every list.
func (c *listToolsCmd) leanForm(words map[string]bool) any {
	if names(words, func(name string) bool { return name == "names" || name == "usage" }, "") {
		return nil
	}
	return new(listToolsLean)
}

// listToolsLean is list-tools as a lean grammar gives it to kong when the
// command line names neither of its options.
type listToolsLean struct{ listToolsArgs }

// full is the list-tools c stands for.
func (c *listToolsLean) full() *listToolsCmd { return &listToolsCmd{listToolsArgs: c.listToolsArgs} }

func (c *listToolsLean) Run(ctx context.Context, s *session, out *console) error {
	return c.full().Run(ctx, s, out)
}

func (c *listToolsCmd) Help() string {
	return `With a tool name, prints that tool's definition alone (exit 3, with the nearest name, when the server lists no such tool). With --names, each tool's name and the first line of its description, in the list's shape: an agent reads the names, then one tool's arguments with 'mcpv call TOOL --help -- SERVER'.

Examples:

    $ mcpv list-tools -- ./server
    $ mcpv list-tools -o table -- ./server
    $ mcpv list-tools -r -q '.tools[].name' -- ./server
    $ mcpv list-tools echo -q .inputSchema.properties -- ./server
    $ mcpv list-tools --names -- ./server
    $ mcpv call echo --help -- ./server`
}

func (c *listToolsCmd) Run(ctx context.Context, s *session, out *console) error {
	switch {
	case c.Usage && c.Name == "":
		return usageErrorf("--usage needs a tool name")
	case c.Names && c.Name != "":
		return usageErrorf("--names lists every tool; give no tool name")
	case c.Names:
		return listNames(ctx, s, out, c.pageFlags)
	case c.Name == "":
		return list(ctx, s, out, c.pageFlags, "tools", "tools/list", "tools", nil)
	}
	if c.Cursor != "" || c.MaxPages != 0 {
		return usageErrorf("--cursor and --max-pages list pages; with a tool name every page is searched")
	}
	client, err := s.required(ctx, "tools", "tools/list")
	if err != nil {
		return err
	}
	def, err := s.findTool(ctx, client, c.Name)
	if err != nil {
		return toolNotListed(err)
	}
	if err := headerRejected(s, client, def.Raw); err != nil {
		return &refusal{fmt.Sprintf("tool %q is left out of the list: %v", c.Name, err)}
	}
	if c.Usage {
		usage, err := toolUsage(def)
		if err != nil {
			return err
		}
		return out.write(usage)
	}
	return out.printView(def.Raw, table.Tools)
}

// headerChecked is, over Streamable HTTP in the 2026-07-28 era, what
// leaves out of a tools/list a tool whose x-mcp-header annotations break
// the transport's constraints, saying so once for each: the transport asks
// a client to exclude it and to warn with the tool's name and the reason
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#schema-extension).
// nil for any other list, era or transport: the rule is the HTTP
// transport's, and stdio may ignore the annotations.
func headerChecked(s *session, out *console, client *mcp.Client, method string) func(json.RawMessage) bool {
	if method != "tools/list" || !client.Modern() || s.settings.URL == "" {
		return nil
	}
	return func(tool json.RawMessage) bool {
		err := headerRejected(s, client, tool)
		if err != nil {
			out.warnf("tool %q is left out of the list: %v", mcp.ToolName(tool), err)
		}
		return err == nil
	}
}

// headerRejected says why a client over Streamable HTTP in the
// 2026-07-28 era rejects the tool (its first x-mcp-header annotation that
// breaks a constraint), or nil.
func headerRejected(s *session, client *mcp.Client, tool json.RawMessage) error {
	if !client.Modern() || s.settings.URL == "" {
		return nil
	}
	_, err := mcp.ParamHeaders(rawjson.Member(tool, "inputSchema"))
	return err
}

// listNames lists the tools by name and the first line of each
// description: {"tools":[{"name":..,"description":..}]}.
func listNames(ctx context.Context, s *session, out *console, p pageFlags) error {
	return list(ctx, s, out, p, "tools", "tools/list", "tools", func(res json.RawMessage) (json.RawMessage, error) {
		var all struct {
			Tools []struct {
				Name        string `json:"name"`
				Description string `json:"description,omitempty"`
			}
		}
		if err := mcp.DecodeResult("tools/list", res, &all); err != nil {
			return nil, err
		}
		for i, t := range all.Tools {
			all.Tools[i].Description, _, _ = strings.Cut(strings.TrimSpace(t.Description), "\n")
		}
		return rawjson.MustMarshal(map[string]any{"tools": all.Tools}), nil
	})
}

type listResourcesCmd struct{ pageFlags }

func (c *listResourcesCmd) Help() string {
	return `Examples:

    $ mcpv list-resources -r -q '.resources[].uri' -- ./server`
}

func (c *listResourcesCmd) Run(ctx context.Context, s *session, out *console) error {
	return list(ctx, s, out, c.pageFlags, "resources", "resources/list", "resources", nil)
}

type listResourceTemplatesCmd struct{ pageFlags }

func (c *listResourceTemplatesCmd) Help() string {
	return `Examples:

    $ mcpv list-resource-templates -r -q '.resourceTemplates[].uriTemplate' \
        -- ./server`
}

func (c *listResourceTemplatesCmd) Run(ctx context.Context, s *session, out *console) error {
	return list(ctx, s, out, c.pageFlags, "resources", "resources/templates/list", "resourceTemplates", nil)
}

type listPromptsCmd struct{ pageFlags }

func (c *listPromptsCmd) Help() string {
	return `Examples:

    $ mcpv list-prompts -r -q '.prompts[].name' -- ./server`
}

func (c *listPromptsCmd) Run(ctx context.Context, s *session, out *console) error {
	return list(ctx, s, out, c.pageFlags, "prompts", "prompts/list", "prompts", nil)
}
