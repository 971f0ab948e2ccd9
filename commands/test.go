package commands

// mcpv test runs declarative test files against MCP servers: each file
// names its server as the command line would and lists steps, each an mcpv
// command with expectations. Every file is read and checked, and every
// server resolved, before any server starts; files then run in parallel,
// each in one session, and the report comes out in the order the files
// were given.

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/internal/testrun"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

type testCmd struct {
	Files    []string `arg:"" optional:"" placeholder:"FILE" help:"Test files, or directories of them."`
	Format   string   `name:"format" enum:"text,junit,tap,json" default:"text" help:"Report format: text, junit (JUnit XML), tap (TAP 14) or json."`
	Output   string   `name:"output" placeholder:"FILE" help:"Write the report to FILE (the text report still goes to stdout)."`
	Parallel int      `name:"parallel" default:"4" min:"1" max:"1024" placeholder:"N" help:"Run up to N files at once."`
	FailFast bool     `name:"fail-fast" help:"Start no more steps after the first failure."`
	Filter   string   `name:"filter" placeholder:"PATTERN" help:"Run only the steps whose FILE-NAME/STEP-NAME matches PATTERN."`
	Lint     bool     `name:"lint" help:"Add a lint step first in every file, and check every tool result."`
	Snapshot bool     `name:"snapshot" help:"Compare each server with FILE.snapshot.json beside its test file."`
	Update   bool     `name:"update" help:"Write snapshots anew, accepting every change."`
	CI       bool     `name:"ci" negatable:"no-ci" help:"Fail on a missing snapshot file instead of writing it (default in CI)."`

	filter *regexp.Regexp
}

func (c *testCmd) noServer() {}

func (c *testCmd) Help() string { return testfile.Help }

func (c *testCmd) Validate() error {
	if c.Filter != "" {
		re, err := regexp.Compile(c.Filter)
		if err != nil {
			return fmt.Errorf("--filter: %v", err)
		}
		c.filter = re
	}
	return nil
}

