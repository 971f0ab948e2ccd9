package commands

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/gcstart"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/load"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/output"
)

type loadCmd struct {
	Operation   []string      `arg:"" optional:"" name:"operation" help:"What each iteration does, in mcpv's words: call TOOL [key=value...], a list-* command, read URI, get-prompt NAME, ping or request METHOD."`
	Mix         string        `name:"mix" placeholder:"FILE" help:"Run a weighted mix of operations from FILE."`
	Scenario    string        `name:"scenario" placeholder:"FILE" help:"Run the steps of an mcpv test file in turn."`
	Concurrency int           `name:"concurrency" default:"1" placeholder:"N" help:"Run N sessions at once (-c N after load)."`
	Duration    time.Duration `name:"duration" short:"d" placeholder:"DURATION" help:"Run for this long (default 10s)."`
	Count       int64         `name:"count" short:"n" placeholder:"N" help:"Run N iterations in all."`
	Rate        float64       `name:"rate" placeholder:"N" help:"Start N iterations a second (an open model)."`
	Stage       []string      `name:"stage" sep:"none" placeholder:"DURATION:N[/s]" help:"Ramp to N sessions (or N/s) over DURATION."`
	NewSession  bool          `name:"new-session" help:"Open and close a session for every iteration."`
	Shared      bool          `name:"shared" help:"Share one session among the N at once."`
	Threshold   []string      `name:"threshold" sep:"none" placeholder:"EXPR" help:"Fail the run (exit 1) unless EXPR holds."`
	FindMax     []string      `name:"find-max" sep:"none" placeholder:"LIMIT" help:"Find the highest rate that keeps to LIMIT."`
	Baseline    string        `name:"baseline" placeholder:"FILE" help:"Compare with an earlier run's json report."`
	Report      string        `name:"report" placeholder:"FILE.html" help:"Also write the report as an HTML page."`
	Format      string        `name:"format" enum:"text,json" default:"text" help:"The report: text (with a histogram) or json."`
	Data        string        `name:"data" placeholder:"FILE" help:"Rows for key~=EXPR: JSON Lines, or CSV (.csv)."`
	DataOrder   string        `name:"data-order" enum:"sequential,random" default:"sequential" placeholder:"ORDER" help:"How the rows are taken: sequential or random."`
	Seed        uint64        `name:"seed" default:"1" placeholder:"N" help:"The seed of what is random in a run."`
	Grace       time.Duration `name:"grace" default:"5s" placeholder:"DURATION" help:"How long work in flight at the end may take."`

	thresholds []load.Threshold
	stages     []load.Stage
	limits     []load.Threshold // of --find-max
}

// maxSearchSteps bounds the steps of --find-max: doubling from 10/s
// reaches 10 million a second in 20, and halving the gap to 5% takes
// about 5 more.
const maxSearchSteps = 30

