// Package manpage writes a man page in roff from the kong model of a
// command line: every visible command with its help, arguments and flags,
// the top-level flags by group, and the sections the top-level help text
// holds (its usage lines become SYNOPSIS, "Exit codes:" EXIT STATUS,
// "Environment:" ENVIRONMENT and "Examples:" EXAMPLES). What the model does
// not hold (files, other pages) comes with the Page.
package manpage

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// Page is what a man page has beyond the command-line grammar.
type Page struct {
	Section string // "1"
	Date    string // the date of the page, 2006-01-02
	Source  string // the program and its version: "mcpv v1.2.3"
	Manual  string // the manual the page belongs to: "User Commands"
	// Environment is the ENVIRONMENT section; without it, the entries of
	// the top-level help's "Environment:" block are.
	Environment []Entry
	Files       []Entry  // FILES: a path and what it holds
	SeeAlso     []string // SEE ALSO: "jq(1)", or a URL
	// Topics are what the commands' help leaves to topics of their own
	// (mcpv help TOPIC), each a subsection of TOPICS: its name, and its
	// text as help is written (paragraphs, indented literal blocks).
	Topics []Entry
}

// Entry is one item of a list: a name (a variable, a path, an exit code)
// and what it means.
type Entry struct{ Name, Help string }

// Render is the man page of app as roff.
func Render(app *kong.Application, p Page) string {
	name := app.Name
	top := splitTop(app.Detail, name)
	var b strings.Builder
	fmt.Fprintf(&b, ".\\\" Generated from the %s command line by internal/manpage; do not edit.\n", escape(name))
	fmt.Fprintf(&b, ".TH %s %s %s %s %s\n", quoted(strings.ToUpper(name)), quoted(p.Section), quoted(p.Date), quoted(p.Source), quoted(p.Manual))
	b.WriteString(".nh\n.ad l\n") // no hyphenation (a flag broken at a hyphen reads as another), ragged right

	b.WriteString(".SH NAME\n")
	summary := strings.TrimSuffix(strings.TrimSpace(app.Help), ".")
	if summary != "" {
		summary = strings.ToLower(summary[:1]) + summary[1:]
	}
	b.WriteString(text(name) + ` \- ` + escape(summary) + "\n")

	b.WriteString(".SH SYNOPSIS\n.nf\n")
	usage := top.usage
	if len(usage) == 0 {
		usage = []string{name + " [flags] <command> [args]"}
	}
	for _, u := range usage {
		b.WriteString(usageLine(u) + "\n")
	}
	b.WriteString(".fi\n")

	b.WriteString(".SH DESCRIPTION\n")
	writeBlocks(&b, top.description)
	if len(top.description) > 0 {
		b.WriteString(".PP\n")
	}
	b.WriteString("Each command is described under " + bold("COMMANDS") + " with its own flags; the flags under " +
		bold("GLOBAL FLAGS") + " apply to every command.\n")

	b.WriteString(".SH COMMANDS\n")
	for _, c := range app.Children {
		writeCommand(&b, c)
	}

	b.WriteString(".SH \"GLOBAL FLAGS\"\n")
	writeGlobalFlags(&b, app.Node)

	if len(p.Topics) > 0 {
		b.WriteString(".SH TOPICS\n")
		for _, t := range p.Topics {
			b.WriteString(".SS " + quoted(t.Name) + "\n")
			writeBlocks(&b, blocks(t.Help))
		}
	}

	env := p.Environment
	if env == nil {
		env = top.env
	}
	for _, sec := range []struct {
		head    string
		entries []Entry
		style   func(string) string
	}{{`"EXIT STATUS"`, top.exit, bold}, {"ENVIRONMENT", env, bold}, {"FILES", p.Files, italic}} {
		if len(sec.entries) > 0 {
			b.WriteString(".SH " + sec.head + "\n")
			for _, e := range sec.entries {
				b.WriteString(".TP\n" + sec.style(e.Name) + "\n" + text(e.Help) + "\n")
			}
		}
	}
	if len(top.examples) > 0 {
		b.WriteString(".SH EXAMPLES\n")
		writeBlocks(&b, top.examples)
	}
	if len(p.SeeAlso) > 0 {
		b.WriteString(".SH \"SEE ALSO\"\n")
		refs := make([]string, len(p.SeeAlso))
		for i, ref := range p.SeeAlso {
			refs[i] = seeAlso(ref)
		}
		b.WriteString(strings.Join(refs, ",\n") + "\n")
	}
	return b.String()
}

