package testfile

// A test file: the server, as the command line names it, and the steps to
// run against it in one session. Everything about a file is checked here,
// before any server starts; each mistake is FILE:LINE:COLUMN: message.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/duration"
	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/loaddata"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// File is a parsed test file.
type File struct {
	Path   string // as given (for reports)
	Dir    string // its directory, absolute: relative paths in it start here
	Name   string // name:, else the file's base name without extension
	Server Server
	Steps  []*Step
	// Secrets are the values of secret-named variables the file expanded.
	Secrets []string
}

// Server is the file's server: session flags as command-line words
// and the words after --, and what each flag was written as.
type Server struct {
	Words   []string
	Command []string
	At      *yamlnode.Node
	KeyAt   map[string]*yamlnode.Node // flag name -> where the file gave it
	Display string                    // how reports name it, secrets masked
	tree    safefile.Tree             // the test file's directory
	named   map[string]bool           // the files the section names that stay in tree (answers, @FILE), absolute
}

// ReadFile reads a file for the server's session: one the section names
// (answers, @FILE) through the test file's tree, so that a link put in
// its place since the file was read is not followed; any other (named to
// mcpv test itself) by safefile.Read's rule. Either is a regular file,
// opened without blocking, bounded.
func (s Server) ReadFile(path string) ([]byte, error) {
	if s.named[path] {
		return s.tree.Read(path)
	}
	return safefile.Read(path)
}

// Stem is a test file's name without its extension, nor .mcpv.
func Stem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(strings.TrimSuffix(base, filepath.Ext(base)), ".mcpv")
}

// Kind is what a step does.
type Kind int

const (
	StepLine Kind = iota // an mcpv command line
	StepSnapshot
	StepLint
	StepCost
)

// Step is one step of a file.
type Step struct {
	Index    int // 1-based
	Name     string
	Line     int
	Kind     Kind
	Words    []Word // StepLine
	calls    bool   // the step calls a tool
	Expect   Expectations
	Captures []Capture
	Within   time.Duration
	// Think is the pause before the step of a virtual user of mcpv load
	// (from Think[0] to Think[1], drawn at random); mcpv test does not
	// wait.
	Think [2]time.Duration
	Skip  string // the reason, when the step is not to run
	// Snapshot is the snapshot file of a snapshot step, absolute;
	// ByFlag, that --snapshot added the step (AddFirst).
	Snapshot string
	ByFlag   bool
	// Ignore are the lint rules a lint step does not report.
	Ignore []string
	// Cost is a cost step's budget.
	Cost  *CostBudget
	Needs []string // the captures the step uses
	// CheckResult: a lint step comes before this call step in its file,
	// so its result is checked against its tool's outputSchema.
	CheckResult bool
}

// Fill is the step's command line with the captures in caps.
func (s *Step) Fill(caps map[string]json.RawMessage) []string {
	words := make([]string, len(s.Words))
	for i, w := range s.Words {
		words[i] = w.fill(caps)
	}
	return words
}

// RunWords is the step's command line as it runs once (mcpv test): Fill's,
// with each template of a load scenario (key~=EXPR) evaluated for a first
// iteration (.iteration 0, .session 0, .row null, .random 0).
func (s *Step) RunWords(ctx context.Context, caps map[string]json.RawMessage) ([]string, error) {
	words := s.Fill(caps)
	if len(words) == 0 {
		return words, nil
	}
	return loaddata.Once(ctx, words[0], words, loaddata.Input{})
}

// Word is a word of a step's command line: text, or a JSON value
// (call's --args, request's params) rendered when the step runs.
type Word struct {
	tmpl tmpl
	json *jtmpl
	at   *yamlnode.Node // where the file wrote it; nil for mcpv's own words
}

func (w Word) fill(caps map[string]json.RawMessage) string {
	if w.json != nil {
		return string(w.json.render(caps))
	}
	return w.tmpl.fill(caps)
}

// Capture is a value a step keeps for the steps after it: the first
// output of a jq expression.
type Capture struct {
	Name  string
	Expr  string
	query query
}

// stepCommands are the commands a step may name as its key: every command
// a batch line may run (commands' TestStepCommandsAreTheBatchCommands
// holds the list to the grammar).
var stepCommands = []string{"info", "ping", "list-tools", "call", "list-resources", "list-resource-templates",
	"read", "list-prompts", "get-prompt", "complete", "tasks", "skills", "app", "request", "check"}

// StepCommands are the commands a step may name as its key.
func StepCommands() []string { return slices.Clone(stepCommands) }

var stepKeys = append([]string{"name", "run", "snapshot", "lint", "cost", "expect", "capture", "within", "think", "skip"}, stepCommands...)

var fileKeys = []string{"$schema", "name", "description", "server", "steps"}

