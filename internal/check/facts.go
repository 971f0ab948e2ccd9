package check

// What the run learns of the server before the checks: from the main
// session, its era, version and capabilities, its lists (walked once,
// bounded) and their lint; over HTTP, whether it asks for authorization.
// Which eras the server answers besides the main session's is asked once,
// when a check first needs to know (offers).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/toolargs"
	"github.com/mcpv/mcpv/mcp"
)

// listBudget bounds the bytes of one list's items a run keeps.
const listBudget = 64 << 20

// listNames are the list methods.
func listNames() []string {
	var out []string
	for _, l := range mcp.Lists {
		out = append(out, l.Method)
	}
	return out
}

type facts struct {
	transport string // "stdio" or "http"
	era       string // the main session's: "legacy" or "modern"
	version   string
	init      json.RawMessage // the main session's initialize result (or what discovery gave)
	main      *mcp.Client

	lister  *surface.Lister
	itemsMu sync.Mutex // guards lister's walks
	lint    []surface.Finding
	lintErr error // the lint could not run to its end

	authAsked bool      // without credentials the server answered 401
	auth      *exchange // that answer
	// sse: the server speaks the deprecated HTTP+SSE transport of
	// 2024-11-05 (its endpoint refuses a POST without a JSON-RPC error),
	// which the main session fell back to, and which the check's own
	// connections do not speak.
	sse bool
	// offeredLatest: the main session's initialize offered the latest
	// version, so that its answer is one lifecycle's asks need.
	offeredLatest bool
	// pingBroken says how the server fails ping in the initialize era
	// (lifecycle.ping reports it; the other checks wait on another
	// request instead); "" when it answers.
	pingBroken string
}

// lists are the lists of the capabilities the server declares, in mcp.Lists' order.
func (f *facts) lists() []mcp.List {
	return slices.DeleteFunc(slices.Clone(mcp.Lists), func(l mcp.List) bool { return !f.declares(l.Capability) })
}

// declares reports whether the server declares a capability ("tools", "resources.subscribe").
func (f *facts) declares(path string) bool { return f.main.HasCapability(path) }

// items are a list's items, walked once.
func (f *facts) items(ctx context.Context, method string) ([]json.RawMessage, error) {
	f.itemsMu.Lock()
	defer f.itemsMu.Unlock()
	return f.lister.Items(ctx, method)
}

func gatherFacts(ctx context.Context, r *runner) *facts {
	f := &facts{transport: map[bool]string{true: "http", false: "stdio"}[r.target.URL != ""], main: r.main, version: r.main.ProtocolVersion(),
		init: r.main.InitializeResult().Raw(), era: map[bool]string{true: "modern", false: "legacy"}[r.main.Modern()]}
	r.facts = f
	r.known.Store(f)
	withLock(&r.wire.mu, func() { f.offeredLatest = r.wire.offered == mcp.LatestVersion })
	withLock(&r.watches.mu, func() { r.watches.f = f; r.watches.flush() }) // what came before the facts is judged now
	f.lister = surface.NewLister(r.main)
	f.lister.Budget = listBudget
	pinged := make(chan string, 1)
	go func() { pinged <- pingProbe(ctx, r, f) }() // checker's ping probe: ends within the check's time
	r.wire.call(ctx, listNames(), func(ctx context.Context) (json.RawMessage, error) {
		lctx, cancel := context.WithTimeoutCause(ctx, 4*r.opts.CheckTimeout, &outOfTime{checkTime: true, d: 4 * r.opts.CheckTimeout})
		defer cancel()
		f.lint, f.lintErr = f.lister.Lint(lctx)
		if na := (*nullAnswer)(nil); errors.As(context.Cause(ctx), &na) {
			f.lintErr = na
		}
		return nil, nil
	})
	f.pingBroken = <-pinged
	if f.transport == "http" {
		// Without credentials, a server that wants authorization answers 401.
		if x := probeFirst(ctx, r, f, httpReq{plain: true}); x != nil {
			f.authAsked, f.auth = x.status == http.StatusUnauthorized, x
		}
		// A server of the HTTP+SSE transport refuses the POST the main
		// session sent first (400, 404 or 405) with no JSON-RPC error.
		x := probeFirst(ctx, r, f, httpReq{})
		f.sse = x != nil && len(x.msgs) == 0 && slices.Contains([]int{http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed}, x.status)
	}
	return f
}

// probeFirst sends what the main session sent first, as hr has it, on a
// bare connection of its own within a check's time; nil when no answer
// came.
func probeFirst(ctx context.Context, r *runner, f *facts, hr httpReq) *exchange {
	pctx, cancel := context.WithTimeout(ctx, r.opts.CheckTimeout)
	defer cancel()
	c, err := r.dial(pctx, connOptions{era: f.era, bare: true})
	if err != nil {
		return nil
	}
	if _, x, err := firstExchange(pctx, c, f.version, hr); err == nil {
		return x
	}
	return nil
}

