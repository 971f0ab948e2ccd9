package check

// Running the catalogue: the main session opened and the facts gathered
// from it, then the checks, up to Options.Parallel at once (a group's
// checks one after another, on the group's connection), each under its
// own time bound and all under the run's; then the watches; then every
// connection closed.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// Target is the server a run checks, and how to reach it.
type Target struct {
	// Server names it in the report (secrets masked).
	Server string
	// Stdio is how to start a stdio server (Path, Args, Env, Dir,
	// Framing); a connection of a check's own starts one more.
	Stdio *mcp.CommandOptions
	// Groups records the servers started, for a caller that must kill
	// them at once (a second Ctrl-C).
	Groups *mcp.ProcessGroups
	// URL is an HTTP server's MCP endpoint; Client reaches it with the
	// user's credentials, Plain without any; Header is what every request
	// of the user's carries (-H).
	URL           string
	Client, Plain *http.Client
	Header        http.Header
	// Open opens the main session as every command does, with the
	// hooks given. It may set Client and Plain, which the run uses once
	// it has returned.
	Open func(ctx context.Context, h SessionHooks) (*mcp.Client, error)
	// Done, when set, is called when the run ends: note is called no more.
	Done func()
	// ClientInfo is how the check's own connections name the client.
	ClientInfo mcp.Implementation
}

// SessionHooks are what a run gives its main session.
type SessionHooks struct {
	// Note is given every notification the session receives.
	Note func(method string, params json.RawMessage)
	// Log takes the session's warnings: those about the server's stdout
	// go to the run's watches, the rest nowhere (the report says what
	// matters).
	Log *slog.Logger
}

// errMaxTime is the cause of a run stopped by Options.MaxTime.
type errMaxTime struct{ d time.Duration }

func (e errMaxTime) Error() string {
	return fmt.Sprintf("the run's time limit (%s) was reached", e.d)
}

// MaxTimeError is a run stopped by its time limit (--max-time).
type MaxTimeError = errMaxTime

// runner is one run.
type runner struct {
	ctx     context.Context // the run's, which --max-time and Ctrl-C end
	target  *Target
	opts    Options
	main    *mcp.Client
	facts   *facts
	watches *watches
	secrets []string

	mu    sync.Mutex // guards conns, eras, reads and calls
	conns []*conn
	eras  map[string]*eraProbe   // whether the server answers an era, once asked
	reads map[string]*readAnswer // what the main session read, once each
	calls map[int]*callRecord    // the --call tools' calls, once each

	versions versionAnswers // what initialize answers to each version offered
}

