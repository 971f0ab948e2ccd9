package commands

// mcpv check holds a server to the specification, a check per
// requirement; the checks are internal/check's, the report's writers
// internal/testreport's.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/check"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/portable"
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
	Only             []string      `name:"only" sep:"," placeholder:"ID|AREA" help:"Run only these checks, by id or area."`
	Skip             []string      `name:"skip" sep:"," placeholder:"ID|AREA" help:"Leave out these checks, by id or area."`
	Strict           bool          `name:"strict" help:"Fail on a SHOULD that does not hold, too."`
	Call             []string      `name:"call" sep:"none" placeholder:"'TOOL [KEY=VALUE...]'" help:"Call this tool for the checks that need a call (repeatable); without it, none is called."`
	Format           string        `name:"format" enum:"text,junit,tap,json" default:"text" help:"Report format: text, junit, tap or json."`
	Output           string        `name:"output" placeholder:"FILE" help:"Write the report to FILE; stdout keeps the problems."`
	Show             string        `name:"show" enum:"auto,problems,all" default:"auto" help:"List problems (failed, warned, inconclusive) or all checks; auto: all on a terminal."`
	CheckTimeout     time.Duration `name:"check-timeout" default:"15s" min:"1ms" placeholder:"DURATION" help:"Bound each check, and each answer it awaits."`
	MaxTime          time.Duration `name:"max-time" default:"5m" min:"1ms" placeholder:"DURATION" help:"Stop the run after this long (exit 124)."`
	Parallel         int           `name:"parallel" default:"4" min:"1" max:"64" placeholder:"N" help:"Run up to N checks at once."`
	ExpectedFailures string        `name:"expected-failures" placeholder:"FILE" help:"Hold the run to FILE's known failures."`
	ConnectOnly      bool          `name:"connect-only" help:"Walk the connection step by step; no checks."`
	Portable         string        `name:"portable" placeholder:"HOSTS" help:"Grade tool schemas for providers: all,openai,anthropic,gemini."`

	calls    []check.Call
	portable []string
}

// checkRunsTopic is what check's help leaves to 'mcpv help check-runs':
// how a run reports, what it runs at once, the baseline file, the
// connection's walk and every exit status.
const checkRunsTopic = `Every run ends in a report. A server whose first exchange breaks a requirement (a message over several lines, an id echoed as another type, an answer of the wrong content type, a session demanded but never given, a discover result of the wrong shape) gets that check failed and every other blocked by it. A check whose dependency is broken (the lists, a working ping, the tool named with --call) is blocked by the check that names the defect, not failed with it: one defect, one failure. A check that ran out of time, or whose server did not start in time, is inconclusive, not failed: a slow server is no violation.

Checks run several at once (--parallel), each on a connection of its own, each bounded by --check-timeout (each answer it waits for apart; not counting the start of the server processes it starts, which --connect-timeout bounds) and the whole run by --max-time; over stdio the checks that leave no state share one server process, and those that must send what breaks a server start one of their own. No tool is called unless --call names it, with its arguments typed as mcpv call types them, for the checks that need a call (its result, progress and cancellation); naming a tool the server does not list is a usage error. Without --strict, a SHOULD that does not hold is a warning.

--expected-failures FILE holds the run to a baseline of known failures, in the conformance suite's format (YAML: server: - SCENARIO, or SCENARIO:CHECK; a scenario of the suite, an area or a check): a failure it lists does not fail the run, one it does not list does, and an entry that now passes fails the run until it is taken out (exit 1).

When no session opens and the server broke no requirement on the way (it could not be started or reached), the report is the connection's walk, step by step, with what each step found and the fix for the step that fails: over HTTP the URL, a proxy, name resolution, TCP, TLS, the endpoint's answer, the .well-known documents, the 401, the era; over stdio the command, its start, what it writes before answering, its first answer. --connect-only walks it alone.

Exit status: 0 when every MUST holds (and with --strict every SHOULD); 1 when one does not; 124 when checks were inconclusive and none failed, or --max-time stopped the run; 2 for a usage mistake; with --connect-only, or when no session opens, the failing step's code (4 the server could not be started or reached, 5 authorization, 1 a requirement broken, 124 no answer in time). The catalogue, with every check's requirement, is in docs/guide/check.md.

    $ mcpv check -u http://127.0.0.1:3000/mcp --strict
    $ mcpv check --connect-only -u https://mcp.example.com/mcp
    $ mcpv check --expected-failures baseline.yml -- ./server`

