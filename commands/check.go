package commands

// mcpv check holds a server to the specification, a check per
// requirement; the checks are internal/check's, the report's writers
// internal/testreport's.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/check"
	"github.com/mcpv/mcpv/internal/duration"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/internal/toolargs"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

type checkCmd struct {
	Only         []string      `name:"only" sep:"," placeholder:"ID|AREA" help:"Run only these checks, by id (jsonrpc.unknown-method) or area (jsonrpc)."`
	Skip         []string      `name:"skip" sep:"," placeholder:"ID|AREA" help:"Leave out these checks, by id or area."`
	Strict       bool          `name:"strict" help:"Fail (exit 1) on a SHOULD that does not hold, as on a MUST."`
	Call         []string      `name:"call" placeholder:"'TOOL [KEY=VALUE...]'" help:"Call this tool for the checks that need a call (repeatable); without it, none is called."`
	Format       string        `name:"format" enum:"text,junit,tap,json" default:"text" help:"Report format: text, junit, tap (TAP version 14) or json."`
	Output       string        `name:"output" placeholder:"FILE" help:"Write the report to FILE; with --format other than text, the text report still goes to stdout."`
	CheckTimeout duration.Flag `name:"check-timeout" default:"15s" placeholder:"DURATION" help:"Fail a check that has not ended after this long (a server's start apart)."`
	MaxTime      duration.Flag `name:"max-time" default:"5m" placeholder:"DURATION" help:"Stop the run after this long: checks not run are skipped, exit 124."`
	Parallel     int           `name:"parallel" default:"4" placeholder:"N" help:"Run up to N checks at once."`

	calls []check.Call
}

func (c *checkCmd) Help() string {
	return `Tries the server, requirement by requirement, against the MCP specification: JSON-RPC and framing, the lifecycle, lists and pagination, the surface (mcpv test --lint's rules), reading without side effects, cancellation and progress, Streamable HTTP (Origin, sessions, headers), the 2026-07-28 era where the server offers it, and authorization where it asks for it. Each check names its requirement (the revision and section it is stated in, its level, its text); a failure says what was sent and what came back.

Exit status: 0 when every MUST holds (and with --strict every SHOULD), 1 when one does not, 124 when --max-time stopped the run, and the session's own codes (4, 5) when the server cannot be reached at all. The catalogue, with every check's requirement, is in docs/guide/check.md.

Examples:

    $ mcpv check -- ./server
    $ mcpv check --only jsonrpc,lifecycle -- npx -y @modelcontextprotocol/server
    $ mcpv check --format json \
        -q '.areas[].checks[] | select(.status == "failed")' -- ./server`
}

func (c *checkCmd) Validate() error {
	for _, names := range [][]string{c.Only, c.Skip} {
		for _, n := range names {
			if !check.Known(n) {
				return fmt.Errorf("no check or area %q%s (the catalogue is in docs/guide/check.md)", n, suggest.DidYouMean(n, check.Names()))
			}
		}
	}
	if c.Parallel < 1 || c.Parallel > 64 {
		return fmt.Errorf("--parallel must be between 1 and 64")
	}
	if c.CheckTimeout <= 0 || c.MaxTime <= 0 {
		return fmt.Errorf("--check-timeout and --max-time must be more than 0")
	}
	c.calls = nil
	for _, line := range c.Call {
		words, err := shellwords.Split(line)
		if err != nil || len(words) == 0 {
			return fmt.Errorf("--call %q: want a tool's name and its KEY=VALUE arguments", line)
		}
		if err := toolargs.Check(words[1:], func(string) ([]byte, error) { return []byte("null"), nil }); err != nil {
			return fmt.Errorf("--call %s: %v", words[0], err)
		}
		c.calls = append(c.calls, check.Call{Tool: words[0], Words: words[1:]})
	}
	return nil
}

func (c *checkCmd) Run(ctx context.Context, s *session, out *console) error {
	format := c.Format
	if out.embedded && format == "text" {
		format = "json" // a test step's or batch line's output is a JSON value
	}
	if f := out.flags; format != "json" && (f.Jq != "" || f.Pretty || f.Compact) {
		return usageErrorf("--jq, --pretty and --compact apply to the JSON report: give --format json")
	}
	for _, call := range c.calls {
		if err := toolargs.Check(call.Words, out.readFile); err != nil {
			return usageErrorf("--call %s: %v", call.Tool, err)
		}
	}
	dest := &testreport.Output{Stdout: out.ios.Out}
	if c.Output != "" {
		f, err := safefile.CreateNoFollow(out.env.Path(c.Output))
		if err != nil {
			return usageErrorf("--output: %v", err)
		}
		defer f.Close()
		dest.File = f
	}
	target := c.target(s)
	opts := check.Options{Only: c.Only, Skip: c.Skip, Strict: c.Strict, Calls: c.calls,
		CheckTimeout: time.Duration(c.CheckTimeout), StartTimeout: s.settings.ConnectTimeout, MaxTime: time.Duration(c.MaxTime), Parallel: c.Parallel,
		Secrets: s.settings.Secrets, ReadFile: out.readFile}
	if out.ios.ErrTTY && !out.embedded {
		opts.Progress = func(done, total int, id string) {
			out.ios.Status.Set(fmt.Sprintf("mcpv check: %d/%d %s", done, total, id))
		}
	}
	started := time.Now()
	report, err := check.Run(ctx, target, opts)
	out.ios.Status.Clear()
	if err != nil {
		return err
	}
	if err := c.write(report, dest, format, out, started); err != nil {
		return err
	}
	switch stop := report.Stopped; {
	case stop == nil:
	case ctx.Err() != nil:
		return context.Cause(ctx)
	default:
		fmt.Fprintf(out.ios.Err, "mcpv: %s; the checks it left are skipped\n", stop)
		return batchFailed{exitcode.Timeout}
	}
	var failed []string
	for _, r := range report.Results {
		if r.Status == check.Failed {
			failed = append(failed, r.ID)
		}
	}
	if len(failed) > 0 {
		return checkFailed{failed}
	}
	return nil
}