// loadTopic is 'mcpv help load-model': what load's help leaves out.
const loadTopic = `mcpv load puts load on the server: each of N sessions (-c N) runs the operation again and again, for a duration (-d, default 10s, unless --count or --stage end the run), a count (-n) or stages, in a closed loop or at a fixed rate (--rate); then it reports the latency percentiles (from an HDR histogram), the throughput, the errors by kind, the time sessions took to open and close apart, and mcpv's own CPU time. A terminal shows a progress line while it runs.

The operation is written as mcpv's command would be: call TOOL [key=value...], list-tools, list-resources, list-resource-templates, list-prompts, read URI, get-prompt NAME [key=value...], ping, or request METHOD [PARAMS-JSON]. A call's key=value arguments are typed by the tool's inputSchema and checked once, before the run. An argument written key~=EXPR is a template: a jq expression evaluated for each iteration over {iteration, session, row, random}, whose first output is its value. The server is given as for any command: -- CMD starts one stdio server per session (--shared: one for all), -u URL and -s NAME reach one.

--data FILE gives the templates their rows (.row): a JSON Lines file (a JSON value a line), or CSV with a header line when FILE ends in .csv. --data-order sequential (the default) gives iteration k row k mod N; --data-order random draws the rows from --seed. --seed N (default 1) is the seed of all that is random in a run (--data-order random, a template's .random): the same seed sends the same values.

Instead of one operation, --mix FILE runs a weighted mix: YAML or JSON, operations: [{run: WORDS, weight: N}], each iteration picking one by weight; its @FILE arguments stay in its directory's tree. --scenario FILE runs a scenario: an mcpv test file whose steps one virtual user runs in order on its session, each iteration a pass through them (what a step captures fills the next, expectations are checked, think: pauses); -c N runs N virtual users, and the report has a row for each step and one for the whole pass. An operation, --mix and --scenario go one at a time.

By default the loop is closed: each session starts its next iteration when the last ends. At a fixed rate (--rate N, an open model), N iterations start a second whatever the server does, and latency counts from when each was meant to start, so a server that stalls shows in every iteration it held up (coordinated omission corrected); an iteration no session was free to start counts as late, and one never started before the end as an error.

A stage (--stage DURATION:N, or DURATION:N/s at a rate; repeatable) moves in a straight line to N sessions at once, or N iterations a second, over DURATION: --stage 30s:16 --stage 1m:16 --stage 10s:0. With stages, -c is the most sessions at once. Sessions are held open unless --new-session, which opens a new session for every iteration (start or connect, initialize or discover, the operation, the close); --shared runs every iteration on one session (one stdio server process, one HTTP session) shared by the N at once. --grace (default 5s) is how long the operations in flight when the run's time is over may still take; those cut then count as unfinished errors. A session that fails to open counts its iteration as a setup error and is tried again after a pause, 10 ms doubling to 1 s while the failures go on.

A threshold (--threshold EXPR; repeatable, or separated by commas; an empty one is a mistake) is a figure, a comparison and a bound: p99<200ms, p50<=20ms, max<1s, setup.p99<2s, errors<1%, errors==0, rate>=100; with --baseline, a change from it: p99<+10%, rate>-5%.

--find-max LIMIT finds the breaking point: it raises the arrival rate step by step (from --rate, default 10/s; each step -d long, default 5s; -c N sessions at once, 64 when N is 1, the default) until a limit is crossed (repeatable, or separated by commas, e.g. 'p99<100ms,errors<1%'; and always the server's rate following the rate asked), and reports the highest rate that held with the curve. A limit is a figure, not a change from a baseline; --stage and -n go without it.

The report is text (a table and a histogram) or, with --format json, every figure and the histogram (docs/mcpv-load.schema.json, version 1), through --jq. --baseline FILE compares the run with an earlier one's --format json report: the report shows each figure beside it, and a threshold may be a change from it. --report FILE.html also writes the report as one self-contained HTML page (no network needed to open it): latency over time with percentile bands, throughput and errors over time, the histogram, the operations or steps, and the run's settings.

--threshold decides the exit: 0 when every threshold holds (or none is given), 1 when one fails (the report says which), 2 for a mistake on the command line, before any server starts; 3, 4, 5 or 124 when the first session cannot be opened or the operation prepared (nothing is measured then); 130 on Ctrl-C, after the report of what was measured.

Examples:

    $ mcpv load call echo message=hi -c 16 -d 30s -- ./server
    $ mcpv load call search query=mcp --rate 200 -c 32 -d 1m \
        -u http://127.0.0.1:3000/mcp
    $ mcpv load list-tools -n 1000 --new-session -- ./server
    $ mcpv load call search 'query~=.row.q' --data queries.jsonl -c 16 -d 1m \
        -- ./server
    $ mcpv load --scenario browse.yaml -c 50 -d 5m -u http://127.0.0.1:3000/mcp
    $ mcpv load --mix mix.yaml --stage 30s:50 --stage 2m:50 --stage 30s:0 \
        -s prod
    $ mcpv load call echo message=hi -c 8 -d 1m --threshold 'p99<200ms' \
        --threshold 'errors<1%' -- ./server
    $ mcpv load ping -c 4 -n 500 --format json -q .latency_ms.p99 -- ./server
    $ mcpv load call search query=mcp --find-max 'p99<250ms,errors<1%' \
        --report max.html -u http://127.0.0.1:3000/mcp
    $ mcpv load call echo message=hi -c 8 -d 1m --baseline last.json \
        --threshold 'p99<+10%' --threshold 'rate>-5%' -- ./server`

func (c *loadCmd) Help() string {
	return `Puts load on the server: N sessions (-c N) run the operation again and again, for a duration (-d), a count (-n) or stages, in a closed loop or at a fixed rate (--rate); it reports latency percentiles, throughput and errors, and --threshold decides the exit (1 when one fails). 'mcpv help load-model' says how operations, scenarios, data rows, --find-max and the reports work, and every exit code.

Examples:

    $ mcpv load call echo message=hi -c 16 -d 30s -- ./server
    $ mcpv load --scenario browse.yaml -c 50 -d 5m -u $URL
    $ mcpv load call search 'query~=.row.q' --data queries.jsonl -- ./server
    $ mcpv load ping --find-max 'p99<250ms,errors<1%' --report max.html -u $URL
    $ mcpv load call echo message=hi -c 8 --threshold 'p99<200ms' -- ./server
    $ mcpv load ping -c 8 --baseline old.json --threshold 'p99<+10%' -- ./server`
}

