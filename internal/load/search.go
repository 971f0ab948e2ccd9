package load

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strings"
	"text/tabwriter"
)

// Search is a search for the breaking point: the highest arrival rate at
// which the server holds the limits, found by raising the rate step by
// step (doubling it until a limit is crossed, then halving the gap
// between the highest rate that held and the lowest that did not, until
// it is within Precision), each step a run of its own.
type Search struct {
	// MaxRate is the highest rate that held; 0 when none did.
	MaxRate float64 `json:"max_rate"`
	// Limits are what a step must hold: the thresholds, and that the
	// server's rate follows the one asked.
	Limits []string `json:"limits"`
	// StepSeconds is each step's length.
	StepSeconds float64 `json:"step_s"`
	// Curve is every step, in the order run.
	Curve []SearchPoint `json:"curve"`
	// Note says what the reader should know: the limit was mcpv's own
	// (every session busy), the search ended early.
	Note string `json:"note,omitempty"`
}

// SearchPoint is one step of a search.
type SearchPoint struct {
	Rate      float64  `json:"rate"`     // asked, iterations a second
	Achieved  float64  `json:"achieved"` // iterations that succeeded, a second
	P50       float64  `json:"p50_ms"`
	P99       float64  `json:"p99_ms"`
	ErrorRate float64  `json:"error_rate"`
	Held      bool     `json:"held"`
	Crossed   []string `json:"crossed,omitempty"` // the limits it crossed, each with what was found
}

// Following is the share of the rate asked that the server must achieve
// for its rate to be said to follow.
const Following = 0.95

// SearchPlan is how a search runs.
type SearchPlan struct {
	Start     float64     // the first step's rate
	Limits    []Threshold // besides the rate following
	Precision float64     // the gap at which it stops, as a share of the rate that held (0.05)
	MaxSteps  int
	// Step runs one step at rate.
	Step func(ctx context.Context, rate float64) (*Result, error)
	// Progress, when set, is told of each step as it ends.
	Progress func(SearchPoint)
}

// FindMax runs the search; the result is the report of the highest rate
// that held (or of the first step, when none did), with the search in
// its Search member.
func FindMax(ctx context.Context, p SearchPlan) (*Result, error) {
	s := &Search{}
	for _, t := range p.Limits {
		s.Limits = append(s.Limits, t.Text)
	}
	s.Limits = append(s.Limits, fmt.Sprintf("the rate follows (%.0f%% of the rate asked)", Following*100))
	lo, hi := 0.0, math.Inf(1)
	var best, first, crossedAt *Result
	rate := p.Start
	for step := 0; step < p.MaxSteps; step++ {
		res, err := p.Step(ctx, rate)
		if err != nil {
			return nil, err
		}
		first = cmp.Or(first, res)
		pt := judge(res, rate, p.Limits)
		s.Curve = append(s.Curve, pt)
		s.StepSeconds = res.Elapsed
		if p.Progress != nil {
			p.Progress(pt)
		}
		if res.Interrupted {
			s.Note = "interrupted: the search ended early"
			best = res
			break
		}
		if pt.Held {
			lo, best = rate, res
		} else {
			hi, crossedAt = rate, res
		}
		switch {
		case math.IsInf(hi, 1):
			rate *= 2
		case lo == 0:
			rate /= 2
			if rate < p.Start/1024 {
				step = p.MaxSteps // nothing holds
			}
		case (hi-lo)/lo <= p.Precision:
			step = p.MaxSteps // found, as closely as asked
		default:
			rate = (lo + hi) / 2
		}
	}
	switch {
	case best == nil:
		best = first
		s.Note = "no rate held the limits, down to " + rateText(s.Curve[len(s.Curve)-1].Rate)
	case math.IsInf(hi, 1) && s.Note == "":
		s.Note = fmt.Sprintf("no limit was crossed in %d steps: the server holds more than %s", len(s.Curve), rateText(lo))
	case crossedAt != nil && crossedAt.NotStarted > 0:
		s.Note = fmt.Sprintf("at %s every one of the %d sessions was busy: the limit may be mcpv's, not the server's (raise -c)", rateText(hi), crossedAt.Concurrency)
	}
	s.MaxRate = lo
	best.Search = s
	return best, nil
}

// judge says whether res, a step at rate, held the limits.
func judge(res *Result, rate float64, limits []Threshold) SearchPoint {
	pt := SearchPoint{Rate: rate, Achieved: res.OKRate, P50: res.Latency.P50, P99: res.Latency.P99, ErrorRate: res.ErrorRate, Held: true}
	keep := res.Checks
	res.Checks = nil
	if !res.Check(limits) {
		pt.Held = false
		for _, c := range res.Checks {
			if !c.OK {
				pt.Crossed = append(pt.Crossed, fmt.Sprintf("%s (%s)", c.Threshold, c.Shown))
			}
		}
	}
	res.Checks = keep
	if res.OKRate < Following*rate {
		pt.Held = false
		pt.Crossed = append(pt.Crossed, fmt.Sprintf("the rate did not follow (%s of %s)", rateText(res.OKRate), rateText(rate)))
	}
	return pt
}

func rateText(r float64) string { return rate(r) + "/s" }

// writeSearch writes the curve, and the rate that held.
func (s *Search) write(b *strings.Builder) {
	fmt.Fprintf(b, "the breaking point: %s held %s (%s a step)\n", "the highest rate that", strings.Join(s.Limits, ", "), FormatMS(s.StepSeconds*1000))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  rate\tachieved\tp50\tp99\terrors\t\t\n")
	for _, pt := range s.Curve {
		verdict := "held"
		if !pt.Held {
			verdict = "crossed: " + strings.Join(pt.Crossed, "; ")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t\t%s\n", rateText(pt.Rate), rateText(pt.Achieved), FormatMS(pt.P50), FormatMS(pt.P99), percent(pt.ErrorRate), verdict)
	}
	tw.Flush()
	if s.MaxRate > 0 {
		fmt.Fprintf(b, "\nthe highest rate that held: %s\n", rateText(s.MaxRate))
	} else {
		b.WriteString("\nno rate held\n")
	}
	if s.Note != "" {
		fmt.Fprintf(b, "(%s)\n", s.Note)
	}
	b.WriteString("\n")
}
