package commands

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/manpage"
)

// overviewLines is the most the top-level help may take: a screen.
const overviewLines = 50

// mcpv --help fits a screen: the usage lines first, then the commands by
// group in the order of helpGroups, the examples and where to read more;
// no flag is described there ('mcpv help flags' does).
func TestOverviewFitsAScreen(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", "--help")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) > overviewLines {
		t.Errorf("mcpv --help is %d lines, more than a screen (%d)", len(lines), overviewLines)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > helpWidth {
			t.Errorf("line %d is %d columns, over %d: %q", i+1, n, helpWidth, l)
		}
	}
	order := []string{"Usage: mcpv [flags] <command>"}
	for _, g := range helpGroups {
		order = append(order, "\n"+g+":\n")
	}
	order = append(order, "\nExample: $ ", "\nExit codes: ", "mcpv help flags", "mcpv help --man")
	at := 0
	for _, want := range order {
		i := strings.Index(r.stdout[at:], want)
		if i < 0 {
			t.Fatalf("mcpv --help lacks %q after byte %d, or has it out of order:\n%s", want, at, r.stdout)
		}
		at += i + len(want)
	}
	if strings.Contains(r.stdout, "Give up on a request") || strings.Contains(r.stdout, "--connect-timeout") {
		t.Errorf("mcpv --help describes the global flags:\n%s", r.stdout)
	}
	if h := mcpv(t, "", "help"); h.code != 0 || h.stdout != r.stdout {
		t.Errorf("mcpv help: exit %d, stdout differs from mcpv --help", h.code)
	}
}

// Every command of the grammar is in one of the groups the overview
// shows, listed there under its group with its brief line; a command added
// without a group fails here.
func TestEveryCommandHasAGroup(t *testing.T) {
	t.Parallel()
	overview := mcpv(t, "", "--help").stdout
	sections := map[string]string{}
	for _, g := range helpGroups {
		_, rest, _ := strings.Cut(overview, "\n"+g+":\n")
		sections[g], _, _ = strings.Cut(rest, "\n\n")
	}
	rows := map[string]command{}
	for _, c := range new(commandSet).commands() {
		rows[c.name] = c
	}
	for _, n := range grammar(t).Children {
		c, ok := rows[n.Name]
		switch {
		case !ok:
			t.Errorf("kong's command %s has no row in commandSet.commands", n.Name)
		case !slices.Contains(helpGroups, c.group):
			t.Errorf("command %s is in no group of the top-level help (group %q; helpGroups: %q)", c.name, c.group, helpGroups)
		case c.brief == "" || strings.HasSuffix(c.brief, "."):
			t.Errorf("command %s: brief line %q: want a phrase without a full stop", c.name, c.brief)
		default:
			if line := "  " + c.name + " "; !strings.Contains(sections[c.group]+"\n", line) || !strings.Contains(sections[c.group], c.brief+"\n") && !strings.HasSuffix(sections[c.group], c.brief) {
				t.Errorf("command %s is not listed under %q with its brief line:\n%s", c.name, c.group, sections[c.group])
			}
		}
	}
}