// checkFailed is a check run where a requirement does not hold (exit 1):
// its line names the checks, which the report shows in full.
type checkFailed struct{ ids []string }

func (e checkFailed) Error() string {
	what := "a requirement does not hold"
	if len(e.ids) > 1 {
		what = fmt.Sprintf("%d requirements do not hold", len(e.ids))
	}
	ids := e.ids
	if len(ids) > 5 {
		ids = append(ids[:5:5], "...")
	}
	return what + ": " + strings.Join(ids, ", ")
}

// write writes the report: the text report where it goes (a terminal's
// colours), and the report of the format asked for where it goes.
func (c *checkCmd) write(report *check.Report, dest *testreport.Output, format string, out *console, started time.Time) error {
	suite, files := report.Suite(), report.Files(started)
	if textOut, textTTY := dest.Text(format); textOut != nil && !out.embedded {
		text := &testreport.Text{W: textOut, Suite: suite, Color: output.UseColor(out.flags.Color, textTTY && out.ios.OutTTY && !out.ios.NoANSI, out.env.Getenv)}
		if _, err := fmt.Fprintf(textOut, "mcpv check: %s, %s\n\n", report.Server, eraLine(report)); err != nil {
			return testreport.WriteError(err)
		}
		for _, f := range files {
			if err := testreport.WriteError(text.File(f)); err != nil {
				return err
			}
		}
		if err := testreport.WriteError(text.Summary(files, report.Took)); err != nil {
			return err
		}
	}
	switch {
	case format == "text":
		return nil
	case format == "json" && dest.File == nil:
		var b bytes.Buffer
		if err := suite.JSON(&b, files, report.Took); err != nil {
			return err
		}
		return out.print(json.RawMessage(bytes.TrimSpace(b.Bytes())))
	}
	return testreport.WriteError(suite.Write(dest.Report(), format, files, report.Took))
}

// eraLine says what the main session spoke.
func eraLine(r *check.Report) string {
	if r.Era == "modern" {
		return "protocol " + r.Version + " (the 2026-07-28 era)"
	}
	return "protocol " + r.Version + " (initialize)"
}

// target is the session's server as the checks reach it.
func (c *checkCmd) target(s *session) *check.Target {
	st := s.settings
	t := &check.Target{Groups: s.hooks.Groups, ClientInfo: s.hooks.Client}
	if st.URL != "" {
		t.Server, t.URL, t.Header = redact.URL(st.URL), st.URL, st.Header
	} else {
		words := make([]string, len(st.Command))
		for i, w := range redact.Args(st.Command) {
			words[i] = shellwords.Quote(w)
		}
		t.Server = redact.String(strings.Join(words, " "), st.Secrets)
		t.Stdio = &mcp.CommandOptions{Path: st.Command[0], Args: st.Command[1:], Env: st.Env, Dir: st.Dir, Framing: st.Framing}
	}
	var ended atomic.Bool // the run is over: the session's notifications go nowhere
	t.Open = func(ctx context.Context, h check.SessionHooks) (*mcp.Client, error) {
		s.listen(func(method string, params json.RawMessage) {
			if !ended.Load() {
				h.Note(method, params)
			}
		})
		if !s.opened() {
			// The report is the output: the server's stderr and the
			// session's notes are not, unless -v; no question goes to
			// the terminal.
			st := *s.settings
			st.MaxMessage = check.MaxMessage
			if st.Answers.Elicitation == "" || st.Answers.Elicitation == "prompt" {
				st.Answers.Elicitation = "decline"
			}
			if !st.Verbose {
				st.Quiet = true
				s.hooks.Log = h.Log
			}
			s.settings = &st
		}
		client, err := s.client(ctx)
		if err != nil {
			return nil, err
		}
		if st.URL != "" {
			t.Client, t.Plain, err = s.httpClients()
			if err != nil {
				return nil, err
			}
		}
		return client, nil
	}
	t.Done = func() { ended.Store(true) }
	return t
}