// firstExchange sends on c, a bare connection, what opens its era
// (initialize offering version, or server/discover), as hr has it, and
// returns the method sent and the answer.
func firstExchange(ctx context.Context, c *conn, version string, hr httpReq) (string, *exchange, error) {
	method, params := "initialize", c.initializeParams(version)
	if c.era == "modern" {
		method, params = "server/discover", c.stamp(nil)
	}
	hr.body, _ = mcp.EncodeRequest(json.RawMessage(`1`), method, params)
	x, err := c.post(ctx, hr, json.RawMessage(`1`))
	return method, x, err
}

// eraProbe is whether the server answers an era, asked once.
type eraProbe struct {
	done chan struct{} // closed once ok and why are set
	ok   bool
	why  string // why not
}

// offers reports whether the server answers era ("legacy": initialize;
// "modern": 2026-07-28 requests), asking it once on a connection of its
// own; why says why not.
func (r *runner) offers(ctx context.Context, era string) (bool, string) {
	if era == r.facts.era {
		return true, ""
	}
	r.mu.Lock()
	p, asked := r.eras[era]
	if !asked {
		p = &eraProbe{done: make(chan struct{})}
		r.eras[era] = p
	}
	r.mu.Unlock()
	if !asked {
		p.ok, p.why = r.answersEra(ctx, era)
		close(p.done)
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		return false, "not known whether the server answers the " + map[bool]string{true: "2026-07-28 era", false: "initialize era"}[era == "modern"] + ": " + context.Cause(ctx).Error()
	}
	return p.ok, p.why
}

// answersEra asks, on a connection of its own within a check's time,
// whether the server answers era; why says why not.
func (r *runner) answersEra(ctx context.Context, era string) (ok bool, why string) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.CheckTimeout)
	defer cancel()
	if era == "legacy" {
		c, err := r.dial(ctx, connOptions{era: "legacy"})
		if err != nil {
			return false, "the server speaks only the 2026-07-28 era: " + clip(err.Error(), 200)
		}
		c.close()
		return true, ""
	}
	// The main session's probe asked already, as it opened.
	if ms, err := mcp.DecodeMessages([]byte(r.wire.lastAnswer("server/discover"))); err == nil && len(ms) == 1 {
		if why := notModern(ms[0]); why != "" {
			return false, why + " (as the session opened)"
		}
	}
	c, err := r.dial(ctx, connOptions{era: "modern", bare: true})
	if err != nil {
		return false, "not known whether the server answers the 2026-07-28 era: " + clip(err.Error(), 200)
	}
	defer c.close()
	m, _, err := c.request(ctx, "server/discover", nil)
	if err != nil {
		return false, "the server does not answer server/discover: " + clip(err.Error(), 200)
	}
	why = notModern(m)
	return why == "", why
}

// notModern says why an answer to server/discover is not a server of the 2026-07-28 era's, or "".
func notModern(m mcp.Message) string {
	if m.Error != nil {
		return "the server does not speak the 2026-07-28 era (server/discover: " + errText(m.Error) + ")"
	}
	var d struct {
		Supported []string `json:"supportedVersions"`
	}
	if p := malformed(m.Result, &d, "server/discover's result"); p != "" {
		return p
	}
	if !slices.ContainsFunc(d.Supported, mcp.IsModern) {
		return fmt.Sprintf("server/discover lists no version of the 2026-07-28 era (%q)", d.Supported)
	}
	return ""
}

// lintOf are the lint's findings of severity and the rules given.
func (f *facts) lintOf(severity string, rules ...string) []surface.Finding {
	return slices.DeleteFunc(slices.Clone(f.lint), func(fd surface.Finding) bool { return fd.Severity != severity || !slices.Contains(rules, fd.Rule) })
}

// lintDone ends t when the lint could not run to its end: the listing
// broke, which lists.shape reports (the others are blocked by it), ran
// out of time (inconclusive), or was answered with an error of a null id
// (jsonrpc.error-id). A list past its budget is no failure.
func (t *T) lintDone() { t.listingBroke(t.r.facts.lintErr) }

// listed is a list's items, walked once; t ends as lintDone says when the walk broke.
func (t *T) listed(method string) []json.RawMessage {
	if l, ok := mcp.ListOf(method); ok && !t.r.facts.declares(l.Capability) {
		return nil // a list the server does not declare is none (lifecycle.undeclared asks for it)
	}
	items, err := t.r.facts.items(t.ctx, method)
	if ce := (*mcp.CallError)(nil); !errors.As(err, &ce) || ce.Err == nil || ce.Err.Code != mcp.CodeMethodNotFound {
		t.listingBroke(err) // a declared list answered -32601 is none too: lifecycle.declared warns of it
	}
	return items
}

