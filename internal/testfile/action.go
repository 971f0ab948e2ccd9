package testfile

// What a step does, in the command line's words, and the file's server as
// command-line flags: both are parsed by the grammar itself, so a step
// takes every option a batch line takes and a server section every flag
// that shapes a session, with the same checks and the same messages.

import (
	"cmp"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// action reads the step's command: run: LINE, or COMMAND: with the rest of
// the line, a list of words, or a mapping of the command's parts.
func (p *fileParser) action(st *Step, key string, v *yamlnode.Node, x *expander) {
	l := &lineBuilder{p: p, x: x}
	if key == "run" {
		l.line(v, key)
		if len(l.words) == 0 && scalar(v) {
			p.errorf(v, "run: give an mcpv command line, such as 'call echo message=hi'")
		}
		p.name(st, text(v))
		st.Words = l.words
		return
	}
	l.lit(key)
	switch {
	case v.Kind == yamlnode.Null:
	case scalar(v):
		l.line(v, key)
		l.shown = []string{key, text(v)}
	case v.Kind == yamlnode.Array:
		for _, it := range v.Items {
			if s, ok := p.str(it, key+" word"); ok {
				l.text(it, s)
			}
		}
	case v.Kind == yamlnode.Object:
		l.structured(key, v)
	}
	p.name(st, strings.Join(l.shown, " "))
	st.Words = l.words
}

// lineBuilder builds a step's command line from the file: its words, and
// how they were written, for the step's name.
type lineBuilder struct {
	p     *fileParser
	x     *expander
	words []Word
	shown []string
}

// lit adds a word of mcpv's own.
func (l *lineBuilder) lit(s string) {
	l.words = append(l.words, Word{tmpl: tmpl{{lit: s}}})
	l.shown = append(l.shown, displayWord(s))
}

// text adds a word the file wrote at n.
func (l *lineBuilder) text(n *yamlnode.Node, s string) {
	t, err := l.x.expand(s)
	if err != nil {
		l.p.errorf(n, "%v", err)
	}
	l.words = append(l.words, Word{tmpl: t, at: n})
	l.shown = append(l.shown, displayWord(s))
}

// line adds the words of a command line the file wrote at n.
func (l *lineBuilder) line(n *yamlnode.Node, what string) {
	s, ok := l.p.str(n, what)
	if !ok {
		return
	}
	ws, err := shellwords.Split(s)
	if err != nil {
		l.p.errorf(n, "%v", err)
	}
	for _, w := range ws {
		l.text(n, w)
	}
}

// json adds a JSON value the file wrote at n.
func (l *lineBuilder) json(n *yamlnode.Node) {
	l.words = append(l.words, Word{json: l.p.jsonTemplate(n, l.x)})
	l.shown = append(l.shown, displayWord(string(nodeJSON(n))))
}

func (p *fileParser) name(st *Step, name string) {
	st.Name = cmp.Or(st.Name, clipName(name))
}

// maxName bounds the names of files and steps in reports.
const maxName = 200

func clipName(s string) string { return safetext.Runes(s, maxName) }

// structuredKeys are the parts of each command written as a mapping;
// "flags" takes any other words of the command line.
var structuredKeys = &lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"call":       {"tool", "args", "flags"},
		"get-prompt": {"name", "args", "flags"},
		"read":       {"uri", "flags"},
		"request":    {"method", "params", "flags"},
		"complete":   {"prompt", "template", "arg", "context", "flags"},
	}
}}

// structured reads a command written as a mapping, in the order of its
// command line: the positional part first, then its arguments, then flags.
func (l *lineBuilder) structured(key string, v *yamlnode.Node) {
	p := l.p
	known := append(slices.Clone(structuredKeys.Get()[key]), "flags")
	first := map[string]string{"call": "tool", "get-prompt": "name", "read": "uri", "request": "method"}[key]
	p.members(v, key, known, func(string, *yamlnode.Node, *yamlnode.Node) {})
	if first != "" {
		n := v.Get(first)
		if n == nil {
			p.errorf(v, "%s: give its %s", key, first)
		} else if s, ok := p.str(n, first); ok {
			l.text(n, s)
		}
	}
	if n := v.Get("args"); n != nil {
		switch {
		case n.Kind != yamlnode.Object:
			p.errorf(n, "args must be a mapping of argument names to values")
		case key == "call":
			l.lit("--args")
			l.json(n)
		default: // get-prompt: string arguments, key=value
			for i, k := range n.Keys {
				if s, ok := p.str(n.Vals[i], "a prompt argument"); ok {
					l.text(n.Vals[i], k.Text+"="+s)
				}
			}
		}
	}
	if n := v.Get("params"); n != nil {
		if n.Kind != yamlnode.Object {
			p.errorf(n, "params must be a mapping")
		} else {
			l.json(n)
		}
	}
	for _, ref := range []string{"prompt", "template"} {
		if n := v.Get(ref); n != nil {
			if s, ok := p.str(n, ref); ok {
				l.lit("--" + ref)
				l.text(n, s)
			}
		}
	}
	if n := v.Get("arg"); n != nil {
		if n.Kind == yamlnode.Object && len(n.Keys) == 1 {
			if s, ok := p.str(n.Vals[0], "arg"); ok {
				l.lit("--arg")
				l.text(n.Vals[0], n.Keys[0].Text+"="+s)
			}
		} else if s, ok := p.str(n, "arg"); ok {
			l.lit("--arg")
			l.text(n, s)
		}
	}
	if n := v.Get("context"); n != nil {
		if n.Kind != yamlnode.Object {
			p.errorf(n, "context must be a mapping of argument names to values")
		} else {
			for i, k := range n.Keys {
				if s, ok := p.str(n.Vals[i], "a context value"); ok {
					l.lit("--context")
					l.text(n.Vals[i], k.Text+"="+s)
				}
			}
		}
	}
	if n := v.Get("flags"); n != nil {
		if n.Kind == yamlnode.Array {
			for _, it := range n.Items {
				if s, ok := p.str(it, "a flag"); ok {
					l.text(it, s)
				}
			}
		} else {
			l.line(n, "flags")
		}
	}
}

