package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A server slow to start is not a check that fails: the check's time
// stands while a server it started starts. The servers the checks start
// are held at their start until the test lets them go: meanwhile no
// check's time (a timer of a test's clock, which runs out only when the
// test says) runs, whatever the machine's speed.
func TestStartUpIsNotTheChecksTime(t *testing.T) {
	testkit.SkipLong(t, "servers started as processes of their own, held at their start")
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "started")
	tg := fake{transport: "stdio", behaviours: "start-gate=" + gate}.target(t)
	tg.Open = fake{transport: "stdio"}.target(t).Open // the main session's server is not held
	clk := mcptest.NewClock()
	const d = time.Hour
	opts := Options{Only: []string{"lifecycle.stdin-close", "lifecycle.version-echo"}, CheckTimeout: d,
		afterFunc: func(d time.Duration, f func()) stopper { return clk.AfterFunc(d, f) }}
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute)) // a hang guard
	defer cancel()
	reported := make(chan *Report, 1)
	go func() { // the run: ends when its checks have, or the guard's time is out
		report, err := Run(ctx, tg, opts)
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		reported <- report
	}()
	clk.WaitUntil(t, "both checks' times standing while their servers start", func(ts mcptest.Timers) bool {
		running := 0
		for _, n := range ts.Running {
			running += n
		}
		return ts.Stopped[d] >= 2 && running == 0
	})
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	report := <-reported
	if report == nil {
		return
	}
	for _, r := range report.Results {
		if r.Status != Passed {
			t.Errorf("%s", describeResult(r))
		}
	}
}