// listingBroke ends t as lintDone says, when err is not nil.
func (t *T) listingBroke(err error) {
	var na *nullAnswer
	var rte *mcp.ResultTypeError
	switch {
	case err == nil || errors.As(err, new(*surface.BudgetError)):
	case errors.As(err, new(*outOfTime)), errors.As(err, new(*mcp.TimeoutError)), errors.Is(err, context.DeadlineExceeded):
		t.Inconclusive("listing the server's surface: no answer in time (%s); a slow server is no violation (give it more time with --check-timeout)", oneLine(err.Error()))
	case errors.As(err, &na):
		t.Block(errorID, "listing the server's surface: %s", na)
	case errors.As(err, &rte) && rte.Rounds == 0 && rte.Type != "input_required":
		t.Block("modern.result-type", "listing the server's surface: %s", rte)
	case t.check.ID == "lists.shape":
		t.Fail("listing the server's surface failed: %s", oneLine(err.Error()))
	default:
		t.Block("lists.shape", "listing the server's surface failed: %s", oneLine(err.Error()))
	}
}

// pingProbe asks the main session, in the initialize era, for a ping and
// at once for a method no server has: when the second is answered and
// the ping is not, long after (twenty times what the second took, two
// seconds at least), or the ping is refused, it says how. "" when the
// ping is answered, or nothing is known (neither is answered: a server
// that is slow, or hangs, which the checks find out as inconclusive).
func pingProbe(ctx context.Context, r *runner, f *facts) string {
	if f.era != "legacy" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.CheckTimeout)
	defer cancel()
	pinged := make(chan error, 1) // what ping got: its result is no matter
	start := time.Now()
	go func() { // checker's ping probe: ends when ping is answered, or ctx ends
		_, err := r.main.Call(ctx, "ping", nil)
		pinged <- err
	}()
	_, err := r.wire.call(ctx, []string{unknownMethod}, func(ctx context.Context) (json.RawMessage, error) { return r.main.Call(ctx, unknownMethod, nil) })
	var grace <-chan time.Time // nil when the other request got no answer: nothing is known but what ping gets
	if err == nil || errors.As(err, new(*mcp.CallError)) || errors.As(err, new(*nullAnswer)) {
		grace = time.After(max(2*time.Second, 20*time.Since(start)))
	}
	select {
	case perr := <-pinged: // how ping's error breaks the requirement, or ""
		var ce *mcp.CallError
		switch {
		case perr == nil || errors.As(perr, new(*outOfTime)) || errors.Is(perr, context.DeadlineExceeded) || errors.Is(perr, context.Canceled):
			return ""
		case errors.As(perr, &ce):
			return "ping was answered with " + errText(ce.Err)
		}
		return "ping: " + oneLine(perr.Error())
	case <-grace:
		if s := r.wire.stray(); s != "" {
			return "ping was answered under an id it was not sent with, which no request had: " + clip(s, 200)
		}
		return fmt.Sprintf("ping was not answered, though %s, sent after it, was (within %s)", unknownMethod, time.Since(start).Round(time.Millisecond))
	case <-ctx.Done():
		return ""
	}
}

// CallMistakeError is a tool named with --call that the server does not
// list, or whose arguments do not fit the schema it lists (Err): the
// user's mistake, said before any check runs.
type CallMistakeError struct {
	Tool   string
	Listed []string // the names the server lists
	Err    error    // the arguments' mistake, for a tool listed
}

func (e *CallMistakeError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("--call %s: %v", e.Tool, e.Err)
	}
	return fmt.Sprintf("--call %s: the server lists no such tool", e.Tool)
}

// toolNames are the names of the tools listed for which keep holds (of
// every tool, when keep is nil); a tool with no name string has none.
func toolNames(tools []json.RawMessage, keep func(tool json.RawMessage) bool) []string {
	var out []string
	for _, tl := range tools {
		if n, ok := str(member(tl, "name")); ok && (keep == nil || keep(tl)) {
			out = append(out, n)
		}
	}
	return out
}

// callsListed checks that each tool the user named is listed, when the
// list is known whole: one that is not is the user's mistake. (When the
// listing broke, the checks that need the tool are blocked by it.)
func (r *runner) callsListed(ctx context.Context) error {
	if len(r.opts.Calls) == 0 {
		return nil
	}
	var tools []json.RawMessage
	if r.facts.declares("tools") {
		var err error
		if tools, err = r.facts.items(ctx, "tools/list"); err != nil {
			return nil
		}
	}
	for _, c := range r.opts.Calls {
		def := r.toolDef(ctx, c.Tool)
		if def == nil {
			return &CallMistakeError{Tool: c.Tool, Listed: toolNames(tools, nil)}
		}
		if _, err := toolargs.Build(ctx, c.Words, nil, toolargs.Options{Schema: member(def, "inputSchema"), ReadFile: r.opts.ReadFile}); err != nil {
			return &CallMistakeError{Tool: c.Tool, Err: err}
		}
	}
	return nil
}
