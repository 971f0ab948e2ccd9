package load

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Result is what a run measured: every figure of the report, for --format
// json as for the table. Latencies are in milliseconds.
type Result struct {
	// Version is the schema's (docs/mcpv-load.schema.json).
	Version int `json:"version"`
	// Started is when the run began (RFC 3339).
	Started    string     `json:"started"`
	Operations []OpResult `json:"operations"`
	// Scenario names the scenario whose passes were the iterations; its
	// operations are then its steps, and latency_ms is a whole pass's.
	Scenario string `json:"scenario,omitempty"`
	Schedule string `json:"schedule"` // "closed loop", "200/s", "stages 30s:16 ..."
	Sessions string `json:"sessions"` // "held open", "new per iteration", "shared"
	// Concurrency is the most sessions busy at once.
	Concurrency int     `json:"concurrency"`
	Elapsed     float64 `json:"elapsed_s"`
	// Interrupted: the run was stopped by the user, and this is what it
	// measured until then.
	Interrupted bool `json:"interrupted"`
	// Ended says why the run ended before its plan, if it did.
	Ended string `json:"ended,omitempty"`

	Iterations int64   `json:"iterations"` // ok + errors
	OK         int64   `json:"ok"`
	Errors     int64   `json:"errors"`
	ErrorRate  float64 `json:"error_rate"`  // errors / iterations
	Throughput float64 `json:"throughput"`  // iterations a second
	OKRate     float64 `json:"ok_per_s"`    // successful iterations a second
	Latency    Stats   `json:"latency_ms"`  // the operation's, from its intended start at a fixed rate
	Setup      Stats   `json:"setup_ms"`    // a session's opening: start or connect, initialize or discover
	Close      Stats   `json:"close_ms"`    // a session's close
	ErrorKinds []Error `json:"error_kinds"` // by phase and kind, in the order first seen

	// NotStarted are the iterations a fixed rate meant to start that
	// no session could start before the run's end.
	NotStarted int64 `json:"not_started"`
	// LateMax is how far behind its schedule an iteration started, at
	// most; Late how many started more than 10 ms behind.
	LateMax float64 `json:"late_max_ms"`
	Late    int64   `json:"late"`
	// Clamped latencies were beyond a day and are kept as a day.
	Clamped int64 `json:"clamped,omitempty"`

	// Data is the data file the iterations took their rows from.
	Data *DataUsed `json:"data,omitempty"`
	// Seed drew the data's rows at random and the templates' .random.
	Seed uint64 `json:"seed"`
	// Logs sums up the log messages the servers sent during the run.
	Logs *LogSummary `json:"logs,omitempty"`

	CPU       CPU      `json:"cpu"`
	Histogram []Bucket `json:"histogram"` // the operation latency's, the non-empty buckets
	// Timeline is the run second by second (or, in a long run, by longer
	// spans: it holds at most MaxTimeline points).
	Timeline []TimePoint `json:"timeline"`
	Checks   []CheckedAt `json:"thresholds,omitempty"`
	// Search is the search for the breaking point (--find-max) whose
	// highest rate that held this run is.
	Search *Search `json:"search,omitempty"`
	// Baseline is this run beside the one --baseline gave.
	Baseline *Comparison `json:"baseline,omitempty"`

	hists map[string]*hdrhistogram.Histogram // "", "setup.", "close.": for thresholds
	base  *Result                            // the baseline, for relative thresholds
	file  string                             // a baseline's file
}

// DataUsed is a data file as a run used it.
type DataUsed struct {
	File  string `json:"file"`
	Rows  int    `json:"rows"`
	Order string `json:"order"` // sequential, random
}

// OpResult is one operation's share of a run.
type OpResult struct {
	Name    string `json:"name"`
	Weight  int    `json:"weight"`
	OK      int64  `json:"ok"`
	Errors  int64  `json:"errors"`
	Latency *Stats `json:"latency_ms,omitempty"` // in a mix
}

// Stats sum up a histogram, in milliseconds.
type Stats struct {
	Count int64   `json:"count"`
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p99.9"`
	Max   float64 `json:"max"`
}

// Error is one kind of error in one phase of an iteration.
type Error struct {
	Phase string `json:"phase"` // setup, operation, template, schedule
	// Operation names the operation of a mix, or the step of a scenario,
	// the error came in.
	Operation string `json:"operation,omitempty"`
	Kind      string `json:"kind"` // JSON-RPC -32603, tool error, timeout, transport, unfinished...
	Count     int64  `json:"count"`
	Example   string `json:"example"` // the first message of the kind
}

// CPU is mcpv's own cost, beside the run's elapsed time.
type CPU struct {
	Known   bool    `json:"known"`
	Seconds float64 `json:"seconds"` // mcpv's own CPU time over the run
	// Children is the CPU time of the stdio servers mcpv started and
	// has stopped (0 for servers it reached over HTTP).
	Children float64 `json:"children_s"`
	// Cores is Seconds over the elapsed time; Peak the most over one
	// interval; Machine the machine's cores.
	Cores     float64 `json:"cores"`
	Peak      float64 `json:"peak_cores"`
	Machine   int     `json:"machine_cores"`
	PerOp     float64 `json:"per_iteration_us"`
	Saturated bool    `json:"saturated"`
}

// TimePoint is what the iterations that ended in a span of the run did.
type TimePoint struct {
	T      float64 `json:"t_s"`    // the span's end, from the run's start
	Span   float64 `json:"span_s"` // its length
	OK     int64   `json:"ok"`
	Errors int64   `json:"errors"`
	P50    float64 `json:"p50_ms"`
	P90    float64 `json:"p90_ms"`
	P99    float64 `json:"p99_ms"`
	Max    float64 `json:"max_ms"`
}

