package commands

// Running a test file: one session for all its steps, opened as the
// command line opens one (the same hooks, stderr scrubbed of the
// session's secrets), and each step run as a batch line is, against it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testrun"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// testSession is a test file's session, whose steps run as batch lines.
type testSession struct {
	s       *session
	lines   *lineParser
	closers []func() error
}

// fileEnv is env as a test file's server sees it: from the file's
// directory, reading the files its section names through the file's tree.
func fileEnv(env connect.Env, f *testfile.File) connect.Env {
	env.Cwd = f.Dir
	env.ReadFile = f.Server.ReadFile
	return env
}

// openTestSession makes the session of a file whose server is settings
// (opened on its first use); events is the log of mcpv test's --events.
func openTestSession(env connect.Env, groups *mcp.ProcessGroups, f *testfile.File, settings *connect.Settings, events *connect.EventLog) func(*redact.Scrubber, *slog.Logger) (testrun.Session, error) {
	return func(stderr *redact.Scrubber, log *slog.Logger) (testrun.Session, error) {
		fenv := fileEnv(env, f)
		t := &testSession{lines: &lineParser{environ: env.Environ, lines: map[string]*parsedLine{}}}
		elog := events
		switch path := settings.Answers.Events; {
		case path == "":
			elog = nil
		case f.Server.KeyAt["events"] != nil: // the file's own, inside its tree
			ef, err := (&safefile.Tree{Dir: f.Dir}).CreateOwn(fenv.Path(path))
			if err != nil {
				return nil, usageErrorf("--events: %v", err)
			}
			t.closers = append(t.closers, ef.Close)
			elog = connect.NewEventLog(ef, stderr.Mask)
		}
		h := hooks(output.NewStreams(strings.NewReader(""), io.Discard, stderr), fenv, elog, stderr, &t.closers)
		h.Groups, h.Log = groups, log
		t.s = &session{settings: settings, env: fenv, hooks: h}
		return t, nil
	}
}

func (t *testSession) Client(ctx context.Context) (*mcp.Client, error) {
	c, err := t.s.client(ctx)
	if err == nil {
		t.s.cacheTools = true // a batch's way: the session's tools listed once
	}
	return c, err
}

func (t *testSession) Tool(ctx context.Context, name string) (mcp.Tool, error) {
	client, err := t.s.client(ctx)
	if err != nil {
		return mcp.Tool{}, err
	}
	return t.s.findTool(ctx, client, name)
}

func (t *testSession) Run(ctx context.Context, words []string, caps map[string]json.RawMessage, stderr io.Writer) testfile.Outcome {
	t.lines.vars, t.lines.lines = captureVars(caps), map[string]*parsedLine{}
	out := newConsole(output.NewStreams(strings.NewReader(""), io.Discard, stderr), &outputFlags{Color: "never"}, t.s.env)
	out.files = &safefile.Tree{Dir: t.s.env.Cwd} // the test file's directory
	return runStepLine(ctx, t.s, out, t.lines, shellwords.Join(words))
}

func (t *testSession) Close() {
	t.s.close()
	for _, c := range t.closers {
		c()
	}
}

// runStepLine runs a command line as a batch line runs, and also keeps the
// result as the command printed it before the line's own --jq.
func runStepLine(ctx context.Context, s *session, out *console, lines *lineParser, text string) testfile.Outcome {
	pl, err := lines.parse(text)
	if err != nil {
		return testfile.Outcome{Err: err, Code: exitCode(err), Value: errorMember(err)}
	}
	var tool string
	if c, ok := pl.cmd.Interface().(callCmd); ok {
		tool = c.Tool
	}
	if pl.text && !pl.output.RawOutput { // call --text, read --text: text, no JSON
		res, err := runBatchCommand(ctx, s, out, lines, text)
		return finish(testfile.Outcome{Value: res, Err: err, Tool: tool})
	}
	plain := *pl
	plain.output.filter, plain.output.RawOutput, plain.output.ExitStatus = nil, false, false
	var buf bytes.Buffer
	cmd, lineOut := plain.instance(out, &buf)
	runErr := cmd.Run(ctx, s, lineOut)
	o := testfile.Outcome{Raw: printedValue(buf.Bytes()), Err: runErr, Tool: tool}
	o.Value = o.Raw
	if pl.output.filter != nil && o.Raw != nil {
		var fb bytes.Buffer
		p := output.Printer{Out: &fb, Format: output.Format{Raw: pl.output.RawOutput}, Filter: pl.output.filter, ExitStatus: pl.output.ExitStatus}
		if ferr := p.PrintWithin(ctx, o.Raw, testfile.JQBounds); ferr != nil {
			o.Err = ferr // as printing comes before the result's own verdict
		}
		if pl.output.RawOutput {
			o.Value = textValue(bytes.TrimSuffix(fb.Bytes(), []byte("\n")))
		} else {
			o.Value = printedValue(fb.Bytes())
		}
	}
	return finish(o)
}

// finish adds to an outcome what follows from its error and result.
func finish(o testfile.Outcome) testfile.Outcome {
	o.Code = exitCode(o.Err)
	if o.Value == nil && o.Err != nil {
		o.Value = errorMember(o.Err)
	}
	if o.Raw != nil {
		fields := toolcall.ResultFields(o.Raw)
		o.IsError, o.Structured = fields.IsError, fields.Structured
	}
	o.IsError = o.IsError || errors.Is(o.Err, toolcall.ErrFailed)
	if ce, ok := errors.AsType[*mcp.CallError](o.Err); ok {
		o.RPC = &testfile.RPCError{Code: ce.Err.Code, Message: ce.Err.Message}
	}
	return o
}
