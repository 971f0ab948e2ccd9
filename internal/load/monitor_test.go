package load

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// watchTicks runs a monitor of a machine with two cores whose mcpv uses
// share of them, for ticks intervals (counted through Progress), and
// returns the warnings it gave.
func watchTicks(t *testing.T, share float64, ticks int) (*monitor, []string) {
	t.Helper()
	var mu sync.Mutex // guards warnings
	var warnings []string
	ticked := make(chan struct{}, ticks)
	r := &run{rec: newRecorder(1, false), start: time.Now(), sched: newSchedule(Plan{Concurrency: 1}), cfg: Config{
		Warnf: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			warnings = append(warnings, format)
		},
		Progress: func(Progress) {
			select {
			case ticked <- struct{}{}:
			default:
			}
		},
	}}
	m := newMonitor(r)
	m.every, m.cores = time.Millisecond, 2
	start := time.Now()
	m.sample = func() (cpuSample, time.Time) {
		now := time.Now()
		return cpuSample{self: time.Duration(share * 2 * float64(now.Sub(start))), ok: true}, now
	}
	finished := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { m.watch(finished) }) // ends when finished closes
	for range ticks {
		<-ticked
	}
	close(finished)
	wg.Wait()
	return m, warnings
}

// mcpv warns, once, when it uses nearly every core of the machine: the
// figures may then measure mcpv rather than the server.
func TestSaturationWarning(t *testing.T) {
	m, warnings := watchTicks(t, 1, 5)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "may measure mcpv rather than the server") || !m.saturated || m.peak < 1.8 {
		t.Errorf("warnings %q, saturated %v, peak %.2f; want one warning, saturated, a peak near 2", warnings, m.saturated, m.peak)
	}
}

// A run that uses a core of two says nothing.
func TestNoSaturationWarning(t *testing.T) {
	m, warnings := watchTicks(t, 0.5, 5)
	if len(warnings) != 0 || m.saturated || m.peak <= 0 {
		t.Errorf("warnings %q, saturated %v, peak %.2f; want none, not saturated, a peak measured", warnings, m.saturated, m.peak)
	}
}
