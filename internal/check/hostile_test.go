package check

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/mcp"
)

// runHostile runs the whole catalogue against f with short bounds and
// returns the report. The run must end by itself, its checks each bounded
// by their time, long before the hour the test gives it: a run that
// only an outside bound ends is one that hangs (a busy machine makes the
// run slower, never an hour slower).
func runHostile(t *testing.T, f fake, opts Options) *Report {
	t.Helper()
	if opts.CheckTimeout == 0 {
		opts.CheckTimeout = patient(2 * time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	report, err := Run(ctx, f.target(t), opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the run did not end by itself: %v", context.Cause(ctx))
	}
	return report
}

func failedOf(r *Report) map[string]string {
	out := map[string]string{}
	for _, res := range r.Results {
		if res.Status == Failed {
			out[res.ID] = res.Message
		}
	}
	return out
}

// A server that answers initialize and then nothing: every check that
// asks it something is inconclusive, saying the time it waited and the
// flag that gives more (a server that is only slow looks the same); none
// fails, none hangs, and the run ends in about a check's bound per check
// a worker runs.
func TestHostileHangs(t *testing.T) {
	testkit.SkipLong(t, "checks that each run to their 1 s bound against a server that never answers")
	t.Parallel()
	r := runHostile(t, fake{transport: "stdio", change: faults("hang")}, Options{Only: []string{"jsonrpc", "lists", "reading"}, CheckTimeout: time.Second})
	if failed := failedOf(r); len(failed) > 0 {
		t.Errorf("failed: %v", failed)
	}
	unsure := 0
	for _, res := range r.Results {
		if res.Status != Inconclusive {
			continue
		}
		unsure++
		if res.ID == "jsonrpc.unknown-method" && (!strings.Contains(res.Message, "the check's time for an answer (1s) ran out") || !strings.Contains(res.Message, "--check-timeout")) {
			t.Errorf("jsonrpc.unknown-method: %q", res.Message)
		}
	}
	if unsure < 5 || r.Inconclusive() != unsure {
		t.Errorf("only %d checks inconclusive", unsure)
	}
	for _, res := range r.Results {
		if res.ID == "lists.unique" && res.Status == Passed {
			t.Errorf("lists.unique passed, though no list came: %s", describeResult(res))
		}
	}
}

// A server that starts later than the run lets it is no server that
// breaks a requirement: the checks that start a server of their own are
// inconclusive, and say --connect-timeout gives more time.
func TestSlowStartIsInconclusive(t *testing.T) {
	testkit.SkipLong(t, "a server that starts 3 s late")
	t.Parallel()
	f := fake{transport: "stdio", slowStart: 3000}
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
	defer cancel()
	report, err := Run(ctx, f.target(t), Options{Only: []string{"lifecycle.version-echo", "lifecycle.stdin-close", "jsonrpc.unknown-method"}, StartTimeout: 500 * time.Millisecond, CheckTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range report.Results {
		if res.Status != Inconclusive || !strings.Contains(res.Message, "--connect-timeout") {
			t.Errorf("%s", describeResult(res))
		}
	}
}

// A main session that does not open in time is a report too: the first
// check inconclusive (with the flag that gives more time), the others
// blocked by it, nothing failed.
func TestSessionNotOpenInTime(t *testing.T) {
	testkit.SkipLong(t, "a server that starts 3 s late, and a session that waits 1 s for it")
	t.Parallel()
	tg := fake{transport: "stdio", slowStart: 3000}.target(t)
	open := tg.Open
	tg.Open = func(ctx context.Context, h SessionHooks) (*mcp.Client, error) {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		c, err := open(ctx, h)
		if err != nil && ctx.Err() != nil {
			err = &mcp.TimeoutError{Connect: true, Setting: "--connect-timeout", Timeout: time.Second}
		}
		return c, err
	}
	report, err := Run(context.Background(), tg, Options{Only: []string{"jsonrpc", "lifecycle"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range report.Results {
		switch {
		case res.ID == "lifecycle.initialize":
			if res.Status != Inconclusive || !strings.Contains(res.Message, "--connect-timeout") {
				t.Errorf("%s", describeResult(res))
			}
		case res.Status != Blocked || res.BlockedBy != "lifecycle.initialize":
			t.Errorf("%s", describeResult(res))
		}
	}
	if report.Failed() || report.Inconclusive() != 1 {
		t.Errorf("failed %v, inconclusive %d", report.Failed(), report.Inconclusive())
	}
}

// A server that floods its client with notifications: the run ends, and
// the checks still see what they asked for.
func TestHostileFloods(t *testing.T) {
	testkit.SkipLong(t, "a flood of notifications through every jsonrpc check (two seconds and more)")
	t.Parallel()
	r := runHostile(t, fake{transport: "stdio", change: faults("flood")}, Options{Only: []string{"jsonrpc"}, CheckTimeout: patient(10 * time.Second)})
	if failed := failedOf(r); failed["jsonrpc.unknown-method"] != "" {
		t.Errorf("a flood of notifications failed a check: %v", failed)
	}
}

// A server whose answer is larger than a run reads: the check that asked
// fails saying so, and nothing more of it is read.
func TestHostileHugeAnswer(t *testing.T) {
	testkit.SkipLong(t, "a hostile answer of megabytes")
	t.Parallel()
	// Each check reads answers of 17 MiB: its bound is for a server that
	// stalls, not a speed (a loaded machine took 45 s and more for them).
	report, err := Run(context.Background(), fake{transport: "stdio", change: faults("huge-answer")}.target(t), Options{Only: []string{"lists"}, CheckTimeout: patient(2 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range report.Results {
		found = found || strings.Contains(r.Message, "more than 16 MiB")
	}
	if !found {
		t.Errorf("no check says the answer was too large: %v", failedOf(report))
	}
}

// A server that dies in the middle: the checks it leaves fail with its
// exit, the others (on processes of their own) run on, and the run ends.
func TestHostileDiesMidway(t *testing.T) {
	t.Parallel()
	r := runHostile(t, fake{transport: "stdio", change: faults("die-midway")}, Options{Only: []string{"jsonrpc"}, Strict: true})
	failed := failedOf(r)
	died := false
	for _, msg := range failed {
		died = died || strings.Contains(msg, "server exited") || strings.Contains(msg, "closed")
	}
	if !died {
		t.Errorf("no check says the server exited: %v", failed)
	}
}

// What the server puts in its answers reaches the report with terminal
// controls escaped and secrets masked, in every format.
func TestHostileEscapesAndSecrets(t *testing.T) {
	t.Parallel()
	f := fake{transport: "stdio", change: map[string]string{"faults": `["escapes"]`,
		"tools": `[{"name":"a\u001b[31mred","description":"d","inputSchema":{"type":"object"}}]`}}
	r := runHostile(t, f, Options{Only: []string{"reading.prompts", "surface.tool-names"}, Strict: true, Secrets: []string{"s3cr3t-Secret-Value"}})
	if len(failedOf(r)) != 2 {
		t.Fatalf("failed: %v", failedOf(r))
	}
	for _, format := range []string{"text", "json", "junit", "tap"} {
		var b strings.Builder
		if format == "text" {
			text := &testreport.Text{W: &b, Suite: r.Suite()}
			for _, file := range r.Files(time.Now()) {
				text.File(file)
			}
		} else if err := r.Suite().Write(&b, format, r.Files(time.Now()), r.Took); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s: a raw terminal control:\n%q", format, out)
		}
		if strings.Contains(out, "s3cr3t-Secret-Value") {
			t.Errorf("%s: the secret is shown:\n%s", format, out)
		}
		if !strings.Contains(out, "boom") {
			t.Errorf("%s: the server's error is not shown:\n%s", format, out)
		}
	}
}

// Every process a run starts is gone when it returns, also when it is
// interrupted in the middle.
func TestRunLeavesNoProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	testkit.SkipLong(t, "a run against a server that never answers, stopped as its first check ends at its 3 s bound")
	t.Parallel()
	f := fake{transport: "stdio", change: faults("hang")}
	tg := f.target(t)
	tg.Start = nil                              // processes: they are what the test is about
	marker := tg.Stdio.Env[len(tg.Stdio.Env)-1] // MCPV_FAKE=spec=PATH, unique to this test
	ctx, cancel := context.WithCancel(context.Background())
	// Stopped as the first check ends: the others are under way.
	start := time.Now()
	report, err := Run(ctx, tg, Options{CheckTimeout: 3 * time.Second, Progress: func(int, int, string) { cancel() }})
	t.Logf("the run took %s", time.Since(start))
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if report != nil && report.Stopped == nil {
		t.Errorf("the run was not stopped")
	}
	if alive := processesWith(t, marker); len(alive) > 1 { // the main session's, closed by the test's cleanup
		t.Errorf("processes left: %v", alive)
	}
}

// processesWith are the processes whose environment holds marker.
func processesWith(t *testing.T, marker string) []string {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err == nil && strings.Contains(string(env), marker) {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

// A server that holds open every request sent at once and answers none:
// http.one-stream is inconclusive when its time runs out (the flag that
// gives more is said), fails nothing and leaves nothing hanging.
func TestHostileStreamsHeld(t *testing.T) {
	testkit.SkipLong(t, "hostile streams held open")
	t.Parallel()
	tg := httpLegacy.target(t)
	up, _ := url.Parse(tg.URL)
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: up.Scheme, Host: up.Host})
	proxy.Transport = testkit.Pool(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"mcpv-check-stream-`)) {
			<-r.Context().Done() // held until the client goes
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	tg.URL = srv.URL + up.Path
	ctx, cancel := context.WithTimeout(context.Background(), patient(time.Minute)) // a hang guard
	defer cancel()
	report, err := Run(ctx, tg, Options{Only: []string{"http.one-stream"}, CheckTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := report.Results[0]
	if r.Status != Inconclusive || !strings.Contains(r.Message, "--check-timeout") {
		t.Errorf("%s", describeResult(r))
	}
}

// A server that floods a connection that answers with requests, and never
// reads its input, holds up the answers, not the connection's reader: the
// reader takes all that comes after them, a request of the check's ends
// at its bound, and the connection closes though an answer is still
// being written.
func TestFloodOfRequestsHoldsNotTheReader(t *testing.T) {
	t.Parallel()
	f := fake{transport: "stdio", change: faults("ask-flood"), behaviours: "deaf"}
	ctx, cancel := context.WithTimeout(context.Background(), patient(5*time.Minute)) // a hang guard
	defer cancel()
	r := newRunner(ctx, f.target(t), Options{}.withDefaults())
	defer r.closeAll()
	c, err := r.dial(ctx, connOptions{era: "legacy", capabilities: answering})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	// A reader held takes nothing more: one that takes a message at
	// least every (patient) minute is a slow one, not held.
	stuck := patient(time.Minute)
	for n, since := -1, time.Now(); !floodEnded(c); time.Sleep(10 * time.Millisecond) {
		c.mu.Lock()
		taken := c.count
		c.mu.Unlock()
		if taken != n {
			n, since = taken, time.Now()
		}
		if time.Since(since) > stuck || ctx.Err() != nil {
			t.Fatalf("the reader took %d messages and no more: the last of the flood never came", n)
		}
	}
	// A request of the check's waits behind the answer the server does
	// not take, and ends with its bound (made short: the server never
	// answers, however long it is given); or at once, where an answer's
	// write outran its own bound while the flood came (a loaded machine)
	// and stdin was let go with it.
	rctx, rcancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer rcancel()
	if _, _, err := c.request(rctx, "ping", nil); !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrClosed) {
		t.Errorf("a request after the flood: %v, want its bound's end", err)
	}
	c.close()
	if ctx.Err() != nil {
		t.Fatalf("the connection did not close: %v", ctx.Err())
	}
}

// floodEnded reports whether c has taken the message that ends the
// ask-flood.
func floodEnded(c *conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.log {
		if s.msg.Method == "notifications/message" && strings.Contains(string(s.msg.Params), "asked them all") {
			return true
		}
	}
	return false
}

// A connection that answers and cannot start leaves nothing running: its
// answerer starts only once its server has. Not parallel: it counts the
// answerers of the whole test binary, which only fall meanwhile.
func TestFailedDialLeavesNoAnswerer(t *testing.T) {
	f := fake{transport: "stdio"}
	target := f.target(t)
	opts := *target.Stdio
	opts.Path = filepath.Join(t.TempDir(), "no-such-server")
	target.Stdio = &opts
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := newRunner(ctx, target, Options{}.withDefaults())
	defer r.closeAll()
	before := answerers()
	for range 5 {
		if _, err := r.dial(ctx, connOptions{era: "legacy", capabilities: answering}); err == nil {
			t.Fatal("a server that does not exist started")
		}
	}
	if n := answerers(); n > before {
		t.Errorf("%d answerers after five failed dials, %d before", n, before)
	}
}

// answerers counts the goroutines answering a check connection's server.
func answerers() int {
	buf := make([]byte, 1<<22)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "(*conn).answerer(")
}

// What a server writes on stdout once mcpv check has begun to stop it (a
// wrapper's "Received SIGTERM, terminating child process...", in answer
// to the check's own signal) is not judged: it is no line of the session.
func TestStdoutAfterCloseIsNotJudged(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), patient(time.Minute)) // a hang guard
	defer cancel()
	r := newRunner(ctx, stdio.target(t), Options{}.withDefaults())
	defer r.closeAll()
	c, err := r.dial(ctx, connOptions{era: "legacy"})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	before := c.receive([]byte("a log line before the close"), "stdout", nil, "", 0)
	c.frags.flush()
	c.close()
	mark := c.mark()
	c.receive([]byte("Received SIGTERM, terminating child process..."), "stdout", nil, "", 0)
	c.frags.flush()
	if got := c.since(mark); len(got) != 0 {
		t.Errorf("after the close, %d lines were taken: %+v", len(got), got)
	}
	if len(before) != 0 {
		return // taken at once: judged
	}
	for _, s := range c.since(0) {
		if s.bad != "" && strings.Contains(s.raw, "before the close") {
			return
		}
	}
	t.Errorf("the line before the close was not taken as junk: %+v", c.since(0))
}
