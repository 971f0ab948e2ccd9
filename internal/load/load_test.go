package load

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/duration"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/mcp/mcptest/pipeclient"
)

func TestMain(m *testing.M) {
	if mcptest.RunIfRequested() {
		return
	}
	os.Exit(mcptest.GuardSuite(m.Run))
}

// sessions opens sessions to a server as mcpv does, counting them.
type sessions struct {
	settings *connect.Settings
	env      connect.Env
	opened   atomic.Int64
	closed   atomic.Int64
}

func httpServer(t *testing.T, opts mcptest.HTTPOptions) (*sessions, *mcptest.HTTPServer) {
	srv := mcptest.NewHTTPServer(t, opts)
	return newSessions(t, &connect.Settings{URL: srv.URL}), srv
}

// fakeServer is the stdio fake with behaviours, one per session (served in
// the test process where its behaviour allows).
func fakeServer(t *testing.T, behaviours string) *sessions {
	env := append(os.Environ(), mcptest.EnvVar+"="+behaviours)
	return newSessions(t, &connect.Settings{Command: []string{os.Args[0]}, Env: env})
}

func newSessions(t *testing.T, s *connect.Settings) *sessions {
	env, err := connect.System()
	if err != nil {
		t.Fatal(err)
	}
	s.ProtocolEra, s.Auth.Grant = "auto", "authorization_code"
	// Bounds for a server that stalls, not speeds: a thousand sessions
	// opened at once under the race detector on a loaded machine took
	// more than 30 s to be answered.
	s.ConnectTimeout = 2 * time.Minute
	if s.Timeout == 0 {
		s.Timeout = 2 * time.Minute
	}
	env.StartServer = pipeclient.StartServer
	return &sessions{settings: s, env: env}
}

func (ss *sessions) open(ctx context.Context) (*Session, error) {
	c, err := connect.Open(ctx, ss.settings, ss.env, connect.Hooks{})
	if err != nil {
		return nil, err
	}
	ss.opened.Add(1)
	return &Session{Client: c.Client, HTTP: ss.settings.URL != "", Close: func() { c.Close(); ss.closed.Add(1) }}, nil
}

func op(t *testing.T, words ...string) Op {
	t.Helper()
	o, err := ParseOp(words, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func runLoad(t *testing.T, ss *sessions, plan Plan, ops ...Op) *Result {
	t.Helper()
	res, err := Run(t.Context(), Config{Plan: plan, Ops: ops, Open: ss.open, ReadFile: os.ReadFile})
	if err != nil {
		t.Fatal(err)
	}
	if o, c := ss.opened.Load(), ss.closed.Load(); o != c {
		t.Errorf("%d sessions opened, %d closed", o, c)
	}
	return res
}

// A server whose latency is known: 20 ms, and every 20th call 400 ms (5%).
// The percentiles reported are at least what the server took (mcpv's own
// time can only add to it) and well under the next step of the
// distribution (a generous bound: ten times what the machine adds).
func TestPercentilesMatchTheServer(t *testing.T) {
	testkit.SkipLong(t, "a run against a server that sleeps 20 ms a call, 400 ms every 20th")
	ss, _ := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: 20 * time.Millisecond, Every: 20, Slow: 400 * time.Millisecond}})
	res := runLoad(t, ss, Plan{Concurrency: 4, Count: 200}, op(t, "call", "x"))
	if res.OK != 200 || res.Errors != 0 {
		t.Fatalf("ok %d, errors %d (%+v); want 200 and 0", res.OK, res.Errors, res.ErrorKinds)
	}
	l := res.Latency
	if l.P50 < 20 || l.P50 >= 200 {
		t.Errorf("p50 = %vms; want 20ms or a little more", l.P50)
	}
	if l.P90 < 20 || l.P90 >= 400 {
		t.Errorf("p90 = %vms; want 20ms or a little more", l.P90)
	}
	if l.P99 < 400 || l.Max < 400 {
		t.Errorf("p99 = %vms, max %vms; want 400ms or more", l.P99, l.Max)
	}
	if l.Count != 200 || res.Setup.Count != 4 || res.Close.Count != 4 {
		t.Errorf("counted %d operations, %d set-ups, %d closes; want 200, 4, 4", l.Count, res.Setup.Count, res.Close.Count)
	}
	if ss.opened.Load() != 4 {
		t.Errorf("%d sessions opened; want 4, held open", ss.opened.Load())
	}
}