// Bucket is a range of latencies and how many fell in it.
type Bucket struct {
	From  float64 `json:"from_ms"`
	To    float64 `json:"to_ms"`
	Count int64   `json:"count"`
}

func stats(h *hdrhistogram.Histogram) Stats {
	if h.TotalCount() == 0 {
		return Stats{}
	}
	ms := func(v int64) float64 { return float64(v) / 1000 }
	return Stats{Count: h.TotalCount(), Min: ms(h.Min()), Mean: h.Mean() / 1000,
		P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)), P99: ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max())}
}

// result gathers what the run measured; the workers and the monitor have
// stopped.
func (r *run) result(elapsed time.Duration, cpu0, cpu1 cpuSample, mon *monitor) *Result {
	rec := r.rec
	res := &Result{Version: Version, Started: r.start.UTC().Format(time.RFC3339), Scenario: r.cfg.Scenario, Schedule: r.cfg.describe(), Concurrency: r.cfg.Concurrency, Elapsed: elapsed.Seconds(),
		Interrupted: r.user.Err() != nil, Seed: r.cfg.Seed,
		hists: map[string]*hdrhistogram.Histogram{"": rec.latency, "setup.": rec.setup, "close.": rec.closing}}
	switch {
	case r.cfg.Shared:
		res.Sessions = "shared"
	case r.cfg.NewSession:
		res.Sessions = "new per iteration"
	default:
		res.Sessions = "held open"
	}
	if e := r.sharedErr.Load(); e != nil {
		res.Ended = "the shared session ended"
		if e.err != nil {
			_, msg := classify(e.err, r.cfg.Mask)
			res.Ended += ": " + msg
		}
	}
	if r.sched.fixedRate() {
		var planned int64
		switch {
		case res.Interrupted || res.Ended != "":
			planned = r.sched.planned(elapsed)
		case r.sched.end > 0:
			planned = r.sched.planned(r.sched.end)
		default:
			planned = r.cfg.Count
		}
		if r.cfg.Count > 0 {
			planned = min(planned, r.cfg.Count)
		}
		if missed := planned - r.started.Load(); missed > 0 && !res.Interrupted {
			res.NotStarted = missed
			rec.count("schedule", "not started", "meant to start before the end, but no session was free: raise -c", missed, -1)
			rec.failed += missed
		}
	}
	for i, op := range r.cfg.Ops {
		o := OpResult{Name: op.Name, Weight: op.Weight, OK: rec.okOps[i], Errors: rec.failedOps[i]}
		if rec.perOp != nil {
			o.Latency = new(stats(rec.perOp[i]))
		}
		res.Operations = append(res.Operations, o)
	}
	res.OK, res.Errors = rec.ok, rec.failed
	res.Iterations = res.OK + res.Errors
	if res.Iterations > 0 {
		res.ErrorRate = float64(res.Errors) / float64(res.Iterations)
	}
	if s := elapsed.Seconds(); s > 0 {
		res.Throughput = float64(rec.ok+rec.failed-res.NotStarted) / s
		res.OKRate = float64(rec.ok) / s
	}
	res.Latency, res.Setup, res.Close = stats(rec.latency), stats(rec.setup), stats(rec.closing)
	res.ErrorKinds = []Error{} // [], not null, when there are none
	for _, k := range rec.order {
		c := rec.errs[k]
		e := Error{Phase: k.phase, Kind: k.kind, Count: c.n, Example: c.example}
		if k.op >= 0 && (len(r.cfg.Ops) > 1 || len(r.cfg.Steps) > 0) {
			e.Operation = r.cfg.Ops[k.op].Name
		}
		res.ErrorKinds = append(res.ErrorKinds, e)
	}
	res.Logs = r.cfg.Logs.summary(r.cfg.Mask)
	if d := r.cfg.Data; d != nil {
		res.Data = &DataUsed{File: d.Path, Rows: d.Len(), Order: string(d.Order)}
	}
	res.LateMax, res.Late, res.Clamped = float64(rec.late)/float64(time.Millisecond), rec.lateCount, rec.clamped
	if cpu0.ok && cpu1.ok {
		self := (cpu1.self - cpu0.self).Seconds()
		res.CPU = CPU{Known: true, Seconds: self, Children: (cpu1.children - cpu0.children).Seconds(),
			Peak: mon.peak, Machine: mon.cores, Saturated: mon.saturated}
		if elapsed > 0 {
			res.CPU.Cores = self / elapsed.Seconds()
			res.CPU.Peak = max(res.CPU.Peak, res.CPU.Cores) // a run shorter than an interval
		}
		if res.Iterations > 0 {
			res.CPU.PerOp = self / float64(res.Iterations) * 1e6
		}
	}
	res.Timeline = mon.timeline
	last := rec.takeWindow(elapsed.Seconds(), elapsed.Seconds()-mon.lastT)
	switch n := len(res.Timeline); {
	case n > 0 && last.Span < res.Timeline[n-1].Span/2:
		// a sliver at the end: its rate would be noise
		res.Timeline[n-1] = merge(res.Timeline[n-1], last)
	case last.OK+last.Errors > 0 || n == 0:
		res.Timeline = append(res.Timeline, last)
	}
	for _, b := range rec.latency.Distribution() {
		if b.Count > 0 {
			res.Histogram = append(res.Histogram, Bucket{From: float64(b.From) / 1000, To: float64(b.To+1) / 1000, Count: b.Count})
		}
	}
	return res
}
