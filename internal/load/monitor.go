package load

import (
	"cmp"
	"runtime"
	"time"
)

// monitor samples the run every interval: the live progress, and mcpv's
// own CPU, so that a run whose generator is the bottleneck says so.
type monitor struct {
	r     *run
	every time.Duration
	cores int
	// sample reads mcpv's CPU time and the time it was read at:
	// sampleNow, but for tests, whose CPU time is a function of the
	// time read (a reading of the clock apart from the CPU's, late by a
	// preemption, would make a millisecond's interval seem to use more).
	sample func() (cpuSample, time.Time)

	// peak is the most CPU mcpv used over one interval, in cores; only
	// watch writes it, and result reads it after watch has returned.
	peak      float64
	saturated bool // an interval used 90% of every core or more
	// timeline is a point per interval (only watch writes it, result
	// reads it after watch has returned); lastT is the last point's end.
	timeline []TimePoint
	lastT    float64
}

// MaxTimeline bounds the points of a timeline: past it, each two
// neighbours are merged into one of twice the span (their counts added,
// p50 and p90 their counts' weighted mean, p99 and max the larger), so
// that an hour's run keeps a point a second and a day's one a minute.
const MaxTimeline = 3600

func newMonitor(r *run) *monitor {
	every := cmp.Or(max(r.cfg.Every, 0), time.Second) // none, or less: a second
	return &monitor{r: r, every: every, cores: runtime.NumCPU(), sample: sampleNow}
}

// cpuSample is the CPU time used so far: mcpv's own, and that of the
// child processes it has waited for (the stdio servers it started and
// stopped), where the system tells them (Windows does not tell the
// children's); ok is false where it is not known.
type cpuSample struct {
	self, children time.Duration
	ok             bool
}

// sampleNow is mcpv's CPU time, and now.
func sampleNow() (cpuSample, time.Time) { return cpuTime(), time.Now() }

// saturation is the share of the machine's cores mcpv may use over an
// interval before it warns that it may be measuring itself.
const saturation = 0.9

// watch samples until finished is closed.
func (m *monitor) watch(finished <-chan struct{}) {
	tick := time.NewTicker(m.every)
	defer tick.Stop()
	last, lastAt := m.sample()
	lastDone := int64(0)
	for {
		select {
		case <-finished:
			return
		case <-tick.C:
			// The time of the sample, not of the tick: a tick read late
			// would count CPU time over a shorter span than it was used in.
			cpu, now := m.sample()
			span := now.Sub(lastAt).Seconds()
			cores := 0.0
			if cpu.ok && span > 0 {
				cores = (cpu.self - last.self).Seconds() / span
				m.peak = max(m.peak, cores)
				if cores >= saturation*float64(m.cores) && !m.saturated {
					m.saturated = true
					m.r.cfg.Warnf("mcpv used %.0f%% of this machine's %d cores over a second: the figures may measure mcpv rather than the server (lower -c or --rate, or generate the load from more machines with k6)", 100*cores/float64(m.cores), m.cores)
				}
			}
			t := now.Sub(m.r.start).Seconds()
			m.timeline = append(m.timeline, m.r.rec.takeWindow(t, t-m.lastT))
			m.lastT = t
			if len(m.timeline) >= MaxTimeline {
				m.timeline = halve(m.timeline)
			}
			done, failed, p99 := m.r.rec.progress()
			if m.r.cfg.Progress != nil {
				p := Progress{Elapsed: now.Sub(m.r.start), Total: m.r.sched.end, Done: done, Count: m.r.cfg.Count,
					Failed: failed, P99: p99, CPU: cores}
				if span > 0 {
					p.Rate = float64(done-lastDone) / span
				}
				m.r.cfg.Progress(p)
			}
			last, lastAt, lastDone = cpu, now, done
		}
	}
}

// halve merges each two neighbouring points of a timeline.
func halve(tl []TimePoint) []TimePoint {
	out := tl[:0]
	for i := 0; i+1 < len(tl); i += 2 {
		out = append(out, merge(tl[i], tl[i+1]))
	}
	if len(tl)%2 == 1 {
		out = append(out, tl[len(tl)-1])
	}
	return out
}

// merge is two neighbouring points as one.
func merge(a, b TimePoint) TimePoint {
	m := TimePoint{T: b.T, Span: a.Span + b.Span, OK: a.OK + b.OK, Errors: a.Errors + b.Errors,
		P99: max(a.P99, b.P99), Max: max(a.Max, b.Max)}
	if m.OK > 0 {
		wa, wb := float64(a.OK)/float64(m.OK), float64(b.OK)/float64(m.OK)
		m.P50, m.P90 = a.P50*wa+b.P50*wb, a.P90*wa+b.P90*wb
	}
	return m
}
