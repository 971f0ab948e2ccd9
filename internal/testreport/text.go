package testreport

// The text report: a block per file, a line per step, and under a failed
// step each expectation it missed with what was expected and what came;
// then one summary line. Colour follows the console's decision.

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/safetext"
)

// ANSI styles.
const (
	styleBold   = "\x1b[1m"
	styleGreen  = "\x1b[32m"
	styleRed    = "\x1b[31m"
	styleYellow = "\x1b[33m"
	styleDim    = "\x1b[2m"
	styleReset  = "\x1b[0m"
)

// maxStderrLines is how many of a failed file's last stderr lines are shown.
const maxStderrLines = 20

// Text is the text report, written to W, coloured when Color, of
// Suite's files (mcpv test's when zero).
type Text struct {
	W     io.Writer
	Color bool
	Suite Suite
	// Only, when set, chooses the steps shown: the others are counted
	// but not written, and a file with none to show is not written.
	Only func(Step) bool
}

func (t *Text) style(s, text string) string {
	if !t.Color {
		return text
	}
	return s + text + styleReset
}

// statusMarks are each status's style and mark in a step's line.
var statusMarks = [...][2]string{Passed: {styleGreen, "✓"}, Failed: {styleRed, "✗"}, Skipped: {styleYellow, "○"},
	Warned: {styleYellow, "!"}, Blocked: {styleDim, "⊘"}, Inconclusive: {styleYellow, "?"}}

// File writes one file's block.
func (t *Text) File(f File) error {
	counts := countSteps(f.Steps)
	if t.Only != nil {
		f.Steps = slices.DeleteFunc(slices.Clone(f.Steps), func(s Step) bool { return !t.Only(s) })
		if len(f.Steps) == 0 && f.Code == 0 {
			return nil
		}
	}
	b := bufio.NewWriter(t.W)
	header := t.style(styleBold, safetext.Line(f.Path))
	if f.Named {
		header += " " + safetext.Line(f.Name)
	}
	if f.Server != "" {
		header += " " + t.style(styleDim, "("+safetext.Line(f.Server)+")")
	}
	fmt.Fprintf(b, "%s\n", header)
	if f.Code != 0 && f.Err != "" {
		fmt.Fprintf(b, "  %s %s\n", t.style(styleRed, "✗"), t.style(styleRed, fmt.Sprintf("exit %d: %s", f.Code, safetext.Line(f.Err))))
	}
	for i := 0; i < len(f.Steps); i++ {
		s := f.Steps[i]
		if n := blockedRun(f.Steps[i:]); n > 2 {
			// Steps blocked for one reason, one after another: one line.
			var ids []string
			for _, b := range f.Steps[i : i+n] {
				ids = append(ids, safetext.Line(b.ID))
			}
			fmt.Fprintf(b, "  %s %s  %s\n", t.style(styleDim, "⊘"), strings.Join(ids, ", "), t.style(styleDim, "blocked: "+safetext.Line(s.Reason)))
			i += n - 1
			continue
		}
		took := t.style(styleDim, RoundDuration(s.Took).String())
		name := safetext.Line(s.Name)
		if s.Tag != "" {
			name += "  " + t.style(styleDim, "["+s.Tag+"]")
		}
		mark := statusMarks[s.Status]
		if s.Status == Skipped || s.Status == Blocked || s.Status == Inconclusive { // its reason in place of its time
			took = t.style(mark[0], s.Status.String()+": "+safetext.Line(s.Reason))
		}
		fmt.Fprintf(b, "  %s %s  %s\n", t.style(mark[0], mark[1]), name, took)
		failColor := styleRed
		if s.Status == Warned {
			failColor = styleYellow
		}
		for _, fl := range s.Failures {
			fmt.Fprintf(b, "      %s %s\n", t.style(failColor, fl.Kind+":"), safetext.Line(fl.Message))
			for _, l := range [][2]string{{"expected:", fl.Expected}, {"actual:  ", fl.Actual}, {"sent:    ", fl.Sent}, {"received:", fl.Received}, {"requires:", fl.Requires}} {
				if l[1] != "" {
					fmt.Fprintf(b, "        %s %s\n", l[0], l[1])
				}
			}
			for _, d := range fl.Details {
				fmt.Fprintf(b, "        %s\n", safetext.Line(d))
			}
		}
		for _, n := range s.Notes {
			fmt.Fprintf(b, "      %s\n", t.style(styleDim, safetext.Line(n)))
		}
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(b, "  %s %s\n", t.style(styleYellow, "warning:"), safetext.Line(w))
	}
	if (f.Code != 0 || counts[Failed] > 0) && strings.TrimSpace(f.Stderr) != "" {
		fmt.Fprintf(b, "  %s\n", t.style(styleDim, "stderr (the last lines):"))
		lines := strings.Split(strings.TrimRight(f.Stderr, "\n"), "\n")
		for _, line := range lines[max(0, len(lines)-maxStderrLines):] {
			fmt.Fprintf(b, "    | %s\n", safetext.Line(line))
		}
	}
	verdict := t.style(styleGreen, "ok")
	switch {
	case f.Code != 0 || counts[Failed] > 0:
		verdict = t.style(styleRed, "FAIL")
	case f.Interrupted:
		verdict = t.style(styleYellow, "INTERRUPTED")
	case counts[Inconclusive] > 0:
		verdict = t.style(styleYellow, "INCONCLUSIVE")
	case counts[Blocked] > 0 && counts[Passed] == 0:
		verdict = t.style(styleDim, "BLOCKED")
	}
	fmt.Fprintf(b, "  %s %s  %s\n\n", verdict, counts, t.style(styleDim, RoundDuration(f.Took).String()))
	return b.Flush()
}

// Summary writes the last line: what passed, failed and was skipped.
func (t *Text) Summary(files []File, took time.Duration) error {
	var all counts
	broken, interrupted := 0, false
	for _, f := range files {
		interrupted = interrupted || f.Interrupted
		all = all.add(countSteps(f.Steps))
		if f.Code != 0 {
			broken++
		}
	}
	suite := t.Suite.or()
	n := fmt.Sprintf("%d %s", len(files), suite.Groups)
	if len(files) == 1 {
		n = "1 " + suite.Group
	}
	if broken > 0 {
		n += fmt.Sprintf(", %d not run to the end", broken)
	}
	verdict := t.style(styleGreen+styleBold, "PASS")
	switch {
	case all[Failed] > 0 || broken > 0:
		verdict = t.style(styleRed+styleBold, "FAIL")
	case interrupted:
		verdict = t.style(styleYellow+styleBold, "INTERRUPTED")
	case all[Inconclusive] > 0:
		verdict = t.style(styleYellow+styleBold, "INCONCLUSIVE")
	}
	_, err := fmt.Fprintf(t.W, "%s %s (%s, %s)\n", verdict, all, n, RoundDuration(took))
	return err
}

// blockedRun is how many steps from the first are blocked for the same
// reason, one after another, each with an id to name it by.
func blockedRun(steps []Step) int {
	n := 0
	for _, s := range steps {
		if s.Status != Blocked || s.ID == "" || s.Reason != steps[0].Reason {
			break
		}
		n++
	}
	return n
}
