package commands

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/shellwords"
)

// helpFor is the help a usage mistake points to: the command's own ('mcpv
// call --help'), 'mcpv help flags' for a global flag's, mcpv's when the
// command line named no command. kctx is the parsed command line, or nil
// when err is kong's.
func helpFor(kctx *kong.Context, err error, c *cli) string {
	if pe, ok := errors.AsType[*kong.ParseError](err); ok {
		kctx = pe.Context
	}
	if err != nil && globalFlagMessage(err.Error(), c) {
		return "mcpv help flags"
	}
	if kctx == nil || kctx.Selected() == nil {
		return "mcpv --help"
	}
	return kctx.Selected().FullPath() + " --help"
}

// globalFlagMessage says whether a message is about a global flag: it
// begins with the flag's name, or with jq's.
func globalFlagMessage(msg string, c *cli) bool {
	if strings.HasPrefix(msg, "jq: ") {
		return true
	}
	name, ok := strings.CutPrefix(msg, "--")
	if !ok {
		return false
	}
	if i := strings.IndexAny(name, " :,="); i >= 0 {
		name = name[:i]
	}
	return slices.ContainsFunc(c.flagGroups(), func(g connect.FlagGroup) bool { return g.Has(name) })
}

// jqFlagHint points a jq user's --arg or --argjson to mcpv's names for
// them; kong would suggest --args, which is something else.
func jqFlagHint(err error) error {
	for _, f := range []string{"--arg", "--argjson"} {
		if m := err.Error(); m == "unknown flag "+f || strings.HasPrefix(m, "unknown flag "+f+",") {
			return pointedUsageErrorf("unknown flag %s: jq's %s is --jq-%s here (see mcpv help flags)", f, f, f[2:])
		}
	}
	return err
}

// flagWordHint is err, or for a word in the place of the command that
// names one of mcpv's flags ('mcpv version'), a pointer to the flag:
// kong would suggest the nearest command instead. parseErr is kong's.
func flagWordHint(err, parseErr error) error {
	pe, ok := errors.AsType[*kong.ParseError](parseErr)
	if !ok || pe.Context.Selected() != nil {
		return err
	}
	word, ok := strings.CutPrefix(parseErr.Error(), "unexpected argument ")
	if !ok {
		return err
	}
	word, _, _ = strings.Cut(word, ",")
	if slices.ContainsFunc(pe.Context.Model.Flags, func(f *kong.Flag) bool { return f.Name == word && !f.Hidden }) {
		return pointedUsageErrorf("%q is not a command; did you mean mcpv --%s? (see mcpv --help)", word, word)
	}
	return err
}

// reportFileHint points 'mcpv test -o FILE' to test's own --output: -o is
// the output format.
func reportFileHint(err, parseErr error) error {
	if pe, ok := errors.AsType[*kong.ParseError](parseErr); ok && pe.Context.Selected() != nil && pe.Context.Selected().Name == "test" &&
		strings.HasPrefix(err.Error(), "--output-format must be one of") {
		return usageErrorf("%v; mcpv test writes its report to the file --output FILE names", err)
	}
	return err
}

// noCommandHint replaces kong's list of the first few commands, when the
// command line names none, with where all of them are.
func noCommandHint(err error) error {
	if strings.HasPrefix(err.Error(), "expected one of ") {
		return pointedUsageErrorf("give a command (mcpv --help lists them)")
	}
	return err
}

// helpWords is what 'mcpv help WORDS' prints that kong does not: a topic,
// the manual, or for a word that is neither a topic nor a command, the
// nearest of them and the list of all. ok is false for a command's help,
// which kong prints.
func helpWords(words []string, env connect.Env) (text string, ok bool, err error) {
	cmds := new(commandSet).commands()
	first := words[0]
	if first == "--man" {
		if len(words) > 1 {
			return "", true, usageErrorf("help --man takes nothing more")
		}
		// mcpv(1) for this build, dated by its commit (or today, for a
		// build that does not know it).
		day := time.Now().UTC().Format(time.DateOnly)
		if t, err := time.Parse(time.RFC3339, Date); err == nil {
			day = t.UTC().Format(time.DateOnly)
		}
		text, err := ManPage(Version, day)
		return text, true, err
	}
	asked := slices.ContainsFunc(words[1:], func(w string) bool { return w == "--help" || w == "-h" })
	if first == "agent" && (asked || len(words) > 1) {
		if asked {
			return agentHelp, true, nil
		}
		text, err := installSkill(words[1:], env)
		return text, true, err
	}
	if text, ok, err := helpTopic(first, env); ok {
		if len(words) > 1 && !asked { // a topic's help is the topic
			return "", true, usageErrorf("help %s takes nothing more", first)
		}
		return text, true, err
	}
	if strings.HasPrefix(first, "-") || slices.ContainsFunc(cmds, func(c command) bool { return c.name == first }) {
		return "", false, nil
	}
	return "", true, helpWordError(first, cmds)
}

// forgottenDashes adds to err, a command's refusal of one of its key=value
// words, the command line with -- before the first word that has no "=":
// a server's command written without its -- (mcpv call echo message=hi
// ./server) reads as the command's arguments.
func forgottenDashes(err error, command, name string, words []string) error {
	for i, w := range words {
		if strings.Contains(w, "=") {
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(w)) {
			return err
		}
		line := []string{"mcpv", command, shellwords.Quote(safetext.Line(name))}
		for j, x := range words {
			if j == i {
				line = append(line, "--")
			}
			line = append(line, shellwords.Quote(safetext.Line(x)))
		}
		return fmt.Errorf("%w; if %s starts the server, put -- before it: %s", err, shellwords.Quote(safetext.Line(w)), strings.Join(line, " "))
	}
	return err
}
