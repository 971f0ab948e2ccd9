package commands

// The command line's side of a test file: the session flags its server
// section may give, and its steps checked as batch lines are, both parsed
// by the grammar itself, so that a step takes every option a batch line
// takes and a server section every flag that shapes a session, with the
// same checks and the same messages.

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/toolargs"
	"github.com/mcpv/mcpv/internal/trust"
	"github.com/mcpv/mcpv/output"
)

// sessionFlags are the flags of the groups that shape a session, from the
// grammar; --server is the section's name:.
var sessionFlags = &lazy.Value[map[string]testfile.Flag]{New: func() map[string]testfile.Flag {
	app, err := Grammar()
	if err != nil {
		panic(err) // the grammar is fixed
	}
	flags := map[string]testfile.Flag{}
	for _, f := range app.Flags {
		if f.Group == nil || !batchGroups[f.Group.Key] || f.Name == "server" {
			continue
		}
		flags[f.Name] = testfile.Flag{Bool: f.IsBool(), Slice: f.IsSlice()}
	}
	return flags
}}

// readOptions are how mcpv test reads its files: global are the session
// flags given to mcpv test itself, which each file's own follow; found
// files run only once trusted.
func readOptions(env connect.Env, global []string, found bool) *testfile.Options {
	lines := &lineParser{environ: env.Environ, lines: map[string]*parsedLine{}}
	o := &testfile.Options{Path: env.Path, Vars: env.Config(""), Environ: env.Environ, Flags: sessionFlags.Get(),
		CheckServer: func(words []string) error {
			_, _, err := parseSessionFlags(append(slices.Clone(global), words...))
			return err
		},
		CheckLine: func(words []string, caps map[string]json.RawMessage) (testfile.Line, error) {
			return checkStepLine(lines, words, caps)
		}}
	if found {
		o.Trusted = func(path string, data []byte) error {
			return trust.CheckFound(env.TrustStore(), env.Cwd, path, data)
		}
	}
	return o
}

// checkStepLine checks a step's command line as a batch line is checked
// (lines is used by one file at a time), and says what it does.
func checkStepLine(lines *lineParser, words []string, caps map[string]json.RawMessage) (testfile.Line, error) {
	lines.vars, lines.lines = captureVars(caps), map[string]*parsedLine{}
	pl, err := lines.parse(shellwords.Join(words))
	if err != nil {
		return testfile.Line{}, errors.New(stepMessage(jq.OneLine(err))) // a file's mistake is one line
	}
	line := testfile.Line{Text: pl.text && !pl.output.RawOutput}
	if c, ok := pl.cmd.Interface().(callCmd); ok {
		line.Calls = true
		stdin := "" // the word that would read stdin
		if c.ArgsJSON == "-" {
			stdin = "--args -"
		} else if i := slices.IndexFunc(c.Pairs, func(p string) bool { return strings.HasSuffix(p, "=@-") }); i >= 0 {
			stdin = c.Pairs[i]
		}
		if stdin != "" {
			line.Refusals = append(line.Refusals, stdin+": a test step has no stdin; give the JSON in the step (args:) or in a file (--args @FILE)")
		}
		// The files the call reads: its --args @FILE and its key=@FILE values.
		if path, ok := strings.CutPrefix(c.ArgsJSON, "@"); ok {
			line.Files = append(line.Files, path)
		}
		toolargs.Check(c.Pairs, func(path string) ([]byte, error) {
			line.Files = append(line.Files, path)
			return []byte("null"), nil
		})
	}
	if w := writesFiles(pl.cmd.Interface()); w != "" {
		line.Refusals = append(line.Refusals, w+" writes files: not in a test step, whose files stay in its tree")
	}
	if r, ok := pl.cmd.Interface().(requestCmd); ok {
		if r.Params == "-" {
			line.Refusals = append(line.Refusals, "params -: a test step has no stdin; give the JSON in the step (params:) or in a file (@FILE)")
		}
		if path, ok := strings.CutPrefix(r.Params, "@"); ok {
			line.Files = append(line.Files, path)
		}
	}
	return line, nil
}

// parseSessionFlags parses session flags as a command line's, and says which
// were given. As a run's command line, it is parsed with the lean grammar of
// the flags it names, and again with the whole grammar only when that
// refuses it, for the whole grammar's error (see leanGrammar).
func parseSessionFlags(words []string) (connect.Flags, map[string]bool, error) {
	line := append(slices.Clone(words), "ping")
	var c cli
	parse := func(lean map[string]bool) (*kong.Context, error) {
		c = cli{}
		k, err := parser(&c, output.NewStreams(strings.NewReader(""), io.Discard, io.Discard), func(int) { panic(exitRequest{}) }, lean)
		if err != nil {
			return nil, err
		}
		return parseBatchLine(k, line)
	}
	lean := leanGrammar(line)
	kctx, err := parse(lean)
	if err != nil && lean != nil {
		kctx, err = parse(nil)
	}
	if err != nil {
		return connect.Flags{}, nil, err
	}
	return c.flags, explicitFlags(kctx), nil
}

// writesFiles names what in a step's command would write files where a
// server's answer says, or "".
func writesFiles(cmd any) string {
	saveDir := ""
	switch c := cmd.(type) {
	case skillsPullCmd:
		return "skills pull"
	case skillsReadCmd:
		saveDir = c.SaveDir
	case callCmd:
		saveDir = c.SaveDir
	case readCmd:
		saveDir = c.SaveDir
	}
	if saveDir != "" {
		return "--save-dir"
	}
	return ""
}

// stepMessage says a batch line's refusals in a test file's words.
func stepMessage(err error) string {
	return strings.NewReplacer(
		"applies to the whole batch: give it before 'batch'", "shapes the session: give it in the file's server: section",
		"cannot run in a batch", "cannot be a test step",
		"are not available in a batch", "are not available in a test step",
	).Replace(err.Error())
}

// captureVars are the captures as jq variables ($name).
func captureVars(caps map[string]json.RawMessage) []jqVar {
	var vars []jqVar
	for _, name := range slices.Sorted(maps.Keys(caps)) {
		v, err := jq.DecodeJSON(caps[name])
		if err != nil {
			continue
		}
		vars = append(vars, jqVar{Variable: jq.Variable{Name: name, Value: v}})
	}
	return vars
}
