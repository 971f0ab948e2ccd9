package commands

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/completion"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/output"
)

// completionFiles are the committed scripts, by shell.
var completionFiles = map[string]string{
	"bash":       "../completions/mcpv.bash",
	"zsh":        "../completions/_mcpv",
	"fish":       "../completions/mcpv.fish",
	"powershell": "../completions/mcpv.ps1",
}

func grammar(t *testing.T) *kong.Application {
	t.Helper()
	var c cli
	var out bytes.Buffer
	k, err := parser(&c, output.NewStreams(strings.NewReader(""), &out, &out), func(int) {}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return k.Model
}

// go generate ./... (or go test ./commands -run TestCompletions -update)
// rewrites the scripts in completions/.
//
//go:generate go test -run ^TestCompletionsAreFresh -update .
func TestCompletionsAreFresh(t *testing.T) {
	app := grammar(t)
	for _, shell := range completion.Shells {
		file := completionFiles[shell]
		got := script(t, app, shell)
		if *update {
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (go generate ./commands creates it)", err)
		}
		if d := cmp.Diff(string(want), got); d != "" {
			t.Errorf("%s is stale; go generate ./commands rewrites it (-committed +generated):\n%s", file, d)
		}
	}
}

func TestCompletionsCommand(t *testing.T) {
	app := grammar(t)
	for _, shell := range completion.Shells {
		r := mcpv(t, "", "completions", shell)
		if r.code != 0 || r.stderr != "" || r.stdout != script(t, app, shell) {
			t.Errorf("completions %s: exit code %d, stderr %q, stdout %.100q", shell, r.code, r.stderr, r.stdout)
		}
	}
	for _, argv := range [][]string{{"completions"}, {"completions", "tcsh"}} {
		if r := mcpv(t, "", argv...); r.code != 2 || r.stdout != "" {
			t.Errorf("%q: exit code %d, stdout %q; want 2 and nothing", argv, r.code, r.stdout)
		}
	}
}

// Every command and flag of the grammar that help shows is in every script.
// (internal/completion checks that help texts are quoted into them, on a
// grammar of its own.)
func TestCompletionsCoverGrammar(t *testing.T) {
	t.Parallel()
	app := grammar(t)
	var visit func(n *kong.Node)
	visit = func(n *kong.Node) {
		for _, shell := range completion.Shells {
			s := script(t, app, shell)
			var want []string
			if n.Type == kong.CommandNode {
				want = append(want, n.Name)
			}
			for _, f := range n.Flags {
				if f.Hidden {
					continue
				}
				long, short := "--"+f.Name, "-"+string(f.Short)
				if shell == "fish" {
					long, short = " -l "+f.Name+" ", " -s "+string(f.Short)+" "
				}
				want = append(want, long)
				if f.Short != 0 {
					want = append(want, short)
				}
			}
			for _, w := range want {
				if !strings.Contains(s, w) {
					t.Errorf("%s script lacks %q (of %q)", shell, w, n.FullPath())
				}
			}
		}
		for _, c := range n.Children {
			if !c.Hidden {
				visit(c)
			}
		}
	}
	visit(app.Node)
}

// script is the completion script for shell.
func script(t *testing.T, app *kong.Application, shell string) string {
	t.Helper()
	s, err := completion.Script(app, shell)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serverValued names flags and arguments by hand; this fails when they are renamed.
func TestCompletionsServerValues(t *testing.T) {
	root := completion.Model(grammar(t))
	var servers []string
	root.Walk(func(c *completion.Command) {
		for _, f := range c.Flags {
			if f.Kind == completion.KindServer {
				servers = append(servers, c.Path+" --"+f.Long)
			}
		}
		for _, a := range c.Args {
			if a.Kind == completion.KindServer {
				servers = append(servers, c.Path+" "+a.Name)
			}
		}
	})
	if d := cmp.Diff([]string{" --server", "servers NAME"}, servers); d != "" {
		t.Errorf("server-valued flags and arguments (-want +got):\n%s", d)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// shellCases run in a directory holding c.json (servers alpha and beta), a project .mcp.json
// (alpha again, and gamma) and sub/, with a freshly built mcpv first on PATH.
var shellCases = []struct {
	line string
	want []string
	some bool // the shell may offer more
}{
	{line: "mcpv li", want: []string{"list-prompts", "list-resource-templates", "list-resources", "list-tools"}},
	{line: "mcpv tasks ", want: []string{"cancel", "get", "list", "result"}},
	{line: "mcpv tasks list --cu", want: []string{"--cursor"}},
	{line: "mcpv tasks list --color ", want: []string{"always", "auto", "never"}},
	{line: "mcpv --transport ", want: []string{"auto", "sse", "streamable-http"}},
	{line: "mcpv --color=", want: []string{"always", "auto", "never"}},
	{line: "mcpv --color=n", want: []string{"never"}},
	{line: "mcpv call --va", want: []string{"--validate-output"}},
	{line: "mcpv call echo --validate-output s", want: []string{"strict"}},
	{line: "mcpv -rq .x ta", want: []string{"tasks"}},
	{line: "mcpv --jq ", want: nil},
	{line: "mcpv --jq-arg ta", want: nil},                   // NAME
	{line: "mcpv --jq-arg n ta", want: nil},                 // VALUE
	{line: "mcpv --jq-arg n v ta", want: []string{"tasks"}}, // the flag's words are behind
	{line: "mcpv --jq-arg=n ta", want: nil},
	{line: "mcpv --jq-arg=n v ta", want: []string{"tasks"}},
	{line: "mcpv tasks --jq-argjson n 1 ", want: []string{"cancel", "get", "list", "result"}},
	{line: "mcpv --jq-arg n v -s ", want: []string{"alpha", "gamma"}},
	{line: "mcpv completions ", want: []string{"bash", "fish", "powershell", "zsh"}},
	{line: "mcpv -s ", want: []string{"alpha", "gamma"}},
	{line: "mcpv --config c.json -s ", want: []string{"alpha", "beta", "gamma"}},
	{line: "mcpv --config=c.json servers ", want: []string{"alpha", "beta", "gamma"}},
	{line: "mcpv servers --config c.json ", want: []string{"alpha", "beta", "gamma"}},
	{line: "mcpv --config c", want: []string{"c.json"}},
	{line: "mcpv --config=c", want: []string{"c.json"}},
	{line: "mcpv --cwd ", want: []string{"sub"}},
	{line: "mcpv trust c.json s", want: []string{"sub"}},
	{line: "mcpv ping -- ech", want: []string{"echo"}, some: true},
	{line: "mcpv ping -- ls s", want: []string{"sub"}},
}

func TestCompletionsInShells(t *testing.T) {
	testkit.SkipLong(t, "builds mcpv")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build mcpv with")
	}
	bin, scripts, home, dir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	build := exec.Command(goTool, "build", "-o", filepath.Join(bin, "mcpv"), "github.com/mcpv/mcpv")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	app := grammar(t)
	writeFiles(t, scripts, map[string]string{
		"fpath/_mcpv": script(t, app, "zsh"),
		"mcpv.bash":   script(t, app, "bash"),
		"mcpv.fish":   script(t, app, "fish"),
		"mcpv.ps1":    script(t, app, "powershell"),
		"drive.ps1":   pwshDrive,
		"zsh-init":    zshInit,
		"zsh-drive":   zshDrive,
	})
	writeFiles(t, dir, map[string]string{
		"c.json":    `{"mcpServers":{"alpha":{"command":"x"},"beta":{"url":"http://127.0.0.1:1/mcp"}}}`,
		".mcp.json": `{"mcpServers":{"alpha":{"command":"y"},"gamma":{"command":"z"}}}`,
		"sub/keep":  "",
	})
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"TERM=xterm", "LANG=C.UTF-8", "S=" + scripts}
	var lines []string
	for _, c := range shellCases {
		lines = append(lines, c.line)
	}
	shells := []struct {
		name string
		argv []string
	}{
		{"bash", bashArgv(lines)},
		{"zsh", append([]string{"zsh", "-f", filepath.Join(scripts, "zsh-drive"), "fpath"}, lines...)},
		{"zsh-source", append([]string{"zsh", "-f", filepath.Join(scripts, "zsh-drive"), "source"}, lines...)},
		{"fish", append([]string{"fish", "--no-config", "-c", fishDrive}, lines...)},
		{"pwsh", append([]string{"pwsh", "-NoProfile", "-NonInteractive", "-File", filepath.Join(scripts, "drive.ps1")}, lines...)},
	}
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(sh.argv[0]); err != nil {
				t.Skipf("%s is not installed", sh.argv[0])
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang's bound: a loaded race run drives zsh for 30 s and more
			defer cancel()
			cmd := exec.CommandContext(ctx, sh.argv[0], sh.argv[1:]...)
			cmd.Dir, cmd.Env = dir, env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\nstderr: %s", err, stderr.String())
			}
			got := strings.Split(string(out), "<<END>>\n")
			if len(got) < 2 || (len(got)-1)%len(shellCases) != 0 {
				t.Fatalf("%d results for %d lines:\n%s\nstderr: %s", len(got)-1, len(shellCases), out, stderr.String())
			}
			for i, res := range got[:len(got)-1] {
				c := shellCases[i%len(shellCases)]
				words, dup := completed(c.line, res, c.want, c.some)
				if d := cmp.Diff(c.want, words); d != "" {
					t.Errorf("%q (run %d) offers (-want +got):\n%s", c.line, i/len(shellCases)+1, d)
				}
				if dup != "" && sh.name == "bash" {
					t.Errorf("%q (run %d) offers %q twice", c.line, i/len(shellCases)+1, dup)
				}
			}
			if t.Failed() {
				t.Logf("stderr: %s", stderr.String())
			}
		})
	}
}