// Run runs the checks opts selects against the target. The error is
// one that kept the run from starting: the main session could not be
// opened. A run stopped early (--max-time, ctx) reports what it found,
// with the checks left unrun skipped, and Report.Stopped says why.
func Run(ctx context.Context, target *Target, opts Options) (*Report, error) {
	start := time.Now()
	if opts.CheckTimeout <= 0 {
		opts.CheckTimeout = DefaultCheckTimeout
	}
	if opts.MaxTime <= 0 {
		opts.MaxTime = DefaultMaxTime
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Parallel <= 0 {
		opts.Parallel = DefaultParallel
	}
	ctx, cancel := context.WithTimeoutCause(ctx, opts.MaxTime, errMaxTime{opts.MaxTime})
	defer cancel()
	r := &runner{ctx: ctx, target: target, opts: opts, eras: map[string]*eraProbe{},
		secrets: append(slices.Clone(opts.Secrets), redact.JSONForms(opts.Secrets)...)}
	r.watches = newWatches(r)
	var selected []*Check
	for _, c := range Catalogue() {
		if Selected(c, opts.Only, opts.Skip) {
			selected = append(selected, c)
		}
	}
	report := &Report{Server: target.Server, Selected: len(selected)}
	octx, ocancel := context.WithTimeout(ctx, opts.MaxTime)
	main, err := target.Open(octx, SessionHooks{Note: r.watches.note, Log: slog.New(junkHandler{r: r})})
	ocancel()
	if err != nil {
		return nil, err
	}
	r.main = main
	if target.Done != nil {
		defer target.Done()
	}
	defer r.closeAll()
	r.facts = gatherFacts(ctx, r)
	report.Era, report.Version = r.facts.era, r.facts.version

	results := make(map[*Check]Outcome, len(selected))
	var rmu sync.Mutex // guards results and done
	done := 0
	record := func(c *Check, o Outcome) {
		rmu.Lock()
		results[c] = o
		done++
		n := done
		rmu.Unlock()
		if opts.Progress != nil {
			opts.Progress(n, len(selected), c.ID)
		}
	}
	var units [][]*Check
	groups := map[string]int{}
	var watchers []*Check
	for _, c := range selected {
		switch {
		case c.watch != nil:
			watchers = append(watchers, c)
		case c.group == "":
			units = append(units, []*Check{c})
		default:
			i, ok := groups[c.group]
			if !ok {
				i = len(units)
				groups[c.group] = i
				units = append(units, nil)
			}
			units[i] = append(units[i], c)
		}
	}
	work := make(chan []*Check)
	var wg sync.WaitGroup
	for range min(opts.Parallel, max(len(units), 1)) {
		wg.Add(1)
		go func() { // one of the check workers: stops when work is closed
			defer wg.Done()
			for unit := range work {
				g := &group{}
				for _, c := range unit {
					record(c, r.runCheck(ctx, c, g))
				}
				g.close()
			}
		}()
	}
	for _, u := range units {
		work <- u
	}
	close(work)
	wg.Wait()
	for _, c := range watchers {
		record(c, r.runCheck(ctx, c, nil))
	}
	for _, c := range selected {
		o := results[c]
		if o.Status == Failed && c.Level == SHOULD && !opts.Strict {
			o.Status = Warned
		}
		report.Results = append(report.Results, Result{Check: c, Outcome: o})
	}
	if ctx.Err() != nil {
		report.Stopped = context.Cause(ctx)
	}
	report.Took = time.Since(start)
	return report, nil
}

// group is the connection a group of checks shares, opened by the first
// that asks for it and opened anew after one that left it broken.
type group struct {
	mu sync.Mutex // guards c: a check that overran its time is closed from outside
	c  *conn
}

func (g *group) close() {
	g.mu.Lock()
	c := g.c
	g.c = nil
	g.mu.Unlock()
	if c != nil {
		c.close()
	}
}

// get is the group's connection if it still answers, else nil.
func (g *group) get() *conn {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.c != nil && g.c.alive() {
		return g.c
	}
	return nil
}

// set makes c the group's connection, closing the one before.
func (g *group) set(c *conn) {
	g.mu.Lock()
	old := g.c
	g.c = c
	g.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// track records a connection, for closeAll.
func (r *runner) track(c *conn) {
	r.mu.Lock()
	r.conns = append(r.conns, c)
	r.mu.Unlock()
}

// closeAll closes every connection still open: each server process of
// the run ends, whatever became of its check.
func (r *runner) closeAll() {
	r.mu.Lock()
	conns := r.conns
	r.conns = nil
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() { // check's connection closer: ends when the connection is closed (bounded)
			defer wg.Done()
			c.close()
		}()
	}
	wg.Wait()
}

// runCheck runs one check under its time bound.
func (r *runner) runCheck(ctx context.Context, c *Check, g *group) Outcome {
	start := time.Now()
	if ctx.Err() != nil {
		return Outcome{Status: Skipped, Message: "not run: " + safetext.Line(context.Cause(ctx).Error())}
	}
	if why := r.unmet(ctx, c.needs); why != "" {
		return Outcome{Status: Skipped, Message: why}
	}
	cctx, cancel := context.WithCancelCause(ctx)
	clk := newClock(r.opts.CheckTimeout, func() { cancel(fmt.Errorf("the check's time (%s) ran out", r.opts.CheckTimeout)) })
	defer clk.halt()
	defer cancel(nil)
	t := &T{ctx: cctx, r: r, check: c, g: g, clock: clk}
	ended := make(chan Outcome, 1)
	go func() { // check body: ends when the check returns, fails or skips (runtime.Goexit)
		defer func() {
			if p := recover(); p != nil {
				t.out = Outcome{Status: Failed, Message: fmt.Sprintf("the check itself failed: %v", p)}
			}
			ended <- t.out
		}()
		if c.watch != nil {
			if c.run != nil {
				c.run(t) // what the watch is to see, when nothing else ran
			}
			r.watches.result(t)
			return
		}
		c.run(t)
	}()
	var out Outcome
	select {
	case out = <-ended:
	case <-cctx.Done():
		// A check waits only on what honours its context; one that does
		// not return soon after is left, and its connection closed.
		select {
		case out = <-ended:
		case <-time.After(2 * time.Second):
			if g != nil {
				g.close()
			}
			out = Outcome{Status: Failed, Message: safetext.Line(context.Cause(cctx).Error())}
		}
	}
	t.closeOwn()
	if ctx.Err() != nil && out.Status != Passed {
		return Outcome{Status: Skipped, Message: "not run to its end: " + safetext.Line(context.Cause(ctx).Error()), Took: time.Since(start)}
	}
	t.out = out
	t.out.Took = time.Since(start)
	t.out.Sent = r.mask(t.out.Sent, 300)
	t.out.Received = r.mask(t.out.Received, 300)
	t.out.Message = r.mask(t.out.Message, 400)
	for i, n := range t.out.Notes {
		t.out.Notes[i] = r.mask(n, 300)
	}
	return t.out
}

// mask makes text from the server fit a report: clipped to n bytes,
// secrets masked, a terminal's controls shown escaped.
func (r *runner) mask(s string, n int) string {
	return safetext.Line(safetext.Clip(redact.String(string(redact.JSON([]byte(s))), r.secrets), n))
}

// unmet says why a check's needs are not met, or "".
func (r *runner) unmet(ctx context.Context, n needs) string {
	f := r.facts
	switch {
	case n.transport == "stdio" && f.transport != "stdio":
		return "applies to stdio servers"
	case n.transport == "http" && f.transport != "http":
		return "applies to HTTP servers"
	case n.call && len(r.opts.Calls) == 0:
		return "needs a tool call: name one with --call 'TOOL key=value ...'"
	case f.sse && (n.transport == "http" || n.era == "legacy"):
		return sseSkip
	case n.auth && !f.authAsked:
		return "the server asks for no authorization (it answered without credentials)"
	}
	if n.capability != "" && !f.declares(n.capability) {
		return fmt.Sprintf("the server does not declare %q", n.capability)
	}
	if n.era != "" && n.era != f.era {
		if ok, why := r.offers(ctx, n.era); !ok {
			return why
		}
	}
	return ""
}

// T is a check being run: what it has at hand, and what it found.
type T struct {
	ctx   context.Context
	r     *runner
	check *Check
	g     *group
	out   Outcome
	mu    sync.Mutex // guards own: closed from outside when the check overruns
	own   []*conn    // connections of the check's own, closed when it ends
	clock *clock     // the check's time, which stands while a server it started starts
}

// clock is a check's time: it runs while the check does, and stands
// while a server the check started is starting (bounded apart, by
// Options.StartTimeout), so that a server slow to start is not a check
// that fails.
type clock struct {
	mu    sync.Mutex    // guards the fields below
	left  time.Duration // the time left when it last stood
	since time.Time     // when it started running again; zero while it stands
	timer *time.Timer   // fires out when the time is up; nil while it stands
	out   func()
}

func newClock(d time.Duration, out func()) *clock {
	c := &clock{left: d, out: out}
	c.run()
	return c
}

// run starts the clock again.
func (c *clock) run() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer == nil && c.out != nil {
		c.since = time.Now()
		c.timer = time.AfterFunc(c.left, c.out)
	}
}

