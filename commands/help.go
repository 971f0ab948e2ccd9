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

// helpWidth is where the brief list of global flags wraps, and what no
// line of a command's help may pass (TestHelpFitsAScreen).
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

// commonGlobals are the global flags a command's help names: those most
// used; 'mcpv help flags' describes them all.
var commonGlobals = []string{"url", "server", "header", "timeout", "verbose", "jq", "raw-output"}

// writeGlobalFlags names the global flags most used, and how many more
// there are: the whole list is a topic of its own (mcpv help flags), so
// that a command's help keeps to a screen.
func writeGlobalFlags(w io.Writer, flags []*kong.Flag) error {
	var names []string
	for _, want := range commonGlobals {
		for _, f := range flags {
			if f.Name != want || f.Group == nil {
				continue
			}
			name := "--" + f.Name
			if f.Short != 0 {
				name = fmt.Sprintf("-%c/--%s", f.Short, f.Name)
			}
			names = append(names, name)
		}
	}
	others := -len(names)
	for _, f := range flags {
		if f.Group != nil { // --version, of no group, is not for a command
			others++
		}
	}
	text := "Global flags go before or after the command: " + strings.Join(names, ", ")
	if others > 0 {
		text += fmt.Sprintf(" and %d more", others)
	}
	text += "."
	_, err := io.WriteString(w, "\n"+wrap(helpWidth, strings.Fields(text)...)+"('mcpv help flags' describes them)\n")
	return err
}