// completed turns a shell's output into sorted, distinct words: without fish's descriptions,
// the --flag= that fish and bash (without = in COMP_WORDBREAKS) repeat, or a directory's /.
// With some, only the wanted ones are kept. dup is a word that was there twice.
func completed(line, out string, want []string, some bool) (words []string, dup string) {
	prefix := line[strings.LastIndexByte(line, ' ')+1:]
	if i := strings.IndexByte(prefix, '='); strings.HasPrefix(prefix, "-") && i >= 0 {
		prefix = prefix[:i+1]
	} else {
		prefix = ""
	}
	seen := map[string]bool{}
	for w := range strings.SplitSeq(out, "\n") {
		w, _, _ = strings.Cut(w, "\t")
		w = strings.TrimSuffix(strings.TrimPrefix(w, prefix), "/")
		switch {
		case w == "" || (some && !slices.Contains(want, w)):
		case seen[w]:
			dup = w
		default:
			seen[w] = true
			words = append(words, w)
		}
	}
	sort.Strings(words)
	return words, dup
}

// bashArgv runs each line in bash twice: with COMP_WORDS split at = and : as readline does,
// then with = and : taken out of COMP_WORDBREAKS.
func bashArgv(lines []string) []string {
	var b strings.Builder
	b.WriteString(`source "$S/mcpv.bash"
t() {
    COMP_LINE=$1 COMP_POINT=${#1} COMP_CWORD=$(($# - 2))
    shift
    COMP_WORDS=("$@")
    _mcpv
    printf '%s\n' "${COMPREPLY[@]}" '<<END>>'
}
`)
	for _, split := range []bool{true, false} {
		if !split {
			b.WriteString("COMP_WORDBREAKS=${COMP_WORDBREAKS//[=:]/}\n")
		}
		for _, line := range lines {
			b.WriteString("t " + shellwords.Quote(line))
			for _, w := range bashWords(line, split) {
				b.WriteString(" " + shellwords.Quote(w))
			}
			b.WriteString("\n")
		}
	}
	return []string{"bash", "--norc", "--noprofile", "-c", b.String()}
}

