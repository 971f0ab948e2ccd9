package load

import (
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func TestThresholds(t *testing.T) {
	lat := newHistogram()
	for i := range int64(100) {
		lat.RecordValue((i + 1) * 1000) // 1 ms to 100 ms
	}
	res := &Result{Iterations: 1000, Errors: 5, ErrorRate: 0.005, Throughput: 250,
		hists: map[string]*hdrhistogram.Histogram{"": lat, "setup.": newHistogram(), "close.": newHistogram()}}
	for _, tc := range []struct {
		expr  string
		ok    bool
		shown string
	}{
		{"p99<200ms", true, "99.0ms"},
		{"p99<50ms", false, "99.0ms"},
		{"p50<=51ms", true, "50.0ms"}, // 50 ms, to the histogram's precision: its bucket's top, 50.03 ms
		{"max<1s", true, "100ms"},
		{"mean>10ms", true, "50.5ms"},
		{"p99.9 < 100.1ms", true, "100ms"},
		{"errors<1%", true, "0.50%"},
		{"errors<0.1%", false, "0.50%"},
		{"errors==0", false, "5"},
		{"errors<=5", true, "5"},
		{"rate>=200", true, "250.0/s"},
		{"rate>300/s", false, "250.0/s"},
		{"setup.p99<1s", false, "none measured"}, // nothing measured: not shown to hold
	} {
		th, err := ParseThreshold(tc.expr)
		if err != nil {
			t.Errorf("ParseThreshold(%q): %v", tc.expr, err)
			continue
		}
		res.Checks = nil
		ok := res.Check([]Threshold{th})
		if ok != tc.ok || res.Checks[0].Shown != tc.shown {
			t.Errorf("%s: ok %v, shown %q; want %v, %q", tc.expr, ok, res.Checks[0].Shown, tc.ok, tc.shown)
		}
	}
}

func TestBadThresholds(t *testing.T) {
	for expr, want := range map[string]string{
		"p99<200":      "give a unit",
		"p99 200ms":    "want METRIC OP VALUE",
		"latency<1s":   "want METRIC OP VALUE",
		"p0<1s":        "above 0",
		"p101<1s":      "above 0",
		"errors<101%":  "from 0% to 100%",
		"errors<NaN%":  "from 0% to 100%",
		"rate>=NaN/s":  "iterations a second",
		"errors<lots":  "a count of errors",
		"rate>fast":    "iterations a second",
		"p99<-5ms":     "no duration",
		"setup.rate>1": "want METRIC OP VALUE",
	} {
		_, err := ParseThreshold(expr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseThreshold(%q) = %v; want an error saying %q", expr, err, want)
		}
	}
}