// A word after 'mcpv help' that is neither a command nor a topic is a
// usage mistake that lists both, and suggests the nearest.
func TestHelpUnknownWord(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", "help", "nosuch")
	if r.code != exitcode.Usage || r.stdout != "" || !strings.HasPrefix(r.stderr, `mcpv: no command or help topic "nosuch"`) {
		t.Fatalf("help nosuch: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	listed := strings.Join(strings.Fields(strings.ReplaceAll(r.stderr, ",", " ")), " ")
	for _, c := range new(commandSet).commands() {
		if !strings.Contains(" "+listed+" ", " "+c.name+" ") {
			t.Errorf("help nosuch does not list the command %s:\n%s", c.name, r.stderr)
		}
	}
	for _, topic := range append(slices.Clone(helpTopics), "--man") {
		if !strings.Contains(" "+listed+" ", " "+topic+" ") {
			t.Errorf("help nosuch does not list the topic %s:\n%s", topic, r.stderr)
		}
	}
	r = mcpv(t, "", "help", "pnig")
	if r.code != exitcode.Usage || !strings.HasPrefix(r.stderr, `mcpv: no command or help topic "pnig"; did you mean "ping"?`) {
		t.Errorf("help pnig: exit %d, stderr %q", r.code, r.stderr)
	}
	r = mcpv(t, "", "help", "flags", "extra")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "help flags takes nothing more") {
		t.Errorf("help flags extra: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A usage mistake points to the help of the command it was made in, or
// to 'mcpv help flags' for a global flag's; each pointer is a help that
// exists.
func TestUsageHints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"version"}, `mcpv: "version" is not a command; did you mean mcpv --version? (see mcpv --help)`},
		{[]string{"call"}, `mcpv: expected "<tool>" (see mcpv call --help)`},
		{[]string{"call", "echo", "--bogus", "--", "./server"}, `mcpv: unknown flag --bogus (see mcpv call --help)`},
		{[]string{"session", "strat"}, `mcpv: unexpected argument strat, did you mean "start"? (see mcpv session --help)`},
		{[]string{"tasks", "get"}, `mcpv: expected "<id>" (see mcpv tasks get --help)`},
		{[]string{"list-tools", "echo", "--cursor", "c", "--", "./server"}, `mcpv: --cursor and --max-pages list pages; with a tool name every page is searched (see mcpv list-tools --help)`},
		{[]string{"ping", "--timeout", "x", "--", "./server"}, `mcpv: --timeout: "x" is not a duration: want e.g. 30s, 1m30s or a number of seconds (see mcpv help flags)`},
		{[]string{"ping", "-q", ".[", "--", "./server"}, "mcpv: jq: unexpected EOF\n    .[\n     ^"},
		{[]string{"-v"}, `mcpv: give a command (mcpv --help lists them)`},
	} {
		r := mcpv(t, "", tc.args...)
		if r.code != exitcode.Usage || strings.TrimSuffix(r.stderr, "\n") != tc.want {
			t.Errorf("mcpv %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.want)
			continue
		}
		_, pointer, ok := strings.Cut(tc.want, "(see ")
		if !ok {
			continue
		}
		words := strings.Fields(strings.TrimSuffix(pointer, ")"))
		if h := mcpv(t, "", words[1:]...); h.code != 0 || h.stdout == "" {
			t.Errorf("%s, which mcpv %s points to: exit %d, stderr %q", strings.Join(words, " "), strings.Join(tc.args, " "), h.code, h.stderr)
		}
	}
}

// mcpv alone shows the overview, on stderr since it is no answer, and
// exits 2.
func TestNoArguments(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "")
	if r.code != exitcode.Usage || r.stdout != "" || r.stderr != mcpv(t, "", "--help").stdout {
		t.Errorf("mcpv: exit %d, stdout %q, stderr %.100q; want 2 and the overview on stderr", r.code, r.stdout, r.stderr)
	}
}

// 'mcpv help --man' is mcpv(1), whole, from the build itself.
func TestHelpMan(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", "help", "--man")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	app, err := Grammar()
	if err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC().Format(time.DateOnly)
	if d, err := time.Parse(time.RFC3339, Date); err == nil {
		day = d.UTC().Format(time.DateOnly)
	}
	page := manpage.MCPV(Version, day)
	page.Topics = ManTopics()
	if want := manpage.Render(app, page); r.stdout != want {
		t.Errorf("help --man differs from the page mcpv-release man writes")
	}
	for _, want := range []string{".TH \"MCPV\" \"1\"", ".SH \"EXIT STATUS\"", ".SH ENVIRONMENT", ".SH \"GLOBAL FLAGS\"", "Give up on a request", ".SH TOPICS", `.SS "mcpv help test\-files"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help --man lacks %q", want)
		}
	}
	for _, c := range new(commandSet).commands() {
		if !strings.Contains(r.stdout, ".SS \"mcpv "+strings.ReplaceAll(c.name, "-", `\-`)+"\"\n") {
			t.Errorf("help --man has no section for %s", c.name)
		}
	}
	if r := mcpv(t, "", "help", "--man", "call"); r.code != exitcode.Usage {
		t.Errorf("help --man call: exit %d, want 2", r.code)
	}
}
