package commands

// The reports for CI systems: JUnit XML in the Jenkins (Ant) format that
// CI systems read (a testsuite per file, a testcase per step), TAP version
// 14 (a subtest per file, YAML diagnostics for each failure) and JSON.

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/safetext"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	File       string          `xml:"file,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemErr  *junitText      `xml:"system-err"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Skipped   *junitSkipped `xml:"skipped"`
	Error     *junitProblem `xml:"error"`
	Failure   *junitProblem `xml:"failure"`
	SystemOut *junitText    `xml:"system-out"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// junitText is text kept readable in a CDATA section; safetext has shown
// the characters XML cannot hold (controls, such as a terminal's colours)
// escaped.
type junitText struct {
	Text string `xml:",cdata"`
}

func newJUnitText(s string) *junitText {
	if s == "" {
		return nil
	}
	return &junitText{Text: safetext.Text(s)}
}

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

// writeJUnit writes the JUnit XML report. A file whose session could not
// be opened, or broke, has a testcase "session" with an error; the step
// Ctrl-C stopped is an error too. Attributes show controls escaped, as
// the text report does (XML cannot hold most of them).
func writeJUnit(w io.Writer, reports []*fileReport, took time.Duration) error {
	all := junitSuites{Name: "mcpv test", Time: seconds(took)}
	for _, rep := range reports {
		name, path := safetext.Line(rep.file.name), safetext.Line(rep.file.path)
		s := junitSuite{Name: name, Time: seconds(rep.took), Timestamp: rep.started.UTC().Format("2006-01-02T15:04:05"),
			File: path, Properties: []junitProperty{{"server", safetext.Line(rep.file.serve.display)}}}
		if rep.code != exitOK {
			s.Errors++
			s.Cases = append(s.Cases, junitCase{Name: "session", Classname: name, Time: "0.000", File: path,
				Error: &junitProblem{Message: safetext.Line(rep.err), Type: "exit " + strconv.Itoa(rep.code), Text: safetext.Text(rep.err)}})
		}
		for _, sr := range rep.steps {
			c := junitCase{Name: safetext.Line(sr.step.name), Classname: name, Time: seconds(sr.took), File: path, Line: sr.step.line}
			switch {
			case sr.interrupted:
				s.Errors++
				c.Error = &junitProblem{Message: "interrupted (Ctrl-C)", Type: "interrupted", Text: safetext.Text(sr.reason)}
			case sr.status == stepSkipped:
				s.Skipped++
				c.Skipped = &junitSkipped{Message: safetext.Line(sr.reason)}
			case sr.status == stepFailed:
				s.Failures++
				c.Failure = &junitProblem{Message: safetext.Line(failureSummary(sr.failures)), Type: sr.failures[0].kind, Text: safetext.Text(failureText(sr))}
			}
			if len(sr.notes) > 0 && sr.status != stepFailed {
				c.SystemOut = newJUnitText(strings.Join(sr.notes, "\n"))
			}
			s.Cases = append(s.Cases, c)
		}
		s.Tests = len(s.Cases)
		if rep.code != exitOK || s.Failures > 0 {
			s.SystemErr = newJUnitText(rep.stderr)
		}
		all.Tests, all.Failures, all.Errors = all.Tests+s.Tests, all.Failures+s.Failures, all.Errors+s.Errors
		all.Suites = append(all.Suites, s)
	}
	b := bufio.NewWriter(w)
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(b)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	b.WriteString("\n")
	return b.Flush()
}

// failureSummary is one line for all of a step's failures.
func failureSummary(fs []failure) string {
	s := fs[0].kind + ": " + fs[0].message
	if len(fs) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	return s
}

// failureText is every failure of a step with its values, as the text
// report shows them.
func failureText(sr *stepReport) string {
	var b strings.Builder
	for _, f := range sr.failures {
		fmt.Fprintf(&b, "%s: %s\n", f.kind, safetext.Line(f.message))
		if f.expected != "" {
			fmt.Fprintf(&b, "  expected: %s\n", f.expected)
		}
		if f.actual != "" {
			fmt.Fprintf(&b, "  actual:   %s\n", f.actual)
		}
		for _, d := range f.details {
			fmt.Fprintf(&b, "  %s\n", safetext.Line(d))
		}
	}
	for _, n := range sr.notes {
		fmt.Fprintf(&b, "%s\n", n)
	}
	return b.String()
}