// Against a server of the HTTP+SSE transport of 2024-11-05, the checks
// that need Streamable HTTP are skipped, saying so, and none fails for it.
func TestHTTPPlusSSEServer(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Legacy: true})
	info := mcp.Implementation{Name: "t", Version: "0"}
	tg := &Target{Server: "legacy", URL: srv.URL, Client: testkit.HTTP(t), Plain: testkit.HTTP(t), ClientInfo: info}
	tg.Open = func(ctx context.Context, h SessionHooks) (*mcp.Client, error) {
		tr, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: srv.URL})
		if err != nil {
			return nil, err
		}
		s := mcp.NewSession(tr, mcp.SessionOptions{Trace: h.Trace})
		c, err := mcp.Initialize(ctx, s, mcp.ClientOptions{Info: info})
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c, nil
	}
	report, err := Run(context.Background(), tg, Options{Only: []string{"http", "jsonrpc.unknown-method"}, CheckTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range report.Results {
		if r.Status != Skipped || !strings.Contains(r.Message, "HTTP+SSE") {
			t.Errorf("%s", describeResult(r))
		}
	}
}

// A check's wait for an answer is the server's time, not the check's: the
// check's own time stands while it waits, and the wait has a bound of its
// own, the check's time again; a server that never answers still ends the
// check, inconclusive, at that bound, naming it. (Timers of a test's
// clock: nothing here waits for time to pass.)
func TestAnAnswersWaitIsNotTheChecksTime(t *testing.T) {
	t.Parallel()
	f := fake{transport: "http", change: map[string]string{"mute": `["completion/complete"]`}}
	tg, srv := f.targetServer(t)
	clk := mcptest.NewClock()
	const d = DefaultCheckTimeout
	opts := Options{Only: []string{"lifecycle.declared-methods"}, CheckTimeout: d, Strict: true,
		afterFunc: func(d time.Duration, f func()) stopper { return clk.AfterFunc(d, f) }}
	reported := runUntilAsked(t, tg, srv, opts, "completion/complete")
	// The check's own timer stood at its first wait; the one that runs is
	// the wait's bound, of the check's whole time.
	clk.WaitUntil(t, "the check's time standing while its answer's bound runs", func(ts mcptest.Timers) bool {
		running := 0
		for _, n := range ts.Running {
			running += n
		}
		return ts.Stopped[d] >= 1 && ts.Running[d] == 1 && running == 1
	})
	clk.Fire(d)
	r := <-reported
	if r == nil {
		return
	}
	got := r.Results[0]
	if got.Status != Inconclusive || !strings.Contains(got.Message, "completion/complete") || !strings.Contains(got.Message, "for an answer (15s)") {
		t.Fatalf("want inconclusive at the answer's bound, naming the request\n%s", describeResult(got))
	}
}

// A correct stdio server that answers each request a second late, one
// after another, passes the checks that need several exchanges, each
// within the check's time though their sum is not, as it does over HTTP;
// the run says how long it waited on the server. (Before, each check's
// time counted every answer: lifecycle.declared-methods, which asks for
// six, ran out of its four seconds, inconclusive, whatever the machine.)
func TestSlowSerialServerPasses(t *testing.T) {
	testkit.SkipLong(t, "a server that answers each request 1 s late")
	t.Parallel()
	only := []string{"lifecycle.declared-methods", "lists.cursor-stable"}
	tg := fake{transport: "stdio", behaviours: "slow=1000"}.target(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	r, err := Run(ctx, tg, Options{Only: only, Strict: true, Parallel: 1, CheckTimeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range r.Results {
		if res.Status != Passed {
			t.Errorf("want passed\n%s", describeResult(res))
		}
	}
	if r.ServerTime <= 0 || r.ServerTime > r.Took || !strings.Contains(r.Waited(), "for the server's answers") {
		t.Errorf("the server's time %s of %s: %q", r.ServerTime, r.Took, r.Waited())
	}
}

// A --timeout the user gives for a request, shorter than the check's
// time, wins: the main session's wait (its request bounded by both) ends
// at it, inconclusive, naming the flag that gives more time.
func TestTheUsersTimeoutWins(t *testing.T) {
	t.Parallel()
	clk := mcptest.NewClock()
	const user = 5 * time.Second
	f := fake{transport: "http", timeout: user, after: func(d time.Duration, f func()) mcp.Timer { return clk.AfterFunc(d, f) },
		change: map[string]string{"mute": `["completion/complete"]`, "capabilities": `{"tools":{},"prompts":{},"resources":{}}`}}
	tg, srv := f.targetServer(t)
	opts := Options{Only: []string{"lifecycle.undeclared-completions"}, Strict: true,
		afterFunc: func(d time.Duration, f func()) stopper { return clk.AfterFunc(d, f) }}
	reported := runUntilAsked(t, tg, srv, opts, "completion/complete")
	clk.WaitUntil(t, "the request's --timeout running beside its bound as an answer", func(ts mcptest.Timers) bool {
		return ts.Running[user] == 1 && ts.Running[DefaultCheckTimeout] == 1
	})
	clk.Fire(user)
	if r := <-reported; r != nil {
		if got := r.Results[0]; got.Status != Inconclusive || !strings.Contains(got.Message, "--timeout") {
			t.Fatalf("want inconclusive at the user's --timeout\n%s", describeResult(got))
		}
	}
}

// runUntilAsked runs the checks of opts in the background, and returns
// once the server was asked method: the report comes on the channel when
// the run ends (nil when it failed, said), which the test's clock ends.
func runUntilAsked(t *testing.T, tg *Target, srv *mcptest.HTTPServer, opts Options, method string) <-chan *Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
	t.Cleanup(cancel)
	reported := make(chan *Report, 1)
	go func() {
		r, err := Run(ctx, tg, opts)
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		reported <- r
	}()
	if _, err := srv.Wait(ctx, func(r mcptest.HTTPRequest) bool { return r.RPCMethod == method }); err != nil {
		t.Fatal(err)
	}
	return reported
}

// A watch check judges what came; when the exchanges it makes to see
// more end early (a request left without an answer past its bound), the
// result says so, not a clean run. (Before, the ending was dropped: a
// pass with only "N messages watched".)
func TestAWatchsExchangesEndingEarlyAreSaid(t *testing.T) {
	t.Parallel()
	f := fake{transport: "http", change: map[string]string{"mute": `["prompts/get"]`}}
	tg, srv := f.targetServer(t)
	clk := mcptest.NewClock()
	const d = DefaultCheckTimeout
	opts := Options{Only: []string{"asks.elicitation"}, CheckTimeout: d, Strict: true,
		afterFunc: func(d time.Duration, f func()) stopper { return clk.AfterFunc(d, f) }}
	reported := runUntilAsked(t, tg, srv, opts, "prompts/get")
	clk.WaitUntil(t, "the prompt's answer waited for", func(ts mcptest.Timers) bool { return ts.Running[d] == 1 })
	clk.Fire(d)
	r := <-reported
	if r == nil {
		return
	}
	got := r.Results[0]
	if got.Status != Passed || !strings.Contains(describeResult(got), "ended early (inconclusive)") || !strings.Contains(describeResult(got), "prompts/get") {
		t.Fatalf("want a pass saying the exchanges ended early at prompts/get\n%s", describeResult(got))
	}
}