// Options are what every file is read with.
type Options struct {
	// Path is a path as given made absolute (from the working directory).
	Path func(string) string
	// Vars are what ${VAR} expands from.
	Vars config.Env
	// Environ is what jq's $ENV and env show.
	Environ []string
	// JQBounds bound the file's jq expressions; zero is JQBounds.
	JQBounds jq.Bounds
	// Trusted, when set, refuses a file whose content (data) the user has
	// not trusted (its message says all there is to say).
	Trusted func(path string, data []byte) error
	// EnvTrusted, when set, says whether a file may name the environment:
	// when it returns an error, each ${VAR} of the file is a mistake naming
	// its line and that error, and jq's $ENV and env show nothing. A
	// command that does not run the file's server (load --scenario) sets
	// it: naming such a file runs none of its commands, and is no trust.
	EnvTrusted func(path string, data []byte) error
	// Flags are the session flags a server section may give, by name.
	Flags map[string]Flag
	// CheckServer checks a server section's words as the command line
	// would parse them.
	CheckServer func(words []string) error
	// CheckLine checks a step's command line, its captures filled with
	// placeholders (caps), as it would run.
	CheckLine func(words []string, caps map[string]json.RawMessage) (Line, error)
}

// Flag is a session flag of the command line.
type Flag struct{ Bool, Slice bool }

// Line is what a step's command line does, as CheckLine found it.
type Line struct {
	Calls bool // it calls a tool
	Text  bool // it prints text (--text), not the JSON result
	// Refusals are what a test step may not do that the line does.
	Refusals []string
	// Files are the files the line reads (@FILE), as it names them.
	Files []string
}

// Read reads and checks one test file.
func Read(o *Options, path string) (*File, Errors) {
	p := &fileParser{file: path, environ: o.Environ, bounds: cmp.Or(o.JQBounds, JQBounds)}
	data, err := safefile.Read(o.Path(path))
	if err != nil {
		return nil, Errors{{File: path, Line: 1, Col: 1, Msg: err.Error()}}
	}
	if o.Trusted != nil {
		if err := o.Trusted(path, data); err != nil {
			return nil, Errors{{Msg: err.Error()}}
		}
	}
	root, fe := ParseYAML(data, "a test file")
	if fe != nil {
		fe.File = path
		return nil, Errors{fe}
	}
	f := &File{Path: path, Dir: filepath.Dir(o.Path(path)), Name: Stem(path)}
	x := &expander{env: o.Vars, folder: f.Dir, secrets: &f.Secrets}
	if o.EnvTrusted != nil {
		if x.untrusted = o.EnvTrusted(path, data); x.untrusted != nil {
			p.environ = nil
		}
	}
	var stepsNode *yamlnode.Node
	p.members(withoutExtensions(root), "the file", fileKeys, func(key string, k, v *yamlnode.Node) {
		switch key {
		case "name":
			if s, ok := p.str(v, "name"); ok {
				f.Name = clipName(s)
			}
		case "description", "$schema":
		case "server":
			f.Server = p.server(v, x, o, f.Dir)
		case "steps":
			stepsNode = v
		}
	})
	if root.Kind == yamlnode.Object && root.Get("server") == nil {
		f.Server = Server{At: root, KeyAt: map[string]*yamlnode.Node{}}
		f.Server.Display = describeServerSpec(f.Server)
		p.checkServer(&f.Server, o)
	}
	switch {
	case stepsNode == nil && root.Kind == yamlnode.Object:
		p.errorf(root, "the file has no steps: give steps: with a list of them")
	case stepsNode != nil && stepsNode.Kind != yamlnode.Array:
		p.errorf(stepsNode, "steps must be a list, not %s", stepsNode.Kind.Noun())
	case stepsNode != nil:
		known := map[string]bool{}
		for i, sn := range stepsNode.Items {
			if st := p.step(sn, i+1, f, x, known, o); st != nil {
				f.Steps = append(f.Steps, st)
			}
		}
		if len(stepsNode.Items) == 0 {
			p.errorf(stepsNode, "steps is empty")
		}
	}
	linted := false
	for _, st := range f.Steps {
		linted = linted || st.Kind == StepLint && st.Skip == ""
		st.CheckResult = linted && st.calls
	}
	slices.SortStableFunc(p.errs, func(a, b *Error) int { return cmp.Or(a.Line-b.Line, a.Col-b.Col) })
	return f, p.errs
}

// withoutExtensions is a file's mapping without its x-... members, which
// mcpv leaves to the file's author (a place for YAML anchors, say).
func withoutExtensions(root *yamlnode.Node) *yamlnode.Node {
	if root.Kind != yamlnode.Object {
		return root
	}
	n := *root
	n.Keys, n.Vals = nil, nil
	for i, k := range root.Keys {
		if !strings.HasPrefix(k.Text, "x-") {
			n.Keys, n.Vals = append(n.Keys, k), append(n.Vals, root.Vals[i])
		}
	}
	return &n
}

