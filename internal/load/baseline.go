package load

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/safetext"
)

// Version is the version of the JSON report's schema
// (docs/mcpv-load.schema.json): it changes when a member changes meaning
// or goes, not when one is added.
const Version = 1

// ReadBaseline reads a run's --format json report (path names it in
// messages) for a later run to be compared with.
func ReadBaseline(path string, data []byte) (*Result, error) {
	var base Result
	var members map[string]json.RawMessage
	if err := cmp.Or(json.Unmarshal(data, &base), json.Unmarshal(data, &members)); err != nil {
		return nil, errkind.Usagef("--baseline %s: not the JSON report of mcpv load --format json: %v", path, err)
	}
	switch {
	case base.Version == 0:
		return nil, errkind.Usagef("--baseline %s: no version: not the JSON report of mcpv load --format json", path)
	case base.Version > Version:
		return nil, errkind.Usagef("--baseline %s: a report of version %d, newer than this mcpv's (%d)", path, base.Version, Version)
	}
	// What a comparison reads is in every report: a file that only says
	// its version would be compared as a run that measured nothing, and
	// fail the run's thresholds rather than be refused.
	for _, m := range baselineMembers {
		if v, ok := members[m]; !ok || string(v) == "null" {
			return nil, errkind.Usagef("--baseline %s: no %q: not the JSON report of mcpv load --format json", path, m)
		}
	}
	base.file = path
	return &base, nil
}

// baselineMembers are the members of a report that a comparison reads.
var baselineMembers = []string{"started", "operations", "latency_ms", "throughput"}

// Comparison is a run beside its baseline: each figure and the baseline's.
type Comparison struct {
	File    string   `json:"file"`
	Started string   `json:"started,omitempty"`
	Figures []Figure `json:"figures"`
}

// Figure is one figure of the run beside the baseline's; Change is the
// relative difference (0.1: 10% more), absent when the baseline's is 0.
type Figure struct {
	Metric   string   `json:"metric"`
	Value    float64  `json:"value"`
	Baseline float64  `json:"baseline"`
	Change   *float64 `json:"change,omitempty"`
	Unit     string   `json:"unit"` // ms, /s, share, us
}

// Compare sets res beside base: the figures both measured.
func (res *Result) Compare(base *Result) {
	res.base = base
	c := &Comparison{File: base.file, Started: base.Started}
	add := func(metric string, v, b float64, unit string, measured bool) {
		if !measured {
			return
		}
		f := Figure{Metric: metric, Value: v, Baseline: b, Unit: unit}
		if b != 0 {
			f.Change = new(v/b - 1)
		}
		c.Figures = append(c.Figures, f)
	}
	now, then := res.Latency, base.Latency
	ok := now.Count > 0 && then.Count > 0
	add("p50", now.P50, then.P50, "ms", ok)
	add("p90", now.P90, then.P90, "ms", ok)
	add("p99", now.P99, then.P99, "ms", ok)
	add("p99.9", now.P999, then.P999, "ms", ok)
	add("max", now.Max, then.Max, "ms", ok)
	add("mean", now.Mean, then.Mean, "ms", ok)
	add("rate", res.Throughput, base.Throughput, "/s", true)
	add("errors", res.ErrorRate, base.ErrorRate, "share", true)
	add("setup.p99", res.Setup.P99, base.Setup.P99, "ms", res.Setup.Count > 0 && base.Setup.Count > 0)
	for _, op := range res.Operations {
		for _, bop := range base.Operations {
			if op.Name == bop.Name && op.Latency != nil && bop.Latency != nil {
				add(op.Name+" p99", op.Latency.P99, bop.Latency.P99, "ms", op.Latency.Count > 0 && bop.Latency.Count > 0)
			}
		}
	}
	add("cpu per iteration", res.CPU.PerOp, base.CPU.PerOp, "us", res.CPU.Known && base.CPU.Known)
	res.Baseline = c
}

// baselineValue is the baseline's figure that a relative threshold t
// compares with; false when the baseline has none.
func (res *Result) baselineValue(t Threshold) (float64, bool) {
	b := res.base
	if b == nil {
		return 0, false
	}
	if t.metric == "rate" {
		return b.Throughput, true
	}
	s := map[string]Stats{"": b.Latency, "setup.": b.Setup, "close.": b.Close}[t.prefix]
	if s.Count == 0 {
		return 0, false
	}
	if v, ok := map[string]float64{"max": s.Max, "min": s.Min, "mean": s.Mean}[t.metric]; ok {
		return v, true
	}
	v, ok := map[float64]float64{50: s.P50, 90: s.P90, 99: s.P99, 99.9: s.P999}[t.quant]
	return v, ok
}

// writeComparison writes the run's figures beside the baseline's.
func (res *Result) writeComparison(b *strings.Builder) {
	c := res.Baseline
	fmt.Fprintf(b, "\nbeside the baseline %s", safetext.Line(c.File))
	if c.Started != "" {
		fmt.Fprintf(b, " (%s)", safetext.Line(c.Started))
	}
	b.WriteString("\n")
	width := 0
	for _, f := range c.Figures {
		width = max(width, len([]rune(safetext.Line(f.Metric))))
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  %-*s\tnow\tbaseline\tchange\t\n", width, "")
	for _, f := range c.Figures {
		change := "-"
		if f.Change != nil {
			change = signedPercent(*f.Change)
		}
		fmt.Fprintf(tw, "  %-*s\t%s\t%s\t%s\t\n", width, safetext.Line(f.Metric), f.show(f.Value), f.show(f.Baseline), change)
	}
	tw.Flush()
}

func (f Figure) show(v float64) string {
	switch f.Unit {
	case "ms":
		return FormatMS(v)
	case "us":
		return FormatMS(v / 1000)
	case "/s":
		return rate(v) + "/s"
	}
	return percent(v)
}

// signedPercent writes a change as +8.9%, -12%, +0.0%; "-" for one that
// is no number (from a figure of 0).
func signedPercent(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return "-"
	}
	sign := "+"
	if x < 0 {
		sign, x = "-", -x
	}
	return sign + percent(x)
}