// stand stops the clock until run.
func (c *clock) stand() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil && c.timer.Stop() {
		c.left -= time.Since(c.since)
		c.timer = nil
	}
}

// halt stops the clock for good.
func (c *clock) halt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.out = nil
}

// starting runs start-up (fn) with the check's clock standing, bounded
// by Options.StartTimeout.
func (t *T) starting(fn func(ctx context.Context)) {
	t.clock.stand()
	defer t.clock.run()
	ctx, cancel := context.WithTimeoutCause(t.ctx, t.r.opts.StartTimeout, fmt.Errorf("the server did not start within %s", t.r.opts.StartTimeout))
	defer cancel()
	fn(ctx)
}

// sseSkip is why the checks that need Streamable HTTP skip a server of
// the HTTP+SSE transport.
const sseSkip = "the server speaks the deprecated HTTP+SSE transport of 2024-11-05; this check (or its connection of its own) needs Streamable HTTP"

// dial opens a connection of the check's, its start not counted in the
// check's time.
func (t *T) dial(o connOptions) (c *conn, err error) {
	if t.r.facts.sse {
		t.Skip(sseSkip)
	}
	t.starting(func(ctx context.Context) { c, err = t.r.dial(ctx, o) })
	return c, err
}

// closeOwn closes the check's own connections.
func (t *T) closeOwn() {
	t.mu.Lock()
	own := t.own
	t.own = nil
	t.mu.Unlock()
	for _, c := range own {
		c.close()
	}
}