// topHelp is the top-level help text, taken apart into the page's sections.
type topHelp struct {
	usage       []string
	description []block
	exit, env   []Entry
	examples    []block
}

// splitTop finds the usage lines (a literal block whose every line starts
// with the program's name) and the blocks under the headings "Exit codes:",
// "Environment:" and "Examples:"; the rest is the description.
func splitTop(detail, name string) topHelp {
	var t topHelp
	bs := blocks(detail)
	for i := 0; i < len(bs); i++ {
		bl := bs[i]
		if bl.literal != nil && t.usage == nil && allStartWith(bl.literal, name+" ") {
			t.usage = bl.literal
			continue
		}
		if bl.literal == nil && i+1 < len(bs) && bs[i+1].literal != nil {
			switch bl.text {
			case "Exit codes:", "Exit status:":
				t.exit = definitions(bs[i+1].literal)
				i++
				continue
			case "Environment:":
				t.env = definitions(bs[i+1].literal)
				i++
				continue
			case "Examples:":
				t.examples = append(t.examples, bs[i+1])
				i++
				continue
			}
		}
		t.description = append(t.description, bl)
	}
	return t
}

func allStartWith(lines []string, prefix string) bool {
	for _, l := range lines {
		if !strings.HasPrefix(l, prefix) {
			return false
		}
	}
	return true
}

// writeCommand writes a command and, after it, its subcommands.
func writeCommand(b *strings.Builder, n *kong.Node) {
	if n.Hidden || n.Type != kong.CommandNode {
		return
	}
	path := commandPath(n)
	b.WriteString(".SS " + quoted(path) + "\n")
	b.WriteString(commandSynopsis(n, path) + "\n")
	if n.Help != "" {
		b.WriteString(".PP\n" + text(n.Help) + "\n")
	}
	writeBlocks(b, blocks(n.Detail))
	if len(n.Positional) > 0 {
		b.WriteString(".PP\nArguments:\n")
		for _, p := range n.Positional {
			b.WriteString(".TP\n" + argument(p) + "\n" + text(p.Help) + "\n")
		}
	}
	if flags := visible(n.Flags); len(flags) > 0 {
		b.WriteString(".PP\nFlags:\n")
		for _, f := range flags {
			writeFlag(b, f)
		}
	}
	for _, c := range n.Children {
		writeCommand(b, c)
	}
}

// commandPath is the command as typed: the program's name and the
// command's words.
func commandPath(n *kong.Node) string {
	var words []string
	for ; n != nil; n = n.Parent {
		words = append([]string{n.Name}, words...)
	}
	return strings.Join(words, " ")
}

func commandSynopsis(n *kong.Node, path string) string {
	parts := []string{bold(path)}
	for _, p := range n.Positional {
		parts = append(parts, argument(p))
	}
	if len(n.Positional) == 0 && slices.ContainsFunc(n.Children, func(c *kong.Node) bool { return !c.Hidden && c.Type == kong.CommandNode }) {
		parts = append(parts, italic("command"))
	}
	parts = append(parts, "["+italic("flags")+"]")
	return strings.Join(parts, " ")
}