func (c *loadCmd) notInBatch() {}

// maxConcurrency bounds -c: each session is a goroutine and, over stdio, a
// process.
const maxConcurrency = 10000

func (c *loadCmd) Validate() error {
	if op := len(c.Operation) > 0; op && c.Mix != "" || op && c.Scenario != "" || c.Mix != "" && c.Scenario != "" {
		return fmt.Errorf("give one of an operation, --mix FILE and --scenario FILE")
	}
	if len(c.Operation) > 0 {
		if _, err := load.ParseOp(c.Operation, func(string) ([]byte, error) { return []byte("null"), nil }); err != nil {
			return err
		}
	}
	if c.Concurrency < 1 || c.Concurrency > maxConcurrency {
		return fmt.Errorf("-c must be between 1 and %d", maxConcurrency)
	}
	if c.Rate > load.MaxRate {
		return fmt.Errorf("--rate %v: at most one iteration a nanosecond (1e9)", c.Rate)
	}
	if c.NewSession && c.Shared {
		return fmt.Errorf("--new-session and --shared: a shared session is opened once")
	}
	err := listFlag(&c.stages, "--stage", c.Stage, func(s string) (load.Stage, error) {
		st, err := load.ParseStage(s)
		if err == nil && len(c.stages) > 0 && st.Rate != c.stages[0].Rate {
			err = fmt.Errorf("--stage: give every stage as sessions (30s:16) or every one as a rate (30s:200/s)")
		}
		return st, err
	})
	if err != nil {
		return err
	}
	c.limits = nil
	if c.FindMax != nil {
		if len(c.stages) > 0 || c.Count > 0 {
			return fmt.Errorf("--find-max runs steps of its own: --stage and -n go without it")
		}
		err := listFlag(&c.limits, "--find-max", c.FindMax, func(l string) (load.Threshold, error) {
			th, err := load.ParseThreshold(l)
			if err == nil && th.Relative() {
				err = fmt.Errorf("--find-max %s: a limit is a figure, not a change from a baseline", l)
			}
			return th, err
		})
		if err != nil {
			return err
		}
	}
	if len(c.stages) > 0 && (c.Duration > 0 || c.Rate > 0) {
		return fmt.Errorf("--stage sets the duration and the load: -d and --rate go without it")
	}
	if len(c.stages) > 0 && !c.stages[0].Rate && slices.ContainsFunc(c.stages, func(st load.Stage) bool { return st.Target > maxConcurrency }) {
		return fmt.Errorf("--stage: at most %d sessions at once", maxConcurrency)
	}
	return listFlag(&c.thresholds, "--threshold", c.Threshold, func(t string) (load.Threshold, error) {
		th, err := load.ParseThreshold(t)
		if err == nil && th.Relative() && c.Baseline == "" {
			err = fmt.Errorf("--threshold %s: a change from the baseline needs --baseline FILE", th.Text)
		}
		return th, err
	})
}

// listFlag parses into *list, in order, a repeatable flag's values, each
// of which may also hold several separated by commas. An empty one is a
// mistake, not nothing: an unset variable in a CI job (--threshold
// "$LIMIT") must not silently drop the check it was meant to make.
func listFlag[T any](list *[]T, name string, values []string, parse func(string) (T, error)) error {
	*list = nil
	var parts []string
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			if strings.TrimSpace(part) == "" {
				return usageErrorf("%s %q: empty; give a value (or leave the flag out)", name, v)
			}
			parts = append(parts, part)
		}
	}
	for _, part := range parts {
		v, err := parse(part)
		if err != nil {
			return err
		}
		*list = append(*list, v)
	}
	return nil
}