// Fail ends the check: the requirement does not hold, for the reason
// given.
func (t *T) Fail(format string, args ...any) {
	t.out.Status, t.out.Message = Failed, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// Skip ends the check: it does not apply, for the reason given.
func (t *T) Skip(format string, args ...any) {
	t.out.Status, t.out.Message = Skipped, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// Note adds a line that does not change the outcome.
func (t *T) Note(format string, args ...any) {
	if len(t.out.Notes) < 5 {
		t.out.Notes = append(t.out.Notes, fmt.Sprintf(format, args...))
	}
}

// Sent and Got record what was sent and what came back, for a failure.
func (t *T) Sent(s string) { t.out.Sent = s }
func (t *T) Got(s string)  { t.out.Received = s }

// conn is the group's connection (or the check's own), opened in the
// main session's era when it is not open, or no longer answers.
func (t *T) conn() *conn {
	return t.connWith(connOptions{})
}

// connWith is conn, opened with o.
func (t *T) connWith(o connOptions) *conn {
	if t.g != nil {
		if c := t.g.get(); c != nil {
			return c
		}
	}
	c, err := t.dial(o)
	if err != nil {
		t.failErr("opening a connection of the check's own", err)
	}
	if t.g != nil {
		t.g.set(c)
	}
	return c
}

// fresh is a connection of the check's own, not the group's, closed
// when the check ends.
func (t *T) fresh(o connOptions) *conn {
	c, err := t.dial(o)
	if err != nil {
		t.failErr("opening a connection of the check's own", err)
	}
	t.mu.Lock()
	t.own = append(t.own, c)
	t.mu.Unlock()
	return c
}

// failErr fails the check on an error that kept it from what it was
// doing.
func (t *T) failErr(doing string, err error) {
	if t.ctx.Err() != nil {
		t.Fail("%s: no answer: %v", doing, context.Cause(t.ctx))
	}
	t.Fail("%s: %s", doing, oneLine(err.Error()))
}

// oneLine is an error's message on one line: the server's stderr that a
// transport error quotes joined to it.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\nlast lines of the server's stderr:\n  | ", "; its stderr ends: ")
	return strings.ReplaceAll(s, "\n  | ", " | ")
}

// request sends a request on c and fails the check when no response
// comes (the connection broke, the time ran out).
func (t *T) request(c *conn, method string, params json.RawMessage) (mcp.Message, *exchange) {
	m, x, err := c.request(t.ctx, method, params)
	if err != nil {
		t.Sent(method)
		t.failErr(method, err)
	}
	return m, x
}

// call sends a request through the main session and returns its result
// or its JSON-RPC error; any other failure fails the check.
func (t *T) call(method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	res, rerr := t.callInput(method, params)
	if res == nil && rerr == nil {
		t.Sent(method + " " + string(params))
		t.Skip("%s asks for input (input_required), which mcpv check does not give", method)
	}
	return res, rerr
}

// callInput is call, except that a request the server keeps asking input
// for returns neither a result nor an error.
func (t *T) callInput(method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	res, err := t.r.main.Call(t.ctx, method, params)
	var rte *mcp.ResultTypeError
	if errors.As(err, &rte) && rte.Rounds > 0 {
		return nil, nil
	}
	var ce *mcp.CallError
	if errors.As(err, &ce) {
		return nil, ce.Err
	}
	if err != nil {
		t.Sent(method + " " + string(params))
		t.failErr(method, err)
	}
	t.r.watches.seeResult(method, res)
	return res, nil
}

// clip cuts s to n bytes, saying how much was left out.
func clip(s string, n int) string { return safetext.Clip(s, n) }

// member is a JSON object's member, raw; nil when absent or raw is no
// JSON object (rawjson's walk is for JSON known to be valid).
func member(raw json.RawMessage, key string) json.RawMessage {
	if !rawjson.IsObject(raw) || !json.Valid(raw) {
		return nil
	}
	return rawjson.Member(raw, key)
}

// str is a JSON string's value; ok false for anything else.
func str(raw json.RawMessage) (string, bool) {
	s, err := rawjson.String(raw)
	return s, err == nil
}

// errText is a JSON-RPC error in a line.
func errText(e *mcp.RPCError) string {
	return fmt.Sprintf("error %d: %s", e.Code, clip(strings.TrimSpace(e.Message), 200))
}
