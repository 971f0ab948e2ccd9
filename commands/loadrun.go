package commands

// What a run of mcpv load is made of, apart from its flags: the
// operations or scenario it runs, the files it reads, the sessions it
// opens and how it measures.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/load"
	"github.com/mcpv/mcpv/internal/loaddata"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/trust"
)

// files reads the --baseline and --data files, before any server starts;
// the --data file stays open for the run, which done closes.
func (c *loadCmd) files(out *console) (base *load.Result, data *loaddata.Source, done func(), err error) {
	done = func() {}
	if c.Baseline != "" {
		raw, err := safefile.Read(out.env.Path(c.Baseline))
		if err != nil {
			return nil, nil, nil, usageErrorf("--baseline: %v", err)
		}
		if base, err = load.ReadBaseline(c.Baseline, raw); err != nil {
			return nil, nil, nil, err
		}
	}
	if c.Data != "" {
		f, size, err := safefile.Open(out.env.Path(c.Data))
		if err != nil {
			return nil, nil, nil, usageErrorf("--data: %v", err)
		}
		if data, err = loaddata.Read(c.Data, f, size, loaddata.Order(c.DataOrder), c.Seed); err != nil {
			f.Close()
			return nil, nil, nil, err
		}
		done = func() { f.Close() } // read-only: nothing to report at its close
	}
	return base, data, done, nil
}

// config is the run as the flags plan it, its sessions opened as the
// session's settings say: what it runs is the caller's to add.
func (c *loadCmd) config(s *session, out *console) load.Config {
	plan := load.Plan{Concurrency: c.Concurrency, Duration: c.Duration, Count: c.Count, Rate: c.Rate, Stages: c.stages,
		NewSession: c.NewSession, Shared: c.Shared, Grace: c.Grace}
	if plan.Duration == 0 && plan.Count == 0 && len(plan.Stages) == 0 {
		plan.Duration = 10 * time.Second
		if c.FindMax != nil {
			plan.Duration = 5 * time.Second // a step
		}
	}
	if c.FindMax != nil && plan.Concurrency == 1 {
		plan.Concurrency = findMaxSessions // enough that mcpv is not the limit
	}
	first := s.hooks
	first.Status = nil // the run's own progress line, not each session's
	// The first session, which prepares the operation, may ask the user
	// (a login, a question) and shows its server's stderr; the run's
	// many others do neither: a question is declined, and a server's
	// stderr is kept only for the message of its failure.
	// The servers' log messages are counted and summed up in the report,
	// not shown one by one (unless -v): a server that logs each call
	// would write hundreds of thousands of lines.
	logs := &load.Logs{}
	countLogs(&first, logs, s.settings.Verbose)
	others := first
	others.Terminal, others.Interactive, others.ServerStderr = nil, false, io.Discard
	var opened atomic.Bool
	return load.Config{
		Plan: plan,
		Open: func(ctx context.Context) (*load.Session, error) {
			h := first
			if opened.Swap(true) {
				h = others
			}
			conn, err := connect.Open(ctx, s.settings, s.env, h)
			if err != nil {
				return nil, err
			}
			return &load.Session{Client: conn.Client, HTTP: s.settings.URL != "", Close: conn.Close}, nil
		},
		Seed:     c.Seed,
		Logs:     logs,
		Warnf:    out.warnf,
		Progress: func(p load.Progress) { out.ios.Status.Set(progressLine(p)) },
		Mask:     out.secrets.String,
		Timeout:  s.settings.Timeout,
	}
}

// measure runs cfg, or with --find-max the search for the highest rate
// that holds the limits, a run of cfg at each step.
func (c *loadCmd) measure(ctx context.Context, cfg load.Config, out *console) (*load.Result, error) {
	if c.FindMax == nil {
		return load.Run(ctx, cfg)
	}
	return load.FindMax(ctx, load.SearchPlan{Start: cmp.Or(c.Rate, 10), Limits: c.limits, Precision: 0.05, MaxSteps: maxSearchSteps,
		Step: func(ctx context.Context, rate float64) (*load.Result, error) {
			cfg.Plan.Rate = rate
			return load.Run(ctx, cfg)
		},
		Progress: func(pt load.SearchPoint) {
			out.ios.Status.Set(fmt.Sprintf("find-max: %.0f/s %s", pt.Rate, map[bool]string{true: "held", false: "crossed"}[pt.Held]))
		}})
}

