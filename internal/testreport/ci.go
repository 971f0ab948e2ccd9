package testreport

// The reports for CI systems: JUnit XML in the Jenkins (Ant) format that
// CI systems read (a testsuite per file, a testcase per step), TAP version
// 14 (a subtest per file, YAML diagnostics for each failure) and JSON.

import (
	"bufio"
	"encoding/json"
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

// The report's shape, with the tags encoding/xml reads it by (the tests
// do; writing it is junitWriter's, below).
type junitSuites struct {
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
	SystemOut  *junitText      `xml:"system-out"`
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

// JUnit writes suite's JUnit XML report. A file whose session could not
// be opened, or broke, has a testcase "session" with an error; the step
// Ctrl-C stopped is an error too; a warned step passes, its warning in
// its system-out. Attributes show controls escaped, as the text report
// does (XML cannot hold most of them).
func (suite Suite) JUnit(w io.Writer, files []File, took time.Duration) error {
	suite = suite.or()
	all := junitSuites{Name: suite.Name, Time: seconds(took)}
	for _, f := range files {
		name, path := safetext.Line(f.Name), safetext.Line(f.Path)
		props := []junitProperty{{"server", safetext.Line(f.Server)}}
		if suite.Name != Tests.Name {
			props = nil
			for _, h := range suite.Header {
				props = append(props, junitProperty{h[0], safetext.Line(h[1])})
			}
		}
		s := junitSuite{Name: name, Time: seconds(f.Took), Timestamp: f.Started.UTC().Format("2006-01-02T15:04:05"),
			File: path, Properties: props}
		if f.Code != 0 {
			s.Errors++
			s.Cases = append(s.Cases, junitCase{Name: "session", Classname: name, Time: "0.000", File: path,
				Error: &junitProblem{Message: safetext.Line(f.Err), Type: "exit " + strconv.Itoa(f.Code), Text: safetext.Text(f.Err)}})
		}
		for _, sr := range f.Steps {
			c := junitCase{Name: safetext.Line(sr.Name), Classname: name, Time: seconds(sr.Took), File: path, Line: sr.Line}
			switch {
			case sr.Interrupted:
				s.Errors++
				c.Error = &junitProblem{Message: "interrupted (Ctrl-C)", Type: "interrupted", Text: safetext.Text(sr.Reason)}
			case sr.Status == Skipped:
				s.Skipped++
				c.Skipped = &junitSkipped{Message: safetext.Line(sr.Reason)}
			case sr.Status == Blocked || sr.Status == Inconclusive:
				s.Skipped++
				c.Skipped = &junitSkipped{Message: sr.Status.String() + ": " + safetext.Line(sr.Reason)}
			case sr.Status == Failed:
				s.Failures++
				c.Failure = &junitProblem{Message: safetext.Line(failureSummary(sr.Failures)), Type: sr.Failures[0].Kind, Text: safetext.Text(failureText(sr))}
			case sr.Status == Warned:
				c.SystemOut = newJUnitText("warning: " + failureText(sr))
			}
			if len(sr.Notes) > 0 && sr.Status != Failed && sr.Status != Warned {
				c.SystemOut = newJUnitText(strings.Join(sr.Notes, "\n"))
			}
			s.Cases = append(s.Cases, c)
		}
		s.Tests = len(s.Cases)
		if len(f.Warnings) > 0 {
			s.SystemOut = newJUnitText("warning: " + strings.Join(f.Warnings, "\nwarning: "))
		}
		if f.Code != 0 || s.Failures > 0 {
			s.SystemErr = newJUnitText(f.Stderr)
		}
		all.Tests, all.Failures, all.Errors = all.Tests+s.Tests, all.Failures+s.Failures, all.Errors+s.Errors
		all.Suites = append(all.Suites, s)
	}
	b := bufio.NewWriter(w)
	writeJUnit(b, all)
	return b.Flush()
}

// failureSummary is one line for all of a step's failures.
func failureSummary(fs []Failure) string {
	s := fs[0].Kind + ": " + fs[0].Message
	if len(fs) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	return s
}

// failureText is every failure of a step with its values, as the text
// report shows them.
func failureText(sr Step) string {
	var b strings.Builder
	for _, f := range sr.Failures {
		fmt.Fprintf(&b, "%s: %s\n", f.Kind, safetext.Line(f.Message))
		for _, l := range [][2]string{{"expected:", f.Expected}, {"actual:  ", f.Actual}, {"sent:    ", f.Sent}, {"received:", f.Received}, {"requires:", f.Requires}} {
			if l[1] != "" {
				fmt.Fprintf(&b, "  %s %s\n", l[0], l[1])
			}
		}
		for _, d := range f.Details {
			fmt.Fprintf(&b, "  %s\n", safetext.Line(d))
		}
	}
	for _, n := range sr.Notes {
		fmt.Fprintf(&b, "%s\n", n)
	}
	return b.String()
}

// TAP writes suite's report in TAP version 14: a test point per file,
// with its steps as a subtest; a failure's expectations as YAML
// diagnostics; a warned step is ok, with its warning as diagnostics.
func (suite Suite) TAP(w io.Writer, files []File) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "TAP version 14\n1..%d\n", len(files))
	for i, f := range files {
		fmt.Fprintf(b, "# Subtest: %s\n", tapText(f.Name))
		fmt.Fprintf(b, "    1..%d\n", len(f.Steps))
		for j, sr := range f.Steps {
			switch {
			case sr.Interrupted:
				fmt.Fprintf(b, "    not ok %d - %s\n", j+1, tapText(sr.Name))
				writeYAMLBlock(b, "      ", map[string]any{"message": "interrupted (Ctrl-C)", "severity": "fail",
					"at": map[string]any{"file": f.Path, "line": sr.Line}})
			case sr.Status == Passed:
				fmt.Fprintf(b, "    ok %d - %s\n", j+1, tapText(sr.Name))
				if warnings := warningsOf(sr.Notes); len(warnings) > 0 {
					writeYAMLBlock(b, "      ", map[string]any{"notes": warnings, "severity": "comment",
						"at": map[string]any{"file": f.Path, "line": sr.Line}})
				}
			case sr.Status == Skipped:
				fmt.Fprintf(b, "    ok %d - %s # SKIP %s\n", j+1, tapText(sr.Name), tapText(sr.Reason))
			case sr.Status == Blocked:
				fmt.Fprintf(b, "    ok %d - %s # SKIP blocked: %s\n", j+1, tapText(sr.Name), tapText(sr.Reason))
			case sr.Status == Inconclusive:
				fmt.Fprintf(b, "    not ok %d - %s # TODO inconclusive: %s\n", j+1, tapText(sr.Name), tapText(sr.Reason))
			case sr.Status == Warned:
				fmt.Fprintf(b, "    ok %d - %s\n", j+1, tapText(sr.Name))
				writeYAMLBlock(b, "      ", map[string]any{"message": failureSummary(sr.Failures), "severity": "warn",
					"failures": failuresJSON(sr.Failures)})
			case sr.Status == Failed:
				fmt.Fprintf(b, "    not ok %d - %s\n", j+1, tapText(sr.Name))
				diag := map[string]any{"message": failureSummary(sr.Failures), "severity": "fail", "failures": failuresJSON(sr.Failures),
					"at": map[string]any{"file": f.Path, "line": sr.Line}, "duration_ms": millis(sr.Took)}
				if len(sr.Notes) > 0 {
					diag["notes"] = sr.Notes
				}
				writeYAMLBlock(b, "      ", diag)
			}
		}
		counts := countSteps(f.Steps)
		stopped := slices.ContainsFunc(f.Steps, func(sr Step) bool { return sr.Interrupted })
		for _, w := range f.Warnings {
			fmt.Fprintf(b, "    # warning: %s\n", tapText(w))
		}
		if f.Code == 0 && counts[Failed] == 0 && !stopped {
			fmt.Fprintf(b, "ok %d - %s\n", i+1, tapText(f.Name))
			continue
		}
		fmt.Fprintf(b, "not ok %d - %s\n", i+1, tapText(f.Name))
		diag := map[string]any{"message": fmt.Sprintf("%s: %s", f.Path, counts), "severity": "fail"}
		if stopped {
			diag["message"] = fmt.Sprintf("%s: interrupted (Ctrl-C): %s", f.Path, counts)
		}
		if f.Code != 0 {
			diag["message"] = f.Err
			diag["exit"] = f.Code
		}
		if f.Stderr != "" {
			diag["stderr"] = f.Stderr
		}
		writeYAMLBlock(b, "  ", diag)
	}
	return b.Flush()
}

