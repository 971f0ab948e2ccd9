package load

import (
	"math"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/duration"
)

func TestScheduleAtAFixedRate(t *testing.T) {
	s := newSchedule(Plan{Rate: 200, Duration: time.Second})
	for _, tc := range []struct {
		k    int64
		at   time.Duration
		more bool
	}{{0, 0, true}, {1, 5 * time.Millisecond, true}, {199, 995 * time.Millisecond, true}, {200, time.Second, false}} {
		at, ok := s.at(tc.k)
		if ok != tc.more || ok && at != tc.at {
			t.Errorf("at(%d) = %v, %v; want %v, %v", tc.k, at, ok, tc.at, tc.more)
		}
	}
	if n := s.planned(500 * time.Millisecond); n != 100 {
		t.Errorf("planned by 500ms = %d; want 100", n)
	}
}

// A rate so slow that the second iteration's start is past the longest
// duration there is: it starts after the run, not at once.
func TestScheduleAtARateTooSlowForADuration(t *testing.T) {
	for _, p := range []Plan{{Rate: 1e-300, Duration: 2 * time.Second}, {Rate: 5e-324}} {
		s := newSchedule(p)
		if at, ok := s.at(0); !ok || at != 0 {
			t.Errorf("rate %v: at(0) = %v, %v; want 0, true", p.Rate, at, ok)
		}
		if at, ok := s.at(1); at <= 0 || ok != (p.Duration == 0) {
			t.Errorf("rate %v: at(1) = %v, %v; want the end of time, %v", p.Rate, at, ok, p.Duration == 0)
		}
	}
	// a ramp from 0 to a rate so slow its slope is taken for flat
	s := newSchedule(Plan{Stages: []Stage{{2 * time.Second, 1e-300, true}}})
	if at, ok := s.at(0); !ok || at != 0 {
		t.Errorf("a ramp to 1e-300/s: at(0) = %v, %v; want 0, true", at, ok)
	}
}

// Rate stages: a ramp from 0 to 100/s over 2 s starts 100 iterations
// (the area under the ramp), the k-th at sqrt(k/25) s; a hold at 100/s
// for 1 s another 100; a ramp down to 0 over 2 s 100 more.
func TestScheduleInRateStages(t *testing.T) {
	s := newSchedule(Plan{Stages: []Stage{{2 * time.Second, 100, true}, {time.Second, 100, true}, {2 * time.Second, 0, true}}})
	near := func(k int64, want time.Duration) {
		t.Helper()
		at, ok := s.at(k)
		if !ok || math.Abs(float64(at-want)) > float64(time.Millisecond) {
			t.Errorf("at(%d) = %v, %v; want %v", k, at, ok, want)
		}
	}
	near(25, time.Second)                              // 25 = 25·1²
	near(100, 2*time.Second)                           // the hold begins
	near(150, 2500*time.Millisecond)                   // halfway through it
	near(250, 3*time.Second+585786437*time.Nanosecond) // half the ramp down's 100: (2-√2) s
	if _, ok := s.at(300); ok {
		t.Error("at(300) exists; the stages start 300 iterations, 0 to 299")
	}
	if n := s.planned(3 * time.Second); n != 200 {
		t.Errorf("planned by 3s = %d; want 200", n)
	}
	if s.end != 5*time.Second {
		t.Errorf("the stages end at %v; want 5s", s.end)
	}
}

// Session stages: the number of busy sessions follows the ramps.
func TestScheduleInSessionStages(t *testing.T) {
	s := newSchedule(Plan{Stages: []Stage{{10 * time.Second, 10, false}, {10 * time.Second, 10, false}, {10 * time.Second, 0, false}}})
	for _, tc := range []struct {
		at   time.Duration
		want int
	}{{0, 0}, {time.Millisecond, 1}, {5 * time.Second, 5}, {9500 * time.Millisecond, 10}, {15 * time.Second, 10}, {25 * time.Second, 5}, {30 * time.Second, 0}} {
		if got := s.level(tc.at); got != tc.want {
			t.Errorf("level at %v = %d; want %d", tc.at, got, tc.want)
		}
	}
	if !(4 < s.level(5*time.Second)) || 5 < s.level(5*time.Second) {
		t.Error("at 5s sessions 0 to 4 should be busy, 5 not")
	}
}

// Stages whose durations add up past the longest duration there is end
// at it, not at a sum wrapped round below zero (a run that would have
// ended before its first iteration).
func TestStagesPastTheLongestDuration(t *testing.T) {
	long := duration.Max - time.Second
	s := newSchedule(Plan{Stages: []Stage{{long, 10, false}, {long, 10, false}}})
	if s.end != duration.Max {
		t.Errorf("the stages end at %v; want %v", s.end, duration.Max)
	}
	if got := s.level(duration.Max - time.Nanosecond); got != 10 {
		t.Errorf("level near the end of time = %d; want 10", got)
	}
	// 100/s after a second's ramp: an iteration of the third stage is
	// meant to start at the end of time, not before the run began.
	r := newSchedule(Plan{Stages: []Stage{{time.Second, 100, true}, {long, 100, true}, {long, 100, true}}})
	if at, ok := r.at(1000); !ok || at != 10500*time.Millisecond {
		t.Errorf("rate stages: at(1000) = %v, %v; want 10.5s, true", at, ok)
	}
	if at, _ := r.at(93e10); at <= 0 {
		t.Errorf("rate stages: at(93e10), in the third stage, = %v", at)
	}
}

func TestParseStage(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Stage
		bad  bool
	}{
		{in: "30s:16", want: Stage{30 * time.Second, 16, false}},
		{in: "1m:200/s", want: Stage{time.Minute, 200, true}},
		{in: "10s:0", want: Stage{10 * time.Second, 0, false}},
		{in: "10:2.5/s", want: Stage{10 * time.Second, 2.5, true}},
		{in: "10s:2.5", bad: true},
		{in: "10s", bad: true},
		{in: "x:1", bad: true},
		{in: "1s:-1", bad: true},
		{in: "1s:Inf/s", bad: true},
		{in: "1s:1e300/s", bad: true},
		{in: "1s:1000000000/s", want: Stage{time.Second, 1e9, true}},
	} {
		got, err := ParseStage(tc.in)
		if (err != nil) != tc.bad || !tc.bad && got != tc.want {
			t.Errorf("ParseStage(%q) = %+v, %v; want %+v (bad %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
	// -0 is 0, and the report says so, not 1s:-0
	if st, err := ParseStage("1s:-0"); err != nil || math.Signbit(st.Target) {
		t.Errorf("ParseStage(1s:-0) = %+v, %v; want a target of 0", st, err)
	}
}

// The mix comes in its proportions, spread evenly.
func TestPicker(t *testing.T) {
	p := newPicker([]Op{{Weight: 3}, {Weight: 1}})
	got := ""
	for k := range int64(8) {
		got += string(rune('a' + p.pick(k)))
	}
	if got != "aabaaaba" {
		t.Errorf("picks %q; want three a for each b, spread", got)
	}
	counts := map[int]int{}
	for k := range int64(400) {
		counts[p.pick(k)]++
	}
	if counts[0] != 300 || counts[1] != 100 {
		t.Errorf("picks %v; want 300 and 100", counts)
	}
}
