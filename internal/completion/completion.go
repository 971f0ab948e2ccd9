// Package completion writes mcpv's shell completion scripts for bash, zsh,
// fish and PowerShell. They are a pure function of the kong model: Model
// reads every command, flag and positional argument with its help, and what
// completes its value (an enum's values, files, directories); Script renders
// the model for one shell. A flag whose placeholder is several words
// (--jq-arg=NAME VALUE) takes that many words. Two things are mcpv's own: the values that are server
// names (completed by running "mcpv servers", with the line's --config), and
// the command name the scripts are for.
package completion

import (
	"fmt"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/mcpv/mcpv/internal/shellwords"
)

// Shells are the shells Script writes for.
var Shells = []string{"bash", "zsh", "fish", "powershell"}

// Script generates the completion script for shell from the grammar.
func Script(app *kong.Application, shell string) (string, error) {
	scripts := map[string]func(*Command) string{"bash": bashScript, "zsh": zshScript, "fish": fishScript, "powershell": powershellScript} // made here, not at start-up
	if script, ok := scripts[shell]; ok {
		return script(Model(app)), nil
	}
	return "", fmt.Errorf("no completion script for %q: the shells are %s", shell, strings.Join(Shells, ", "))
}

// Kind says what completes a flag's value or a positional argument.
type Kind int

const (
	KindNone   Kind = iota // anything: nothing is offered
	KindEnum               // one of Enum
	KindFile               // a file name
	KindDir                // a directory name
	KindServer             // a server name from config files, listed by `mcpv servers`
)

// String is the word the bash and PowerShell scripts know a kind by.
func (k Kind) String() string {
	return [...]string{KindNone: "none", KindEnum: "enum", KindFile: "file", KindDir: "dir", KindServer: "server"}[k]
}

// serverValued names the values that are server names: "--flag" or "command path <arg>".
var serverValued = map[string]bool{"--server": true, "servers <name>": true}

// Command is a command as the completion scripts see it.
type Command struct {
	Path  string // the command's words after mcpv, space-separated; "" for mcpv itself
	Name  string
	Help  string
	Flags []Flag // its own; the flags of its ancestors apply as well
	Args  []Value
	Subs  []*Command
}

// Flag is a flag as the completion scripts see it.
type Flag struct {
	Long, Short string
	Excludes    []string // the flag's names, unless repeatable, and those of its xor partners, with dashes
	Value
	// More names the words the flag takes after its value, which is then
	// the first word (Name: "NAME" and More: ["VALUE"] for --jq-arg NAME VALUE).
	More []string
}

// Value is a flag's value or a positional argument.
type Value struct {
	Name   string // the placeholder of a flag; "" for a flag that takes no value
	Help   string
	Kind   Kind
	Enum   []string
	Repeat bool
}

// Names are the flag's spellings with dashes: "--long" and maybe "-s".
func (f Flag) Names() []string {
	if f.Short == "" {
		return []string{"--" + f.Long}
	}
	return []string{"--" + f.Long, "-" + f.Short}
}

// Takes reports whether the flag takes a value.
func (f Flag) Takes() bool { return f.Name != "" }

// Words is the number of words the flag takes after its name.
func (f Flag) Words() int {
	if !f.Takes() {
		return 0
	}
	return 1 + len(f.More)
}

// Model reads the grammar's visible commands, flags and arguments.
func Model(app *kong.Application) *Command {
	return node(app.Node, "")
}

func node(n *kong.Node, path string) *Command {
	c := &Command{Path: path, Name: n.Name, Help: n.Help}
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
		c.Flags = append(c.Flags, flagOf(f, xor))
	}
	for _, p := range n.Positional {
		v := valueOf(p, path+" <"+p.Name+">")
		v.Name = strings.ToUpper(p.Name)
		c.Args = append(c.Args, v)
	}
	for _, sub := range n.Children {
		if sub.Hidden || sub.Type != kong.CommandNode {
			continue
		}
		c.Subs = append(c.Subs, node(sub, strings.TrimSpace(path+" "+sub.Name)))
	}
	return c
}

func flagOf(f *kong.Flag, xor map[string][]*kong.Flag) Flag {
	cf := Flag{Long: f.Name, Short: shortName(f), Value: valueOf(f.Value, "--"+f.Name)}
	switch {
	case f.IsBool() || f.IsCounter():
		cf.Kind = KindNone
	case f.PlaceHolder != "":
		cf.Name = f.PlaceHolder
		if words := strings.Fields(f.PlaceHolder); len(words) > 1 && !strings.ContainsAny(f.PlaceHolder[:1], `'"`) {
			cf.Name, cf.More = words[0], words[1:]
			cf.Kind, cf.Enum = KindNone, nil // nothing is offered for any of the words
		}
	default:
		cf.Name = strings.ToUpper(f.Name)
	}
	seen := map[*kong.Flag]bool{f: true}
	for _, x := range f.Xor {
		for _, g := range xor[x] {
			if !seen[g] && !g.Hidden {
				seen[g] = true
				cf.Excludes = append(cf.Excludes, Flag{Long: g.Name, Short: shortName(g)}.Names()...)
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

func valueOf(v *kong.Value, key string) Value {
	cv := Value{Help: v.Help, Repeat: v.IsCumulative()}
	placeholder := v.Tag.PlaceHolder
	if v.Flag != nil {
		placeholder = v.Flag.PlaceHolder
	}
	switch {
	case serverValued[key]:
		cv.Kind = KindServer
	case v.Enum != "":
		cv.Kind, cv.Enum = KindEnum, slices.DeleteFunc(v.EnumSlice(), func(e string) bool { return e == "" })
	case v.Tag.Type == "existingdir" || placeholder == "DIR":
		cv.Kind = KindDir
	case v.Tag.Type == "existingfile" || v.Tag.Type == "path" || placeholder == "FILE":
		cv.Kind = KindFile
	}
	return cv
}

// Walk calls fn for c and every command below it, parents first.
func (c *Command) Walk(fn func(*Command)) {
	fn(c)
	for _, s := range c.Subs {
		s.Walk(fn)
	}
}

// each is what f makes of each of vals, in their order.
func each[T any](vals []T, f func(T) string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = f(v)
	}
	return out
}

// shellQuote single-quotes s for sh, bash and zsh.
var shellQuote = shellwords.SingleQuote