// bashWords splits line as readline fills COMP_WORDS: at spaces, and around runs of = and :
// when split.
func bashWords(line string, split bool) []string {
	var words []string
	for f := range strings.SplitSeq(line, " ") {
		if !split {
			words = append(words, f)
			continue
		}
		start := 0
		for i := 1; i <= len(f); i++ {
			if i == len(f) || strings.ContainsRune("=:", rune(f[i])) != strings.ContainsRune("=:", rune(f[i-1])) {
				words = append(words, f[start:i])
				start = i
			}
		}
		if f == "" {
			words = append(words, "")
		}
	}
	return words
}

// pwshDrive completes each line as PowerShell's Tab would, printing what each match would
// put on the line, without PowerShell's ./ before a relative path or / after a directory.
const pwshDrive = `. (Join-Path $env:S mcpv.ps1)
foreach ($line in $args) {
    $r = TabExpansion2 -inputScript $line -cursorColumn $line.Length
    foreach ($m in $r.CompletionMatches) {
        $m.CompletionText -replace '^(--[^=]+=)?\.[/\\]', '$1' -replace '[/\\]$', ''
    }
    '<<END>>'
}
`

const fishDrive = `source $S/mcpv.fish
for line in $argv
    complete -C $line
    echo '<<END>>'
end`

// zshDrive runs an interactive zsh in a pseudo-terminal, loads the completion from $fpath or
// with source, types each line and a Tab, and prints the matches that reach compadd.
const zshDrive = `zmodload zsh/zpty || exit 1
mode=$1; shift
zpty z zsh -f -i
zpty -w z "mode=$mode; source \$S/zsh-init"
zpty -r z out '*<<READY>>*' || exit 1
for line in "$@"; do
    zpty -w -n z "$line"$'\t'
    zpty -r z out '*<<END>>*' || exit 1
    print -rl -- ${(M)${(f)out//$'\r'/}:#<M>*} | sed 's/^<M>//' | sort -u
    print -r -- '<<END>>'
    zpty -w -n z $'\x15'
done
zpty -d z
`

// zshInit makes every compadd print its matches, "<M>match" a line, as it adds them.
const zshInit = `PS1= RPS1=
[[ $mode == fpath ]] && fpath=($S/fpath $fpath)
autoload -Uz compinit && compinit -u -D
[[ $mode == source ]] && source $S/fpath/_mcpv
compadd() {
    if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
        builtin compadd "$@"
        return
    fi
    local -a __hits
    builtin compadd -A __hits "$@"
    (( $#__hits )) && print -rl -- "${__hits[@]/#/<M>}"
    builtin compadd "$@"
}
_capture() { print; _main_complete; print -r -- '<<END>>' }
zle -C capture complete-word _capture
bindkey '^I' capture
print '<<READY>>'
`
