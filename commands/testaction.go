package commands

// What a step does, in the command line's words, and the file's server as
// command-line flags: both are parsed by the grammar itself, so a step
// takes every option a batch line takes and a server section every flag
// that shapes a session, with the same checks and the same messages.

import (
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/output"
	"github.com/mcpv/mcpv/redact"
)

// action reads the step's command: run: LINE, or COMMAND: with the rest of
// the line, a list of words, or a mapping of the command's parts.
func (p *fileParser) action(st *testStep, key string, v *tnode, x *expander) {
	l := &lineBuilder{p: p, x: x}
	if key == "run" {
		l.line(v, key)
		if len(l.words) == 0 && v.scalar() {
			p.errorf(v, "run: give an mcpv command line, such as 'call echo message=hi'")
		}
		p.name(st, v.text)
		st.words = l.words
		return
	}
	l.lit(key)
	switch {
	case v.kind == tnull:
	case v.scalar():
		l.line(v, key)
		l.shown = []string{key, v.text}
	case v.kind == tarray:
		for _, it := range v.items {
			if s, ok := p.str(it, key+" word"); ok {
				l.text(it, s)
			}
		}
	case v.kind == tobject:
		l.structured(key, v)
	}
	p.name(st, strings.Join(l.shown, " "))
	st.words = l.words
}

// lineBuilder builds a step's command line from the file: its words, and
// how they were written, for the step's name.
type lineBuilder struct {
	p     *fileParser
	x     *expander
	words []stepWord
	shown []string
}

// lit adds a word of mcpv's own.
func (l *lineBuilder) lit(s string) {
	l.words = append(l.words, stepWord{text: tmpl{{lit: s}}})
	l.shown = append(l.shown, displayWord(s))
}

// text adds a word the file wrote at n.
func (l *lineBuilder) text(n *tnode, s string) {
	t, err := l.x.expand(s)
	if err != nil {
		l.p.errorf(n, "%v", err)
	}
	l.words = append(l.words, stepWord{text: t})
	l.shown = append(l.shown, displayWord(s))
}

// line adds the words of a command line the file wrote at n.
func (l *lineBuilder) line(n *tnode, what string) {
	s, ok := l.p.str(n, what)
	if !ok {
		return
	}
	ws, err := splitWords(s)
	if err != nil {
		l.p.errorf(n, "%v", err)
	}
	for _, w := range ws {
		l.text(n, w)
	}
}

// json adds a JSON value the file wrote at n.
func (l *lineBuilder) json(n *tnode) {
	l.words = append(l.words, stepWord{json: l.p.jsonTemplate(n, l.x)})
	l.shown = append(l.shown, displayWord(string(n.json())))
}

func (p *fileParser) name(st *testStep, name string) {
	if st.name == "" {
		st.name = clipName(name)
	}
}

// maxName bounds the names of files and steps in reports.
const maxName = 200

func clipName(s string) string { return clipRunes(s, maxName) }

// structuredKeys are the parts of each command written as a mapping;
// "flags" takes any other words of the command line.
var structuredKeys = map[string][]string{
	"call":       {"tool", "args", "flags"},
	"get-prompt": {"name", "args", "flags"},
	"read":       {"uri", "flags"},
	"request":    {"method", "params", "flags"},
	"complete":   {"prompt", "template", "arg", "context", "flags"},
}

