package load

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/lazy"
)

// Threshold is a check of a run's figures that decides its exit:
// "p99<200ms", "setup.p99<1s", "max<=2s", "mean<50ms", "errors<1%",
// "errors==0", "rate>=100".
type Threshold struct {
	Text   string
	metric string // p50, p99.9, max, min, mean (with prefix setup. or close.), errors, rate
	prefix string // "", "setup.", "close."
	quant  float64
	op     string
	value  float64 // milliseconds, a share (0.01), a count or a rate
	share  bool    // errors given as a percentage
	// relative: value is a change from the baseline's figure (+0.1 for
	// +10%), not a figure.
	relative bool
}

// Relative reports whether t compares with a baseline (p99<+10%).
func (t Threshold) Relative() bool { return t.relative }

// CheckedAt is a threshold with what the run measured.
type CheckedAt struct {
	Threshold string  `json:"threshold"`
	Value     float64 `json:"value"`
	Shown     string  `json:"shown"` // the value as the threshold writes it: 12.3ms, 0.05%
	OK        bool    `json:"ok"`
}

// thresholdRE is compiled when first used: mcpv's start-up compiles nothing.
var thresholdRE = &lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*((?:setup\.|close\.)?(?:p[0-9]+(?:\.[0-9]+)?|max|min|mean)|errors|rate)\s*(<=|>=|==|<|>)\s*(\S+)\s*$`)
}}

// ParseThreshold reads one --threshold; a mistake is a usage error.
func ParseThreshold(s string) (Threshold, error) {
	m := thresholdRE.Get().FindStringSubmatch(s)
	bad := func(why string) (Threshold, error) {
		return Threshold{}, errkind.Usagef("--threshold %q: %s (e.g. p99<200ms, setup.p99<1s, errors<1%%, rate>=100)", s, why)
	}
	if m == nil {
		return bad("want METRIC OP VALUE, METRIC one of pNN, max, min, mean (of the operation, or setup.pNN...), errors, rate")
	}
	t := Threshold{Text: strings.TrimSpace(s), metric: m[1], op: m[2]}
	for _, p := range []string{"setup.", "close."} {
		if rest, ok := strings.CutPrefix(t.metric, p); ok {
			t.prefix, t.metric = p, rest
		}
	}
	percentile := strings.HasPrefix(t.metric, "p")
	if percentile {
		t.quant, _ = strconv.ParseFloat(t.metric[1:], 64)
	}
	value := m[3]
	if rel, ok := strings.CutSuffix(value, "%"); ok && (strings.HasPrefix(rel, "+") || strings.HasPrefix(rel, "-")) {
		n, err := strconv.ParseFloat(rel, 64)
		switch {
		case t.metric == "errors":
			return bad("errors are held to a share (1%) or a count, not to a change from the baseline")
		case err != nil || math.IsInf(n, 0) || math.IsNaN(n) || n <= -100:
			return bad("want a change from the baseline: +10%, -5%")
		case percentile && t.quant != 50 && t.quant != 90 && t.quant != 99 && t.quant != 99.9:
			return bad("a change from the baseline is of p50, p90, p99, p99.9, min, max or mean: the figures its report holds")
		}
		t.relative, t.value = true, n/100
		return t, nil
	}
	switch t.metric {
	case "errors":
		if v, ok := strings.CutSuffix(value, "%"); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || !(n >= 0 && n <= 100) { // NaN is neither
				return bad("want a percentage from 0% to 100%")
			}
			t.value, t.share = n/100, true
			return t, nil
		}
		n, err := strconv.ParseUint(value, 10, 63)
		if err != nil {
			return bad("want a count of errors or a percentage (1%)")
		}
		t.value = float64(n)
	case "rate":
		n, err := strconv.ParseFloat(strings.TrimSuffix(value, "/s"), 64)
		if err != nil || !(n >= 0) || math.IsInf(n, 0) { // NaN is not >= 0
			return bad("want iterations a second")
		}
		t.value = n
	default:
		if percentile && (t.quant <= 0 || t.quant > 100) {
			return bad("a percentile is above 0 and at most 100")
		}
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 {
			return bad(fmt.Sprintf("%q is no duration: give a unit, as in 200ms or 1.5s", value))
		}
		t.value = float64(d) / float64(time.Millisecond)
	}
	return t, nil
}

// Check holds the result to the thresholds, records what each found in
// res.Checks, and reports whether all passed. A latency threshold of a
// run that measured none fails: nothing was shown to be fast enough.
func (res *Result) Check(ts []Threshold) bool {
	all := true
	for _, t := range ts {
		v, shown, measured := res.value(t)
		limit := t.value
		if t.relative {
			base, known := res.baselineValue(t)
			limit = base * (1 + t.value)
			if known {
				// A baseline of 0 leaves no change to tell: "-".
				shown += fmt.Sprintf(" (baseline %s, %s)", res.show(t, base), signedPercent(v/base-1))
			} else {
				measured, shown = false, shown+" (not in the baseline)"
			}
		}
		ok := measured && map[string]bool{"<": v < limit, "<=": v <= limit, ">": v > limit, ">=": v >= limit, "==": v == limit}[t.op]
		all = all && ok
		res.Checks = append(res.Checks, CheckedAt{Threshold: t.Text, Value: v, Shown: shown, OK: ok})
	}
	return all
}

// show writes a figure of t's metric as t's value would be written.
func (res *Result) show(t Threshold, v float64) string {
	if t.metric == "rate" {
		return fmt.Sprintf("%.1f/s", v)
	}
	return FormatMS(v)
}

// value is what t measures in res, shown as t writes it; false when the
// run measured nothing for it.
func (res *Result) value(t Threshold) (float64, string, bool) {
	switch t.metric {
	case "errors":
		if t.share {
			return res.ErrorRate, percent(res.ErrorRate), true
		}
		return float64(res.Errors), strconv.FormatInt(res.Errors, 10), true
	case "rate":
		return res.Throughput, fmt.Sprintf("%.1f/s", res.Throughput), true
	}
	h := res.hists[t.prefix]
	if h == nil || h.TotalCount() == 0 {
		return 0, "none measured", false
	}
	us, named := map[string]int64{"max": h.Max(), "min": h.Min(), "mean": int64(h.Mean())}[t.metric]
	if !named {
		us = h.ValueAtQuantile(t.quant)
	}
	ms := float64(us) / 1000
	return ms, FormatMS(ms), true
}

// FormatMS writes milliseconds as a duration to three figures: 850µs,
// 12.3ms, 1.25s.
func FormatMS(ms float64) string {
	switch {
	case ms < 1:
		return strconv.FormatFloat(ms*1000, 'f', 0, 64) + "µs"
	case ms < 1000:
		return figures(ms) + "ms"
	}
	return figures(ms/1000) + "s"
}

// figures writes x to about three significant figures, without an
// exponent: 1.23, 12.3, 123, 12345.
func figures(x float64) string {
	switch {
	case x < 10:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case x < 100:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// percent writes a share as a percentage: 0%, 0.031%, 1.20%, 45.0%.
func percent(share float64) string {
	p := 100 * share
	switch {
	case p > 0 && p < 0.1:
		return strconv.FormatFloat(p, 'g', 2, 64) + "%"
	case p > 0 && p < 1:
		return strconv.FormatFloat(p, 'f', 2, 64) + "%"
	}
	return figures(p) + "%"
}