// loadGOGC is the collector's GOGC during a run, unless the user set one.
const loadGOGC = 400

// loadBigData is the size of a data file's row from which a run keeps
// the collector's GOGC as it is.
const loadBigData = 8 << 20

// operations reads the operation, or the mix, with the files they name,
// and says how the run reads those files (@FILE): those of a mix stay in
// the mix file's tree, as a test file's stay in its own (safefile.Tree),
// so that a mix from a cloned repository cannot send a server
// /proc/self/environ, ~/.ssh/id_rsa or ../secret.
func (c *loadCmd) operations(out *console) ([]load.Op, func(string) ([]byte, error), error) {
	if len(c.Operation) == 0 && c.Mix == "" {
		return nil, nil, usageErrorf("give an operation (%s), --mix FILE or --scenario FILE", load.Commands)
	}
	if c.Mix == "" {
		op, err := load.ParseOp(c.Operation, out.readFile)
		return []load.Op{op}, out.readFile, err
	}
	path := out.env.Path(c.Mix)
	data, err := safefile.Read(path)
	if err != nil {
		return nil, nil, usageErrorf("--mix: %v", err)
	}
	tree := safefile.Tree{Dir: filepath.Dir(path)}
	ops, err := load.ParseMix(c.Mix, data, tree.Read)
	return ops, tree.Read, err
}

// scenario reads the --scenario file (an mcpv test file, read and
// checked as mcpv test reads it) as load's steps; its @FILE stay in its
// tree. The server is the command line's, as for every load.
func (c *loadCmd) scenario(out *console, s *session) (string, []load.Step, func(string) ([]byte, error), error) {
	o := readOptions(out.env, nil, false)
	o.EnvTrusted = func(path string, data []byte) error { return scenarioTrusted(out.env, path, data) }
	f, errs := testfile.Read(o, c.Scenario)
	if len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintf(out.ios.Err, "mcpv: %v\n", e)
		}
		return "", nil, nil, batchFailed{code: exitcode.Usage}
	}
	s.settings.Secrets = append(s.settings.Secrets, f.Secrets...)
	out.secrets.Add(f.Secrets...)
	tree := safefile.Tree{Dir: f.Dir}
	steps, err := load.ScenarioSteps(f, tree.Read, exitCode)
	return f.Name, steps, tree.Read, err
}

// scenarioTrusted says whether a scenario may name the environment: only
// once the user has trusted its content ('mcpv trust FILE'), since naming
// it to load runs none of its commands and so trusts it with nothing (a
// cloned repository's scenario would send $GITHUB_TOKEN to the server).
func scenarioTrusted(env connect.Env, path string, data []byte) error {
	ok, err := env.TrustStore().Trusted(trust.Path(env.Cwd, path), data)
	switch {
	case err != nil:
		return fmt.Errorf("reading the trust store: %w", err)
	case !ok:
		return fmt.Errorf("a scenario names the environment only once trusted; review it, then run: mcpv trust %s", shellwords.Quote(safetext.Line(path)))
	}
	return nil
}

// countLogs makes h's sessions count their servers' log messages in logs,
// and show them too only when verbose.
func countLogs(h *connect.Hooks, logs *load.Logs, verbose bool) {
	h.LogsElsewhere = h.LogsElsewhere || !verbose
	if !verbose {
		h.OnDropped = logs.Dropped
	}
	next := h.OnNotification
	h.OnNotification = func(method string, params json.RawMessage) {
		if method == "notifications/message" {
			logs.Note(params)
		}
		if next != nil {
			next(method, params)
		}
	}
}
