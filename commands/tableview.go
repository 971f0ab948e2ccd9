package commands

import (
	"cmp"
	"encoding/json"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/table"
	"github.com/mcpv/mcpv/output"
)

// tableView is a command whose result has a view for people, a table
// (--output-format table): info and the list commands.
type tableView interface{ tableView() }

func (*infoCmd) tableView()                  {}
func (*listToolsCmd) tableView()             {}
func (*listToolsLean) tableView()            {}
func (*listResourcesCmd) tableView()         {}
func (*listResourceTemplatesCmd) tableView() {}
func (*listPromptsCmd) tableView()           {}

// checkTable refuses, before any server starts, --output-format table for
// a command without a table, and a default for one (MCPV_OUTPUT, which
// counts on a terminal only) that is neither json nor table.
func (f *outputFlags) checkTable(cmd *kong.Node, getenv func(string) string, outTTY bool) error {
	_, view := cmd.Target.Addr().Interface().(tableView)
	switch v := getenv("MCPV_OUTPUT"); {
	case f.Format == "table" && !view:
		return usageErrorf("--output-format table is for info and the list commands; %s has none", cmd.Path())
	case view && outTTY && f.Format == "" && v != "" && v != "json" && v != "table":
		return usageErrorf("MCPV_OUTPUT=%q: want json or table", v)
	}
	return nil
}

// defaultWidth is a terminal's width when it does not say.
const defaultWidth = 80

// asTable says whether the result is shown as a table: --output-format
// table, or MCPV_OUTPUT=table as the user's default when stdout is a
// terminal and no flag shapes the JSON (a script's pipe never gets one).
func (c *console) asTable() bool {
	switch c.flags.Format {
	case "table":
		return true
	case "json":
		return false
	}
	f := c.flags
	return c.ios.OutTTY && !c.embedded && c.env.Getenv("MCPV_OUTPUT") == "table" && f.Jq == "" && !f.Pretty && !f.Compact
}

// printTable writes t for people: within the terminal's width, or whole
// into a pipe.
func (c *console) printTable(t *table.Table) error {
	c.ios.Status.Clear()
	width := 0
	if c.ios.OutTTY {
		if c.ios.OutWidth != nil {
			width = c.ios.OutWidth()
		}
		width = cmp.Or(max(width, 0), defaultWidth)
	}
	if err := t.Write(c.ios.Out, width); err != nil {
		return &output.ClosedError{Err: err}
	}
	return nil
}

// printView prints a result as JSON, or as the table view makes of it.
func (c *console) printView(raw json.RawMessage, view func([]byte) *table.Table) error {
	if !c.asTable() {
		return c.print(raw)
	}
	return c.printTable(view(raw))
}

// listViews are the tables of the lists that have one, by the key of their
// items.
var listViews = map[string]func([]byte) *table.Table{
	"tools":             table.Tools,
	"resources":         table.Resources,
	"resourceTemplates": table.ResourceTemplates,
	"prompts":           table.Prompts,
}

// streamList is where a list is written page by page, when it is printed
// as it comes (no --jq, compact, no table, not a batch line's value); ok
// is false when it must be whole to be printed, or to be shaped first.
func (c *console) streamList(key string, shaped bool) (*output.ValueWriter, bool) {
	if shaped || c.embedded || listViews[key] != nil && c.asTable() {
		return nil, false
	}
	c.ios.Status.Clear()
	return c.printer.StreamValue()
}

// printList prints a list result: as JSON, or as its table, after which a
// page's nextCursor (--cursor) is noted on stderr unless note is false
// (said already).
func (c *console) printList(res json.RawMessage, key string, note bool) error {
	view := listViews[key]
	if view == nil || !c.asTable() {
		return c.print(res)
	}
	if err := c.printTable(view(res)); err != nil {
		return err
	}
	if next, _ := rawjson.String(rawjson.Member(res, "nextCursor")); next != "" && note {
		c.notef("more after this page: --cursor %s", shellwords.Quote(safetext.Line(next)))
	}
	return nil
}