func (c *checkCmd) Help() string {
	return `Tries the server, requirement by requirement, against the MCP specification: JSON-RPC and framing, the lifecycle, lists and pagination, the surface (mcpv test --lint's rules), reading without side effects, cancellation and progress, Streamable HTTP (Origin, sessions, headers, event ids), the 2026-07-28 era where the server offers it, and authorization where it asks for it. Each check quotes its requirement; a failure shows what was sent and received.

Exit status: 0 when every MUST holds (with --strict, every SHOULD), 1 when one does not, 124 when checks were inconclusive or --max-time stopped, 2 on a usage mistake; when no session opens, the failing step's code ('mcpv help check-runs').

Examples:

    $ mcpv check -- ./server
    $ mcpv check --only jsonrpc,lifecycle -- npx -y @modelcontextprotocol/server
    $ mcpv check --call 'echo message=hi' --format junit --output c.xml -- ./srv
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
	c.portable = nil
	if c.Portable != "" {
		hosts, err := portable.Choose(c.Portable)
		if err != nil {
			return fmt.Errorf("--portable: %v", err)
		}
		c.portable = hosts
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
	var baseline *check.Baseline
	if c.ExpectedFailures != "" {
		data, err := safefile.Read(out.env.Path(c.ExpectedFailures))
		if err != nil {
			return usageErrorf("--expected-failures: %v", err)
		}
		if baseline, err = check.ParseBaseline(data); err != nil {
			return usageErrorf("--expected-failures %s: %v", c.ExpectedFailures, err)
		}
	}
	f, err := createFlagFile(out.env, "output", c.Output, 0o644)
	if err != nil {
		return err
	}
	defer f.Close() // a nil file's Close does nothing
	dest := &testreport.Output{Stdout: out.ios.Out, File: f}
	target := c.target(s)
	opts := check.Options{Only: c.Only, Skip: c.Skip, Strict: c.Strict, Calls: c.calls,
		CheckTimeout: c.CheckTimeout, StartTimeout: s.settings.ConnectTimeout, MaxTime: c.MaxTime, Parallel: c.Parallel,
		Secrets: append(slices.Clone(s.settings.Secrets), redact.EnvSecrets(out.env.Environ)...), Mask: out.secrets.String, ReadFile: onceFiles(out.readFile), Portable: c.portable}
	if out.ios.ErrTTY && !out.embedded {
		opts.Progress = func(done, total int, id string) {
			out.ios.Status.Set(fmt.Sprintf("mcpv check: %d/%d %s", done, total, id))
		}
	}
	if c.ConnectOnly {
		return c.connect(ctx, s, target, opts, dest, format, out)
	}
	started := time.Now()
	report, err := check.Run(ctx, target, opts)
	out.ios.Status.Clear()
	if unknown, ok := errors.AsType[*check.CallMistakeError](err); ok && unknown.Err != nil {
		return usageErrorf("%s", unknown)
	} else if ok {
		return usageErrorf("--call %s: the server lists no such tool%s", unknown.Tool, suggest.DidYouMean(unknown.Tool, unknown.Listed))
	}
	if err != nil && ctx.Err() == nil && exitCode(err) != exitcode.Usage { // not the user's mistake
		// No session, and no requirement broken on the way: the report
		// is the connection's walk, which says why; the error stands.
		if werr := c.connect(ctx, s, target, opts, dest, format, out); werr != nil && !isA[checkFailed](werr) {
			return werr
		}
	}
	if err != nil {
		return err
	}
	var verdict *check.BaselineVerdict
	if baseline != nil {
		verdict = baseline.Judge(report)
	}
	era := "protocol " + report.Version + " (initialize)" // what the main session spoke
	switch {
	case report.Version == "":
		era = "no session could be opened"
	case report.Era == "modern":
		era = "protocol " + report.Version + " (the 2026-07-28 era)"
	}
	head := "mcpv check: " + report.Server + ", " + era + "; " + report.Waited()
	if err := c.write(head, report.Suite(), report.Files(started), report.Took, true, dest, format, out); err != nil {
		return err
	}
	if verdict != nil {
		if textOut, _ := dest.Text(format); textOut != nil && !out.embedded {
			if err := testreport.WriteError(writeBaseline(textOut, verdict)); err != nil {
				return err
			}
		}
	}
	switch stop := report.Stopped; {
	case stop == nil:
	case ctx.Err() != nil:
		return context.Cause(ctx)
	default:
		fmt.Fprintf(out.ios.Err, "mcpv: %s; the checks it left are skipped\n", stop)
		return batchFailed{code: exitcode.Timeout}
	}
	var failed checkFailed
	for _, r := range report.Results {
		switch r.Status {
		case check.Failed:
			failed.ids = append(failed.ids, r.ID)
		case check.Inconclusive:
			failed.inconclusive = append(failed.inconclusive, r.ID)
			if strings.Contains(r.Message, check.KilledFromOutside) {
				failed.killed++
			}
		}
	}
	if verdict != nil {
		failed.ids, failed.stale = verdict.Unexpected, verdict.Stale
	}
	if len(failed.ids) > 0 || len(failed.inconclusive) > 0 || len(failed.stale) > 0 {
		return failed
	}
	return nil
}

// writeBaseline says, after the text report, how the run stands against
// the expected failures: as the suite says it.
func writeBaseline(w io.Writer, v *check.BaselineVerdict) error {
	var b strings.Builder
	for _, part := range []struct {
		title, mark string
		items       []string
	}{
		{"Expected failures (in the baseline):", "~", v.Expected},
		{"Stale baseline entries (now passing: take them out of the baseline):", "✓", v.Stale},
		{"Unexpected failures (not in the baseline):", "✗", v.Unexpected},
	} {
		if len(part.items) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s\n", part.title)
		for _, it := range part.items {
			fmt.Fprintf(&b, "  %s %s\n", part.mark, it)
		}
	}
	if !v.Failed() {
		b.WriteString("\nBaseline check passed: all failures are expected.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// checkFailed is a check run where a requirement does not hold (exit 1),
// or, when every requirement checked holds, where checks ran out of time
// before they could tell (exit 124): its line names the checks, which the
// report shows in full.
type checkFailed struct {
	ids, inconclusive []string
	killed            int      // of the inconclusive, those whose server another process killed
	stale             []string // baseline entries that now pass (--expected-failures)
	// connect, exit: the connection doctor's failure, and its code.
	connect string
	exit    int
}

func (e checkFailed) code() int {
	switch {
	case e.connect != "":
		return e.exit
	case len(e.ids) > 0 || len(e.stale) > 0:
		return exitcode.ToolError
	}
	return exitcode.Timeout
}

func (e checkFailed) Error() string {
	if e.connect != "" {
		return e.connect
	}
	if len(e.stale) > 0 {
		s := fmt.Sprintf("the baseline is stale: %d of its entries now pass (take them out): %s", len(e.stale), idList(e.stale))
		if len(e.ids) > 0 {
			s += fmt.Sprintf("; and %d unexpected failures: %s", len(e.ids), idList(e.ids))
		}
		return s
	}
	if len(e.ids) == 0 {
		what := plural(len(e.inconclusive), "a check was inconclusive", fmt.Sprintf("%d checks were inconclusive", len(e.inconclusive)))
		why := "the server did not answer in time; give it more with --check-timeout or --connect-timeout"
		switch e.killed {
		case 0:
		case len(e.inconclusive):
			why = "the server was killed by another process, perhaps another of its kind started beside it: try --parallel 1"
		default:
			why += "; or the server was killed by another process: each says which"
		}
		return what + " (" + why + "): " + idList(e.inconclusive)
	}
	s := plural(len(e.ids), "a requirement does not hold", fmt.Sprintf("%d requirements do not hold", len(e.ids))) + ": " + idList(e.ids)
	if n := len(e.inconclusive); n > 0 {
		s += fmt.Sprintf(" (and %d inconclusive)", n)
	}
	return s
}

// idList is check ids in a line, the first five.
func idList(ids []string) string {
	if len(ids) > 5 {
		ids = append(ids[:5:5], "...")
	}
	return strings.Join(ids, ", ")
}

// write writes a report, the checks' or the connection's: JSON to stdout
// through the output flags (--jq); else the text report under its head
// where it goes (a terminal's colours; with problems, the checks that did
// not pass alone where problemsOnly says), and the report of the format
// asked for where it goes.
func (c *checkCmd) write(head string, suite testreport.Suite, files []testreport.File, took time.Duration, problems bool, dest *testreport.Output, format string, out *console) error {
	head = out.secrets.String(head)
	for i := range files {
		files[i].Mask(out.secrets.String)
	}
	if format == "json" && dest.File == nil {
		var b bytes.Buffer
		if err := suite.JSON(&b, files, took); err != nil {
			return err
		}
		return out.print(json.RawMessage(bytes.TrimSpace(b.Bytes())))
	}
	var text *testreport.Text
	if textOut, textTTY := dest.Text(format); textOut != nil && !out.embedded {
		terminal := textTTY && out.ios.OutTTY
		text = &testreport.Text{W: textOut, Suite: suite, Color: output.UseColor(out.flags.Color, terminal && !out.ios.NoANSI, out.env.Getenv)}
		// The checks that did not pass alone: asked for, or (auto) where no
		// one reads the text on a terminal (a CI log), and where the report
		// of record is a machine format in a file.
		if problems && (c.Show == "problems" || c.Show != "all" && (!terminal || format != "text")) {
			text.Only = problem
		}
		if _, err := fmt.Fprintf(textOut, "%s\n\n", head); err != nil {
			return testreport.WriteError(err)
		}
		for _, f := range files {
			if err := testreport.WriteError(text.File(f)); err != nil {
				return err
			}
		}
	}
	return suite.Finish(dest, text, format, files, took)
}

// problem is a check the problems view lists: failed, warned or
// inconclusive.
func problem(s testreport.Step) bool {
	return s.Status == testreport.Failed || s.Status == testreport.Warned || s.Status == testreport.Inconclusive
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
		t.Server = string(s.mask([]byte(strings.Join(words, " "))))
		t.Stdio = &mcp.CommandOptions{Path: st.Command[0], Args: st.Command[1:], Env: st.Env, Dir: st.Dir, Framing: st.Framing, Mask: s.hooks.Mask}
		t.Start = s.env.StartServer
	}
	t.Era = st.ProtocolEra
	t.Open = func(ctx context.Context, h check.SessionHooks) (*mcp.Client, error) {
		if st.URL != "" {
			// The run's own connections reach the server whether or not
			// the session opens: the first contact is checked on them.
			var err error
			if t.Client, t.Plain, err = s.httpClients(); err != nil {
				return nil, err
			}
		}
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
			s.hooks.Trace = h.Trace
			s.settings, s.unremembered = &st, true // an era remembered would be the check's, not the server's
		}
		return s.client(ctx)
	}
	return t
}
