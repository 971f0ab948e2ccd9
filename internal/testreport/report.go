// Package testreport writes the reports of an mcpv test run (the text
// report for people, JUnit XML, TAP version 14 and JSON for CI systems)
// from data alone: what became of each file and step, as the runner
// recorded it. Nothing here starts a server or knows the command line.
package testreport

import (
	"fmt"
	"time"
)

// Status is what became of a step.
type Status int

const (
	Passed Status = iota
	Failed
	Skipped
	// Warned passed, with a warning that does not fail the run (mcpv
	// check's SHOULD that does not hold, without --strict).
	Warned
	// Blocked could not run because a step it depends on failed (mcpv
	// check: a check blocked by the one that names the defect); Reason
	// says which, BlockedBy names it.
	Blocked
	// Inconclusive ran out of time before it could tell (mcpv check: a
	// server that is only slow); Reason says what it waited for.
	Inconclusive
)

func (s Status) String() string {
	return [...]string{"passed", "failed", "skipped", "warned", "blocked", "inconclusive"}[s]
}

// Suite is what a report is of: mcpv test's files and their steps, or
// mcpv check's areas and their checks. The writers name each in its
// words.
type Suite struct {
	Name          string // the run's name: "mcpv test"
	Group, Groups string // what a File is: "file", "files"
	Item, Items   string // what a Step is: "step", "steps"
	// Header are members the JSON report carries first, in order, as
	// name, value pairs; JUnit's properties of each suite.
	Header [][2]string
}

// Tests is mcpv test's suite.
var Tests = Suite{Name: "mcpv test", Group: "file", Groups: "files", Item: "step", Items: "steps"}

// or is s, or Tests when s is the zero Suite.
func (s Suite) or() Suite {
	if s.Name == "" {
		return Tests
	}
	return s
}

// File is what became of a test file.
type File struct {
	Path   string // as given
	Name   string // name:, or the file's stem
	Named  bool   // Name was given by the file, and differs from its stem
	Server string // how the file's server is named, secrets masked
	// Code is 0, or the exit code of what kept the file's steps from
	// running to the end (its server could not be reached, its session
	// broke); Err says what that was.
	Code   int
	Err    string
	Stderr string // the tail of what the server and the session wrote on stderr
	// Warnings are what the session warned of (instructions that moved
	// since they were pinned, say), shown whatever became of the steps.
	Warnings    []string
	Started     time.Time
	Took        time.Duration
	Interrupted bool // Ctrl-C stopped the file's steps
	Steps       []Step
}

// Mask replaces every text of the file's report with what mask makes of
// it (the run's masker: every value mcpv knows to be secret), before any
// format escapes it: a name, the server, an error, stderr, a warning, a
// step's name, reason, failures and notes.
func (f *File) Mask(mask func(string) string) {
	texts := []*string{&f.Path, &f.Name, &f.Server, &f.Err, &f.Stderr}
	for i := range f.Warnings {
		texts = append(texts, &f.Warnings[i])
	}
	for i := range f.Steps {
		st := &f.Steps[i]
		texts = append(texts, &st.Name, &st.Reason)
		for j := range st.Notes {
			texts = append(texts, &st.Notes[j])
		}
		for j := range st.Failures {
			fl := &st.Failures[j]
			texts = append(texts, &fl.Message, &fl.Expected, &fl.Actual, &fl.Sent, &fl.Received, &fl.Requires)
			for k := range fl.Details {
				texts = append(texts, &fl.Details[k])
			}
		}
	}
	for _, p := range texts {
		*p = mask(*p)
	}
}

// Step is what became of a step.
type Step struct {
	Index int // 1-based, in its file
	Name  string
	// ID, Tag and Ref name what a step checks, for a step that is a
	// requirement (mcpv check): its id, its level ("MUST"), and where it
	// is stated ("2025-11-25 basic#messages").
	ID, Tag, Ref string
	Line         int
	Status       Status
	Reason       string // why it was skipped, blocked or inconclusive
	BlockedBy    string // the id of the step a blocked step depends on
	Took         time.Duration
	Exit         int // the exit code the step's command ended with
	Failures     []Failure
	Notes        []string
	// Interrupted: Ctrl-C stopped the file here (the step in flight, or
	// the first not run when none was).
	Interrupted bool
}

// Failure is one expectation a step did not meet.
type Failure struct {
	Kind     string // the expectation: exit, jq, equals, ...
	Message  string // what went wrong, on one line
	Expected string // when the expectation is one value: it, and what came
	Actual   string
	// Sent, Received and Requires are, for a requirement, what was sent,
	// what came back and the requirement's text, each on a line.
	Sent, Received, Requires string
	Details                  []string // more lines: a jq expression's parts, a snapshot's changes
}

// Code is the exit code of a run: the code of the first file (in the
// order given) whose server could not be reached or whose session broke;
// else 1 when a step failed; else 0.
func Code(files []File) int {
	failed := false
	for _, f := range files {
		if f.Code != 0 {
			return f.Code
		}
		failed = failed || countSteps(f.Steps)[Failed] > 0
	}
	if failed {
		return 1
	}
	return 0
}

// RoundDuration rounds a duration for a report: to 10 ms from a second, to
// the millisecond from a millisecond, else to the microsecond.
func RoundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

// counts are the steps of each Status.
type counts [Inconclusive + 1]int

func (c counts) String() string {
	s := fmt.Sprintf("%d passed, %d failed", c[Passed], c[Failed])
	for _, st := range []Status{Warned, Blocked, Inconclusive, Skipped} {
		if c[st] > 0 {
			s += fmt.Sprintf(", %d %s", c[st], st)
		}
	}
	return s
}

// add is c with d's counts added.
func (c counts) add(d counts) counts {
	for st := range c {
		c[st] += d[st]
	}
	return c
}

func countSteps(steps []Step) counts {
	var c counts
	for _, s := range steps {
		c[s.Status]++
	}
	return c
}
