// Package load is mcpv load apart from its command line: an operation in
// mcpv's own words driven through N sessions at once, in a closed loop or
// at a fixed arrival rate (optionally in stages), for a duration or a
// count; the latencies kept in HDR histograms (fixed in size, however long
// the run), the errors counted by kind, mcpv's own CPU time measured; the
// report as a table, a histogram and JSON; thresholds that decide the exit.
//
// At a fixed rate the schedule is a function of time alone: the k-th
// iteration is meant to start at a set time, and its latency is counted
// from then, not from when a free session could start it, so that a server
// that stalls shows its stall in every iteration it held up (coordinated
// omission corrected, as wrk2 does).
package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/duration"
	"github.com/mcpv/mcpv/internal/loaddata"
	"github.com/mcpv/mcpv/mcp"
)

// Plan is the load a run puts on the server.
type Plan struct {
	// Concurrency is the most sessions busy at once.
	Concurrency int
	// Duration ends the run (with Count, whichever comes first); 0: none.
	Duration time.Duration
	// Count ends the run after so many iterations; 0: none.
	Count int64
	// Rate, when above 0, starts iterations at this rate per second
	// whatever the server does; 0 is a closed loop, each session starting
	// its next iteration when the last ends.
	Rate float64
	// Stages, when given, move the number of sessions (closed loop) or
	// the rate (rate stages) in straight lines; they set the duration.
	Stages []Stage
	// NewSession opens a session for every iteration (set-up, the
	// operation, the close) instead of holding each one open.
	NewSession bool
	// Shared runs every iteration on one session.
	Shared bool
	// Grace is how long the operations in flight when the duration ends
	// may still take; those cut then are counted as unfinished.
	Grace time.Duration
}

// Session is an open session of the run.
type Session struct {
	Client *mcp.Client
	// HTTP: over Streamable HTTP (a call may then send x-mcp-header headers).
	HTTP bool
	// Close ends the session within its bounds (a stdio server stopped).
	Close func()
}

// Config is a run.
type Config struct {
	Plan
	// Ops are the operations: one, or a mix by weight.
	Ops []Op
	// Steps, when given, are a scenario: each iteration passes through
	// them all in order (Ops are then theirs, set by Run).
	Steps []Step
	// Scenario names the scenario in the report.
	Scenario string
	// Open opens a session; Run calls it from many goroutines at once.
	Open func(ctx context.Context) (*Session, error)
	// ReadFile reads a call's key=@FILE, as the command line does.
	ReadFile func(string) ([]byte, error)
	// Warnf says what the user should know (a schema not checked, mcpv's
	// CPU saturated).
	Warnf func(format string, args ...any)
	// Progress, when set, is told the run's figures every Every.
	Progress func(Progress)
	Every    time.Duration
	// Data, when set, is the data file whose rows the iterations take
	// (a template's .row); Seed draws its rows at random and a
	// template's .random.
	Data *loaddata.Source
	Seed uint64
	// Logs, when set, is where the sessions count the servers' log
	// messages; the report sums them up.
	Logs *Logs
	// Mask hides the run's secrets from error messages in the report.
	Mask func(string) string
	// Timeout bounds the typing and checking of a call's arguments, as
	// --timeout bounds mcpv call's (0: none).
	Timeout time.Duration
}

// Progress is the run's figures so far, for a live line.
type Progress struct {
	Elapsed, Total time.Duration // Total 0: the run ends at a count
	Done, Count    int64         // Count 0: the run ends at a time
	Rate           float64       // iterations a second over the last interval
	Failed         int64
	P99            time.Duration
	CPU            float64 // mcpv's CPU over the last interval, in cores
}

// errCut is the cause of the run's context when the grace after the
// duration is over: what is still in flight is unfinished.
var errCut = errors.New("the run's time is over")

// run is one run under way.
type run struct {
	cfg    Config
	sched  *schedule
	pick   picker
	rec    *recorder
	start  time.Time
	end    time.Time // the deadline for new iterations; zero: none
	ctx    context.Context
	user   context.Context // the caller's: done on an interrupt
	cancel context.CancelCauseFunc

	next    atomic.Int64            // the next iteration's number (k)
	started atomic.Int64            // iterations started
	stopped atomic.Bool             // no iteration may start any more
	shared  *Session                // the one session of a --shared run
	first   atomic.Pointer[Session] // the session that prepared the operations, until a worker takes it
	// sharedErr is why the shared session ended under the run, if it did.
	sharedErr atomic.Pointer[sharedEnd]
}

