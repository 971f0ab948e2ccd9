package commands

// A test file: the server, as the command line names it, and the steps to
// run against it in one session. Everything about a file is checked here,
// before any server starts; each mistake is FILE:LINE:COLUMN: message.

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/duration"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/output"
)

// testFile is a parsed test file.
type testFile struct {
	path  string // as given (for reports)
	dir   string // its directory, absolute: relative paths in it start here
	name  string // name:, else the file's base name without extension
	serve serverSpec
	steps []*testStep
	// secrets are the values of secret-named variables the file expanded.
	secrets []string
}

// serverSpec is the file's server: session flags as command-line words
// and the words after --, and what each flag was written as.
type serverSpec struct {
	words   []string
	command []string
	at      *tnode
	keyAt   map[string]*tnode // flag name -> where the file gave it
	display string
}

// fileStem is a test file's name without its extension, nor .mcpv.
func fileStem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(strings.TrimSuffix(base, filepath.Ext(base)), ".mcpv")
}

type stepKind int

const (
	stepLine stepKind = iota // an mcpv command line
	stepSnapshot
	stepLint
)

// testStep is one step of a file.
type testStep struct {
	index   int // 1-based
	name    string
	line    int
	kind    stepKind
	words   []stepWord // stepLine
	calls   bool       // the step calls a tool
	expect  expectations
	capture []captureSpec
	within  time.Duration
	skip    string // the reason, when the step is not to run
	// snapshot is the snapshot file of a snapshot step, absolute.
	snapshot string
	// ignore are the lint rules a lint step does not report.
	ignore []string
	needs  []string // the captures the step uses
	// checkResult: a lint step comes before this call step in its file,
	// so its result is checked against its tool's outputSchema.
	checkResult bool
}

// stepWord is a word of a step's command line: text, or a JSON value
// (call's --args, request's params) rendered when the step runs.
type stepWord struct {
	text tmpl
	json *jtmpl
}

func (w stepWord) fill(caps map[string]json.RawMessage) string {
	if w.json != nil {
		return string(w.json.render(caps))
	}
	return w.text.fill(caps)
}

type captureSpec struct {
	name string
	expr string
}

// stepCommands are the commands a step may name as its key: every command
// a batch line may run.
var stepCommands = []string{"info", "ping", "list-tools", "call", "list-resources", "list-resource-templates",
	"read", "list-prompts", "get-prompt", "complete", "tasks", "skills", "request"}

var stepKeys = append([]string{"name", "run", "snapshot", "lint", "expect", "capture", "within", "skip"}, stepCommands...)

var fileKeys = []string{"$schema", "name", "description", "server", "steps"}

// fileContext is what every file is read with.
type fileContext struct {
	env   connect.Env
	lines *lineParser // for checking steps: sequential use only
	// globalWords are the session flags given to mcpv test itself, which
	// every file's own server settings follow.
	globalWords []string
	// found: mcpv test found the files by itself, and runs only those
	// the user has trusted.
	found bool
}

// readTestFile reads and checks one test file.
func readTestFile(fc *fileContext, path string) (*testFile, fileErrors) {
	p := &fileParser{file: path}
	data, err := safefile.Read(fc.env.Path(path))
	if err != nil {
		return nil, fileErrors{{file: path, line: 1, col: 1, msg: err.Error()}}
	}
	if fc.found {
		if err := checkFoundTrusted(fc.env, path, data); err != nil {
			return nil, fileErrors{{msg: err.Error()}}
		}
	}
	root, fe := parseTestYAML(data, "a test file")
	if fe != nil {
		fe.file = path
		return nil, fileErrors{fe}
	}
	f := &testFile{path: path, dir: filepath.Dir(fc.env.Path(path)), name: fileStem(path)}
	x := &expander{env: fc.env.Config(""), folder: f.dir, secrets: &f.secrets}
	var stepsNode *tnode
	p.members(withoutExtensions(root), "the file", fileKeys, func(key string, k, v *tnode) {
		switch key {
		case "name":
			if s, ok := p.str(v, "name"); ok {
				f.name = clipName(s)
			}
		case "description", "$schema":
		case "server":
			f.serve = p.server(v, x, fc, f.dir)
		case "steps":
			stepsNode = v
		}
	})
	if root.kind == tobject && root.get("server") == nil {
		f.serve = serverSpec{at: root, keyAt: map[string]*tnode{}}
		f.serve.display = describeServerSpec(f.serve)
		p.checkServer(&f.serve, fc)
	}
	switch {
	case stepsNode == nil && root.kind == tobject:
		p.errorf(root, "the file has no steps: give steps: with a list of them")
	case stepsNode != nil && stepsNode.kind != tarray:
		p.errorf(stepsNode, "steps must be a list, not %s", stepsNode.kind)
	case stepsNode != nil:
		known := map[string]bool{}
		for i, sn := range stepsNode.items {
			if st := p.step(sn, i+1, f, x, known, fc); st != nil {
				f.steps = append(f.steps, st)
			}
		}
		if len(stepsNode.items) == 0 {
			p.errorf(stepsNode, "steps is empty")
		}
	}
	linted := false
	for _, st := range f.steps {
		linted = linted || st.kind == stepLint && st.skip == ""
		st.checkResult = linted && st.calls
	}
	slices.SortStableFunc(p.errs, func(a, b *fileError) int {
		if a.line != b.line {
			return a.line - b.line
		}
		return a.col - b.col
	})
	return f, p.errs
}

