package commands

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/output"
)

type completionsCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish."`
}

func (c *completionsCmd) Help() string {
	return `Prints a completion script for commands, subcommands, flags and their values: enum values, files, directories, and server names from config files (by running mcpv servers). After -- it completes the server's command line. The scripts in the repository's completions/ directory are the same.

Examples:

    $ source <(mcpv completions bash)
    $ mcpv completions zsh > "${fpath[1]}/_mcpv"
    $ mcpv completions fish > ~/.config/fish/completions/mcpv.fish`
}

func (c *completionsCmd) noServer() {}

func (c *completionsCmd) Run(kctx *kong.Context, out *console) error {
	if _, err := fmt.Fprint(out.ios.Out, completionScript(kctx.Model, c.Shell)); err != nil {
		return &output.ClosedError{Err: err}
	}
	return nil
}

// completionScript generates the script for shell from the grammar.
func completionScript(app *kong.Application, shell string) string {
	root := compModel(app)
	switch shell {
	case "bash":
		return bashScript(root)
	case "zsh":
		return zshScript(root)
	case "fish":
		return fishScript(root)
	}
	panic("completionScript: unknown shell " + shell)
}

// valueKind says what completes a flag's value or a positional argument.
type valueKind int

const (
	valueNone   valueKind = iota // anything: nothing is offered
	valueEnum                    // one of Enum
	valueFile                    // a file name
	valueDir                     // a directory name
	valueServer                  // a server name from config files, listed by `mcpv servers`
)

// serverValued names the values that are server names: "--flag" or "command path <arg>".
var serverValued = map[string]bool{"--server": true, "servers <name>": true}

// compCmd is a command as the completion scripts see it.
type compCmd struct {
	Path  string // the command's words after mcpv, space-separated; "" for mcpv itself
	Name  string
	Help  string
	Flags []compFlag // its own; the flags of its ancestors apply as well
	Args  []compValue
	Subs  []*compCmd
}

type compFlag struct {
	Long, Short string
	Excludes    []string // the flag's names, unless repeatable, and those of its xor partners, with dashes
	compValue
}

type compValue struct {
	Name   string // the placeholder of a flag; "" for a flag that takes no value
	Help   string
	Kind   valueKind
	Enum   []string
	Repeat bool
}

// Names are the flag's spellings with dashes: "--long" and maybe "-s".
func (f compFlag) Names() []string {
	if f.Short == "" {
		return []string{"--" + f.Long}
	}
	return []string{"--" + f.Long, "-" + f.Short}
}

// Takes reports whether the flag takes a value.
func (f compFlag) Takes() bool { return f.Name != "" }

func compModel(app *kong.Application) *compCmd {
	return compNode(app.Node, "")
}

func compNode(n *kong.Node, path string) *compCmd {
	c := &compCmd{Path: path, Name: n.Name, Help: n.Help}
	xor := map[string][]*kong.Flag{}
	for _, f := range n.Flags {
		for _, x := range f.Xor {
			xor[x] = append(xor[x], f)
		}
	}
	for _, f := range n.Flags {
		if f.Hidden {
			continue
		}
		c.Flags = append(c.Flags, compFlagOf(f, xor))
	}
	for _, p := range n.Positional {
		v := compValueOf(p, path+" <"+p.Name+">")
		v.Name = strings.ToUpper(p.Name)
		c.Args = append(c.Args, v)
	}
	for _, sub := range n.Children {
		if sub.Hidden || sub.Type != kong.CommandNode {
			continue
		}
		c.Subs = append(c.Subs, compNode(sub, strings.TrimSpace(path+" "+sub.Name)))
	}
	return c
}

func compFlagOf(f *kong.Flag, xor map[string][]*kong.Flag) compFlag {
	cf := compFlag{Long: f.Name, compValue: compValueOf(f.Value, "--"+f.Name)}
	if f.Short != 0 {
		cf.Short = string(f.Short)
	}
	switch {
	case f.IsBool() || f.IsCounter():
		cf.Kind = valueNone
	case f.PlaceHolder != "":
		cf.Name = f.PlaceHolder
	default:
		cf.Name = strings.ToUpper(f.Name)
	}
	seen := map[*kong.Flag]bool{f: true}
	for _, x := range f.Xor {
		for _, g := range xor[x] {
			if !seen[g] && !g.Hidden {
				seen[g] = true
				cf.Excludes = append(cf.Excludes, compFlag{Long: g.Name, Short: shortName(g)}.Names()...)
			}
		}
	}
	if !cf.Repeat && !f.IsCounter() {
		cf.Excludes = append(cf.Names(), cf.Excludes...)
	}
	return cf
}

func shortName(f *kong.Flag) string {
	if f.Short == 0 {
		return ""
	}
	return string(f.Short)
}

func compValueOf(v *kong.Value, key string) compValue {
	cv := compValue{Help: v.Help, Repeat: v.IsCumulative()}
	placeholder := v.Tag.PlaceHolder
	if v.Flag != nil {
		placeholder = v.Flag.PlaceHolder
	}
	switch {
	case serverValued[key]:
		cv.Kind = valueServer
	case v.Enum != "":
		cv.Kind = valueEnum
		for _, e := range v.EnumSlice() {
			if e != "" {
				cv.Enum = append(cv.Enum, e)
			}
		}
	case v.Tag.Type == "existingdir" || placeholder == "DIR":
		cv.Kind = valueDir
	case v.Tag.Type == "existingfile" || v.Tag.Type == "path" || placeholder == "FILE":
		cv.Kind = valueFile
	}
	return cv
}

// walk calls fn for c and every command below it, parents first.
func (c *compCmd) walk(fn func(*compCmd)) {
	fn(c)
	for _, s := range c.Subs {
		s.walk(fn)
	}
}

// shellQuote single-quotes s for sh, bash and zsh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
