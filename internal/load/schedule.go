package load

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/duration"
	"github.com/mcpv/mcpv/internal/errkind"
)

// Stage is a stretch of a run over which the load moves in a straight line
// from where the stage before left it (0 before the first) to Target: a
// number of sessions at once (closed loop), or iterations per second
// (Rate: a fixed arrival rate).
type Stage struct {
	Duration time.Duration
	Target   float64
	Rate     bool
}

// MaxRate is the fastest rate a schedule keeps, iterations a second: one
// a nanosecond, the tick of the times it plans in. Faster, the count of
// iterations meant to start in a run overflows.
const MaxRate = 1e9

// ParseStage reads a stage as the command line writes it: DURATION:N for
// N sessions at once, DURATION:N/s for N iterations per second
// ("30s:16", "1m:200/s", "10s:0").
func ParseStage(s string) (Stage, error) {
	d, target, ok := strings.Cut(s, ":")
	st := Stage{}
	if target, st.Rate = strings.CutSuffix(target, "/s"); !ok {
		return st, errkind.Usagef("--stage %s: want DURATION:SESSIONS or DURATION:RATE/s, e.g. 30s:16 or 1m:200/s", s)
	}
	dur, err := duration.Parse(d)
	if err != nil || dur < 0 {
		return st, errkind.Usagef("--stage %s: %q is no duration", s, d)
	}
	n, err := strconv.ParseFloat(target, 64)
	if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) || !st.Rate && n != math.Trunc(n) || st.Rate && n > MaxRate {
		what := "a whole number of sessions"
		if st.Rate {
			what = "a rate per second, at most 1e9"
		}
		return st, errkind.Usagef("--stage %s: want %s, found %q", s, what, target)
	}
	st.Duration, st.Target = dur, math.Abs(n) // -0 is 0
	return st, nil
}

// schedule says when each iteration of a run is meant to start and which
// sessions are busy: it is a function of time alone, never of how the
// server answers, so that a server that stalls cannot slow the schedule
// down and hide its stall (coordinated omission).
type schedule struct {
	rate     float64       // iterations per second; 0 is a closed loop
	sessions int           // sessions at once, without stages
	end      time.Duration // 0: none (a count ends the run)
	stages   []Stage
	// starts are, for rate stages, the number of iterations meant to have
	// started by the start of each stage.
	starts []float64
}

func newSchedule(p Plan) *schedule {
	s := &schedule{rate: p.Rate, sessions: p.Concurrency, end: p.Duration, stages: p.Stages}
	if len(p.Stages) == 0 {
		return s
	}
	s.end = 0
	for _, st := range p.Stages {
		s.end = duration.Sum(s.end, st.Duration) // at most the end of time, not wrapped round
	}
	if p.Stages[0].Rate {
		s.rate = -1 // by stage
		from, n := 0.0, 0.0
		for _, st := range p.Stages {
			s.starts = append(s.starts, n)
			n += (from + st.Target) / 2 * st.Duration.Seconds()
			from = st.Target
		}
	}
	return s
}

// fixedRate reports whether iterations come at a rate of their own.
func (s *schedule) fixedRate() bool { return s.rate != 0 }

// at is when the k-th iteration (from 0) is meant to start, measured from
// the run's start; false once the run's schedule has no k-th iteration.
func (s *schedule) at(k int64) (time.Duration, bool) {
	if s.rate > 0 {
		t := duration.Max // past it (a rate of 1e-12/s), never in a run
		if ns := float64(k) / s.rate * float64(time.Second); ns < float64(duration.Max) {
			t = time.Duration(ns)
		}
		return t, s.end == 0 || t < s.end
	}
	// Within stage i, n(x) = starts[i] + a·x + (b-a)/(2D)·x² iterations
	// have been meant to start x seconds into it; solve n(x) = k.
	want, from, offset := float64(k), 0.0, time.Duration(0)
	for i, st := range s.stages {
		d := st.Duration.Seconds()
		n := want - s.starts[i]
		total := (from + st.Target) / 2 * d
		if d > 0 && n < total {
			var x float64
			if slope := (st.Target - from) / d; math.Abs(slope) < 1e-12 && from > 0 { // from 0, n/from is NaN
				x = n / from
			} else {
				x = (-from + math.Sqrt(from*from+2*slope*n)) / slope
			}
			return duration.Sum(offset, time.Duration(min(x*float64(time.Second), float64(duration.Max)))), true
		}
		from, offset = st.Target, duration.Sum(offset, st.Duration)
	}
	return 0, false
}

// planned is how many iterations were meant to start before elapsed.
func (s *schedule) planned(elapsed time.Duration) int64 {
	if s.end > 0 {
		elapsed = min(elapsed, s.end)
	}
	if s.rate > 0 {
		return int64(math.Ceil(elapsed.Seconds() * s.rate))
	}
	// a binary search over at, which increases with k
	lo, hi := int64(0), int64(1)
	for t, ok := s.at(hi); ok && t < elapsed; t, ok = s.at(hi) {
		lo, hi = hi, hi*2
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if t, ok := s.at(mid); ok && t < elapsed {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// level is the number of sessions a closed loop keeps busy at elapsed:
// session i (from 0) is busy while i < level, so that sessions are taken
// on in order as the stages ramp up and let go in reverse as they ramp
// down.
func (s *schedule) level(elapsed time.Duration) int {
	if len(s.stages) == 0 || s.rate != 0 {
		return s.sessions
	}
	from, offset := 0.0, time.Duration(0)
	for _, st := range s.stages {
		if elapsed < duration.Sum(offset, st.Duration) {
			x := (elapsed - offset).Seconds() / st.Duration.Seconds()
			return int(math.Ceil(from + (st.Target-from)*x - 1e-9))
		}
		from, offset = st.Target, duration.Sum(offset, st.Duration)
	}
	return int(from)
}

// describe says what the schedule is, for the report: "closed loop, 16
// sessions", "200/s with up to 16 sessions", "stages 30s:16 1m:16 10s:0".
func (p Plan) describe() string {
	if len(p.Stages) > 0 {
		var b strings.Builder
		b.WriteString("stages")
		for _, st := range p.Stages {
			fmt.Fprintf(&b, " %s:%s", st.Duration, strconv.FormatFloat(st.Target, 'f', -1, 64))
			if st.Rate {
				b.WriteString("/s")
			}
		}
		return b.String()
	}
	if p.Rate > 0 {
		return fmt.Sprintf("%s/s", strconv.FormatFloat(p.Rate, 'f', -1, 64))
	}
	return "closed loop"
}