func (c *testCmd) Run(ctx context.Context, kctx *kong.Context, root *cli, out *console, env connect.Env, groups *mcp.ProcessGroups) error {
	if f := root.outputFlags; f.Jq != "" || f.Pretty || f.Compact { // --color colours the text report
		return usageErrorf("mcpv test prints a report, not a result: --format chooses it (put --jq on a step to filter its result)")
	}
	// The session flags given to mcpv test itself, as words each file's
	// server section follows: the file's own settings win.
	global := sessionFlagWords(kctx, env)
	eventsPath := "" // the last --events=PATH
	for _, w := range global {
		switch name, value, _ := strings.Cut(strings.TrimPrefix(w, "--"), "="); name {
		case "url", "server", "session", "session-id":
			return usageErrorf("--%s: a test file names its server (its server: section), not mcpv test", name)
		case "events":
			eventsPath = value
		}
	}
	paths, err := testfile.Find(c.Files, env.Path)
	if errors.Is(err, testfile.ErrNoFiles) {
		return pointedUsageErrorf("%v", err)
	}
	if err != nil {
		return usageError(err)
	}
	opts := readOptions(env, global, len(c.Files) == 0)
	var files []*testfile.File
	var errs testfile.Errors
	for _, path := range paths {
		f, ferrs := testfile.Read(opts, path)
		errs = append(errs, ferrs...)
		if f != nil {
			f.AddFirst(c.Snapshot, c.Lint)
			files = append(files, f)
		}
	}
	if len(errs) > 0 {
		lines := make([]string, len(errs))
		for i, e := range errs {
			lines[i] = e.Error()
		}
		return batchFailed{exitcode.Usage, out.tell(lines...)}
	}
	// --events given to mcpv test is one file for all the files' sessions,
	// made once, before any server starts; a file's own events: is its own.
	var events *connect.EventLog
	if eventsPath != "" {
		f, err := createFlagFile(env, "events", eventsPath, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		events = connect.NewEventLog(f, out.secrets.Mask)
	}
	jobs, err := c.resolve(files, global, env, groups, events, out)
	if err != nil {
		return err
	}
	f, err := createFlagFile(env, "output", c.Output, 0o644)
	if err != nil {
		return err
	}
	defer f.Close() // a nil file's Close does nothing
	dest := &testreport.Output{Stdout: out.ios.Out, File: f}
	r := &testrun.Runner{Lint: c.Lint, Update: c.Update, FailFast: c.FailFast, CI: testrun.CIMode(c.CI, explicitFlags(kctx)["ci"], env.Getenv),
		Cwd: env.Cwd, Code: exitCode, Hint: exitcode.Hint}
	// The progress line (stderr) and the report (stdout) may share a
	// terminal: the line is cleared, and not drawn again, while a file's
	// block is written.
	var screen sync.Mutex // guards the status line
	if out.ios.ErrTTY {
		r.Progress = func(file, step string) {
			screen.Lock()
			defer screen.Unlock()
			out.ios.Status.Set(safetext.Line(file + ": " + step))
		}
	}
	var text *testreport.Text
	if textOut, textTTY := dest.Text(c.Format); textOut != nil {
		text = &testreport.Text{W: textOut, Color: output.UseColor(root.Color, textTTY && out.ios.OutTTY && !out.ios.NoANSI, env.Getenv)}
	}
	data, took, err := r.Files(ctx, jobs, c.Parallel, func(fr testreport.File) error {
		screen.Lock()
		defer screen.Unlock()
		out.ios.Status.Clear()
		if text != nil {
			return testreport.WriteError(text.File(fr))
		}
		return nil
	})
	out.ios.Status.Stop()
	if err != nil {
		return err
	}
	if err := testreport.Finish(dest, text, c.Format, data, took); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if code := testreport.Code(data); code != exitcode.OK {
		return batchFailed{code, []string{"the tests did not pass: the report says which step failed and why"}}
	}
	return nil
}

// resolve resolves each file's server (as from the file's directory), and
// keeps the files with a step selected.
func (c *testCmd) resolve(files []*testfile.File, global []string, env connect.Env, groups *mcp.ProcessGroups, events *connect.EventLog, out *console) ([]testrun.Job, error) {
	var jobs []testrun.Job
	logger := output.NewLogger(out.ios.Err)
	for _, f := range files {
		selected := f.Select(c.filter)
		if !slices.Contains(selected, true) {
			continue
		}
		flags, explicit, err := parseSessionFlags(append(slices.Clone(global), f.Server.Words...))
		var settings *connect.Settings
		if err == nil {
			settings, err = connect.Resolve(flags, explicit, f.Server.Command, fileEnv(env, f), logger)
		}
		if err != nil {
			at := f.Server.At
			return nil, batchFailed{exitCode(err), out.tell(fmt.Sprintf("%s:%d:%d: server: %s", f.Path, at.Line, at.Col, serverMessage(err)))}
		}
		out.secrets.Add(append(settings.Secrets, f.Secrets...)...)
		jobs = append(jobs, testrun.Job{File: f, Selected: selected, Secrets: out.secrets, Open: openTestSession(env, groups, f, settings, events)})
	}
	if len(jobs) == 0 {
		return nil, usageErrorf("--filter %q matches no step", c.Filter)
	}
	return jobs, nil
}

// serverMessage says the refusals of a server's settings in a test file's
// words: its keys, not the command line's flags.
func serverMessage(err error) string {
	return strings.NewReplacer(
		"give one server: --url URL, --server NAME, -- COMMAND or --session NAME", "give one server: one of command, url, name and session",
		"no server given: add -- COMMAND [ARGS...] after the command, --url URL or --server NAME",
		"no server given: give server: with command, url, name or session (or set MCPV_URL, MCPV_SERVER or MCPV_SESSION)",
	).Replace(err.Error())
}
