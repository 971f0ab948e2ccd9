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

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// listBudget bounds the bytes of one list's items a run keeps.
const listBudget = 64 << 20

// listMethods are the paginated lists, with the capability that declares
// each and the key of their items.
var listMethods = []struct{ method, capability, key string }{
	{"tools/list", "tools", "tools"},
	{"prompts/list", "prompts", "prompts"},
	{"resources/list", "resources", "resources"},
	{"resources/templates/list", "resources", "resourceTemplates"},
}

type facts struct {
	transport string // "stdio" or "http"
	era       string // the main session's: "legacy" or "modern"
	version   string
	init      json.RawMessage // the main session's initialize result (or what discovery gave)
	main      *mcp.Client

	lister  *surface.Lister
	lint    []surface.Finding
	lintErr error // the lint could not run to its end

	// authAsked: without credentials the server answered 401.
	authAsked bool
	auth      *exchange // that answer
	// sse: the server speaks the deprecated HTTP+SSE transport of
	// 2024-11-05 (its endpoint refuses a POST without a JSON-RPC error),
	// which the main session fell back to, and which the check's own
	// connections do not speak.
	sse bool
}

// declares reports whether the server declares a capability ("tools",
// "resources.subscribe").
func (f *facts) declares(path string) bool { return f.main.HasCapability(path) }

// items are a list's items, walked once.
func (f *facts) items(ctx context.Context, method string) ([]json.RawMessage, error) {
	return f.lister.Items(ctx, method)
}

func gatherFacts(ctx context.Context, r *runner) *facts {
	f := &facts{transport: "stdio", main: r.main, version: r.main.ProtocolVersion(), init: r.main.InitializeResult(), era: "legacy"}
	r.facts = f
	if r.target.URL != "" {
		f.transport = "http"
	}
	if r.main.Modern() {
		f.era = "modern"
	}
	r.watches.know(f)
	f.lister = surface.NewLister(r.main)
	f.lister.Budget = listBudget
	lctx, cancel := context.WithTimeout(ctx, 4*r.opts.CheckTimeout)
	f.lint, f.lintErr = f.lister.Lint(lctx)
	cancel()
	if f.transport == "http" {
		f.authAsked, f.auth = authProbe(ctx, r, f)
		f.sse = sseProbe(ctx, r, f)
	}
	return f
}

// sseProbe asks the endpoint with the user's credentials what the main
// session asked first: a server of the HTTP+SSE transport refuses the
// POST (400, 404 or 405) with no JSON-RPC error in its answer.
func sseProbe(ctx context.Context, r *runner, f *facts) bool {
	pctx, cancel := context.WithTimeout(ctx, r.opts.CheckTimeout)
	defer cancel()
	c, err := r.dial(pctx, connOptions{era: f.era, bare: true})
	if err != nil {
		return false
	}
	method, params := "initialize", initializeParams(r.target.ClientInfo, f.version)
	if f.era == "modern" {
		method, params = "server/discover", c.stamp(nil)
	}
	msg, _ := mcp.EncodeRequest(json.RawMessage(`1`), method, params)
	x, err := c.post(pctx, httpReq{body: msg}, json.RawMessage(`1`))
	if err != nil || x == nil {
		return false
	}
	switch x.status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		return len(x.msgs) == 0
	}
	return false
}

// authProbe asks the server, without credentials, what the main session
// asked first: it answers 401 when it wants authorization.
func authProbe(ctx context.Context, r *runner, f *facts) (bool, *exchange) {
	pctx, cancel := context.WithTimeout(ctx, r.opts.CheckTimeout)
	defer cancel()
	c, err := r.dial(pctx, connOptions{era: f.era, bare: true})
	if err != nil {
		return false, nil
	}
	method, params := "initialize", initializeParams(r.target.ClientInfo, f.version)
	if f.era == "modern" {
		method, params = "server/discover", c.stamp(nil)
	}
	msg, _ := mcp.EncodeRequest(json.RawMessage(`1`), method, params)
	x, err := c.post(pctx, httpReq{body: msg, plain: true}, json.RawMessage(`1`))
	if err != nil || x == nil {
		return false, nil
	}
	return x.status == http.StatusUnauthorized, x
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
		p.ok, p.why = r.probeEra(ctx, era)
		close(p.done)
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		return false, "not known whether the server answers the " + eraName(era) + ": " + context.Cause(ctx).Error()
	}
	return p.ok, p.why
}

func eraName(era string) string {
	if era == "modern" {
		return "2026-07-28 era"
	}
	return "initialize era"
}

func (r *runner) probeEra(ctx context.Context, era string) (bool, string) {
	pctx, cancel := context.WithTimeout(ctx, r.opts.CheckTimeout)
	defer cancel()
	if era == "legacy" {
		c, err := r.dial(pctx, connOptions{era: "legacy"})
		if err != nil {
			return false, "the server speaks only the 2026-07-28 era: " + clip(err.Error(), 200)
		}
		c.close()
		return true, ""
	}
	c, err := r.dial(pctx, connOptions{era: "modern", bare: true})
	if err != nil {
		return false, "not known whether the server answers the 2026-07-28 era: " + clip(err.Error(), 200)
	}
	defer c.close()
	m, _, err := c.request(pctx, "server/discover", nil)
	if err != nil {
		return false, "the server does not answer server/discover: " + clip(err.Error(), 200)
	}
	if m.Error != nil {
		return false, "the server does not speak the 2026-07-28 era (server/discover: " + errText(m.Error) + ")"
	}
	var d struct {
		Supported []string `json:"supportedVersions"`
	}
	json.Unmarshal(m.Result, &d)
	if !slices.ContainsFunc(d.Supported, mcp.IsModern) {
		return false, fmt.Sprintf("server/discover lists no version of the 2026-07-28 era (%q)", d.Supported)
	}
	return true, ""
}

// lintOf are the lint's findings of the rules given.
func (f *facts) lintOf(rules ...string) []surface.Finding {
	var out []surface.Finding
	for _, fd := range f.lint {
		if slices.Contains(rules, fd.Rule) {
			out = append(out, fd)
		}
	}
	return out
}

// lintDone fails t when the lint could not run (the server could not be
// talked to while listing).
func (t *T) lintDone() {
	if err := t.r.facts.lintErr; err != nil {
		var be *surface.BudgetError
		if !errors.As(err, &be) {
			t.Fail("listing the server's surface failed: %v", err)
		}
	}
}