// step reads one step; known holds the captures of the steps before it,
// and gains this step's.
func (p *fileParser) step(n *yamlnode.Node, index int, f *File, x *expander, known map[string]bool, o *Options) *Step {
	if n.Kind != yamlnode.Object {
		p.errorf(n, "a step must be a mapping, such as {call: echo message=hi}, not %s", n.Kind.Noun())
		return nil
	}
	st := &Step{Index: index, Line: n.Line}
	sx := *x
	sx.known = known
	var action []string
	for _, k := range n.Keys {
		if slices.Contains(stepKeys, k.Text) && !slices.Contains([]string{"name", "expect", "capture", "within", "think", "skip"}, k.Text) {
			action = append(action, k.Text)
			if len(action) == 2 {
				p.errorf(k, "a step does one thing: %s and %s are both given", action[0], k.Text)
			}
		}
	}
	unknown := slices.ContainsFunc(n.Keys, func(k *yamlnode.Node) bool { return !slices.Contains(stepKeys, k.Text) })
	if len(action) == 0 && !unknown {
		p.errorf(n, "a step needs what to do: run: LINE, a command such as call:, snapshot: FILE, lint: or cost:")
	}
	before := len(p.errs)
	var expectNode *yamlnode.Node
	p.members(n, "a step", stepKeys, func(key string, k, v *yamlnode.Node) {
		switch key {
		case "name":
			if s, ok := p.str(v, "name"); ok {
				st.Name = clipName(s)
			}
		case "expect":
			expectNode = v
		case "capture":
			st.Captures = p.captures(v, known)
		case "within":
			st.Within = p.duration(v, "within")
		case "think":
			st.Think = p.think(v)
		case "skip":
			if v.Kind == yamlnode.Bool && text(v) == "false" {
				break
			}
			if s, ok := p.str(v, "skip"); ok {
				st.Skip = s
				if v.Kind == yamlnode.Bool {
					st.Skip = "skip: true"
				}
			}
		case "snapshot":
			st.Kind = StepSnapshot
			if s, ok := p.str(v, "snapshot"); ok && s != "" {
				st.Snapshot = p.inTree(v, f.Dir, s, "snapshot")
				p.name(st, "snapshot "+s)
			} else if ok {
				p.errorf(v, "snapshot: give the snapshot file's path")
			}
		case "lint":
			st.Kind = StepLint
			p.name(st, "lint")
			st.Ignore = p.lintOptions(v)
		case "cost":
			st.Kind = StepCost
			p.name(st, "cost")
			st.Cost = p.costBudget(v)
		default:
			if len(action) == 1 {
				p.action(st, key, v, &sx)
			}
		}
	})
	if expectNode != nil {
		st.Expect = p.expectations(expectNode, st, f, known)
	} else {
		st.Expect.At = n
	}
	if st.Kind == StepLine && len(action) == 1 && len(st.Words) > 0 && len(p.errs) == before {
		p.checkLine(st, n, f.Dir, known, o)
	}
	if st.Kind != StepLine && (st.Expect.given || len(st.Captures) > 0) {
		p.errorf(n, "expect: and capture: are for steps that run an mcpv command")
	}
	needs := map[string]bool{}
	for _, w := range st.Words {
		if w.json != nil {
			w.json.uses(needs)
		} else {
			w.tmpl.uses(needs)
		}
	}
	for _, q := range st.Expect.jq {
		jqUses(q.expr, known, needs)
	}
	for _, c := range st.Captures {
		jqUses(c.Expr, known, needs)
	}
	st.Needs = slices.Sorted(maps.Keys(needs))
	for _, c := range st.Captures {
		known[c.Name] = true
	}
	return st
}

var jqVarRef = &lazy.Regexp{Pattern: `\$([A-Za-z_][A-Za-z0-9_]*)`}

// jqUses adds the captures expr refers to as $name.
func jqUses(expr string, known, set map[string]bool) {
	for _, m := range jqVarRef.Get().FindAllStringSubmatch(expr, -1) {
		if known[m[1]] {
			set[m[1]] = true
		}
	}
}

