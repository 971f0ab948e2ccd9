package commands

// The top-level help: what a newcomer needs first, within a screen, as gh
// and git show it: the usage lines, the commands by what they are for, a
// few examples and where to read more. The global flags are 'mcpv help
// flags'; the whole manual, from the same grammar, is 'mcpv help --man'.

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/safetext"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/manpage"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/output"
)

// The groups the top-level help lists the commands under, each command's
// in its row of commandSet.commands.
const (
	groupTalk     = "Talk to a server"
	groupTest     = "Test, check and trust"
	groupSessions = "Sessions, serve and setup"
)

// helpGroups are the groups in the order the top-level help shows them.
var helpGroups = []string{groupTalk, groupTest, groupSessions}

// usageLines are the ways to name the server, in the top-level help and
// the manual's synopsis.
var usageLines = []string{
	"mcpv [flags] <command> [args] -- SERVER-COMMAND [ARGS...]",
	"mcpv [flags] --url URL|--server NAME <command> [args]",
}

// overviewExamples are the top-level help's example (one, on the line of
// its heading: the help fits a screen); the manual has more.
var overviewExamples = []string{
	"mcpv call add a:=2 b:=3 -q '.structuredContent.sum' -- ./server",
}

// exitCodesBrief names every exit code in two lines; 'mcpv help
// exit-codes' says each in full.
const exitCodesBrief = `Exit codes: 0 ok, 1 the tool failed (or -e), 2 usage, 3 JSON-RPC error,
4 transport, 5 auth, 6 jq failed, 7 pin refused, 124 timeout, 130 interrupted.`

// writeOverview writes the top-level help.
func writeOverview(w io.Writer, cmds []command) error {
	var b strings.Builder
	b.WriteString("mcpv runs one operation on one MCP server and prints the answer as JSON.\n\n")
	b.WriteString("Usage: " + strings.Join(usageLines, "\n       ") + "\n")
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.name))
	}
	for _, g := range helpGroups {
		b.WriteString("\n" + g + ":\n")
		for _, c := range cmds {
			if c.group == g {
				fmt.Fprintf(&b, "  %-*s  %s\n", width, c.name, c.brief)
			}
		}
	}
	b.WriteString("\nExample:")
	for _, e := range overviewExamples {
		b.WriteString(" $ " + e + "\n")
	}
	b.WriteString("\n" + exitCodesBrief + "\n")
	phrases := []string{"More help:", "mcpv help " + strings.Join(append(slices.Clone(helpTopics), "<command>"), "|") + ";",
		"mcpv help --man;", "the guides:", "https://github.com/mcpv/mcpv/tree/main/docs/guide"}
	b.WriteString("\n" + wrap(helpWidth, phrases...))
	_, err := io.WriteString(w, b.String())
	return err
}

// flagsHelp is 'mcpv help flags': every global flag, described in full,
// by group, as kong prints them.
func flagsHelp() (string, error) {
	var b strings.Builder
	var c cli
	k, err := parser(&c, output.NewStreams(strings.NewReader(""), &b, io.Discard), func(int) {}, nil)
	if err != nil {
		return "", err
	}
	ctx, err := kong.Trace(k, nil)
	if err != nil {
		return "", err
	}
	app := k.Model
	app.Help = ""
	app.Detail = "Global flags go before or after the command; each command's help names those it takes. " +
		"An environment variable may give a flag's default (mcpv help environment)."
	for _, n := range app.Children {
		n.Hidden = true
	}
	if err := kong.DefaultHelpPrinter(kong.HelpOptions{Compact: true, NoAppSummary: true, ValueFormatter: kong.DefaultHelpValueFormatter}, ctx); err != nil {
		return "", err
	}
	return strings.TrimLeft(b.String(), "\n"), nil
}

// ManPage is mcpv(1), the whole manual in roff, for version and day
// (YYYY-MM-DD): the grammar's every command and flag, then the topics.
// commands/mcpv-release man writes it for a release.
func ManPage(version, day string) (string, error) {
	app, err := Grammar()
	if err != nil {
		return "", err
	}
	page := manpage.MCPV(version, day)
	page.Topics = ManTopics()
	return manpage.Render(app, page), nil
}

// helpWordError is 'mcpv help WORD' for a word that is no command and no
// topic: the nearest of them, then all of them.
func helpWordError(word string, cmds []command) error {
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	msg := fmt.Sprintf("no command or help topic %q%s\n", word, suggest.DidYouMean(word, append(names, allTopics()...)))
	msg += wrapList("commands: ", names) + wrapList("topics:   ", append(allTopics(), "--man"))
	return pointedUsageErrorf("%s", strings.TrimSuffix(msg, "\n"))
}

// wrap joins phrases with spaces into lines within width (as a terminal
// shows them: wide characters count twice), breaking lines only between
// phrases. Every wrapped help text goes through it.
func wrap(width int, phrases ...string) string {
	var b strings.Builder
	line := ""
	for _, w := range phrases {
		if line != "" && safetext.Width(line)+1+safetext.Width(w) > width {
			b.WriteString(line + "\n")
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return b.String() + line + "\n"
}

// wrapList writes words after a label, comma-separated, wrapped within
// helpWidth and indented under the first word: wrap's lines of them, in
// the width the label leaves.
func wrapList(label string, words []string) string {
	list := slices.Clone(words)
	for i := range len(list) - 1 {
		list[i] += ","
	}
	lines := strings.TrimSuffix(wrap(helpWidth-len(label), list...), "\n")
	return label + strings.ReplaceAll(lines, "\n", "\n"+strings.Repeat(" ", len(label))) + "\n"
}