// argument is a positional argument as the synopsis shows it: NAME,
// [NAME] when it may be left out, NAME ... when it may be repeated.
func argument(p *kong.Positional) string {
	name := p.Name
	if p.Tag != nil && p.Tag.PlaceHolder != "" {
		name = p.Tag.PlaceHolder
	}
	s := italic(name)
	if p.IsCumulative() {
		s += " ..."
	}
	if !p.Required {
		s = "[" + s + "]"
	}
	return s
}

func visible(flags []*kong.Flag) []*kong.Flag {
	var out []*kong.Flag
	for _, f := range flags {
		if !f.Hidden {
			out = append(out, f)
		}
	}
	return out
}

// writeGlobalFlags writes the top-level flags: those of no group first,
// then each group under its title, in the order of the grammar.
func writeGlobalFlags(b *strings.Builder, n *kong.Node) {
	var titles []string
	groups := map[string]*kong.Group{}
	byTitle := map[string][]*kong.Flag{}
	b.WriteString("These flags may be given before or after the command.\n")
	for _, f := range visible(n.Flags) {
		if f.Group == nil {
			writeFlag(b, f)
			continue
		}
		t := f.Group.Title
		if _, seen := groups[t]; !seen {
			titles = append(titles, t)
			groups[t] = f.Group
		}
		byTitle[t] = append(byTitle[t], f)
	}
	for _, t := range titles {
		b.WriteString(".SS " + quoted(t) + "\n")
		if d := groups[t].Description; d != "" {
			b.WriteString(text(d) + "\n")
		}
		for _, f := range byTitle[t] {
			writeFlag(b, f)
		}
	}
}

// writeFlag writes a flag as a tagged paragraph: its spellings and value,
// then its help, its default and the variable it may come from.
func writeFlag(b *strings.Builder, f *kong.Flag) {
	names := []string{}
	if f.Short != 0 {
		names = append(names, bold("-"+string(f.Short)))
	}
	neg := ""
	if f.Tag != nil {
		neg = f.Tag.Negatable
	}
	switch {
	case neg == "_":
		names = append(names, bold("--[no-]"+f.Name))
	case neg != "":
		names = append(names, bold("--"+f.Name), bold("--"+neg))
	default:
		names = append(names, bold("--"+f.Name))
	}
	term := strings.Join(names, ", ")
	if !f.IsBool() && !f.IsCounter() {
		term += "=" + italic(placeholder(f))
	}
	help := f.Help
	if def := defaultValue(f); def != "" && !strings.Contains(strings.ToLower(help), "default") {
		help = strings.TrimSpace(help + " Default: " + def + ".")
	}
	for _, env := range f.Envs {
		if !strings.Contains(help, env) {
			help = strings.TrimSpace(help + " Environment: " + env + ".")
		}
	}
	b.WriteString(".TP\n" + term + "\n" + text(help) + "\n")
}

// placeholder is what stands for the flag's value: its placeholder; where
// kong's help would show the default instead (which goes after the help
// here), the enum's values, DURATION, N or the flag's name in capitals.
func placeholder(f *kong.Flag) string {
	switch {
	case f.PlaceHolder != "":
		return f.PlaceHolder
	case defaultValue(f) == "":
		return f.FormatPlaceHolder()
	case f.Enum != "":
		return strings.Join(slices.DeleteFunc(f.EnumSlice(), func(v string) bool { return v == "" }), "|")
	case strings.Contains(strings.ToLower(f.Target.Type().String()), "duration"):
		return "DURATION"
	}
	switch f.Target.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "N"
	}
	return strings.ToUpper(f.Name)
}

func defaultValue(f *kong.Flag) string {
	if !f.HasDefault || f.IsBool() {
		return ""
	}
	return f.Default
}

// seeAlso is a reference to another page, "name(section)", with the name
// in bold, or a URL as it is.
func seeAlso(ref string) string {
	name, section, ok := strings.Cut(ref, "(")
	if !ok || strings.Contains(ref, "://") {
		return text(ref)
	}
	return bold(name) + escape("("+section)
}
