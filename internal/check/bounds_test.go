package check

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// A tool named with --call that outruns the check's time makes the checks
// of its call inconclusive, none failed: a slow tool is no violation.
func TestCallOutrunningItsBound(t *testing.T) {
	t.Parallel()
	f := fake{transport: "stdio", change: map[string]string{"mute": `["tools/call"]`}}
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
	defer cancel()
	report, err := Run(ctx, f.target(t), Options{Only: []string{"tools", "utilities.progress"}, CheckTimeout: 300 * time.Millisecond, Calls: []Call{{Tool: "echo"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range report.Results {
		if r.Status == Failed {
			t.Errorf("%s", describeResult(r))
		}
	}
	if report.Inconclusive() == 0 {
		t.Errorf("no check inconclusive")
	}
}

// --check-timeout never counts the server's start: a server slower to
// start than a check's time has every check run to its end.
func TestCheckTimeNotCountingTheStart(t *testing.T) {
	testkit.SkipLong(t, "each server of the run takes 12 s to start")
	t.Parallel()
	// The start twice the check's time, which is generous for what each
	// check does once the server is up, on a loaded machine too.
	f := fake{transport: "stdio", slowStart: 12000}
	ctx, cancel := context.WithTimeout(context.Background(), patient(6*time.Minute))
	defer cancel()
	report, err := Run(ctx, f.target(t), Options{Only: []string{"jsonrpc", "lifecycle", "utilities", "tools"}, CheckTimeout: 6 * time.Second, Calls: []Call{{Tool: "slow"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range report.Results {
		if r.Status == Inconclusive || r.Status == Failed {
			t.Errorf("%s", describeResult(r))
		}
	}
}

// A subscription the server is slow to acknowledge, past the check's
// time, is inconclusive: a slow server is no violation.
func TestSlowListenInconclusive(t *testing.T) {
	t.Parallel()
	f := fake{transport: "stdio", era: "modern", change: map[string]string{"mute": `["subscriptions/listen"]`}}
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
	defer cancel()
	report, err := Run(ctx, f.target(t), Options{Only: []string{"modern.listen", "modern.listen-asked"}, CheckTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Results) != 2 {
		t.Fatalf("%d results, not 2", len(report.Results))
	}
	for _, r := range report.Results {
		if r.Status != Inconclusive {
			t.Errorf("%s", describeResult(r))
		}
	}
}

// A check's time longer than any run is as good as none: three or four of
// it, which the first contact and the server's facts are given, do not
// wrap round to a bound already passed.
func TestCheckTimeLongerThanAnyRun(t *testing.T) {
	t.Parallel()
	f := fake{transport: "stdio"}
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
	defer cancel()
	report, err := Run(ctx, f.target(t), Options{Only: []string{"lifecycle", "lists"}, CheckTimeout: 1000000 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if n := report.Inconclusive(); n > 0 {
		for _, r := range report.Results {
			t.Log(describeResult(r))
		}
		t.Errorf("%d checks inconclusive", n)
	}
}

// A tasks/list that never ends makes tasks.unique-ids inconclusive, after
// a bounded walk, not a failure: whether it lists the task is not known.
func TestEndlessTaskListInconclusive(t *testing.T) {
	t.Parallel()
	f := fake{transport: "stdio", change: merge(legacyTasks, faults("task-list-endless"))}
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
	defer cancel()
	report, err := Run(ctx, f.target(t), Options{Only: []string{"tasks.unique-ids"}, Calls: []Call{{Tool: "job"}}, CheckTimeout: patient(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if r := report.Results[0]; r.Status != Inconclusive || !strings.Contains(r.Message, "past 20 pages") {
		t.Errorf("%s", describeResult(r))
	}
}

// A server of both eras slow to start reads the era probe's
// server/discover and the initialize sent on its silence, and takes both:
// a modern check it fails says so, and says nothing of it where the
// session sent no initialize.
func TestMixedHandshakeNamed(t *testing.T) {
	testkit.SkipLong(t, "each connection of the run waits 2 s for the server's start")
	t.Parallel()
	const said = "also took the initialize"
	change := faults("initialize-served", "no-result-type")
	// 2 s: the probe's initialize goes 150 ms after server/discover, and
	// the fake reads nothing before it has slept.
	slow := fake{transport: "stdio", era: "modern", probe: true, slowStart: 2000, change: change}
	r := runChecks(t, slow, "modern.result-type")["modern.result-type"]
	if r.Status != Failed || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, said) }) {
		t.Errorf("started late: %s; notes %q", describeResult(r), r.Notes)
	}
	r = runChecks(t, fake{transport: "stdio", era: "modern", change: change}, "modern.result-type")["modern.result-type"]
	if r.Status != Failed || slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, said) }) {
		t.Errorf("no initialize sent: %s; notes %q", describeResult(r), r.Notes)
	}
}
