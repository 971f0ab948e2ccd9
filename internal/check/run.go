package check

// Running the catalogue: the main session opened and the facts gathered
// from it, then the checks, up to Options.Parallel at once (a group's
// checks one after another, on the group's connection), each under its
// own time bound and all under the run's; then the watches; then every
// connection closed.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// Target is the server a run checks, and how to reach it.
type Target struct {
	Server string // names it in the report (secrets masked)
	// Stdio is how to start a stdio server (Path, Args, Env, Dir,
	// Framing); a connection of a check's own starts one more.
	Stdio *mcp.CommandOptions
	Start mcp.Starter // starts it (connect.Env.StartServer)
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
	Open       func(ctx context.Context, h SessionHooks) (*mcp.Client, error)
	Done       func()             // when set, called when the run ends
	ClientInfo mcp.Implementation // how the check's own connections name the client
	// Era is the era the main session is held to: "auto" (or ""), the
	// server/discover probe first; "legacy", initialize; "modern".
	Era string
}

// SessionHooks are what a run gives its main session.
type SessionHooks struct {
	// Trace is given every message the session sends (out) or
	// receives, as on the wire (mcp.SessionOptions.Trace).
	Trace func(out bool, msg []byte)
	// Log takes the session's warnings: those about the server's stdout
	// go to the run's watches, the rest nowhere (the report says what
	// matters).
	Log *slog.Logger
}

// errMaxTime is the cause of a run stopped by Options.MaxTime.
type errMaxTime struct{ d time.Duration }

func (e errMaxTime) Error() string { return fmt.Sprintf("the run's time limit (%s) was reached", e.d) }

// runner is one run.
type runner struct {
	ctx context.Context // the run's, which --max-time and Ctrl-C end
	// leaveAfter, when set, is how long an overrun check may take to
	// return before it is left (abandonWait; tests set it short).
	leaveAfter time.Duration
	target     *Target
	opts       Options
	main       *mcp.Client
	facts      *facts
	// known is facts for what may run before the main session's facts
	// are gathered (the first-contact diagnosis, which junk on the main
	// session starts): set once their era and version are.
	known       atomic.Pointer[facts]
	watches     *watches
	wire        *mainWire
	shared      *group // the connections of the checks that leave no state
	secrets     []string
	judgedAgain atomic.Bool // the watch checks have all run, and are judged again without traffic

	diagOnce sync.Once
	diag     *diagnosis // the first-contact diagnosis, once started

	oauth oauthOffer // what the server's 401 offers of OAuth, found once

	// headers: the server frames its messages with Content-Length
	// headers (the main session learnt it), which its connections speak.
	headers atomic.Bool

	exerciseOnce       sync.Once // exercise's traffic, made once a run
	exerciseModernOnce sync.Once // exerciseModern's
	asksOnce           sync.Once // exerciseAsks'
	// sampled: the server asked a connection for sampling (a request, or
	// an input request), so asks.sampling-tool-output asks once more.
	sampled atomic.Bool
	// formed: the server asked a connection for a form elicitation, so
	// asks.elicitation-validated calls once more.
	formed     atomic.Bool
	unanswered atomic.Int64 // the server's requests left unanswered past the answerer's bounds (answer.go)

	mu    sync.Mutex // guards conns, ended and eras
	conns []*conn
	ended bool                 // closeAll ran: a connection dialled since is closed at once
	eras  map[string]*eraProbe // whether the server answers an era, once asked

	reads   onces[string, mcp.Message] // what the main session read, once each (its result or its error)
	calls   onces[int, *callRecord]    // the --call tools' calls, once each
	invalid onces[int, *badCall]       // the --call tools' calls with arguments broken, once each
	cancels onces[int, *cancelled]     // the --call tools' calls cancelled while they run, once each
	tasks   onces[string, *taskRun]    // the tasks made of a --call tool, once an era
	pair    onces[struct{}, *taskPair] // two tasks made on one session (2025-11-25)
	// cancelled is a task made beside the run's and cancelled at once (2025-11-25)
	cancelled onces[struct{}, *cancelRun]
	asks      onces[struct{}, asking] // the prompt that asks for input (retry.go)

	// starts are the server's copies starting (stdio): beside each other
	// under its read lock; one that exited while it started (a port, a lock
	// the copies starting beside it held) starts again under its write lock,
	// alone (startCopy).
	starts sync.RWMutex // guards the copies' starts: which start beside others, which alone

	versions versionAnswers // what initialize answers to each version offered
	served   served         // the run's time waiting on the server

	sharedSession atomic.Pointer[string] // the first session id seen given to two sessions
}

