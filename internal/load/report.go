package load

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mcpv/mcpv/internal/safetext"
)

// WriteText writes the report as a person reads it: what ran, the
// counts, the latency table, the errors, the histogram of the operation's
// latency, mcpv's own cost and the thresholds.
func (res *Result) WriteText(w io.Writer) error {
	b := &strings.Builder{}
	names, main := res.writeHead(b)
	res.writeLatencies(b, names, main)
	res.writeErrors(b)
	res.writeLogs(b)
	if res.Late > 0 {
		fmt.Fprintf(b, "\n%s iterations started more than 10ms behind the rate (at most %s): their latency counts from when they were meant to start; more sessions (-c) would start them on time\n", count(res.Late), FormatMS(res.LateMax))
	}
	if res.Clamped > 0 {
		fmt.Fprintf(b, "\n%s latencies beyond a day are counted as a day\n", count(res.Clamped))
	}
	if len(res.Histogram) > 0 {
		fmt.Fprintf(b, "\nlatency of the %s\n", main)
		res.drawHistogram(b)
	}
	if c := res.CPU; c.Known {
		fmt.Fprintf(b, "\nmcpv's CPU: %s over %s, %.2f of %d cores (peak %.2f), %s per iteration", FormatMS(c.Seconds*1000), FormatMS(res.Elapsed*1000), c.Cores, c.Machine, c.Peak, FormatMS(c.PerOp/1000))
		if c.Children > 0 {
			fmt.Fprintf(b, "; the servers it started and stopped: %s", FormatMS(c.Children*1000))
		}
		b.WriteString("\n")
	}
	if res.Baseline != nil {
		res.writeComparison(b)
	}
	res.writeChecks(b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHead writes the search, if any, and what ran and how much; it
// returns the operations' names, safe to show, and what an iteration is
// called ("operation" or "scenario").
func (res *Result) writeHead(b *strings.Builder) (names []string, main string) {
	if res.Search != nil {
		res.Search.write(b)
		if res.Search.MaxRate > 0 {
			fmt.Fprintf(b, "at %s:\n", rateText(res.Search.MaxRate))
		}
	}
	for _, op := range res.Operations {
		names = append(names, safetext.Line(op.Name))
	}
	what, main := strings.Join(names, ", "), "operation"
	if res.Scenario != "" {
		what, main = fmt.Sprintf("scenario %s (%d steps)", safetext.Line(res.Scenario), len(names)), "scenario"
	}
	sessions := fmt.Sprintf("%d sessions", res.Concurrency)
	if res.Concurrency == 1 {
		sessions = "1 session"
	}
	fmt.Fprintf(b, "%s · %s · %s %s · %s", what, res.Schedule, sessions, res.Sessions, FormatMS(res.Elapsed*1000))
	if res.Interrupted {
		b.WriteString(" (interrupted)")
	}
	b.WriteString("\n")
	if res.Ended != "" {
		fmt.Fprintf(b, "ended early: %s\n", res.Ended)
	}
	fmt.Fprintf(b, "iterations %s (%s/s) · ok %s · errors %s (%s)\n\n", count(res.Iterations), rate(res.Throughput), count(res.OK), count(res.Errors), percent(res.ErrorRate))
	return names, main
}

// writeLatencies writes the table of latencies: the iteration's, each
// operation's of a mix or step's of a scenario, the sessions' set-up and
// close.
func (res *Result) writeLatencies(b *strings.Builder, names []string, main string) {
	each := len(res.Operations) > 1 || res.Scenario != ""
	width := max(len([]rune(main)), len("session set-up"), len("session close"))
	for i := 0; each && i < len(names); i++ {
		width = max(width, len([]rune("  "+names[i])))
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tmin\tp50\tp90\tp99\tp99.9\tmax\tmean\tcount\t\n", width, "")
	row := func(name string, s Stats) {
		name = fmt.Sprintf("%-*s", width, name)
		if s.Count == 0 {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t-\t0\t\n", name)
			return
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, FormatMS(s.Min), FormatMS(s.P50), FormatMS(s.P90),
			FormatMS(s.P99), FormatMS(s.P999), FormatMS(s.Max), FormatMS(s.Mean), count(s.Count))
	}
	row(main, res.Latency)
	if each {
		for i, op := range res.Operations {
			if op.Latency != nil {
				row("  "+names[i], *op.Latency)
			}
		}
	}
	row("session set-up", res.Setup)
	row("session close", res.Close)
	tw.Flush()
}

// writeErrors writes the errors by kind, with an example of each.
func (res *Result) writeErrors(b *strings.Builder) {
	var rows [][]string
	for _, e := range res.ErrorKinds {
		kind := e.Kind
		if e.Operation != "" {
			kind += " in " + safetext.Line(e.Operation)
		}
		rows = append(rows, []string{count(e.Count), e.Phase, kind, e.Example})
	}
	writeTable(b, "errors", rows)
}

// writeTable writes a table under its title, when it has rows.
func writeTable(b *strings.Builder, title string, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n" + title + "\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\n", strings.Join(r, "\t"))
	}
	tw.Flush()
}

// writeLogs writes the servers' log messages, counted by level, and the
// first few.
func (res *Result) writeLogs(b *strings.Builder) {
	l := res.Logs
	if l == nil {
		return
	}
	fmt.Fprintf(b, "\nserver log messages: %s (", count(l.Count))
	for i, level := range l.byCount() {
		if i > 0 {
			b.WriteString(" · ")
		}
		fmt.Fprintf(b, "%s %s", level, count(l.Levels[level]))
	}
	if l.Dropped > 0 {
		fmt.Fprintf(b, " · %s that came too fast to be read by level", count(l.Dropped))
	}
	b.WriteString("), not shown one by one (-v shows them); the first:\n")
	for _, e := range l.Examples {
		if e.Logger != "" {
			fmt.Fprintf(b, "  server[%s] %s: %s\n", e.Level, e.Logger, e.Message)
		} else {
			fmt.Fprintf(b, "  server[%s]: %s\n", e.Level, e.Message)
		}
	}
}

// writeChecks writes each threshold's verdict.
func (res *Result) writeChecks(b *strings.Builder) {
	var rows [][]string
	for _, c := range res.Checks {
		verdict := "ok"
		if !c.OK {
			verdict = "FAILED"
		}
		rows = append(rows, []string{verdict, c.Threshold, c.Shown})
	}
	writeTable(b, "thresholds", rows)
}

// histogramRows is how many rows the drawn histogram has at most.
const histogramRows = 16

// drawHistogram draws the operation's latency in rows whose bounds grow
// by a constant factor from the least latency to the greatest, each with
// a bar as long as its share of the busiest row.
func (res *Result) drawHistogram(b *strings.Builder) {
	lo, hi := res.Histogram[0].From, res.Histogram[len(res.Histogram)-1].To
	lo = max(lo, 0.001)
	rows := histogramRows
	factor := math.Pow(hi/lo, 1/float64(rows))
	if factor < 1.05 {
		rows, factor = 1, hi/lo
	}
	counts := make([]int64, rows)
	for _, bk := range res.Histogram {
		mid := max((bk.From+bk.To)/2, lo)
		i := int(math.Log(mid/lo) / math.Log(factor))
		counts[min(max(i, 0), rows-1)] += bk.Count
	}
	most := int64(1)
	var total int64
	for _, c := range counts {
		most, total = max(most, c), total+c
	}
	const width = 40
	tw := tabwriter.NewWriter(b, 0, 0, 1, ' ', tabwriter.AlignRight)
	for i, c := range counts {
		from, to := lo*math.Pow(factor, float64(i)), lo*math.Pow(factor, float64(i+1))
		bar := strings.Repeat("█", int(math.Round(float64(c)/float64(most)*width)))
		if bar == "" && c > 0 {
			bar = "▏"
		}
		fmt.Fprintf(tw, "  %s\t–\t%s\t %-*s\t%s\t  %s\t\n", FormatMS(from), FormatMS(to), width, bar, count(c), percent(float64(c)/float64(max(total, 1))))
	}
	tw.Flush()
}

// rate writes iterations a second: 0.50, 12.5, 4,609.
func rate(r float64) string {
	if r < 100 {
		return figures(r)
	}
	return count(int64(math.Round(r)))
}

// count writes n with thousands separated: 125,432.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