// tapText makes text fit a TAP description: one line, # and \ escaped.
func tapText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "#", `\#`).Replace(safetext.Line(s))
}

// warningsOf are the notes that warn (a lint finding: "warning: ..."),
// which a TAP consumer shows even for a step that passed.
func warningsOf(notes []string) []string {
	var out []string
	for _, n := range notes {
		if strings.HasPrefix(n, "warning: ") {
			out = append(out, n)
		}
	}
	return out
}

// writeYAMLBlock writes v as a YAML diagnostics block: each top-level
// member on a line of its own, its value as JSON (which YAML reads).
func writeYAMLBlock(b *bufio.Writer, indent string, v map[string]any) {
	b.WriteString(indent + "---\n")
	for _, k := range slices.Sorted(maps.Keys(v)) {
		j, _ := json.Marshal(v[k])
		fmt.Fprintf(b, "%s%s: %s\n", indent, k, j)
	}
	b.WriteString(indent + "...\n")
}

// failuresJSON is each failure of fs as failureJSON has it.
func failuresJSON(fs []Failure) []map[string]any {
	var out []map[string]any
	for _, f := range fs {
		out = append(out, failureJSON(f))
	}
	return out
}

func failureJSON(f Failure) map[string]any {
	m := map[string]any{"expectation": f.Kind, "message": f.Message}
	for k, v := range map[string]string{"expected": f.Expected, "actual": f.Actual, "sent": f.Sent, "received": f.Received, "requires": f.Requires} {
		if v != "" {
			m[k] = v
		}
	}
	if len(f.Details) > 0 {
		m["details"] = f.Details
	}
	return m
}