// At a fixed rate a stall is seen in every iteration it held up: each
// counts from when it was meant to start. The 20th call stalls a second;
// at 50/s on one session the 49 iterations meant to start during the
// stall start after it, the ten latest meant at least 800 ms before, so
// p90 is at least 800 ms. Measured from their actual start (coordinated
// omission), p90 would be the server's few milliseconds.
func TestFixedRateCountsFromTheIntendedStart(t *testing.T) {
	testkit.SkipLong(t, "100 calls at 50 a second, one stalled a second")
	ss, _ := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{StallAt: 20, Stall: time.Second}})
	res := runLoad(t, ss, Plan{Concurrency: 1, Count: 100, Rate: 50}, op(t, "call", "x"))
	if res.OK != 100 {
		t.Fatalf("ok %d (%+v); want 100", res.OK, res.ErrorKinds)
	}
	if res.Latency.P90 < 800 || res.Latency.Max < 1000 {
		t.Errorf("p90 = %vms, max %vms; want at least 800ms and 1s: the stall hidden", res.Latency.P90, res.Latency.Max)
	}
	if res.Late < 40 || res.LateMax < 900 {
		t.Errorf("%d iterations late, at most %vms; want the 49 held up by the stall", res.Late, res.LateMax)
	}
}

// The same server in a closed loop: each iteration counts from its start,
// and only the stalled call is slow.
func TestClosedLoopCountsFromTheStart(t *testing.T) {
	testkit.SkipLong(t, "calls through a server stalled a second")
	ss, _ := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{StallAt: 20, Stall: time.Second}})
	res := runLoad(t, ss, Plan{Concurrency: 1, Count: 100}, op(t, "call", "x"))
	if res.Latency.Max < 1000 || res.Latency.P90 >= 500 {
		t.Errorf("p90 = %vms, max %vms; want one stalled call", res.Latency.P90, res.Latency.Max)
	}
}

func TestErrorsByKind(t *testing.T) {
	for _, tc := range []struct {
		behaviour, phase, kind string
		timeout                time.Duration
	}{
		{"rpc-error", "operation", "JSON-RPC -32602", 0},
		{"tool-error", "operation", "tool error", 0},
		{"hang", "operation", "timeout", 200 * time.Millisecond},
		{"crash", "operation", "transport", 0},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			ss := fakeServer(t, tc.behaviour)
			ss.settings.Timeout = tc.timeout
			res := runLoad(t, ss, Plan{Concurrency: 2, Count: 6}, op(t, "call", "x"))
			if res.Errors != 6 || res.OK != 0 || len(res.ErrorKinds) != 1 {
				t.Fatalf("ok %d, errors %d: %+v; want 6 errors of one kind", res.OK, res.Errors, res.ErrorKinds)
			}
			if e := res.ErrorKinds[0]; e.Phase != tc.phase || e.Kind != tc.kind || e.Count != 6 || e.Example == "" {
				t.Errorf("errors %+v; want 6 of %s %s with an example", e, tc.phase, tc.kind)
			}
			if res.ErrorRate != 1 {
				t.Errorf("error rate %v; want 1", res.ErrorRate)
			}
		})
	}
}

// A new session per iteration opens and closes one for every iteration,
// each timed apart from the operation.
func TestNewSessionPerIteration(t *testing.T) {
	ss := fakeServer(t, "plain")
	res := runLoad(t, ss, Plan{Concurrency: 2, Count: 8, NewSession: true}, op(t, "list-tools"))
	if res.OK != 8 || res.Setup.Count != 8 || res.Close.Count != 8 {
		t.Errorf("ok %d, %d set-ups, %d closes; want 8 of each", res.OK, res.Setup.Count, res.Close.Count)
	}
	if n := ss.opened.Load(); n != 9 { // the first prepared the operation
		t.Errorf("%d sessions opened; want 9", n)
	}
}