// withoutExtensions is a file's mapping without its x-... members, which
// mcpv leaves to the file's author (a place for YAML anchors, say).
func withoutExtensions(root *tnode) *tnode {
	if root.kind != tobject {
		return root
	}
	n := *root
	n.keys, n.vals = nil, nil
	for i, k := range root.keys {
		if !strings.HasPrefix(k.text, "x-") {
			n.keys, n.vals = append(n.keys, k), append(n.vals, root.vals[i])
		}
	}
	return &n
}

// step reads one step; known holds the captures of the steps before it,
// and gains this step's.
func (p *fileParser) step(n *tnode, index int, f *testFile, x *expander, known map[string]bool, fc *fileContext) *testStep {
	if n.kind != tobject {
		p.errorf(n, "a step must be a mapping, such as {call: echo message=hi}, not %s", n.kind)
		return nil
	}
	st := &testStep{index: index, line: n.line}
	sx := *x
	sx.known = known
	var action []string
	for _, k := range n.keys {
		if slices.Contains(stepKeys, k.text) && !slices.Contains([]string{"name", "expect", "capture", "within", "skip"}, k.text) {
			action = append(action, k.text)
			if len(action) == 2 {
				p.errorf(k, "a step does one thing: %s and %s are both given", action[0], k.text)
			}
		}
	}
	unknown := slices.ContainsFunc(n.keys, func(k *tnode) bool { return !slices.Contains(stepKeys, k.text) })
	if len(action) == 0 && !unknown {
		p.errorf(n, "a step needs what to do: run: LINE, a command such as call:, snapshot: FILE or lint:")
	}
	before := len(p.errs)
	var expectNode *tnode
	p.members(n, "a step", stepKeys, func(key string, k, v *tnode) {
		switch key {
		case "name":
			if s, ok := p.str(v, "name"); ok {
				st.name = clipName(s)
			}
		case "expect":
			expectNode = v
		case "capture":
			st.capture = p.captures(v)
		case "within":
			st.within = p.duration(v, "within")
		case "skip":
			if v.kind == tbool && v.text == "false" {
				break
			}
			if s, ok := p.str(v, "skip"); ok {
				st.skip = s
				if v.kind == tbool {
					st.skip = "skip: true"
				}
			}
		case "snapshot":
			st.kind = stepSnapshot
			if s, ok := p.str(v, "snapshot"); ok && s != "" {
				st.snapshot = p.inTree(v, f.dir, s, "snapshot")
				p.name(st, "snapshot "+s)
			} else if ok {
				p.errorf(v, "snapshot: give the snapshot file's path")
			}
		case "lint":
			st.kind = stepLint
			p.name(st, "lint")
			st.ignore = p.lintOptions(v)
		default:
			if len(action) == 1 {
				p.action(st, key, v, &sx)
			}
		}
	})
	if expectNode != nil {
		st.expect = p.expectations(expectNode, st, f, known)
	} else {
		st.expect.at = n
	}
	if st.kind == stepLine && len(action) == 1 && len(st.words) > 0 && len(p.errs) == before {
		p.checkLine(st, n, known, fc)
	}
	if st.kind != stepLine && (st.expect.given || len(st.capture) > 0) {
		p.errorf(n, "expect: and capture: are for steps that run an mcpv command")
	}
	needs := map[string]bool{}
	for _, w := range st.words {
		if w.json != nil {
			w.json.uses(needs)
		} else {
			w.text.uses(needs)
		}
	}
	for _, expr := range st.expect.jq {
		jqUses(expr, known, needs)
	}
	for _, c := range st.capture {
		jqUses(c.expr, known, needs)
	}
	for name := range needs {
		st.needs = append(st.needs, name)
	}
	slices.Sort(st.needs)
	for _, c := range st.capture {
		known[c.name] = true
	}
	return st
}

var jqVarRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`) })

// jqUses adds the captures expr refers to as $name.
func jqUses(expr string, known, set map[string]bool) {
	for _, m := range jqVarRef().FindAllStringSubmatch(expr, -1) {
		if known[m[1]] {
			set[m[1]] = true
		}
	}
}

func (p *fileParser) duration(v *tnode, what string) time.Duration {
	s, ok := p.str(v, what)
	if !ok {
		return 0
	}
	d, err := duration.Parse(s)
	if err != nil {
		p.errorf(v, "%s: %v", what, err)
	}
	return d
}

func (p *fileParser) captures(v *tnode) []captureSpec {
	if v.kind != tobject {
		p.errorf(v, "capture must be a mapping of names to jq expressions, such as {id: .structuredContent.id}")
		return nil
	}
	var out []captureSpec
	for i, k := range v.keys {
		switch {
		case !jqVarName().MatchString(k.text): // captures are also $name in jq
			p.errorf(k, "capture name %q: use letters, digits and _, not first a digit (it is also $%s in jq)", k.text, k.text)
		case k.text == "ENV" || k.text == "ARGS" || k.text == "__loc__":
			p.errorf(k, "capture name %q is taken by jq ($%s)", k.text, k.text)
		}
		expr, ok := p.str(v.vals[i], "a capture")
		if ok {
			out = append(out, captureSpec{name: k.text, expr: expr})
		}
	}
	return out
}

func (p *fileParser) lintOptions(v *tnode) []string {
	switch {
	case v.kind == tnull, v.kind == tbool && v.text == "true":
		return nil
	case v.kind == tobject:
		var ignore []string
		p.members(v, "lint", []string{"ignore"}, func(_ string, _, iv *tnode) {
			ignore, _ = p.strs(iv, "ignore")
		})
		return ignore
	}
	p.errorf(v, "lint: give true, or {ignore: [RULE...]}")
	return nil
}

// checkLine checks a step's command line as a batch line is checked: its
// captures filled with a placeholder, so that a mistake is found now.
func (p *fileParser) checkLine(st *testStep, at *tnode, known map[string]bool, fc *fileContext) {
	caps := placeholderCaps(known)
	words := make([]string, len(st.words))
	for i, w := range st.words {
		words[i] = w.fill(caps)
	}
	if slices.Contains(words, "--") {
		p.errorf(at, "a step cannot name a server: the file's server: has one")
		return
	}
	fc.lines.vars = captureVars(caps)
	fc.lines.lines = map[string]*parsedLine{}
	pl, err := fc.lines.parse(joinWords(words))
	if err != nil {
		p.errorf(at, "%s", stepMessage(err))
		return
	}
	if c, ok := pl.cmd.Interface().(callCmd); ok {
		st.calls = true
		if stdin := stdinWord(c); stdin != "" {
			p.errorf(at, "%s: a test step has no stdin; give the JSON in the step (args:) or in a file (--args @FILE)", stdin)
		}
	}
	if w := writesFiles(pl.cmd.Interface()); w != "" {
		p.errorf(at, "%s writes files: not in a test step, whose files stay in its tree", w)
	}
	if r, ok := pl.cmd.Interface().(requestCmd); ok && r.Params == "-" {
		p.errorf(at, "params -: a test step has no stdin; give the JSON in the step (params:) or in a file (@FILE)")
	}
	if st.expect.outputSchema && !st.calls {
		p.errorf(st.expect.at, "output-schema: the step calls no tool")
	}
	if st.expect.outputSchema && pl.text && !pl.output.RawOutput {
		p.errorf(st.expect.at, "output-schema needs the JSON result: drop --text")
	}
}

// writesFiles names what in a step's command would write files where a
// server's answer says, or "".
func writesFiles(cmd any) string {
	switch c := cmd.(type) {
	case skillsPullCmd:
		return "skills pull"
	case skillsReadCmd:
		if c.SaveDir != "" {
			return "--save-dir"
		}
	case callCmd:
		if c.SaveDir != "" {
			return "--save-dir"
		}
	case readCmd:
		if c.SaveDir != "" {
			return "--save-dir"
		}
	}
	return ""
}

// inTree is path, written at v in a test file in dir, made absolute: it
// must stay inside dir's tree (an error at v otherwise).
func (p *fileParser) inTree(v *tnode, dir, path, what string) string {
	abs, err := (&safefile.Tree{Dir: dir}).Path(path)
	if err != nil {
		p.errorf(v, "%s: %v", what, err)
		return absolute(dir, path)
	}
	return abs
}

// stdinWord is the word of a call that would read stdin, or "".
func stdinWord(c callCmd) string {
	if c.ArgsJSON == "-" {
		return "--args -"
	}
	for _, pair := range c.Pairs {
		if strings.HasSuffix(pair, "=@-") {
			return pair
		}
	}
	return ""
}

// stepMessage says a batch line's refusals in a test file's words.
func stepMessage(err error) string {
	msg := err.Error()
	for _, r := range [][2]string{
		{"applies to the whole batch: give it before 'batch'", "shapes the session: give it in the file's server: section"},
		{"cannot run in a batch", "cannot be a test step"},
		{"are not available in a batch", "are not available in a test step"},
	} {
		msg = strings.ReplaceAll(msg, r[0], r[1])
	}
	return msg
}

// captureVars are the captures as jq variables ($name).
func captureVars(caps map[string]json.RawMessage) []jqVar {
	names := make([]string, 0, len(caps))
	for name := range caps {
		names = append(names, name)
	}
	slices.Sort(names)
	var vars []jqVar
	for _, name := range names {
		v, err := output.DecodeJSON(caps[name])
		if err != nil {
			continue
		}
		vars = append(vars, jqVar{Variable: output.Variable{Name: name, Value: v}})
	}
	return vars
}

// joinWords quotes words for splitWords to split them back.
func joinWords(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

// displayWord is how a step's word is shown in its name: as written.
func displayWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"\\") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
