package check

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// sharedRuns are the runs that more than one test reads: the whole
// catalogue's against each correct server, and the broken servers' runs
// that a test of one rule and TestBrokenServers both judge; each is run
// once, for every test that reads it.
var sharedRuns sync.Map // the run's key → *sharedRun

type sharedRun struct {
	once    sync.Once
	results map[string]Result
}

// goodRun is every check's result against the correct server f.
func goodRun(t *testing.T, f fake) map[string]Result { return runShared(t, f) }

// runShared is runChecks(t, f, only...), run once for all the tests that
// ask for it: f and only are the run's key (f without timers of its own).
func runShared(t *testing.T, f fake, only ...string) map[string]Result {
	if f.after != nil {
		t.Fatal("a run with timers of its own is not shared")
	}
	change, _ := json.Marshal(f.change)
	key := fmt.Sprintf("%s/%s/%s/%s/%t/%s/%v/%t/%t/%d/%t/%s/%q/%v/%t/%q/%v", f.transport, f.era, f.auth, f.version, f.sse, change, f.portable,
		f.junk, f.ignoreExit, f.slowStart, f.probe, f.behaviours, f.secret, f.timeout, f.remote, only, f.checkTime)
	v, _ := sharedRuns.LoadOrStore(key, &sharedRun{})
	g := v.(*sharedRun)
	g.once.Do(func() { g.results = runChecks(t, f, only...) })
	if g.results == nil {
		t.Fatal("the shared run failed")
	}
	return g.results
}

// A server that keeps every requirement passes every check that applies
// to it, in each era and on each transport: no check fails where there is
// nothing wrong.
func TestGoodServersPass(t *testing.T) {
	t.Parallel()
	for _, f := range []fake{
		{transport: "stdio"}, {transport: "stdio", era: "modern"},
		{transport: "http"}, {transport: "http", era: "modern"}, {transport: "http", auth: "ok"},
	} {
		name := f.transport + "/" + map[string]string{"": "initialize", "modern": "modern"}[f.era] + map[string]string{"": "", "ok": "/auth"}[f.auth]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, r := range goodRun(t, f) {
				if r.Status == Failed || strings.Contains(r.Message, errSharedUnpaired) {
					t.Errorf("%s", describeResult(r))
				}
			}
		})
	}
}

// A server that answers a tool it does not have with -32601 and the
// tool's name in the message ("Unknown tool: mcpv-check-no-such-tool")
// serves tools/call: no check says it lacks the method, and the check of
// unknown tools, which asks only for a JSON-RPC error, is not blocked.
func TestUnknownToolAnsweredMethodNotFound(t *testing.T) {
	t.Parallel()
	f := stdio
	f.change = faults("unknown-tool-32601")
	results := runChecks(t, f, "lifecycle.declared-methods", "reading.unknown-tool")
	for _, id := range []string{"lifecycle.declared-methods", "reading.unknown-tool"} {
		if r, ok := results[id]; !ok || r.Status != Passed {
			t.Errorf("%s: %s", id, describeResult(r))
		}
	}
}