// One shared session carries every iteration.
func TestSharedSession(t *testing.T) {
	ss := fakeServer(t, "delay=5ms")
	res := runLoad(t, ss, Plan{Concurrency: 8, Count: 40, Shared: true}, op(t, "call", "x", "n=1"))
	if res.OK != 40 || ss.opened.Load() != 1 {
		t.Errorf("ok %d over %d sessions; want 40 over 1", res.OK, ss.opened.Load())
	}
}

// A shared session whose server dies ends the run, which says so.
func TestSharedSessionThatEnds(t *testing.T) {
	ss := fakeServer(t, "crash")
	res := runLoad(t, ss, Plan{Concurrency: 2, Duration: time.Hour, Shared: true}, op(t, "call", "x"))
	if !strings.Contains(res.Ended, "the shared session ended") || res.Errors == 0 {
		t.Errorf("ended %q with %d errors; want the shared session's end", res.Ended, res.Errors)
	}
	if res.Elapsed >= 30*60 { // seconds, of the hour the run was to take
		t.Errorf("the run went on for %vs after its session ended", res.Elapsed)
	}
}

// What is still in flight when the duration and its grace are over is
// cut and counted as unfinished, not left out.
func TestUnfinishedAtTheEnd(t *testing.T) {
	testkit.SkipLong(t, "a run of a second")
	ss := fakeServer(t, "hang")
	res := runLoad(t, ss, Plan{Concurrency: 1, Duration: time.Second, Grace: 100 * time.Millisecond}, op(t, "call", "x"))
	if res.Errors != 1 || len(res.ErrorKinds) != 1 || res.ErrorKinds[0].Kind != "unfinished" || res.ErrorKinds[0].Phase != "operation" {
		t.Errorf("errors %d: %+v; want 1 unfinished operation", res.Errors, res.ErrorKinds)
	}
}

// interruptAtCall is a run's context, cancelled as an interrupt is when
// the n-th tools/call reaches srv.
func interruptAtCall(t *testing.T, srv *mcptest.HTTPServer, n int) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go func() { // ends when the n-th call arrives, or the test
		calls := 0
		srv.Wait(ctx, func(r mcptest.HTTPRequest) bool {
			if r.RPCMethod == "tools/call" {
				calls++
			}
			return calls == n
		})
		cancel()
	}()
	return ctx
}

// A run as long as a duration can be, with a grace, is not cut at its
// start: its end and the grace add up past the longest duration.
func TestTheLongestRun(t *testing.T) {
	ss, srv := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{StallAt: 2, Stall: time.Hour}})
	ctx := interruptAtCall(t, srv, 2) // the first answered
	res, err := Run(ctx, Config{Plan: Plan{Concurrency: 1, Duration: duration.Max, Grace: 5 * time.Second}, Ops: []Op{op(t, "call", "x")}, Open: ss.open})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.OK == 0 || res.Errors != 0 {
		t.Errorf("interrupted %v, ok %d, errors %d; want true, some, 0", res.Interrupted, res.OK, res.Errors)
	}
}

// An interrupt stops the run at once: what was measured is kept, what
// was in flight is no error, and every session is closed.
func TestInterrupt(t *testing.T) {
	ss, srv := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: 10 * time.Millisecond, StallAt: 30, Stall: time.Hour}})
	ctx := interruptAtCall(t, srv, 30) // the stalled one
	res, err := Run(ctx, Config{Plan: Plan{Concurrency: 1, Duration: time.Hour}, Ops: []Op{op(t, "call", "x")}, Open: ss.open})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.OK != 29 || res.Errors != 0 {
		t.Errorf("interrupted %v, ok %d, errors %d; want true, 29, 0", res.Interrupted, res.OK, res.Errors)
	}
	if o, c := ss.opened.Load(), ss.closed.Load(); o != c {
		t.Errorf("%d sessions opened, %d closed", o, c)
	}
}