func millis(d time.Duration) float64 { return math.Round(d.Seconds()*1e6) / 1e3 }

// object is a JSON object whose members keep their order.
type object []member

type member struct {
	key   string
	value any
}

// with is o and, when keep is true, the member key after its others.
func (o object) with(keep bool, key string, value any) object {
	if keep {
		return append(o, member{key, value})
	}
	return o
}

func (o object) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(m.key)
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// JSON writes suite's JSON report, whose shape mcpv test --help
// documents: its groups and items under suite's names, its Header first.
func (suite Suite) JSON(w io.Writer, files []File, took time.Duration) error {
	suite = suite.or()
	test := suite.Name == Tests.Name
	var all counts
	groups := []object{}
	for _, f := range files {
		c := countSteps(f.Steps)
		all = all.add(c)
		items := []object{}
		for _, sr := range f.Steps {
			items = append(items, object{{"index", sr.Index}}.
				with(sr.ID != "", "id", sr.ID).
				with(true, "name", sr.Name).
				with(sr.Tag != "", "level", sr.Tag).
				with(sr.Ref != "", "ref", sr.Ref).
				with(sr.Line != 0, "line", sr.Line).
				with(true, "status", sr.Status.String()).
				with(sr.Reason != "", "reason", sr.Reason).
				with(sr.BlockedBy != "", "blockedBy", sr.BlockedBy).
				with(test, "exit", sr.Exit).
				with(true, "durationMs", millis(sr.Took)).
				with(len(sr.Failures) > 0, "failures", failuresJSON(sr.Failures)).
				with(len(sr.Notes) > 0, "notes", sr.Notes))
		}
		g := object{{suite.Group, f.Path}, {"name", f.Name}}.
			with(test || f.Server != "", "server", f.Server).
			with(true, "passed", f.Code == 0 && c[Failed] == 0 && c[Inconclusive] == 0).
			with(test || f.Code != 0, "exit", f.Code).
			with(f.Err != "", "error", f.Err).
			with(true, "durationMs", millis(f.Took)).
			with(len(f.Warnings) > 0, "warnings", f.Warnings).
			with(f.Stderr != "", "stderr", f.Stderr)
		gc := map[string]int{"passed": c[Passed], "failed": c[Failed], "skipped": c[Skipped]}
		for k, n := range map[string]int{"warned": c[Warned], "blocked": c[Blocked], "inconclusive": c[Inconclusive]} {
			if n > 0 {
				gc[k] = n
			}
		}
		g = append(g, member{suite.Items, items}, member{"counts", gc})
		groups = append(groups, g)
	}
	passed := Code(files) == 0 && all[Inconclusive] == 0 && !slices.ContainsFunc(files, func(f File) bool { return f.Interrupted })
	r := object{}
	for _, h := range suite.Header {
		r = append(r, member{h[0], h[1]})
	}
	total := object{{suite.Groups, len(files)}, {"passed", all[Passed]}, {"failed", all[Failed]}, {"skipped", all[Skipped]}}.
		with(all[Warned] > 0, "warned", all[Warned]).
		with(all[Blocked] > 0, "blocked", all[Blocked]).
		with(all[Inconclusive] > 0, "inconclusive", all[Inconclusive])
	r = append(r, member{"passed", passed}, member{"counts", total}, member{"durationMs", millis(took)}, member{suite.Groups, groups})
	return json.NewEncoder(w).Encode(r) // one line, in one write
}
