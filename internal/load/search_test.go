package load

import (
	"context"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// A server that holds 333 calls a second, and no more: past it, its
// rate stays at 333 and its p99 grows. The search finds 333 within its
// precision, from wherever it starts.
func TestFindMaxFindsTheCapacity(t *testing.T) {
	const capacity = 333.0
	p99 := func(rate float64) float64 {
		if rate <= capacity {
			return 10
		}
		return 10 + (rate-capacity)*10
	}
	for _, start := range []float64{1, 10, 300, 5000} {
		limit, _ := ParseThreshold("p99<100ms")
		res, err := FindMax(context.Background(), SearchPlan{Start: start, Limits: []Threshold{limit}, Precision: 0.05, MaxSteps: 40,
			Step: func(_ context.Context, rate float64) (*Result, error) {
				h := newHistogram()
				h.RecordValues(5000, 98)
				h.RecordValues(int64(p99(rate)*1000), 2)
				r := &Result{OKRate: min(rate, capacity), hists: map[string]*hdrhistogram.Histogram{"": h}}
				r.Latency = stats(h)
				return r, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Search
		// Within the search's precision (5%) and the rate's following
		// (95% of the rate asked): a step a little past the capacity
		// whose p99 stays under the limit holds.
		if s.MaxRate > capacity/Following || s.MaxRate < capacity*0.95 {
			t.Errorf("from %v/s: found %v/s; want within 5%% of %v/s\n%+v", start, s.MaxRate, capacity, s.Curve)
		}
		if len(s.Curve) > 25 {
			t.Errorf("from %v/s: %d steps", start, len(s.Curve))
		}
	}
}