func (p *fileParser) duration(v *yamlnode.Node, what string) time.Duration {
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

// think reads a step's think: DURATION or MIN..MAX.
func (p *fileParser) think(v *yamlnode.Node) [2]time.Duration {
	s, ok := p.str(v, "think")
	if !ok {
		return [2]time.Duration{}
	}
	lo, hi, ranged := strings.Cut(s, "..")
	a, err := duration.Parse(strings.TrimSpace(lo))
	b := a
	if err == nil && ranged {
		b, err = duration.Parse(strings.TrimSpace(hi))
	}
	switch {
	case err != nil:
		p.errorf(v, "think: %v (give a duration, or MIN..MAX such as 1s..3s)", err)
	case a < 0 || b < a:
		p.errorf(v, "think: %s: want 0 or more, MIN no more than MAX", s)
	}
	return [2]time.Duration{a, b}
}

// captures reads a step's captures: each sees those of the steps before
// (known) and the step's own before it as variables.
func (p *fileParser) captures(v *yamlnode.Node, known map[string]bool) []Capture {
	if v.Kind != yamlnode.Object {
		p.errorf(v, "capture must be a mapping of names to jq expressions, such as {id: .structuredContent.id}")
		return nil
	}
	var out []Capture
	seen := maps.Clone(known)
	for i, k := range v.Keys {
		switch {
		case !identifier.Get().MatchString(k.Text): // captures are also $name in jq
			p.errorf(k, "capture name %q: use letters, digits and _, not first a digit (it is also $%s in jq)", k.Text, k.Text)
		case k.Text == "ENV" || k.Text == "ARGS" || k.Text == "__loc__":
			p.errorf(k, "capture name %q is taken by jq ($%s)", k.Text, k.Text)
		}
		if expr, ok := p.str(v.Vals[i], "a capture"); ok {
			out = append(out, Capture{Name: k.Text, Expr: expr, query: compileQuery(expr, seen, p.environ, p.bounds)})
			seen[k.Text] = true
		}
	}
	return out
}

func (p *fileParser) lintOptions(v *yamlnode.Node) []string {
	switch {
	case v.Kind == yamlnode.Null, v.Kind == yamlnode.Bool && text(v) == "true":
		return nil
	case v.Kind == yamlnode.Object:
		var ignore []string
		p.members(v, "lint", []string{"ignore"}, func(_ string, _, iv *yamlnode.Node) {
			ignore = p.strs(iv, "ignore")
		})
		return ignore
	}
	p.errorf(v, "lint: give true, or {ignore: [RULE...]}")
	return nil
}

// checkLine checks a step's command line as it would run: its captures
// filled with a placeholder, so that a mistake is found now.
func (p *fileParser) checkLine(st *Step, at *yamlnode.Node, dir string, known map[string]bool, o *Options) {
	words, err := st.RunWords(context.Background(), placeholderCaps(known))
	if err != nil {
		p.errorf(at, "%v", err)
		return
	}
	if slices.Contains(words, "--") {
		p.errorf(at, "a step cannot name a server: the file's server: has one")
		return
	}
	line, err := o.CheckLine(words, placeholderCaps(known))
	if err != nil {
		p.errorf(at, "%v", err)
		return
	}
	st.calls = line.Calls
	for _, r := range line.Refusals {
		p.errorf(at, "%s", r)
	}
	for _, path := range line.Files {
		if w := st.literalWord(words, "@"+path); w != nil {
			p.readInTree(w.at, dir, path)
		} // else made from captures: checked as the step runs
	}
	if st.Expect.OutputSchema && !st.calls {
		p.errorf(st.Expect.At, "output-schema: the step calls no tool")
	}
	if st.Expect.OutputSchema && line.Text {
		p.errorf(st.Expect.At, "output-schema needs the JSON result: drop --text")
	}
}

// inTree is path, written at v in a test file in dir, made absolute: it
// must stay inside dir's tree (an error at v otherwise).
func (p *fileParser) inTree(v *yamlnode.Node, dir, path, what string) string {
	abs, err := (&safefile.Tree{Dir: dir}).Path(path)
	if err != nil {
		p.errorf(v, "%s: %v", what, err)
		return absolute(dir, path)
	}
	return abs
}

// readInTree checks a file a step reads (@FILE), written at v, as inTree
// does, and that it is, if it exists yet, a regular file.
func (p *fileParser) readInTree(v *yamlnode.Node, dir, path string) {
	abs, err := (&safefile.Tree{Dir: dir}).Path(path)
	if err == nil {
		if fi, serr := os.Lstat(abs); serr == nil && !fi.Mode().IsRegular() {
			err = fmt.Errorf("%s is not a regular file", path)
		}
	}
	if err != nil {
		p.errorf(v, "@%s: %v", path, err)
	}
}

// literalWord is the word the file wrote, with no capture in it, that ends
// in suffix as filled (words), or nil.
func (st *Step) literalWord(words []string, suffix string) *Word {
	for i, w := range st.Words {
		if w.at != nil && w.json == nil && !w.tmpl.captures() && strings.HasSuffix(words[i], suffix) {
			return &st.Words[i]
		}
	}
	return nil
}

// displayWord is how a step's word is shown in its name: as written.
func displayWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"\\") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