func (c *loadCmd) Run(ctx context.Context, s *session, out *console) error {
	if s.settings.Session != "" || s.settings.ResumeSession != "" {
		return usageErrorf("load opens sessions of its own: --session and --session-id do not apply")
	}
	cfg := c.config(s, out)
	var err error
	if c.Scenario != "" {
		cfg.Scenario, cfg.Steps, cfg.ReadFile, err = c.scenario(out, s)
	} else {
		cfg.Ops, cfg.ReadFile, err = c.operations(out)
	}
	if err != nil {
		return err
	}
	page, err := createFlagFile(out.env, "report", c.Report, 0o644)
	if err != nil {
		return err
	}
	defer page.Close() // a nil file's Close does nothing
	base, data, done, err := c.files(out)
	if err != nil {
		return err
	}
	defer done()
	// A run allocates steadily for long: collecting less often halves
	// mcpv's own CPU per call, for a heap up to five times what is live; a
	// large row's is held near what its calls hold, two rows a session.
	if gcstart.Raise(loadGOGC); data != nil && data.Largest >= loadBigData {
		gcstart.Bound(int64(c.Concurrency)*2*data.Largest + 32<<20)
	}
	cfg.Data = data
	res, err := c.measure(ctx, cfg, out)
	out.ios.Status.Clear()
	if err != nil {
		return err
	}
	if t := s.hooks.Telemetry; t != nil {
		t.Metrics(time.Now(), loadFigures(res))
	}
	if base != nil {
		res.Compare(base)
	}
	ok := res.Check(c.thresholds)
	if page != nil {
		err := load.WritePage(page, res, map[string]string{"server": cfg.Mask(cmp.Or(s.settings.URL, shellwords.Join(s.settings.Command))), "mcpv": Version}, Version)
		if err = cmp.Or(err, page.Close()); err != nil {
			return fmt.Errorf("--report: %w", err)
		}
	}
	if c.Format == "json" {
		err = out.print(mustJSON(res))
	} else if err = res.WriteText(out.ios.Out); err != nil {
		err = &output.ClosedError{Err: err}
	}
	switch {
	case err != nil:
		return err
	case res.Interrupted:
		return context.Cause(ctx)
	case !ok:
		e := &thresholdError{}
		for _, ch := range res.Checks {
			if !ch.OK {
				e.failed = append(e.failed, fmt.Sprintf("%s (%s)", ch.Threshold, ch.Shown))
			}
		}
		return e
	}
	return nil
}

// findMaxSessions are the most sessions --find-max keeps at once, unless
// -c says otherwise.
const findMaxSessions = 64

// progressLine is the live line: elapsed, rate, p99 so far, errors, and
// mcpv's own CPU.
func progressLine(p load.Progress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "load %s", p.Elapsed.Round(time.Second))
	switch {
	case p.Total > 0:
		fmt.Fprintf(&b, "/%s", p.Total)
	case p.Count > 0:
		fmt.Fprintf(&b, " · %d/%d", p.Done, p.Count)
	}
	fmt.Fprintf(&b, " · %.0f/s · p99 %s · errors %d", p.Rate, load.FormatMS(float64(p.P99)/float64(time.Millisecond)), p.Failed)
	if p.CPU > 0 {
		fmt.Fprintf(&b, " · mcpv CPU %.2f", p.CPU)
	}
	return b.String()
}

// thresholdError is a run whose thresholds did not all hold (exit 1); the
// report has said what each found.
type thresholdError struct{ failed []string }

func (e *thresholdError) Error() string {
	return "threshold not met: " + strings.Join(e.failed, ", ")
}

// loadShorts gives -c its meaning in load, as in other load generators:
// the number of sessions (--concurrency), rather than --compact, which
// keeps its long name there. args are the words before the server's; the
// command is the first word that is no flag nor a global flag's value.
func loadShorts(args []string) []string {
	bools := globalBoolFlags.Get()
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			if a != "load" {
				return args // another command
			}
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasValue && !bools[name] && (strings.HasPrefix(a, "--") || len(name) == 1) {
			i++ // the flag's value
		}
	}
	if i >= len(args) {
		return args
	}
	out := append([]string(nil), args[:i+1]...)
	for _, a := range args[i+1:] {
		if v, ok := strings.CutPrefix(a, "-c"); ok && !strings.HasPrefix(a, "--") {
			a = "--concurrency"
			if v != "" {
				a += "=" + strings.TrimPrefix(v, "=")
			}
		}
		out = append(out, a)
	}
	return out
}

// globalBoolFlags are the long and short names of the global flags that
// take no value.
var globalBoolFlags = &lazy.Value[map[string]bool]{New: func() map[string]bool {
	bools := map[string]bool{"version": true, "help": true, "h": true}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for f := range t.Fields() {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if f.Type.Kind() == reflect.Bool {
				bools[f.Tag.Get("name")] = true
				if s := f.Tag.Get("short"); s != "" {
					bools[s] = true
				}
			}
		}
	}
	for _, g := range new(cli).flagGroups() {
		walk(reflect.TypeOf(g.Flags).Elem())
	}
	return bools
}}
