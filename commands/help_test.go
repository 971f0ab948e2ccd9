package commands

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/safetext"
)

var update = flag.Bool("update", false, "rewrite the help golden files and the completion scripts")

// go generate ./... refreshes the help goldens (testdata/help).
//
//go:generate go test -run ^TestHelp -update .

// Help output is part of the interface: the help of mcpv and of every
// command in the grammar is pinned here, and
// `go test ./commands -run TestHelp -update` rewrites it after a deliberate change.
// 'mcpv help COMMAND' is 'mcpv COMMAND --help'; a command's help names the
// global flags once, briefly, after its own.
func TestHelpCommand(t *testing.T) {
	t.Parallel()
	for _, argv := range [][]string{{"ping"}, {"auth", "login"}, {}} {
		want := mcpv(t, "", append(slices.Clone(argv), "--help")...)
		got := mcpv(t, "", append([]string{"help"}, argv...)...)
		if got.code != 0 || got.stdout != want.stdout || got.stdout == "" {
			t.Errorf("help %v: exit %d, stdout differs from --help: %q", argv, got.code, got.stdout)
		}
	}
	r := mcpv(t, "", "ping", "--help")
	if strings.Count(r.stdout, "--timeout") != 1 || strings.Contains(r.stdout, "Give up on a request") || !strings.Contains(r.stdout, "Global flags") {
		t.Errorf("ping --help describes the global flags in full:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "('mcpv help flags' describes them)") {
		t.Errorf("ping --help does not say where the global flags are described:\n%s", r.stdout)
	}
	if r := mcpv(t, "", "help", "flags"); r.code != 0 || !strings.Contains(r.stdout, "Give up on a request") {
		t.Errorf("mcpv help flags does not describe --timeout: exit %d\n%s", r.code, r.stdout)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	commands := []string{""}
	var visit func(n *kong.Node)
	visit = func(n *kong.Node) {
		if n.Type == kong.CommandNode && !n.Hidden {
			commands = append(commands, n.Path())
		}
		for _, c := range n.Children {
			visit(c)
		}
	}
	visit(grammar(t).Node)
	argvs := map[string][]string{"help-flags": {"help", "flags"}}
	for _, c := range commands {
		name := c
		if name == "" {
			name = "mcpv"
		}
		argvs[strings.ReplaceAll(name, " ", "-")] = strings.Fields(c + " --help")
	}
	for name, argv := range argvs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, "", argv...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit code %d, stderr %q", r.code, r.stderr)
			}
			checkGolden(t, filepath.Join("testdata", "help", name+".txt"), r.stdout)
		})
	}
}

// checkGolden compares got with the golden file, which -update (go
// generate) writes first.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go generate ./commands creates it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("commands/%s is stale; go generate ./commands rewrites it if the change is intended (-golden +got):\n%s", filepath.ToSlash(golden), d)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "mcpv ") {
		t.Fatalf("code %d, stdout %q", r.code, r.stdout)
	}
}

// helpScreen is the screen every command's help fits: its lines no wider
// than helpWidth, and no more of them than this. What a command needs
// more words for is a topic of 'mcpv help'.
const helpScreen = overviewLines

// TestHelpFitsAScreen: every command's help (each golden of TestHelp but
// the flags topic) fits 80 columns and a screen.
func TestHelpFitsAScreen(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "help", "*.txt"))
	for _, f := range files {
		if filepath.Base(f) == "help-flags.txt" {
			continue // a topic: the reference of every global flag
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		if len(lines) > helpScreen {
			t.Errorf("%s: %d lines, more than a screen (%d)", f, len(lines), helpScreen)
		}
		for i, l := range lines {
			if n := safetext.Width(l); n > helpWidth {
				t.Errorf("%s:%d: %d columns, wider than %d: %s", f, i+1, n, helpWidth, l)
			}
		}
	}
}
