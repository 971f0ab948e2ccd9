package commands

// The page of mcpv's grammar (internal/manpage renders it; mcpv help --man
// prints it): every command and flag on it, and man shows it. Here, where
// the grammar is, so that manpage's own tests link the renderer alone.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/manpage"
)

// roffWord is a command's or a flag's name as the page writes it: its
// hyphens the minus sign \-, as man pages write options.
func roffWord(s string) string { return strings.ReplaceAll(s, "-", `\-`) }

// mcpvCommands are the visible commands of the grammar, as typed
// ("mcpv tasks list"), and each one's visible flags ("--max-pages").
func mcpvCommands(t *testing.T) (*kong.Application, map[string][]string) {
	t.Helper()
	app, err := Grammar()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	var walk func(n *kong.Node, path string)
	walk = func(n *kong.Node, path string) {
		if n.Hidden || n.Type == kong.ArgumentNode {
			return
		}
		for _, f := range n.Flags {
			if !f.Hidden {
				out[path] = append(out[path], "--"+f.Name)
			}
		}
		if _, ok := out[path]; !ok {
			out[path] = nil
		}
		for _, c := range n.Children {
			walk(c, path+" "+c.Name)
		}
	}
	walk(app.Node, app.Node.Name)
	if len(out) < 20 || len(out["mcpv"]) < 20 {
		t.Fatalf("the grammar has %d commands, and %d global flags", len(out), len(out["mcpv"]))
	}
	return app, out
}

// Every command and flag of mcpv's grammar is on its page, each command
// under a heading of its own.
func TestEveryCommandAndFlagIsDocumented(t *testing.T) {
	app, cmds := mcpvCommands(t)
	page := manpage.Render(app, manpage.MCPV("v0.0.0-test", "2026-01-02"))
	headings := regexp.MustCompile(`(?m)^\.SS "mcpv `).FindAllString(page, -1)
	if len(headings) != len(cmds)-1 {
		t.Errorf("%d command headings for %d commands", len(headings), len(cmds)-1)
	}
	for path, flags := range cmds {
		if path != "mcpv" && !strings.Contains(page, "\n.SS \""+roffWord(path)+"\"\n") {
			t.Errorf("no heading for %s", path)
		}
		for _, f := range flags {
			if !strings.Contains(page, `\fB`+roffWord(f)+`\fR`) {
				t.Errorf("%s: no %s", path, f)
			}
		}
	}
	for _, want := range []string{"\n.TP\n\\fB130\\fR\n", "\n.TP\n\\fBMCPV_URL\\fR\n", "\n.TP\n\\fBNO_COLOR\\fR\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// The page renders without complaint in man (or groff), and the text a
// reader sees has every command, flag and section.
func TestRendersInMan(t *testing.T) {
	app, cmds := mcpvCommands(t)
	var cmd *exec.Cmd
	if path, err := exec.LookPath("man"); err == nil {
		cmd = exec.Command(path, "-l")
	} else if path, err := exec.LookPath("groff"); err == nil {
		cmd = exec.Command(path, "-man", "-Tascii", "-ww", "-P-cbou")
	} else {
		t.Skip("neither man nor groff is installed")
	}
	file := filepath.Join(t.TempDir(), "mcpv.1")
	if err := os.WriteFile(file, []byte(manpage.Render(app, manpage.MCPV("v0.0.0-test", "2026-01-02"))), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd.Args = append(cmd.Args, file)
	// ASCII: \- is "-" there, as a reader types it.
	cmd.Env = append(os.Environ(), "MANWIDTH=80", "LC_ALL=C", "LANG=C", "MANPAGER=cat", "PAGER=cat", "MAN_KEEP_FORMATTING=", "GROFF_NO_SGR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("%s: %s", cmd, stderr.String())
	}
	shown := regexp.MustCompile(".\b").ReplaceAllString(stdout.String(), "") // overstrikes, if any
	for _, section := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "GLOBAL FLAGS", "EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO"} {
		if !regexp.MustCompile(`(?m)^` + section + `$`).MatchString(shown) {
			t.Errorf("no section %s", section)
		}
	}
	for path, flags := range cmds {
		if path != "mcpv" && !regexp.MustCompile(`(?m)^\s+`+regexp.QuoteMeta(path)+`$`).MatchString(shown) {
			t.Errorf("no heading %q", path)
		}
		for _, f := range flags {
			if !regexp.MustCompile(`(?m)^\s+(-., )?` + regexp.QuoteMeta(f) + `\b`).MatchString(shown) {
				t.Errorf("%s: no %s", path, f)
			}
		}
	}
	if strings.Contains(shown, `\f`) || strings.Contains(shown, `\-`) || strings.Contains(shown, `\[`) {
		t.Error("an escape was not understood: the page shows a backslash sequence")
	}
	if t.Failed() {
		t.Logf("shown:\n%s", shown)
	}
}