// structured reads a command written as a mapping, in the order of its
// command line: the positional part first, then its arguments, then flags.
func (l *lineBuilder) structured(key string, v *tnode) {
	p := l.p
	known := append(slices.Clone(structuredKeys[key]), "flags")
	var first string
	switch key {
	case "call":
		first = "tool"
	case "get-prompt":
		first = "name"
	case "read":
		first = "uri"
	case "request":
		first = "method"
	}
	p.members(v, key, known, func(string, *tnode, *tnode) {})
	if first != "" {
		n := v.get(first)
		if n == nil {
			p.errorf(v, "%s: give its %s", key, first)
		} else if s, ok := p.str(n, first); ok {
			l.text(n, s)
		}
	}
	if n := v.get("args"); n != nil {
		switch {
		case n.kind != tobject:
			p.errorf(n, "args must be a mapping of argument names to values")
		case key == "call":
			l.lit("--args")
			l.json(n)
		default: // get-prompt: string arguments, key=value
			for i, k := range n.keys {
				if s, ok := p.str(n.vals[i], "a prompt argument"); ok {
					l.text(n.vals[i], k.text+"="+s)
				}
			}
		}
	}
	if n := v.get("params"); n != nil {
		if n.kind != tobject {
			p.errorf(n, "params must be a mapping")
		} else {
			l.json(n)
		}
	}
	for _, ref := range []string{"prompt", "template"} {
		if n := v.get(ref); n != nil {
			if s, ok := p.str(n, ref); ok {
				l.lit("--" + ref)
				l.text(n, s)
			}
		}
	}
	if n := v.get("arg"); n != nil {
		if n.kind == tobject && len(n.keys) == 1 {
			if s, ok := p.str(n.vals[0], "arg"); ok {
				l.lit("--arg")
				l.text(n.vals[0], n.keys[0].text+"="+s)
			}
		} else if s, ok := p.str(n, "arg"); ok {
			l.lit("--arg")
			l.text(n, s)
		}
	}
	if n := v.get("context"); n != nil {
		if n.kind != tobject {
			p.errorf(n, "context must be a mapping of argument names to values")
		} else {
			for i, k := range n.keys {
				if s, ok := p.str(n.vals[i], "a context value"); ok {
					l.lit("--context")
					l.text(n.vals[i], k.text+"="+s)
				}
			}
		}
	}
	if n := v.get("flags"); n != nil {
		if n.kind == tarray {
			for _, it := range n.items {
				if s, ok := p.str(it, "a flag"); ok {
					l.text(it, s)
				}
			}
		} else {
			l.line(n, "flags")
		}
	}
}

// sessionFlag is a flag a server section may give by its long name.
type sessionFlag struct {
	bool, slice, path bool
}

// sessionFlags are the flags of the groups that shape a session, from the
// grammar; --server is the section's name:.
var sessionFlags = sync.OnceValue(func() map[string]sessionFlag {
	app, err := Grammar()
	if err != nil {
		panic(err) // the grammar is fixed
	}
	flags := map[string]sessionFlag{}
	for _, f := range app.Flags {
		if f.Group == nil || !batchGroups[f.Group.Key] || f.Name == "server" {
			continue
		}
		flags[f.Name] = sessionFlag{bool: f.IsBool(), slice: f.IsSlice(), path: pathFlags[f.Name]}
	}
	return flags
})

// pathFlags name files or directories: relative to the test file.
var pathFlags = map[string]bool{"config": true, "cacert": true, "cwd": true, "client-key": true, "answers": true, "events": true, "root": true}

// treeFlags name files whose content goes to the server or which are
// written: they stay inside the test file's tree, as @FILE values do.
var treeFlags = map[string]bool{"answers": true, "events": true}

// atFileFlags may read their value from @FILE: relative to the test file.
var atFileFlags = map[string]bool{"header": true, "client-secret": true, "id-token": true, "assertion": true}

