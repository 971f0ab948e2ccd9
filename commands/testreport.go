package commands

// The text report: a block per file, a line per step, and under a failed
// step each expectation it missed with what was expected and what came;
// then one summary line. Colour follows the console's decision.

import (
	"bufio"
	"fmt"
	"io"
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

type textReport struct {
	w     io.Writer
	color bool
	cwd   string
}

func (t *textReport) style(s, text string) string {
	if !t.color {
		return text
	}
	return s + text + styleReset
}

// file writes one file's block.
func (t *textReport) file(rep *fileReport) error {
	b := bufio.NewWriter(t.w)
	f := rep.file
	header := t.style(styleBold, f.path)
	if f.name != fileStem(f.path) {
		header += " " + safetext.Line(f.name)
	}
	fmt.Fprintf(b, "%s %s\n", header, t.style(styleDim, "("+safetext.Line(f.serve.display)+")"))
	if rep.code != exitOK && rep.err != "" {
		fmt.Fprintf(b, "  %s %s\n", t.style(styleRed, "✗"), t.style(styleRed, fmt.Sprintf("exit %d: %s", rep.code, safetext.Line(rep.err))))
	}
	counts := countSteps(rep.steps)
	for _, s := range rep.steps {
		took := t.style(styleDim, roundDuration(s.took).String())
		switch s.status {
		case stepPassed:
			fmt.Fprintf(b, "  %s %s  %s\n", t.style(styleGreen, "✓"), safetext.Line(s.step.name), took)
		case stepFailed:
			fmt.Fprintf(b, "  %s %s  %s\n", t.style(styleRed, "✗"), safetext.Line(s.step.name), took)
		case stepSkipped:
			fmt.Fprintf(b, "  %s %s  %s\n", t.style(styleYellow, "○"), safetext.Line(s.step.name), t.style(styleYellow, "skipped: "+safetext.Line(s.reason)))
		}
		for _, fl := range s.failures {
			fmt.Fprintf(b, "      %s %s\n", t.style(styleRed, fl.kind+":"), safetext.Line(fl.message))
			if fl.expected != "" {
				fmt.Fprintf(b, "        expected: %s\n", fl.expected)
			}
			if fl.actual != "" {
				fmt.Fprintf(b, "        actual:   %s\n", fl.actual)
			}
			for _, d := range fl.details {
				fmt.Fprintf(b, "        %s\n", safetext.Line(d))
			}
		}
		for _, n := range s.notes {
			fmt.Fprintf(b, "      %s\n", t.style(styleDim, safetext.Line(n)))
		}
	}
	if (rep.code != exitOK || counts.failed > 0) && strings.TrimSpace(rep.stderr) != "" {
		fmt.Fprintf(b, "  %s\n", t.style(styleDim, "stderr (the last lines):"))
		for _, line := range lastLines(rep.stderr, maxStderrLines) {
			fmt.Fprintf(b, "    | %s\n", safetext.Line(line))
		}
	}
	verdict := t.style(styleGreen, "ok")
	switch {
	case rep.code != exitOK || counts.failed > 0:
		verdict = t.style(styleRed, "FAIL")
	case rep.interrupted:
		verdict = t.style(styleYellow, "INTERRUPTED")
	}
	fmt.Fprintf(b, "  %s %s  %s\n\n", verdict, counts, t.style(styleDim, roundDuration(rep.took).String()))
	return b.Flush()
}

// summary writes the last line: what passed, failed and was skipped.
func (t *textReport) summary(reports []*fileReport, took time.Duration) error {
	var all stepCounts
	broken, interrupted := 0, false
	for _, rep := range reports {
		interrupted = interrupted || rep.interrupted
		c := countSteps(rep.steps)
		all.passed, all.failed, all.skipped = all.passed+c.passed, all.failed+c.failed, all.skipped+c.skipped
		if rep.code != exitOK {
			broken++
		}
	}
	files := fmt.Sprintf("%d files", len(reports))
	if len(reports) == 1 {
		files = "1 file"
	}
	if broken > 0 {
		files += fmt.Sprintf(", %d not run to the end", broken)
	}
	verdict := t.style(styleGreen+styleBold, "PASS")
	switch {
	case all.failed > 0 || broken > 0:
		verdict = t.style(styleRed+styleBold, "FAIL")
	case interrupted:
		verdict = t.style(styleYellow+styleBold, "INTERRUPTED")
	}
	_, err := fmt.Fprintf(t.w, "%s %s (%s, %s)\n", verdict, all, files, roundDuration(took))
	return err
}

type stepCounts struct{ passed, failed, skipped int }

func (c stepCounts) String() string {
	s := fmt.Sprintf("%d passed, %d failed", c.passed, c.failed)
	if c.skipped > 0 {
		s += fmt.Sprintf(", %d skipped", c.skipped)
	}
	return s
}

func countSteps(steps []*stepReport) stepCounts {
	var c stepCounts
	for _, s := range steps {
		switch s.status {
		case stepPassed:
			c.passed++
		case stepFailed:
			c.failed++
		case stepSkipped:
			c.skipped++
		}
	}
	return c
}

func lastLines(text string, n int) []string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