// Run prepares the operations on a first session (a failure there is the
// run's error, with its usual exit code: nothing is measured) and then
// puts the load on the server until the plan ends or ctx does (an
// interrupt: the result says so, and holds what was measured until then).
// Every session it opened is closed when it returns.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Warnf == nil {
		cfg.Warnf = func(string, ...any) {}
	}
	cfg.Concurrency = max(cfg.Concurrency, 1)
	if len(cfg.Stages) > 0 && !cfg.Stages[0].Rate {
		most := 0.0 // the most sessions the stages ask for at once
		for _, st := range cfg.Stages {
			most = max(most, st.Target)
		}
		cfg.Concurrency = max(cfg.Concurrency, int(most))
	}
	if len(cfg.Steps) > 0 {
		cfg.Ops = make([]Op, len(cfg.Steps))
		for j, st := range cfg.Steps {
			cfg.Ops[j] = st.Op
			cfg.Ops[j].lazy = st.Words != nil
			cfg.Ops[j].keep = true
		}
	}
	r := &run{cfg: cfg, sched: newSchedule(cfg.Plan), pick: newPicker(cfg.Ops), rec: newRecorder(len(cfg.Ops), len(cfg.Steps) > 0), user: ctx}
	t0 := time.Now()
	first, err := cfg.Open(ctx)
	if err != nil {
		return nil, err
	}
	setup := time.Since(t0)
	for i := range cfg.Ops {
		var sample any // what the first iteration's templates see: a row is read for none
		if cfg.Ops[i].Varies() {
			// A large row read by paths is checked with its long string
			// unread: the marker that stands for it, a string as well.
			var st *mcp.Streamed
			if sample, st, err = r.streamedInput(&cfg.Ops[i], 0, 0); st == nil && err == nil {
				sample, err = r.input(0, 0)
			}
		}
		if err == nil {
			err = cfg.Ops[i].Prepare(ctx, first.Client, first.HTTP, cfg.Timeout, cfg.ReadFile, cfg.Warnf, sample)
		}
		if err != nil {
			first.Close()
			return nil, err
		}
	}
	switch {
	case cfg.Shared:
		r.shared = first
		r.rec.session(false, setup)
	case cfg.NewSession:
		first.Close()
	default:
		r.first.Store(first) // the first session to need one takes it
		r.rec.session(false, setup)
	}
	return r.measure()
}

// input is what the templates of iteration k of session i see.
func (r *run) input(k int64, i int) (any, error) {
	in := loaddata.Input{Iteration: k, Session: i, Random: loaddata.Uniform(r.cfg.Seed, k)}
	if r.cfg.Data != nil {
		row, err := r.cfg.Data.Row(k)
		if err != nil {
			return nil, fmt.Errorf("%s, row %d: %w", r.cfg.Data.Path, r.cfg.Data.Index(k)+1, err)
		}
		in.Row = row
	}
	return in.Value(), nil
}

// measure runs the workers and gathers the result.
func (r *run) measure() (*Result, error) {
	cpu0 := cpuTime()
	r.start = time.Now()
	r.ctx, r.cancel = context.WithCancelCause(r.user)
	defer r.cancel(nil)
	if r.sched.end > 0 {
		r.end = r.start.Add(r.sched.end)
		// Operations in flight at the end get the grace, then are cut.
		defer time.AfterFunc(duration.Sum(r.sched.end, r.cfg.Grace), func() { r.cancel(errCut) }).Stop()
	}
	finished := make(chan struct{})
	var watchers sync.WaitGroup
	if r.shared != nil {
		watchers.Go(func() { r.watchShared(finished) }) // shared-session watcher: ends with the run
	}
	mon := newMonitor(r)
	watchers.Go(func() { mon.watch(finished) }) // load monitor: ends with the run
	var wg sync.WaitGroup
	for i := range r.cfg.Concurrency {
		wg.Go(func() { r.worker(i) }) // load session: returns when the plan ends, the run is cut or interrupted
	}
	wg.Wait()
	elapsed := time.Since(r.start)
	close(finished)
	watchers.Wait()
	if s := r.first.Swap(nil); s != nil {
		r.closeSession(s)
	}
	if r.shared != nil {
		r.closeSession(r.shared)
	}
	return r.result(elapsed, cpu0, cpuTime(), mon), nil
}

// watchShared ends the run when the one shared session ends under it.
func (r *run) watchShared(finished <-chan struct{}) {
	select {
	case <-r.shared.Client.Done():
		r.sharedErr.Store(&sharedEnd{r.shared.Client.Err()})
		r.stopped.Store(true)
		r.cancel(errSharedEnded)
	case <-finished:
	}
}

// errSharedEnded is the cause of the run's end when its shared session ends.
var errSharedEnded = errors.New("the shared session ended")

type sharedEnd struct{ err error }

// closeSession closes s, timing it.
func (r *run) closeSession(s *Session) {
	t := time.Now()
	s.Close()
	r.rec.session(true, time.Since(t))
}