// Run runs the checks opts selects against the target. The error is
// one that kept the run from starting: the main session could not be
// opened. A run stopped early (--max-time, ctx) reports what it found,
// with the checks left unrun skipped, and Report.Stopped says why.
func Run(ctx context.Context, target *Target, opts Options) (*Report, error) {
	start := time.Now()
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeoutCause(ctx, opts.MaxTime, errMaxTime{opts.MaxTime})
	defer cancel()
	r := newRunner(ctx, target, opts)
	// Over stdio, the checks that leave no state share connections, one
	// by era and version, several checks at once: one server process
	// serves them all. (Over HTTP a connection is cheap, and each check
	// has its own: no check sees another's answers.)
	if target.Stdio != nil {
		r.shared = &group{}
		defer r.shared.close()
	}
	selected := slices.DeleteFunc(slices.Clone(Catalogue()), func(c *Check) bool { return !Selected(c, opts.Only, opts.Skip) })
	if target.Done != nil {
		defer target.Done()
	}
	defer func() {
		r.wire.end()
		// What a check left running (a version still asked, an overrun
		// check's body) gives up, and no process of the run outlives it.
		cancel()
		r.versions.wg.Wait()
		r.closeAll()
	}()
	report := &Report{Server: target.Server}
	octx, ocancel := context.WithCancelCause(ctx)
	r.wire.alarm = func() { r.diagnose(ctx, func(d *defect) { ocancel(d) }) }
	main, err := target.Open(octx, SessionHooks{Trace: r.wire.trace, Log: slog.New(junkHandler{r: r})})
	r.wire.opened()
	if cause := context.Cause(octx); err != nil && cause != nil && ctx.Err() == nil {
		err = cause // the diagnosis found what kept the session from opening
	}
	ocancel(nil)
	if err != nil {
		if ctx.Err() == nil {
			if rep := r.unopened(ctx, selected, err); rep != nil {
				rep.Took = time.Since(start)
				return rep, nil
			}
		}
		return nil, err
	}
	r.main = main
	r.facts = gatherFacts(ctx, r)
	report.Era, report.Version = r.facts.era, r.facts.version
	if err := r.callsListed(ctx); err != nil {
		return nil, err
	}

	results := make(map[*Check]Outcome, len(selected))
	var rmu sync.Mutex // guards results
	record := func(c *Check, o Outcome) {
		rmu.Lock()
		results[c] = o
		n := len(results) // each check is recorded once
		rmu.Unlock()
		if opts.Progress != nil {
			opts.Progress(n, len(selected), c.ID)
		}
	}
	var units [][]*Check
	var watchers []*Check
	for _, c := range selected {
		switch {
		case c.watch != nil:
			watchers = append(watchers, c)
		case c.group == "":
			units = append(units, []*Check{c})
		default:
			i := slices.IndexFunc(units, func(u []*Check) bool { return u[0].group == c.group })
			if i < 0 {
				i, units = len(units), append(units, nil)
			}
			units[i] = append(units[i], c)
		}
	}
	work := make(chan []*Check)
	var wg sync.WaitGroup
	for range min(opts.Parallel, max(len(units), 1)) {
		wg.Go(func() { // one of the check workers: stops when work is closed
			for unit := range work {
				g := r.shared
				if unit[0].group != "" {
					g = &group{}
				}
				for _, c := range unit {
					record(c, r.runCheck(ctx, c, g))
				}
				if g != nil && g != r.shared {
					g.close()
				}
			}
		})
	}
	for _, u := range units {
		work <- u
	}
	close(work)
	wg.Wait()
	for _, c := range watchers {
		record(c, r.runCheck(ctx, c, r.shared)) // nil over HTTP
	}
	// A watch judged before another's traffic came is judged again on
	// all that came, with no traffic of its own.
	r.judgedAgain.Store(true)
	for _, c := range watchers {
		if first := results[c]; first.Status == Passed && r.watches.finds(c) {
			again := r.runCheck(ctx, c, r.shared)
			again.Notes = slices.Concat(slices.DeleteFunc(first.Notes, func(n string) bool { return strings.HasSuffix(n, " messages watched") }), again.Notes)
			again.Took += first.Took
			results[c] = again
		}
	}
	// A modern session whose server took the initialize the era probe sent on its silence too.
	mixed := report.Era == "modern" && member(json.RawMessage(r.wire.lastAnswer("initialize")), "result") != nil
	for _, c := range selected {
		o := results[c]
		if mixed && o.Status == Failed && c.Area == "modern" {
			o.Notes = append(o.Notes, "the server also took the initialize that mcpv's era probe sent while the server was silent at its start: it had both eras' handshakes on this process (--protocol-era modern sends none)")
		}
		if o.Status == Failed && (c.Level == SHOULD || c.Level == HOST) && !opts.Strict {
			o.Status = Warned
		}
		report.Results = append(report.Results, Result{Check: c, Outcome: o})
	}
	report.Stopped = context.Cause(ctx) // nil while ctx runs
	report.Took = time.Since(start)
	withLock(&r.served.mu, func() { report.ServerTime = r.served.took })
	return report, nil
}

