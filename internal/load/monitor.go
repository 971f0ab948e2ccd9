package load

import (
	"runtime"
	"sync"
	"time"
)

// monitor samples the run every interval: the live progress, and mcpv's
// own CPU, so that a run whose generator is the bottleneck says so.
type monitor struct {
	r     *run
	every time.Duration
	cores int
	cpu   func() cpuSample // cpuTime, but for tests

	// peak is the most CPU mcpv used over one interval, in cores; only
	// watch writes it, and result reads it after watch has returned.
	peak      float64
	saturated bool // an interval used 90% of every core or more
}

func newMonitor(r *run) *monitor {
	every := r.cfg.Every
	if every <= 0 {
		every = time.Second
	}
	return &monitor{r: r, every: every, cores: runtime.NumCPU(), cpu: cpuTime}
}

// saturation is the share of the machine's cores mcpv may use over an
// interval before it warns that it may be measuring itself.
const saturation = 0.9

// watch samples until finished is closed.
func (m *monitor) watch(finished <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	tick := time.NewTicker(m.every)
	defer tick.Stop()
	last, lastAt, lastDone := m.cpu(), time.Now(), int64(0)
	for {
		select {
		case <-finished:
			return
		case <-tick.C:
			// The time of the sample, not of the tick: a tick read late
			// would count CPU time over a shorter span than it was used in.
			cpu, now := m.cpu(), time.Now()
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