// server reads the server section into command-line words.
func (p *fileParser) server(v *tnode, x *expander, fc *fileContext, dir string) serverSpec {
	spec := serverSpec{at: v, keyAt: map[string]*tnode{}}
	flags := sessionFlags()
	known := []string{"command", "name", "headers"}
	for name := range flags {
		known = append(known, name)
	}
	slices.Sort(known)
	expand := func(n *tnode, s string) string {
		t, err := x.expand(s)
		if err != nil {
			p.errorf(n, "%v", err)
		}
		return t.fill(nil)
	}
	add := func(name string, n *tnode, value string) {
		spec.keyAt[name] = n
		switch {
		case treeFlags[name] && value != "":
			value = p.inTree(n, dir, value, name)
		case pathFlags[name] && value != "":
			value = absolute(dir, value)
		case atFileFlags[name] && strings.HasPrefix(value, "@"):
			value = "@" + p.inTree(n, dir, value[1:], name)
		}
		spec.words = append(spec.words, "--"+name+"="+value)
	}
	p.members(v, "server", known, func(key string, k, n *tnode) {
		switch key {
		case "command":
			if n.kind == tarray {
				for _, it := range n.items {
					if s, ok := p.str(it, "command word"); ok {
						spec.command = append(spec.command, expand(it, s))
					}
				}
			} else if s, ok := p.str(n, "command"); ok {
				ws, err := splitWords(s)
				if err != nil {
					p.errorf(n, "%v", err)
				}
				for _, w := range ws {
					spec.command = append(spec.command, expand(n, w))
				}
			}
			if len(spec.command) == 0 {
				p.errorf(n, "command: give the server's program and its arguments")
			}
		case "name":
			if s, ok := p.str(n, "name"); ok {
				add("server", n, expand(n, s))
			}
		case "headers", "env":
			flag := map[string]string{"headers": "header", "env": "env"}[key]
			sep := map[string]string{"headers": ": ", "env": "="}[key]
			if n.kind == tobject {
				for i, hk := range n.keys {
					if s, ok := p.str(n.vals[i], key+" value"); ok {
						add(flag, n.vals[i], hk.text+sep+expand(n.vals[i], s))
					}
				}
				break
			}
			vals, _ := p.strs(n, key)
			for _, s := range vals {
				add(flag, n, expand(n, s))
			}
		default:
			f := flags[key]
			switch {
			case f.bool && n.kind == tbool:
				if n.text == "true" {
					spec.keyAt[key] = n
					spec.words = append(spec.words, "--"+key)
				}
			case f.slice:
				vals, _ := p.strs(n, key)
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
	if len(spec.command) > 0 && spec.keyAt["cwd"] == nil {
		// A server runs in its test file's directory, as a project
		// config file's server runs in that file's.
		spec.words = append(spec.words, "--cwd="+dir)
	}
	spec.display = describeServerSpec(spec)
	p.checkServer(&spec, fc)
	return spec
}

func absolute(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

// flagInMessage finds the flag a kong error names.
var flagInMessage = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--([a-z][a-z0-9-]*)`) })

// checkServer parses the section's words as the command line would (after
// mcpv test's own session flags), so that a bad value is found now.
func (p *fileParser) checkServer(spec *serverSpec, fc *fileContext) {
	words := append(slices.Clone(fc.globalWords), spec.words...)
	_, _, err := parseSessionFlags(words)
	if err == nil {
		return
	}
	at := spec.at
	if m := flagInMessage().FindStringSubmatch(err.Error()); m != nil && spec.keyAt[m[1]] != nil {
		at = spec.keyAt[m[1]]
	}
	p.errorf(at, "server: %v", err)
}

// parseSessionFlags parses session flags as a command line's, and says which
// were given.
func parseSessionFlags(words []string) (connect.Flags, map[string]bool, error) {
	var c cli
	k, err := parser(&c, output.NewStreams(strings.NewReader(""), io.Discard, io.Discard), func(int) { panic(exitRequest{}) })
	if err != nil {
		return connect.Flags{}, nil, err
	}
	kctx, err := parseBatchLine(k, append(slices.Clone(words), "ping"))
	if err != nil {
		return connect.Flags{}, nil, err
	}
	return c.Flags, explicitFlags(kctx), nil
}

// describeServerSpec is how reports name a file's server, secrets masked.
func describeServerSpec(spec serverSpec) string {
	if len(spec.command) > 0 {
		words := redact.Args(spec.command)
		for i, w := range words {
			words[i] = connect.QuoteWord(w)
		}
		return strings.Join(words, " ")
	}
	for _, w := range spec.words {
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
