package commands

// Help: 'mcpv --help' is an overview (see writeOverview) and 'mcpv help
// flags' describes every global flag; a command's help describes its own
// flags in full and names the global ones once, briefly, so that what is
// particular to the command is not lost among them.

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// helpWidth is where the brief list of global flags wraps.
const helpWidth = 80

// printHelp is kong's help printer, with the global flags of a command's
// help folded into a short list at the end, and the overview for mcpv's
// own.
func printHelp(options kong.HelpOptions, ctx *kong.Context) error {
	selected := ctx.Selected()
	if selected == nil {
		return writeOverview(ctx.Stdout, new(commandSet).commands())
	}
	app := ctx.Model.Node
	var folded []*kong.Flag
	for _, f := range app.Flags {
		if !f.Hidden && f.Name != "help" {
			f.Hidden = true
			folded = append(folded, f)
		}
	}
	defer func() {
		for _, f := range folded {
			f.Hidden = false
		}
	}()
	if err := kong.DefaultHelpPrinter(options, ctx); err != nil {
		return err
	}
	return writeGlobalFlags(ctx.Stdout, folded)
}

// writeGlobalFlags lists flags by group, names only.
func writeGlobalFlags(w io.Writer, flags []*kong.Flag) error {
	var order []string
	byGroup := map[string][]string{}
	for _, f := range flags {
		if f.Group == nil {
			continue // --version: not for a command
		}
		group := f.Group.Title
		if _, seen := byGroup[group]; !seen {
			order = append(order, group)
		}
		name := "--" + f.Name
		if f.Short != 0 {
			name = fmt.Sprintf("-%c/--%s", f.Short, f.Name)
		}
		byGroup[group] = append(byGroup[group], name)
	}
	indent := 0
	for _, g := range order {
		indent = max(indent, len(g)+4)
	}
	var b strings.Builder
	b.WriteString("\nGlobal flags, before or after the command ('mcpv help flags' describes them):\n")
	for _, g := range order {
		line := "  " + g + ":" + strings.Repeat(" ", indent-len(g)-3)
		start := true
		for i, name := range byGroup[g] {
			word := name
			if i < len(byGroup[g])-1 {
				word += ","
			}
			if !start && len(line)+1+len(word) > helpWidth {
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", indent)
				start = true
			}
			if !start {
				line += " "
			}
			line += word
			start = false
		}
		b.WriteString(line + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