// PathFlags are the session flags that name files or directories: in a
// test file, relative to its directory.
var PathFlags = map[string]bool{"config": true, "cacert": true, "cwd": true, "client-key": true, "answers": true, "events": true, "root": true, "pin": true}

// treeFlags name files whose content goes to the server or which are
// written, or that decide what is sent (a pin): they stay inside the
// test file's tree, as @FILE values do.
var treeFlags = map[string]bool{"answers": true, "events": true, "pin": true}

// atFileFlags may read their value from @FILE: relative to the test file.
var atFileFlags = map[string]bool{"header": true, "client-secret": true, "id-token": true, "assertion": true}

// server reads the server section into command-line words.
func (p *fileParser) server(v *yamlnode.Node, x *expander, o *Options, dir string) Server {
	spec := Server{At: v, KeyAt: map[string]*yamlnode.Node{}, tree: safefile.Tree{Dir: dir}, named: map[string]bool{}}
	known := append(slices.Collect(maps.Keys(o.Flags)), "command", "name", "headers")
	slices.Sort(known)
	expand := func(n *yamlnode.Node, s string) string {
		t, err := x.expand(s)
		if err != nil {
			p.errorf(n, "%v", err)
		}
		return t.fill(nil)
	}
	add := func(name string, n *yamlnode.Node, value string) {
		spec.KeyAt[name] = n
		switch {
		case treeFlags[name] && value != "":
			value = p.inTree(n, dir, value, name)
			spec.named[value] = true
		case PathFlags[name] && value != "":
			value = absolute(dir, value)
		case atFileFlags[name] && strings.HasPrefix(value, "@"):
			value = "@" + p.inTree(n, dir, value[1:], name)
			spec.named[value[1:]] = true
		}
		spec.Words = append(spec.Words, "--"+name+"="+value)
	}
	p.members(v, "server", known, func(key string, k, n *yamlnode.Node) {
		switch key {
		case "command":
			if n.Kind == yamlnode.Array {
				for _, it := range n.Items {
					if s, ok := p.str(it, "command word"); ok {
						spec.Command = append(spec.Command, expand(it, s))
					}
				}
			} else if s, ok := p.str(n, "command"); ok {
				ws, err := shellwords.Split(s)
				if err != nil {
					p.errorf(n, "%v", err)
				}
				for _, w := range ws {
					spec.Command = append(spec.Command, expand(n, w))
				}
			}
			if len(spec.Command) == 0 {
				p.errorf(n, "command: give the server's program and its arguments")
			}
		case "name":
			if s, ok := p.str(n, "name"); ok {
				add("server", n, expand(n, s))
			}
		case "headers", "env":
			flag := map[string]string{"headers": "header", "env": "env"}[key]
			sep := map[string]string{"headers": ": ", "env": "="}[key]
			if n.Kind == yamlnode.Object {
				for i, hk := range n.Keys {
					if s, ok := p.str(n.Vals[i], key+" value"); ok {
						add(flag, n.Vals[i], hk.Text+sep+expand(n.Vals[i], s))
					}
				}
				break
			}
			vals := p.strs(n, key)
			for _, s := range vals {
				add(flag, n, expand(n, s))
			}
		default:
			f := o.Flags[key]
			switch {
			case f.Bool && n.Kind == yamlnode.Bool:
				if text(n) == "true" {
					spec.KeyAt[key] = n
					spec.Words = append(spec.Words, "--"+key)
				}
			case f.Slice:
				vals := p.strs(n, key)
				for _, s := range vals {
					add(key, n, expand(n, s))
				}
			default:
				if s, ok := p.str(n, key); ok {
					add(key, n, expand(n, s))
				}
			}
		}
	})
	if len(spec.Command) > 0 && spec.KeyAt["cwd"] == nil {
		// A server runs in its test file's directory, as a project
		// config file's server runs in that file's.
		spec.Words = append(spec.Words, "--cwd="+dir)
	}
	spec.Display = describeServerSpec(spec)
	p.checkServer(&spec, o)
	return spec
}

func absolute(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

// flagInMessage finds the flag a kong error names.
var flagInMessage = &lazy.Regexp{Pattern: `--([a-z][a-z0-9-]*)`}

// checkServer checks the section's words as the command line would parse
// them (after mcpv test's own session flags), so that a bad value is found
// now, at the key that gave it.
func (p *fileParser) checkServer(spec *Server, o *Options) {
	err := o.CheckServer(spec.Words)
	if err == nil {
		return
	}
	at := spec.At
	if m := flagInMessage.Get().FindStringSubmatch(err.Error()); m != nil && spec.KeyAt[m[1]] != nil {
		at = spec.KeyAt[m[1]]
	}
	p.errorf(at, "server: %v", err)
}

// describeServerSpec is how reports name a file's server, secrets masked.
func describeServerSpec(spec Server) string {
	if len(spec.Command) > 0 {
		words := redact.Args(spec.Command)
		for i, w := range words {
			words[i] = shellwords.Quote(w)
		}
		return strings.Join(words, " ")
	}
	for _, w := range spec.Words {
		name, value, _ := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		switch name {
		case "url":
			return redact.URL(value)
		case "server":
			return "server " + value
		case "session":
			return "session " + value
		}
	}
	return "the server of MCPV_URL, MCPV_SERVER or MCPV_SESSION"
}