// withDefaults is o with the default bounds where it has none.
func (o Options) withDefaults() Options {
	// A bound of none (or less) is the default's. A bound longer than a
	// run can take is as good as none: cut to an eighth of the longest
	// duration, StartTimeout+4*CheckTimeout, the most the checks add up,
	// cannot wrap round to one already passed.
	o.CheckTimeout = min(cmp.Or(max(o.CheckTimeout, 0), DefaultCheckTimeout), math.MaxInt64/8)
	o.StartTimeout = min(cmp.Or(max(o.StartTimeout, 0), DefaultStartTimeout), math.MaxInt64/8)
	o.MaxTime = cmp.Or(max(o.MaxTime, 0), DefaultMaxTime)
	o.Parallel = cmp.Or(max(o.Parallel, 0), DefaultParallel)
	if o.Mask == nil {
		known := redact.NewScrubber(nil)
		known.Add(o.Secrets...)
		o.Mask = known.String
	}
	return o
}

func newRunner(ctx context.Context, target *Target, opts Options) *runner {
	r := &runner{ctx: ctx, target: target, opts: opts, eras: map[string]*eraProbe{}, versions: versionAnswers{asks: map[string]*versionAsk{}},
		secrets: append(slices.Clone(opts.Secrets), redact.JSONForms(opts.Secrets)...)}
	r.watches = &watches{r: r, tokens: map[string]bool{}, found: map[*Check]*finding{}}
	w := &mainWire{r: r, sent: map[string]sentReq{}, calls: map[*mainCall]bool{}, last: map[string]string{}}
	w.frags = &fragments{whole: func(b []byte) { w.take(unitsOf(b, "stdout", "", true, false)) },
		give: func(l seenLine) { w.take(l.seenOf("stdout", "")) }, held: w.fire}
	r.wire = w
	return r
}

// FirstContact replays the first exchange a session makes with the
// target, on a connection of its own, and names the requirement the
// server breaks in it that keeps a client from a session: the check's id
// and what went wrong ("", "" when none). For the connection doctor.
func FirstContact(ctx context.Context, target *Target, opts Options) (id, message string) {
	r := newRunner(ctx, target, opts.withDefaults())
	defer r.closeAll()
	if d := r.firstContact(ctx); d != nil {
		if d.received != "" {
			return d.id, r.mask(d.message, 300) + "; it sent: " + r.mask(d.received, 200)
		}
		return d.id, r.mask(d.message, 400)
	}
	return "", ""
}

// group is the connections a group of checks shares (or the checks of a
// worker that leave no state), one by era and version, each opened by
// the first check that asks for it and opened anew after one that left
// it broken.
type group struct {
	mu      sync.Mutex               // guards conns and opening: a check that overran its time is closed from outside
	conns   map[string]*conn         // by connOptions.key
	opening map[string]chan struct{} // keys being dialled, closed once done
}

func (g *group) close() {
	for _, c := range taken(&g.mu, &g.conns) {
		c.close()
	}
}

// get is the group's connection of the key if it still answers, else nil.
func (g *group) get(key string) *conn {
	if c := locked(&g.mu, func() *conn { return g.conns[key] }); c != nil && c.alive() {
		return c
	}
	return nil
}

// set makes c the group's connection of the key, closing the one before.
func (g *group) set(key string, c *conn) {
	if old := locked(&g.mu, func() *conn { old := g.conns[key]; store(&g.conns, key, c); return old }); old != nil {
		old.close()
	}
}

// track records a connection, for closeAll.
func (r *runner) track(c *conn) {
	r.mu.Lock()
	ended := r.ended
	if !ended {
		r.conns = append(r.conns, c)
	}
	r.mu.Unlock()
	if ended {
		c.close() // dialled by what the run left behind, after it ended
	}
}

