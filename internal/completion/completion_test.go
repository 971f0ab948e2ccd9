package completion

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpv/mcpv/internal/testkit"
)

// toy is a grammar with one of everything the model reads.
type toy struct {
	Name    string   `short:"n" placeholder:"NAME" help:"A name: [x] 'y'."`
	Level   string   `enum:"a,b" default:"a" help:"Level."`
	In      string   `type:"existingfile" help:"Input."`
	Out     string   `placeholder:"DIR" help:"Output."`
	Secret  bool     `hidden:"" help:"Hidden."`
	Pretty  bool     `xor:"layout" help:"Pretty."`
	Compact bool     `short:"c" xor:"layout" help:"Compact."`
	Tag     []string `help:"Tags."`
	Server  string   `short:"s" help:"A server."`
	Var     []string `placeholder:"NAME VALUE" help:"A variable."`
	Run     struct {
		Files []string `arg:"" optional:"" type:"path" help:"Files."`
	} `cmd:"" help:"Run it."`
	Take struct {
		What  string   `arg:"" enum:"one,two" help:"Which."`
		Paths []string `arg:"" optional:"" placeholder:"FILE" help:"Paths."`
	} `cmd:"" help:"Take one."`
	Gone struct {
		Hidden bool `help:"Never shown."`
	} `cmd:"" hidden:"" help:"Gone."`
}

func toyModel(t *testing.T) *kong.Application {
	t.Helper()
	k, err := kong.New(&toy{}, kong.Name("toy"))
	if err != nil {
		t.Fatal(err)
	}
	return k.Model
}

// The model reads everything from kong's tags: kinds from types, enums and
// placeholders, exclusions from xor, repetition from slices; hidden flags and
// commands are left out.
func TestModel(t *testing.T) {
	t.Parallel()
	flag := func(long, short string, excl []string, v Value) Flag {
		return Flag{Long: long, Short: short, Excludes: excl, Value: v}
	}
	want := &Command{Name: "toy", Flags: []Flag{
		flag("help", "h", []string{"--help", "-h"}, Value{Help: "Show context-sensitive help."}),
		flag("name", "n", []string{"--name", "-n"}, Value{Name: "NAME", Help: "A name: [x] 'y'."}),
		flag("level", "", []string{"--level"}, Value{Name: "LEVEL", Help: "Level.", Kind: KindEnum, Enum: []string{"a", "b"}}),
		flag("in", "", []string{"--in"}, Value{Name: "IN", Help: "Input.", Kind: KindFile}),
		flag("out", "", []string{"--out"}, Value{Name: "DIR", Help: "Output.", Kind: KindDir}),
		flag("pretty", "", []string{"--pretty", "--compact", "-c"}, Value{Help: "Pretty."}),
		flag("compact", "c", []string{"--compact", "-c", "--pretty"}, Value{Help: "Compact."}),
		flag("tag", "", nil, Value{Name: "TAG", Help: "Tags.", Repeat: true}),
		flag("server", "s", []string{"--server", "-s"}, Value{Name: "SERVER", Help: "A server.", Kind: KindServer}),
		{Long: "var", Value: Value{Name: "NAME", Help: "A variable.", Repeat: true}, More: []string{"VALUE"}},
	}, Subs: []*Command{
		{Path: "run", Name: "run", Help: "Run it.", Args: []Value{{Name: "FILES", Help: "Files.", Kind: KindFile, Repeat: true}}},
		{Path: "take", Name: "take", Help: "Take one.", Args: []Value{
			{Name: "WHAT", Help: "Which.", Kind: KindEnum, Enum: []string{"one", "two"}},
			{Name: "PATHS", Help: "Paths.", Kind: KindFile, Repeat: true},
		}},
	}}
	if d := cmp.Diff(want, Model(toyModel(t))); d != "" {
		t.Errorf("model (-want +got):\n%s", d)
	}
}

// Every visible command and flag is in every script, with its help quoted
// where the shell shows help (zsh and fish); nothing hidden is.
func TestScriptsCoverTheGrammar(t *testing.T) {
	t.Parallel()
	app := toyModel(t)
	for _, shell := range Shells {
		s, err := Script(app, shell)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"run", "take", "--name", "-n", "--level", "a b", "--compact", "one two"}
		if shell == "fish" {
			want = []string{"run", "take", " -l name ", " -s n ", " -l level ", " -s c ", `'A name: [x] \'y\'.'`, "'Take one.'"}
		}
		if shell == "zsh" {
			want = append(want, `A name\: \[x\] '\''y'\''.`, "Take one.", "'*--var=[A variable.]:NAME: :VALUE: '")
		}
		if shell == "powershell" {
			want = []string{"'run'", "'take'", "@('--name', '-n')", "@('--level')", "@('a', 'b')", "@('--compact', '-c')", "@('one', 'two')",
				`'A name: [x] ''y''.'`, "'Take one.'", "@('--var'); Words = 2"}
		}
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("%s script lacks %q", shell, w)
			}
		}
		for _, hidden := range []string{"secret", "gone", "Never shown"} {
			if strings.Contains(s, hidden) {
				t.Errorf("%s script shows the hidden %q", shell, hidden)
			}
		}
	}
}

func TestUnknownShell(t *testing.T) {
	t.Parallel()
	if _, err := Script(toyModel(t), "tcsh"); err == nil || !strings.Contains(err.Error(), "bash, zsh, fish, powershell") {
		t.Errorf("err = %v", err)
	}
}

// Server names come from files anyone may have written, such as a
// repository's .mcp.json: bash inserts its candidates as they are, so the
// script quotes each name (zsh's compadd and fish quote on insertion
// themselves).
func TestBashQuotesServerNames(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	k, err := kong.New(&toy{}, kong.Name("mcpv"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := Script(k.Model, "bash")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The executable the line names stands in for mcpv: it lists the servers.
	fakeMcpv := filepath.Join(dir, "mcpv")
	testkit.WriteScript(t, fakeMcpv, []byte("#!/bin/sh\nprintf '%s\\n' 'github;touch pwned;#' plain\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "mcpv.bash"), []byte(script), 0o644)
	drive := `source "$1/mcpv.bash"
COMP_WORDS=("$1/mcpv" --server "")
COMP_CWORD=2 COMP_LINE="$1/mcpv --server " COMP_POINT=${#COMP_LINE}
_mcpv
printf '%s\n' "${COMPREPLY[@]}"`
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", drive, "bash", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{`github\;touch\ pwned\;#`, "plain"} // a # inside a word starts no comment
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("candidates (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("completing ran the name")
	}
}
