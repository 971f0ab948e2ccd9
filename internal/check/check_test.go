package check

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// goodRuns are the whole catalogue's runs against each correct server,
// run once for every test that needs them.
var goodRuns sync.Map // fake's key → *goodRunOnce

type goodRunOnce struct {
	once    sync.Once
	results map[string]Result
}

// goodRun is every check's result against the correct server f.
func goodRun(t *testing.T, f fake) map[string]Result {
	change, _ := json.Marshal(f.change)
	key := fmt.Sprintf("%s/%s/%s/%s/%t/%s/%v", f.transport, f.era, f.auth, f.version, f.sse, change, f.portable)
	v, _ := goodRuns.LoadOrStore(key, &goodRunOnce{})
	g := v.(*goodRunOnce)
	g.once.Do(func() { g.results = runChecks(t, f) })
	if g.results == nil {
		t.Fatal("the correct server's run failed")
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

// A call that runs to its end while the check is held back, before its
// cancellation goes (as on a loaded machine), is no server answering a
// cancelled call: the check is skipped, saying so.
func TestCallOverBeforeItsCancellation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := Options{Only: []string{"utilities.cancel-call"}, Strict: true, CheckTimeout: 20 * time.Second, Calls: []Call{{Tool: "slow"}},
		beforeCancel: func(answered func() bool) {
			for !answered() && ctx.Err() == nil {
				time.Sleep(10 * time.Millisecond)
			}
		}}
	report, err := Run(ctx, stdio.target(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range report.Results {
		if r.ID == "utilities.cancel-call" && (r.Status != Skipped || !strings.Contains(r.Message, "ended before its cancellation was sent")) {
			t.Errorf("%s", describeResult(r))
		}
	}
}

// A call's result that comes after its cancellation was sent but before
// the answer to the request sent after it may have crossed the
// cancellation (a quick call, a loaded machine): skipped, saying so. A
// server that answers the cancellation itself, with an error, fails
// whenever it comes (TestBrokenServers, answer-cancelled).
func TestCallResultCrossingItsCancellation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := Options{Only: []string{"utilities.cancel-call"}, Strict: true, CheckTimeout: 20 * time.Second, Calls: []Call{{Tool: "slow"}},
		afterCancel: func(answered func() bool) {
			for !answered() && ctx.Err() == nil {
				time.Sleep(10 * time.Millisecond)
			}
		}}
	f := stdio
	f.change = faults("ignore-cancel")
	report, err := Run(ctx, f.target(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range report.Results {
		if r.ID == "utilities.cancel-call" && (r.Status != Skipped || !strings.Contains(r.Message, "may have crossed its cancellation")) {
			t.Errorf("%s", describeResult(r))
		}
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