// A mix runs each operation as often as its weight says.
func TestMix(t *testing.T) {
	ss := fakeServer(t, "plain")
	a, b := op(t, "call", "x"), op(t, "read", "fake://a")
	a.Weight = 3
	res := runLoad(t, ss, Plan{Concurrency: 2, Count: 40}, a, b)
	if res.Operations[0].OK != 30 || res.Operations[1].OK != 10 {
		t.Errorf("ran %+v; want 30 and 10", res.Operations)
	}
	if res.Operations[0].Latency == nil || res.Operations[0].Latency.Count != 30 {
		t.Errorf("the mix's first operation has latency %+v; want 30 counted", res.Operations[0].Latency)
	}
}

// A server that cannot be reached fails the run before it starts, with
// its error (and exit code).
func TestUnreachableServer(t *testing.T) {
	ss := newSessions(t, &connect.Settings{Command: []string{"/nonexistent/server"}})
	_, err := Run(t.Context(), Config{Plan: Plan{Concurrency: 1, Count: 1}, Ops: []Op{op(t, "ping")}, Open: ss.open})
	var te *mcp.TransportError
	if !errors.As(err, &te) {
		t.Errorf("err = %v; want a transport error", err)
	}
}

// A thousand sessions at once, each opened, used and closed.
func TestThousandSessions(t *testing.T) {
	testkit.SkipLong(t, "a thousand sessions")
	ss, srv := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: time.Millisecond}})
	res := runLoad(t, ss, Plan{Concurrency: 1000, Count: 3000}, op(t, "call", "x"))
	if res.OK != 3000 || res.Errors != 0 || ss.opened.Load() != 1000 {
		t.Errorf("ok %d, errors %d (%+v) over %d sessions; want 3000 over 1000", res.OK, res.Errors, res.ErrorKinds, ss.opened.Load())
	}
	deletes := 0
	for _, r := range srv.Requests() {
		if r.Method == "DELETE" {
			deletes++
		}
	}
	if deletes != 1000 {
		t.Errorf("%d sessions deleted; want 1000", deletes)
	}
}

// What a hostile server says reaches the report safe for a terminal: its
// error messages are quoted with their escape sequences shown, not acted on.
func TestErrorExamplesAreSafe(t *testing.T) {
	ss, _ := httpServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" {
			return false
		}
		x.Reply(x.Error(-32000, "boom \x1b]0;owned\x07\x1b[2J"))
		return true
	}})
	res := runLoad(t, ss, Plan{Concurrency: 1, Count: 3}, op(t, "call", "x"))
	var b strings.Builder
	res.WriteText(&b)
	if len(res.ErrorKinds) != 1 || res.ErrorKinds[0].Kind != "JSON-RPC -32000" {
		t.Fatalf("errors %+v; want JSON-RPC -32000", res.ErrorKinds)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Errorf("the report carries the server's escapes: %q", b.String())
	}
}

// A server that floods the session with notifications while it answers
// holds nothing up: each session's queue of notifications is bounded.
func TestNotificationFlood(t *testing.T) {
	ss := fakeServer(t, "log-flood=2000")
	res := runLoad(t, ss, Plan{Concurrency: 2, Count: 10}, op(t, "call", "x"))
	if res.OK != 10 || res.Errors != 0 {
		t.Errorf("ok %d, errors %+v; want 10 and none", res.OK, res.ErrorKinds)
	}
}

// ping in the modern era, which has none, is server/discover, as mcpv
// ping sends it.
func TestPingInTheModernEra(t *testing.T) {
	ss := fakeServer(t, "spec="+modernSpec(t))
	res := runLoad(t, ss, Plan{Concurrency: 1, Count: 3}, op(t, "ping"))
	if res.OK != 3 || res.Errors != 0 {
		t.Errorf("ok %d, errors %+v; want 3 and none", res.OK, res.ErrorKinds)
	}
}