// A call's result that the check cannot tell from one that crossed its
// cancellation is no server answering a cancelled call: skipped, saying
// so. One that came before the cancellation went (a call that ran to its
// end while the check was held back, as on a loaded machine), and one
// that ran to its end and came after it but before the answer to the
// request sent after it. A call the cancellation stopped, answered all the
// same, fails however late the check sees it (the check held back after
// the cancellation, as on a loaded machine); so does one answered with an
// error (TestBrokenServers, answer-cancelled).
func TestCallOverOrCrossingItsCancellation(t *testing.T) {
	t.Parallel()
	hold := func(ctx context.Context) func(answered func() bool) {
		return func(answered func() bool) {
			for !answered() && ctx.Err() == nil {
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	for _, tc := range []struct {
		name   string
		change map[string]string
		before bool
		want   Status
		says   string
	}{
		{"over before", nil, true, Skipped, "ended before its cancellation was sent"},
		{"crossing", map[string]string{"edges": `["cancel-crossing"]`}, false, Skipped, "may have crossed its cancellation"},
		{"stopped and answered", faults("ignore-cancel"), false, Failed, "of the 10 progress notifications its whole call sends"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.before {
				t.Parallel()
			}
			// The call that is over before its cancellation runs to its end:
			// ten seconds of the fake's slow tool, when its progress token
			// says it will be cancelled. It runs at once, in its parent's
			// turn, not after the hundreds of cases queued by then, which
			// left it running alone at the package's end.
			ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
			defer cancel()
			opts := Options{Only: []string{"utilities.cancel-call"}, Strict: true, CheckTimeout: patient(time.Minute), Calls: []Call{{Tool: "slow"}}} // a bound, not a pace: the slow tool runs ten seconds, which a machine that grows busy under the test may stretch past twice that
			f := stdio
			f.change = tc.change
			if tc.before {
				opts.beforeCancel = hold(ctx)
			} else {
				opts.afterCancel = hold(ctx)
			}
			if r := cancelVerdict(ctx, t, f, opts); r.Status != tc.want || !strings.Contains(r.Message, tc.says) {
				t.Errorf("%s", describeResult(r))
			}
		})
	}
}

// cancelVerdict is utilities.cancel-call's result on f. The fake's slow
// call, under the progress token of a call the check cancels, runs until
// it is cancelled: the cancellation finds it running however loaded the
// machine (the hooks of opts hold the check back where a test asks).
func cancelVerdict(ctx context.Context, t *testing.T, f fake, opts Options) Result {
	t.Helper()
	report, err := Run(ctx, f.target(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(report.Results, func(r Result) bool { return r.ID == "utilities.cancel-call" })
	if i < 0 {
		t.Fatal("utilities.cancel-call did not run")
	}
	return report.Results[i]
}

// Cancellation is tried on every tool named with --call that shows its
// progress, not only the first: a server whose slow tool answers a
// cancelled call fails when that tool is named second, after one that
// sends no progress.
func TestCancelEveryCalledTool(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
	defer cancel()
	f := stdio
	f.change = faults("ignore-cancel")
	opts := Options{Only: []string{"utilities.cancel-call"}, Strict: true, CheckTimeout: patient(20 * time.Second),
		Calls: []Call{{Tool: "echo", Words: []string{"message=hi"}}, {Tool: "slow"}}}
	if r := cancelVerdict(ctx, t, f, opts); r.Status != Failed || !strings.Contains(r.Message, "answered all the same") {
		t.Errorf("%s", describeResult(r))
	}
}

// A server killed by a signal mcpv check did not send (one that frees
// its port by killing every other of its kind, when a check starts a
// second) is not judged by what it could not answer: the check that
// asked is inconclusive, not failed.
func TestServerKilledFromOutsideIsInconclusive(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a server killed by a signal")
	}
	t.Parallel()
	change := faults("killed-on-prompts-list")
	change["capabilities"] = `{"tools":{}}`
	results := runChecks(t, fake{transport: "stdio", change: change}, "lifecycle.undeclared-prompts")
	r := results["lifecycle.undeclared-prompts"]
	if r.Status != Inconclusive || !strings.Contains(r.Message, "killed by signal killed, a signal mcpv check did not send") {
		t.Errorf("%s", describeResult(r))
	}
}

// A server that binds a fixed port starts once: the copy a check starts
// of its own exits at once. That says nothing of the protocol: the check
// is inconclusive, not failed.
func TestSecondCopyThatCannotStartIsInconclusive(t *testing.T) {
	t.Parallel()
	f := stdio
	f.behaviours = "one-copy=" + filepath.Join(t.TempDir(), "port")
	for _, r := range runChecks(t, f, "lifecycle.ping", "lifecycle.version-echo", "lifecycle.version-unknown") {
		if r.Status != Inconclusive || !strings.Contains(r.Message, "a copy of the server started as the session's was exited too") || !strings.Contains(r.Message, "EADDRINUSE") {
			t.Errorf("%s", describeResult(r))
		}
	}
}

// Progress is judged on every tool named with --call that sends it, not
// only the first: a server whose slow tool's progress goes backwards
// fails when that tool is named second, after one that sends none.
func TestProgressOfEveryCalledTool(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
	defer cancel()
	f := stdio
	f.change = faults("progress-decreasing")
	report, err := Run(ctx, f.target(t), Options{Only: []string{"utilities.progress"}, Strict: true, CheckTimeout: patient(20 * time.Second),
		Calls: []Call{{Tool: "echo", Words: []string{"message=hi"}}, {Tool: "slow"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range report.Results {
		if r.ID == "utilities.progress" && (r.Status != Failed || !strings.Contains(r.Message, "must increase")) {
			t.Errorf("%s", describeResult(r))
		}
	}
}

// A server whose copies hold a port while they start (and let it go once
// started) has copies exit when they start beside another: each such copy
// starts again alone, and the checks judge the server, not the clash.
func TestCopiesThatClashStartingStartAgainAlone(t *testing.T) {
	t.Parallel()
	f := stdio
	// slow-start holds the port long enough for the copies started together to meet
	f.behaviours = "start-lock=" + filepath.Join(t.TempDir(), "port") + ",slow-start=300"
	for _, r := range runChecks(t, f, "lifecycle.version-echo", "lifecycle.version-unknown", "lifecycle.version-latest", "lifecycle.stdin-close", "lifecycle.client-capabilities") {
		if r.Status != Passed {
			t.Errorf("%s", describeResult(r))
		}
	}
}

// A check that finds many faults in the lint says the first, notes the
// next four, and counts the rest, within the five notes a check keeps.
func TestManyLintFindingsCounted(t *testing.T) {
	t.Parallel()
	var tools []string
	for i := range 8 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool %d","description":"d","inputSchema":{"type":"object"}}`, i))
	}
	r := runChecks(t, fake{transport: "stdio", change: map[string]string{"tools": "[" + strings.Join(tools, ",") + "]"}}, "surface.tool-names")["surface.tool-names"]
	if r.Status != Failed || len(r.Notes) != 5 || r.Notes[4] != "and 3 more" {
		t.Errorf("want a failure with four findings noted and \"and 3 more\": %s (notes %q)", describeResult(r), r.Notes)
	}
}