// writeTAP writes TAP version 14: a test point per file, with its steps
// as a subtest; a failure's expectations as YAML diagnostics.
func writeTAP(w io.Writer, reports []*fileReport) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "TAP version 14\n1..%d\n", len(reports))
	for i, rep := range reports {
		fmt.Fprintf(b, "# Subtest: %s\n", tapText(rep.file.name))
		fmt.Fprintf(b, "    1..%d\n", len(rep.steps))
		for j, sr := range rep.steps {
			switch {
			case sr.interrupted:
				fmt.Fprintf(b, "    not ok %d - %s\n", j+1, tapText(sr.step.name))
				writeYAMLBlock(b, "      ", map[string]any{"message": "interrupted (Ctrl-C)", "severity": "fail",
					"at": map[string]any{"file": rep.file.path, "line": sr.step.line}})
			case sr.status == stepPassed:
				fmt.Fprintf(b, "    ok %d - %s\n", j+1, tapText(sr.step.name))
			case sr.status == stepSkipped:
				fmt.Fprintf(b, "    ok %d - %s # SKIP %s\n", j+1, tapText(sr.step.name), tapText(sr.reason))
			case sr.status == stepFailed:
				fmt.Fprintf(b, "    not ok %d - %s\n", j+1, tapText(sr.step.name))
				diag := map[string]any{"message": failureSummary(sr.failures), "severity": "fail",
					"at": map[string]any{"file": rep.file.path, "line": sr.step.line}, "duration_ms": millis(sr.took)}
				var fs []map[string]any
				for _, f := range sr.failures {
					fs = append(fs, failureJSON(f))
				}
				diag["failures"] = fs
				if len(sr.notes) > 0 {
					diag["notes"] = sr.notes
				}
				writeYAMLBlock(b, "      ", diag)
			}
		}
		counts := countSteps(rep.steps)
		stopped := slices.ContainsFunc(rep.steps, func(sr *stepReport) bool { return sr.interrupted })
		if rep.code == exitOK && counts.failed == 0 && !stopped {
			fmt.Fprintf(b, "ok %d - %s\n", i+1, tapText(rep.file.name))
			continue
		}
		fmt.Fprintf(b, "not ok %d - %s\n", i+1, tapText(rep.file.name))
		diag := map[string]any{"message": fmt.Sprintf("%s: %s", rep.file.path, counts), "severity": "fail"}
		if stopped {
			diag["message"] = fmt.Sprintf("%s: interrupted (Ctrl-C): %s", rep.file.path, counts)
		}
		if rep.code != exitOK {
			diag["message"] = rep.err
			diag["exit"] = rep.code
		}
		if rep.stderr != "" {
			diag["stderr"] = rep.stderr
		}
		writeYAMLBlock(b, "  ", diag)
	}
	return b.Flush()
}

// tapText makes text fit a TAP description: one line, # and \ escaped.
func tapText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "#", `\#`).Replace(safetext.Line(s))
}

// writeYAMLBlock writes v as a YAML diagnostics block: each top-level
// member on a line of its own, its value as JSON (which YAML reads).
func writeYAMLBlock(b *bufio.Writer, indent string, v map[string]any) {
	b.WriteString(indent + "---\n")
	for _, k := range slices.Sorted(maps.Keys(v)) {
		fmt.Fprintf(b, "%s%s: %s\n", indent, k, mustJSON(v[k]))
	}
	b.WriteString(indent + "...\n")
}

func failureJSON(f failure) map[string]any {
	m := map[string]any{"expectation": f.kind, "message": f.message}
	if f.expected != "" {
		m["expected"] = f.expected
	}
	if f.actual != "" {
		m["actual"] = f.actual
	}
	if len(f.details) > 0 {
		m["details"] = f.details
	}
	return m
}

func millis(d time.Duration) float64 { return math.Round(d.Seconds()*1e6) / 1e3 }

// The JSON report; its shape is documented in mcpv test --help.
type jsonReport struct {
	Passed     bool         `json:"passed"`
	Counts     jsonCounts   `json:"counts"`
	DurationMs float64      `json:"durationMs"`
	Files      []jsonFileOf `json:"files"`
}

type jsonCounts struct {
	Files   int `json:"files"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

type jsonFileOf struct {
	File       string         `json:"file"`
	Name       string         `json:"name"`
	Server     string         `json:"server"`
	Passed     bool           `json:"passed"`
	Exit       int            `json:"exit"`
	Error      string         `json:"error,omitempty"`
	DurationMs float64        `json:"durationMs"`
	Stderr     string         `json:"stderr,omitempty"`
	Steps      []jsonStepOf   `json:"steps"`
	Counts     map[string]int `json:"counts"`
}

type jsonStepOf struct {
	Index      int              `json:"index"`
	Name       string           `json:"name"`
	Line       int              `json:"line,omitempty"`
	Status     string           `json:"status"`
	Reason     string           `json:"reason,omitempty"`
	Exit       int              `json:"exit"`
	DurationMs float64          `json:"durationMs"`
	Failures   []map[string]any `json:"failures,omitempty"`
	Notes      []string         `json:"notes,omitempty"`
}

func writeJSONReport(w io.Writer, reports []*fileReport, took time.Duration) error {
	r := jsonReport{Passed: runCode(reports) == exitOK && !slices.ContainsFunc(reports, func(f *fileReport) bool { return f.interrupted }), DurationMs: millis(took), Files: []jsonFileOf{}}
	r.Counts.Files = len(reports)
	for _, rep := range reports {
		c := countSteps(rep.steps)
		r.Counts.Passed, r.Counts.Failed, r.Counts.Skipped = r.Counts.Passed+c.passed, r.Counts.Failed+c.failed, r.Counts.Skipped+c.skipped
		jf := jsonFileOf{File: rep.file.path, Name: rep.file.name, Server: rep.file.serve.display, Passed: rep.code == exitOK && c.failed == 0,
			Exit: rep.code, Error: rep.err, DurationMs: millis(rep.took), Stderr: rep.stderr, Steps: []jsonStepOf{},
			Counts: map[string]int{"passed": c.passed, "failed": c.failed, "skipped": c.skipped}}
		for _, sr := range rep.steps {
			js := jsonStepOf{Index: sr.step.index, Name: sr.step.name, Line: sr.step.line, Status: sr.status.String(), Reason: sr.reason,
				Exit: sr.exit, DurationMs: millis(sr.took), Notes: sr.notes}
			for _, f := range sr.failures {
				js.Failures = append(js.Failures, failureJSON(f))
			}
			jf.Steps = append(jf.Steps, js)
		}
		r.Files = append(r.Files, jf)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