// modernSpec writes the spec of a fake server of the modern era, which
// has no ping.
func modernSpec(t *testing.T) string {
	path := t.TempDir() + "/spec.json"
	if err := os.WriteFile(path, []byte(`{"era":"modern","methodNotFound":["ping"],"tools":[{"name":"x","inputSchema":{"type":"object"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Stages of sessions take sessions on and let them go; stages of a rate
// start exactly the iterations their ramps hold (each one started, or
// counted as not started).
func TestStagesRun(t *testing.T) {
	testkit.SkipLong(t, "four stages of 300 to 500 ms")
	ss, _ := httpServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: time.Millisecond}})
	res := runLoad(t, ss, Plan{Stages: []Stage{{300 * time.Millisecond, 4, false}, {300 * time.Millisecond, 0, false}}, Grace: time.Minute}, op(t, "call", "x"))
	if res.Concurrency != 4 || res.OK == 0 || res.Errors != 0 || res.Setup.Count > 4 {
		t.Errorf("stages of sessions: concurrency %d, ok %d, errors %+v, %d set-ups; want 4, some, none, at most 4", res.Concurrency, res.OK, res.ErrorKinds, res.Setup.Count)
	}
	// 0 to 100/s over 0.5 s starts 25; 100/s for 0.5 s, 50 more.
	res = runLoad(t, ss, Plan{Concurrency: 4, Stages: []Stage{{500 * time.Millisecond, 100, true}, {500 * time.Millisecond, 100, true}}, Grace: time.Minute}, op(t, "call", "x"))
	if res.Iterations != 75 || !strings.HasPrefix(res.Schedule, "stages 500ms:100/s") {
		t.Errorf("stages of a rate: %d iterations (%d ok, %+v), schedule %q; want 75", res.Iterations, res.OK, res.ErrorKinds, res.Schedule)
	}
}

// A session that cannot be opened is tried again after a pause that
// doubles while the failures go on, and each iteration that failed counts
// once as a set-up error: a server that is down is not hammered by every
// session at full speed. The pauses are lower bounds the engine keeps, so
// a busy machine only makes them longer.
func TestSetupFailuresBackOff(t *testing.T) {
	ss := fakeServer(t, "plain")
	var mu sync.Mutex // guards tries
	var tries []time.Time
	open := func(ctx context.Context) (*Session, error) {
		mu.Lock()
		tries = append(tries, time.Now())
		first := len(tries) == 1
		mu.Unlock()
		if first { // the session that prepares the operation
			return ss.open(ctx)
		}
		return nil, errors.New("connection refused")
	}
	res, err := Run(t.Context(), Config{Plan: Plan{Concurrency: 1, Count: 6, NewSession: true}, Ops: []Op{op(t, "list-tools")}, Open: open, ReadFile: os.ReadFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 0 || res.Errors != 6 || len(res.ErrorKinds) != 1 || res.ErrorKinds[0].Phase != "setup" {
		t.Fatalf("ok %d, errors %d %+v; want 6 set-up errors", res.OK, res.Errors, res.ErrorKinds)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tries) != 7 {
		t.Fatalf("%d opens; want 7 (the first, then one for each iteration)", len(tries))
	}
	want := time.Duration(0)
	for i := 2; i < len(tries); i++ {
		want = nextPause(want)
		if gap := tries[i].Sub(tries[i-1]); gap < want {
			t.Errorf("try %d came %v after the one before; want a pause of %v at least", i, gap, want)
		}
	}
	if want != 160*time.Millisecond {
		t.Errorf("the pauses grew to %v; want 10, 20, 40, 80, 160 ms", want)
	}
	for prev, wantNext := range map[time.Duration]time.Duration{0: setupPause, setupPause: 2 * setupPause, 700 * time.Millisecond: setupPauseMax, setupPauseMax: setupPauseMax} {
		if got := nextPause(prev); got != wantNext {
			t.Errorf("nextPause(%v) = %v; want %v", prev, got, wantNext)
		}
	}
}