// closeAll closes every connection still open: each server process of
// the run ends, whatever became of its check.
func (r *runner) closeAll() {
	withLock(&r.mu, func() { r.ended = true }) // one dialled from now is closed at once (track)
	var wg sync.WaitGroup
	for _, c := range taken(&r.mu, &r.conns) {
		wg.Go(c.close) // check's connection closer: ends when the connection is closed (bounded)
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
	clk := newClock(r.opts.CheckTimeout, func() { cancel(&outOfTime{checkTime: true, d: r.opts.CheckTimeout}) }, r.opts.afterFunc)
	defer clk.halt()
	defer cancel(nil)
	t := &T{ctx: context.WithValue(cctx, clockKey{}, clk), r: r, check: c, g: g, clock: clk}
	ended := make(chan Outcome, 1)
	go func() { // check body: ends when the check returns, fails or skips (runtime.Goexit)
		defer func() {
			if p := recover(); p != nil {
				t.out = Outcome{Status: Failed, Message: fmt.Sprintf("the check itself failed: %v", p)}
			}
			if t.out.Status == Passed && t.later != nil {
				t.out.Status, t.out.Message = t.later.Status, t.later.Message
			}
			ended <- t.out
		}()
		if c.watch != nil {
			if c.run != nil && !r.judgedAgain.Load() {
				r.traffic(t) // what the watch is to see, when nothing else ran
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
		case <-time.After(cmp.Or(r.leaveAfter, 2*time.Second)):
			if g != nil && g != r.shared {
				g.close()
			}
			out = timedOut(context.Cause(cctx))
		}
	}
	t.closeOwn()
	if ctx.Err() != nil && out.Status != Passed {
		return Outcome{Status: Skipped, Message: "not run to its end: " + safetext.Line(context.Cause(ctx).Error()), Took: time.Since(start)}
	}
	// out is the runner's own from here: t.out may still be written by a
	// check that overran and was left (its goroutine runs on), so the
	// runner never writes or reads it again.
	out.Took = time.Since(start)
	out.Sent = r.mask(out.Sent, 300)
	out.Received = r.mask(out.Received, 300)
	out.Message = r.mask(out.Message, 400)
	notes := make([]string, len(out.Notes))
	for i, n := range out.Notes {
		notes[i] = r.mask(n, 300)
	}
	out.Notes = notes
	return out
}

// mask makes text from the server fit a report: clipped to n bytes,
// secrets masked, a terminal's controls shown escaped.
func (r *runner) mask(s string, n int) string {
	return safetext.Line(safetext.Clip(r.opts.Mask(string(redact.JSON([]byte(s)))), n))
}

// unmet says why a check's needs are not met, or "".
func (r *runner) unmet(ctx context.Context, n needs) string {
	f := r.facts
	switch {
	case n.transport == "stdio" && f.transport != "stdio":
		return "applies to stdio servers"
	case n.transport == "http" && f.transport != "http":
		return "applies to HTTP servers"
	case f.sse && (n.transport == "http" || n.era == "legacy"):
		return sseSkip
	case n.call && len(r.opts.Calls) == 0:
		return "needs a tool call: name one with --call 'TOOL key=value ...'"
	case n.portable != "" && !slices.Contains(r.opts.Portable, n.portable):
		if len(r.opts.Portable) == 0 {
			return "grades the tools' schemas for a host: name the hosts with --portable (all, or some of openai,anthropic,gemini)"
		}
		return "not among the hosts --portable names"
	case n.auth && !f.authAsked:
		return "the server asks for no authorization (it answered without credentials)"
	case n.capability != "" && !f.declares(n.capability):
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
	later *Outcome   // the outcome of the check if it passes (judged)
}

// clock is a check's time: it runs while the check does, and stands
// while a server the check started is starting (bounded apart, by
// Options.StartTimeout), so that a server slow to start is not a check
// that fails.
type clock struct {
	left  time.Duration // the time left when it last stood
	since time.Time     // when it started running again; zero while it stands
	timer stopper       // fires out when the time is up; nil while it stands
	out   func()
	after afterFunc // starts timer
	held  int       // stands asked for and not yet run: it runs at none
	// followers stand while this clock does: the clocks of checks that
	// wait for what this one's check makes (onces).
	followers []*clock
}

// clocks guards every clock's fields and followers: one lock for all, since a run and
// a stand go down the followers and a follow looks for a circle (a check
// that waits for what another makes, which waits for what the first makes,
// as checks that call every --call tool in turn can).
var clocks sync.Mutex

// stopper is a timer as a clock holds it; afterFunc starts one (time.AfterFunc, or a test's clock).
type stopper interface{ Stop() bool }
type afterFunc func(time.Duration, func()) stopper

func newClock(d time.Duration, out func(), after afterFunc) *clock {
	c := &clock{left: d, out: out, after: after}
	if after == nil {
		c.after = func(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }
	}
	c.resume()
	return c
}

// run starts the clock again, and its followers', once each stand asked
// for has run: a wait inside a wait (a server's answer while its start
// stands the clock) runs it when the outer one ends.
func (c *clock) run() {
	withLock(&clocks, func() { c.held = max(c.held-1, 0) })
	c.resume()
}

// resume starts the clock and its followers', each not held.
func (c *clock) resume() { withLock(&clocks, func() { c.walk((*clock).start) }) }

// stand stops the clock until run, and its followers'.
func (c *clock) stand() { withLock(&clocks, func() { c.held++; c.walk((*clock).stop) }) }

// start and stop run and stand one clock. The caller holds clocks.
func (c *clock) start() {
	if c.timer == nil && c.out != nil && c.held == 0 {
		c.since = time.Now()
		c.timer = c.after(c.left, c.out)
	}
}

// remaining is the time left on the clock.
func (c *clock) remaining() time.Duration {
	clocks.Lock()
	defer clocks.Unlock()
	if c.timer != nil {
		return c.left - time.Since(c.since)
	}
	return c.left
}

func (c *clock) stop() {
	if c.timer != nil && c.timer.Stop() {
		c.left -= time.Since(c.since)
		c.timer = nil
	}
}

// walk calls fn for c and each clock that follows it, however far down,
// once each. The caller holds clocks.
func (c *clock) walk(fn func(*clock)) {
	seen := map[*clock]bool{}
	var visit func(*clock)
	visit = func(c *clock) {
		if seen[c] {
			return
		}
		seen[c] = true
		fn(c)
		for _, f := range c.followers {
			visit(f)
		}
	}
	visit(c)
}

// follow makes c stand while lead stands (now, or later) until the
// returned unfollow, which runs c again. A lead that follows c, however
// far down, is not followed: the two stand and run together already.
func (c *clock) follow(lead *clock) (unfollow func()) {
	clocks.Lock()
	defer clocks.Unlock()
	leads := false // lead follows c, however far down
	c.walk(func(f *clock) { leads = leads || f == lead })
	if lead == nil || lead == c || leads {
		return func() {}
	}
	lead.followers = append(lead.followers, c)
	if lead.timer == nil && lead.out != nil { // standing now
		c.walk((*clock).stop)
	}
	return func() {
		clocks.Lock()
		if i := slices.Index(lead.followers, c); i >= 0 {
			lead.followers = slices.Delete(lead.followers, i, i+1)
		}
		clocks.Unlock()
		c.resume()
	}
}

// halt stops the clock for good.
func (c *clock) halt() {
	clocks.Lock()
	defer clocks.Unlock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.out = nil
}

// starting runs start-up (fn) with the check's clock standing, bounded by Options.StartTimeout.
func (t *T) starting(fn func(ctx context.Context)) {
	t.clock.stand()
	defer t.clock.run()
	ctx, cancel := context.WithTimeoutCause(t.ctx, t.r.opts.StartTimeout, &outOfTime{d: t.r.opts.StartTimeout})
	defer cancel()
	fn(context.WithValue(ctx, clockKey{}, (*clock)(nil))) // its answers are the start's, bounded by it
}

// clockKey is the context key of a check's clock, which a wait for the
// server's answer stands (answered).
type clockKey struct{}

// answered is a wait for the server's answer (conn.await, conn.post, a
// call on the main session). The run counts it as the server's time; in a
// check it is the server's, not the check's: the check's clock stands
// while it waits, and each wait is bounded by a check's time of its own,
// so that a check of many exchanges with a slow server is not out of time
// while no answer is (the per-check budget is per exchange).
func (r *runner) answered(ctx context.Context, wait func(context.Context) error) error {
	r.served.add(1)
	defer r.served.add(-1)
	clk, _ := ctx.Value(clockKey{}).(*clock)
	if clk == nil {
		return wait(ctx)
	}
	clk.stand()
	defer clk.run()
	bound := &outOfTime{checkTime: true, answer: true, d: r.opts.CheckTimeout}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer clk.after(r.opts.CheckTimeout, func() { cancel(bound) }).Stop()
	err := wait(ctx)
	if err != nil && context.Cause(ctx) == error(bound) {
		return bound
	}
	return err
}

// served is the run's time waiting on the server: while a request of
// the run or more was unanswered.
type served struct {
	mu      sync.Mutex // guards the fields
	waiting int        // requests unanswered now
	since   time.Time  // when waiting last left 0
	took    time.Duration
}

func (s *served) add(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waiting == 0 {
		s.since = time.Now()
	}
	if s.waiting += n; s.waiting == 0 {
		s.took += time.Since(s.since)
	}
}

// sseSkip is why the checks that need Streamable HTTP skip a server of the HTTP+SSE transport.
const sseSkip = "the server speaks the deprecated HTTP+SSE transport of 2024-11-05; this check (or its connection of its own) needs Streamable HTTP"

// dial opens a connection of the check's, its start not counted in the check's time.
func (t *T) dial(o connOptions) (c *conn, err error) {
	t.skipIf(t.r.facts.sse, sseSkip)
	t.starting(func(ctx context.Context) { c, err = t.r.dial(ctx, o) })
	return c, err
}

// closeOwn closes the check's own connections.
func (t *T) closeOwn() {
	for _, c := range taken(&t.mu, &t.own) {
		c.close()
	}
}

// end ends the check with status s, for the reason given.
func (t *T) end(s Status, format string, args ...any) {
	t.out.Status, t.out.Message = s, fmt.Sprintf(format, args...)
	if s == Failed && t.check.ID != sessionUnique && t.r.sharedSession.Load() != nil {
		// One session's requests may have changed another's: not the server's own doing.
		t.out.Status, t.out.BlockedBy = Blocked, sessionUnique
		t.out.Message = "the server gives two sessions one session id, whose states may be one: " + t.out.Message
	}
	runtime.Goexit()
}

// sessionUnique is the check that names a session id given to two sessions.
const sessionUnique = "http.session-unique"

// Fail ends the check: the requirement does not hold, for the reason given.
func (t *T) Fail(format string, args ...any) { t.end(Failed, format, args...) }

// failIf is Fail when cond holds (its reason's arguments are read either way).
func (t *T) failIf(cond bool, format string, args ...any) {
	if cond {
		t.Fail(format, args...)
	}
}

// Skip ends the check: it does not apply, for the reason given.
func (t *T) Skip(format string, args ...any) { t.end(Skipped, format, args...) }

// skipIf is Skip when cond holds (its reason's arguments are read either way).
func (t *T) skipIf(cond bool, format string, args ...any) {
	if cond {
		t.Skip(format, args...)
	}
}

// Note adds a line that does not change the outcome.
func (t *T) Note(format string, args ...any) {
	if len(t.out.Notes) < 5 {
		t.out.Notes = append(t.out.Notes, fmt.Sprintf(format, args...))
	}
}

// noteIf is Note when cond holds.
func (t *T) noteIf(cond bool, format string, args ...any) {
	if cond {
		t.Note(format, args...)
	}
}

// Sent and Got record what was sent and what came back, for a failure.
func (t *T) Sent(s string) { t.out.Sent = s }
func (t *T) Got(s string)  { t.out.Received = s }

// FailGot is Fail, with got recorded as what came back.
func (t *T) FailGot(got, format string, args ...any) {
	t.Got(got)
	t.Fail(format, args...)
}

// failGotIf is FailGot when cond holds (got and the reason's arguments are read either way).
func (t *T) failGotIf(cond bool, got, format string, args ...any) {
	if cond {
		t.FailGot(got, format, args...)
	}
}

// FailExchange is FailGot, with sent recorded as what was sent.
func (t *T) FailExchange(sent, got, format string, args ...any) {
	t.Sent(sent)
	t.FailGot(got, format, args...)
}

// conn is the group's connection (or the check's own), opened when it
// is not open, or no longer answers: in the era the check is of, else in
// the main session's (a check of the 2026-07-28 era run beside a main
// session of the initialize era sends its requests as that era does,
// never on the other era's session).
func (t *T) conn() *conn { return t.connWith(connOptions{era: t.check.needs.era}) }

// connWith is conn, opened with o (never bare).
func (t *T) connWith(o connOptions) *conn {
	if t.g == nil {
		return t.fresh(o)
	}
	// The connections a group holds are told apart by their era and
	// version, as dial would choose them, and the client capabilities they
	// declare (a check asking as a client without them must not be given
	// a connection that has them).
	key := cmp.Or(o.era, t.r.facts.era) + "/" + o.version + "/" + o.capabilities
	for {
		if c := t.g.get(key); c != nil {
			return c
		}
		// One check dials a key at a time; the others wait for its
		// connection (checks share the group's at once).
		t.g.mu.Lock()
		wait, busy := t.g.opening[key]
		if !busy {
			wait = make(chan struct{})
			store(&t.g.opening, key, wait)
		}
		t.g.mu.Unlock()
		if busy {
			// Another check is starting the server: its start, which the
			// check's time does not count, bounds the wait.
			t.clock.stand()
			select {
			case <-wait:
				t.clock.run()
				continue
			case <-t.ctx.Done():
				t.failErr("waiting for the shared connection", context.Cause(t.ctx))
			}
		}
		c, err := func() (*conn, error) {
			defer func() {
				withLock(&t.g.mu, func() { delete(t.g.opening, key) })
				close(wait)
			}()
			c, err := t.dial(o)
			if err == nil {
				t.g.set(key, c)
			}
			return c, err
		}()
		t.must("opening a connection of the check's own", err)
		return c
	}
}

// fresh is a connection of the check's own, not the group's, closed when the check ends.
func (t *T) fresh(o connOptions) *conn {
	c, err := t.dial(o)
	t.must("opening a connection of the check's own", err)
	withLock(&t.mu, func() { t.own = append(t.own, c) })
	return c
}

// failErr fails the check on an error that kept it from what it was
// doing; a bound that ran out makes it inconclusive instead.
func (t *T) failErr(doing string, err error) {
	err = cmp.Or(context.Cause(t.ctx), err) // why the check's context ended, once it has
	if oot := (*outOfTime)(nil); errors.As(err, &oot) {
		t.out = timedOut(oot)
		t.out.Message = doing + ": " + t.out.Message
		runtime.Goexit()
	}
	if tw := (*twinError)(nil); errors.As(err, &tw) {
		t.Block(tw.by(), "%s: %s", doing, tw)
	}
	if na := (*nullAnswer)(nil); errors.As(err, &na) {
		t.Block(errorID, "%s: %s", doing, na)
	}
	if stray := strayIn(err); stray != "" {
		t.Block(responseID, "%s: %s", doing, stray)
	}
	// An answer that was no JSON-RPC message (an error object of the wrong
	// shape, a body that does not decode): jsonrpc.messages reports it.
	if na, tre := (*noAnswer)(nil), (*mcp.TransportError)(nil); errors.As(err, &na) && slices.ContainsFunc(na.x.msgs, func(s seen) bool { return s.bad != "" }) ||
		errors.As(err, &tre) && strings.HasPrefix(tre.Op, "the server's answer cannot be read") {
		t.Block("jsonrpc.messages", "%s: the server's answer is no JSON-RPC message: %s", doing, oneLine(err.Error()))
	}
	if te := (*mcp.TimeoutError)(nil); errors.As(err, &te) && !te.Connect && !te.Cap {
		t.Inconclusive("%s: no answer within %s; a slow server is no violation (give it more time with --timeout)", doing, te.Timeout)
	}
	// A stdio server killed by a signal another process sends (a server that
	// frees its port by killing every other of its kind, a second one started
	// by a check, kills the first), while the check still ran: mcpv check
	// sends its own only once a check is over. A signal a program raises
	// itself (an abort, a fault) stays the server's failure.
	if tre := (*mcp.TransportError)(nil); errors.As(err, &tre) && slices.Contains([]syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}, tre.Signal) {
		t.Inconclusive("%s: %s, %s: what it would have answered is not known", doing, oneLine(err.Error()), KilledFromOutside)
	} else if exited(err) && t.r.main != nil && t.r.main.Err() == nil { // a copy as the session's, asked once: one that exits too leaves it inconclusive
		c, perr := t.dial(connOptions{})
		if perr == nil {
			defer c.close()
			_, _, perr = c.request(t.ctx, t.r.probeMethod(c.era), nil)
		}
		if exited(perr) {
			t.Inconclusive("%s: %s; a copy of the server started as the session's was exited too (%s): a port or a lock one copy alone may hold?", doing, oneLine(err.Error()), oneLine(perr.Error()))
		}
	}
	t.Fail("%s: %s", doing, oneLine(err.Error()))
}

// must is failErr where err is not nil: the check goes on without one.
func (t *T) must(doing string, err error) {
	if err != nil {
		t.failErr(doing, err)
	}
}

// exited reports the error of a stdio server that ended with a status.
func exited(err error) bool {
	tre := (*mcp.TransportError)(nil)
	return errors.As(err, &tre) && strings.HasPrefix(tre.Op, "server exited")
}

// KilledFromOutside is said by a check inconclusive because its server
// was killed by another process.
const KilledFromOutside = "a signal mcpv check did not send (another process killed it)"

// Unsure ends the check with a warning, whatever its level: what it saw
// may break the requirement or may not, and the check cannot tell which;
// a failure is only for what it is sure of.
func (t *T) Unsure(format string, args ...any) { t.end(Warned, format, args...) }

// UnsureGot is Unsure, with got recorded as what came back.
func (t *T) UnsureGot(got, format string, args ...any) {
	t.Got(got)
	t.Unsure(format, args...)
}

// Block ends the check: it could not run, because the defect the check
// by names keeps it from what it needs.
func (t *T) Block(by, format string, args ...any) {
	t.out.BlockedBy = by
	t.end(Blocked, format, args...)
}

// blockIf is Block when cond holds (its reason's arguments are read either way).
func (t *T) blockIf(cond bool, by, format string, args ...any) {
	if cond {
		t.Block(by, format, args...)
	}
}

// Inconclusive ends the check: it could not tell, for the reason given (a bound that ran out).
func (t *T) Inconclusive(format string, args ...any) { t.end(Inconclusive, format, args...) }

// oneLine is an error's message on one line: the server's stderr that a
// transport error quotes joined to it.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\nlast lines of the server's stderr:\n  | ", "; its stderr ends: ")
	return strings.ReplaceAll(s, "\n  | ", " | ")
}

// request sends a request on c and fails the check when no response
// comes (the connection broke, the time ran out).
func (t *T) request(c *conn, method string, params json.RawMessage) (m mcp.Message, x *exchange) {
	var err error
	if c.stdio != nil && c.stdio.Silent() {
		// A server that has said nothing yet may still be starting: its
		// first answer ends its start, which the check's time does not
		// count.
		t.starting(func(ctx context.Context) { m, x, err = c.request(ctx, method, params) })
	} else {
		m, x, err = c.request(t.ctx, method, params)
	}
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
	res, err := t.r.wire.call(t.ctx, []string{method}, func(ctx context.Context) (json.RawMessage, error) { return t.r.main.Call(ctx, method, params) })
	if na := (*nullAnswer)(nil); errors.As(err, &na) { // an error with a null id: blocked, unless it can be tied to the call alone
		t.blockIf(na.ambiguous || na.err == nil, errorID, "%s", fmt.Sprint(na))
		t.Note("answered with an error whose id is null (%s reports it)", errorID)
		return nil, na.err
	}
	var rte *mcp.ResultTypeError
	switch {
	case errors.As(err, &rte) && rte.Rounds > 0:
		return nil, nil
	case errors.As(err, &rte) && rte.Type == "input_required":
		t.Block("modern.input-required-methods", "%s", rte)
	case errors.As(err, &rte):
		t.Block("modern.result-type", "%s", rte)
	}
	var ce *mcp.CallError
	if errors.As(err, &ce) && ce.Err != nil && ce.Err.Code == mcp.CodeMethodNotFound && t.r.facts.era == "modern" {
		// The session could not answer an input request of the server:
		// one for a capability it did not declare.
		for _, ask := range []string{"elicitation/create", "sampling/createMessage", "roots/list"} {
			t.blockIf(strings.Contains(ce.Err.Message, ask), "modern.input-capabilities", "%s asks for %s, which the session did not declare", method, ask)
		}
		// Or one that is no input request at all.
		if ask, _, input := strings.Cut(ce.Method, " (input request "); input && clientCapabilities[ask] == "" {
			t.Block("modern.input-request-kinds", "%s asks for %s, which is no input request", method, clip(ask, 60))
		}
	}
	if errors.As(err, &ce) {
		t.notServed(method, ce.Err)
		return nil, ce.Err
	}
	if err != nil {
		t.Sent(method + " " + string(params))
		t.failErr(method, err)
	}
	return res, nil
}

// clip cuts s to n bytes, saying how much was left out.
func clip(s string, n int) string { return safetext.Clip(s, n) }

// clipped is raw JSON as a failure quotes it: clipped to 300 bytes.
func clipped(raw json.RawMessage) string { return clip(string(raw), 300) }

// member is a JSON object's member, raw; nil when absent or raw is no
// JSON object (rawjson's walk is for JSON known to be valid).
func member(raw json.RawMessage, key string) json.RawMessage {
	if !rawjson.IsObject(raw) || !json.Valid(raw) {
		return nil
	}
	return rawjson.Member(raw, key)
}

// malformed decodes raw, when there, into v; it says how raw is of the wrong
// shape (the server's fault, not a member left out), "" when it decodes.
func malformed(raw json.RawMessage, v any, what string) string {
	if raw == nil || json.Unmarshal(raw, v) == nil {
		return ""
	}
	return what + " is of the wrong shape: " + clip(string(raw), 120)
}

// decode is malformed that fails the check when raw is of the wrong shape.
func (t *T) decode(raw json.RawMessage, v any, what string) {
	if p := malformed(raw, v, what); p != "" {
		t.Fail("%s", p)
	}
}

// str is a JSON string's value; ok false for anything else (null too).
func str(raw json.RawMessage) (string, bool) {
	if isNull(raw) {
		return "", false
	}
	s, err := rawjson.String(raw)
	return s, err == nil
}

// number is raw read as a JSON number (past float64's range, the
// nearest it holds); held says what raw held instead ("a string
// (\"60000\")", "null", "nothing" when absent), "" when it is a number.
func number(raw json.RawMessage) (v float64, held string) {
	t := strings.TrimSpace(string(raw))
	if t == "" {
		return 0, "nothing"
	}
	switch t[0] {
	case '"':
		return 0, "a string (" + clip(t, 40) + ")"
	case 't', 'f':
		return 0, "a boolean (" + t + ")"
	case 'n':
		return 0, "null"
	case '{':
		return 0, "an object"
	case '[':
		return 0, "an array"
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, clip(t, 40)
	}
	return v, ""
}

// errText is a JSON-RPC error in a line.
func errText(e *mcp.RPCError) string {
	return fmt.Sprintf("error %d: %s", e.Code, clip(strings.TrimSpace(e.Message), 200))
}

// outOfTime is a bound that ran out: a check's time (--check-timeout),
// or a server's time to start (--connect-timeout). Neither says the
// server broke a requirement, only that it did not answer in time: a
// check it ends is inconclusive, and says which flag gives more time.
type outOfTime struct {
	checkTime bool // the check's time; else the server's start
	answer    bool // the check's time for one answer (answered)
	d         time.Duration
}

func (e *outOfTime) Error() string {
	if e.answer {
		return fmt.Sprintf("the check's time for an answer (%s) ran out", e.d)
	}
	if e.checkTime {
		return fmt.Sprintf("the check's time (%s) ran out", e.d)
	}
	return fmt.Sprintf("the server did not start within %s", e.d)
}

// Flag is the flag that gives more time.
func (e *outOfTime) Flag() string {
	if e.checkTime {
		return "--check-timeout"
	}
	return "--connect-timeout"
}

// timedOut is the outcome of a check a bound ended: inconclusive, with
// the flag that gives more time, or failed for any other cause.
func timedOut(cause error) Outcome {
	if oot := (*outOfTime)(nil); errors.As(cause, &oot) {
		return Outcome{Status: Inconclusive, Message: fmt.Sprintf("no answer: %s; a slow server is no violation (give it more time with %s)", oot, oot.Flag())}
	}
	return Outcome{Status: Failed, Message: safetext.Line(cause.Error())}
}

// traffic runs a watch check's run for what it makes the server send,
// whatever becomes of it: the check's outcome is what the watch found.
func (r *runner) traffic(t *T) {
	sub := &T{ctx: t.ctx, r: r, check: t.check, g: t.g, clock: t.clock}
	done := make(chan struct{})
	go func() { // watch check's traffic: ends when the run returns, fails or skips (runtime.Goexit)
		defer close(done)
		defer func() { recover() }()
		sub.check.run(sub)
	}()
	<-done
	sub.closeOwn()
	if sub.out.Status != Passed {
		// The watch judges what came: exchanges that ended early are said first.
		t.Note("the exchanges this check watches ended early (%s): %s", sub.out.Status, sub.out.Message)
	}
	t.out.Notes = append(t.out.Notes, sub.out.Notes...) // what the traffic left unsaid otherwise (a bound it reached)
}
