package check

// Extensions: the "extensions" member of the server's capabilities as
// the extensions overview defines it, and whether what the server declares
// agrees with what it serves; then MCP Apps (io.modelcontextprotocol/ui,
// specification 2026-01-26) for a server whose tools carry apps, each
// requirement of the extension a check of its own, through internal/apps.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/apps"
	"github.com/mcpv/mcpv/internal/servercard"
	"github.com/mcpv/mcpv/mcp"
)

// extensionChecks are the checks of the extensions and the server card.
func extensionChecks() []*Check {
	return []*Check{
		{ID: "extensions.identifiers", run: func(t *T) {
			ext := t.r.main.ServerExtensions()
			t.skipIf(ext == nil, "the server declares no extensions")
			if ps := mcp.ExtensionProblems(ext); len(ps) > 0 {
				t.FailGot(clipped(ext), "%s", strings.Join(ps, "; "))
			}
		}},
		// The overview says how support is advertised, with no requirement
		// word on advertising only what is served: a declaration the
		// server does not keep misleads a host, which is a warning.
		{ID: "extensions.declared-served", run: func(t *T) {
			// The skills extension's methods are skills.methods' (a MUST).
			t.skipIf(!t.r.main.HasExtension(mcp.UIExtension), "the server declares no extension mcpv can try here (ui; skills has checks of its own)")
			t.failIf(len(appTools(t)) == 0, "the server declares %s, but none of its tools carries an app (_meta.ui.resourceUri)", mcp.UIExtension)
		}},
		// "must" here is in lower case, not the RFC 2119 keyword, and
		// the extension says no more of a server that serves apps
		// undeclared: a warning.
		{ID: "extensions.served-declared", run: func(t *T) {
			if n := len(appTools(t)); n > 0 && !t.r.main.HasExtension(mcp.UIExtension) {
				t.FailGot(clip(string(t.r.main.ServerExtensions()), 200), "%d of its tools carry an app, but the server does not declare %s: a host that holds to the negotiation shows none", n, mcp.UIExtension)
			}
		}},
		// The shape of a tool's _meta.ui is given by the extension's
		// interface, with no requirement word: a tool that breaks it is a
		// warning.
		appCheck("apps.tool-meta", "apps.tool-meta", "apps.visibility"),
		appCheck("apps.resource-uri", "apps.resource-uri"),
		// A deprecation notice, with no requirement word: a warning.
		appCheck("apps.deprecated-key", "apps.deprecated-key"),
		appCheck("apps.resource-exists", "apps.resource-exists"),
		appCheck("apps.mime-type", "apps.mime-type"),
		appCheck("apps.content", "apps.content"),
		appCheck("apps.html", "apps.html", "apps.size"),
		// The interface bounds each declared domain to an origin: one
		// that is no origin, or admits every one, is outside it, and a
		// host refuses the app (as mcpv app does); an origin reached
		// without encryption is only a warning, as mcpv app has it.
		appCheckOf("apps.csp", []apps.Level{apps.Error}, "apps.csp"),
		appCheckOf("apps.csp-encrypted", []apps.Level{apps.Warning}, "apps.csp"),
		// The shape of a resource's _meta.ui is given by the extension's
		// interface, with no requirement word: a warning.
		appCheck("apps.resource-meta", "apps.resource-meta", "apps.permissions"),
		appCheck("apps.listed-mime-type", "apps.listed-mime-type"),
		callCheck("apps.text-fallback", func(t *T) {
			var withApp []int
			for i, c := range t.r.opts.Calls {
				if _, ok := apps.OfTool(t.calledTool(c.Tool)); ok {
					withApp = append(withApp, i)
				}
			}
			for _, rec := range t.judged(withApp) {
				r := apps.Report{Valid: true}
				r.AddCall(nil, rec.result)
				if !r.Valid {
					t.FailExchange(rec.sent, clipped(rec.result), "%s", r.Problems[0].Message)
				}
			}
			t.skipIf(len(withApp) == 0, "none of the tools named with --call carries an app")
		}),
		// These hold the card a server over HTTP offers at its endpoint's
		// URL + /server-card to the extension's schema, and to what the server
		// says once connected.
		httpCheck("card.valid", func(t *T) {
			c, problems, url := fetchCard(t)
			for _, p := range problems {
				if p.Level == servercard.Error {
					t.FailExchange("GET "+url, clipped(c.Raw), "%s", p.Message)
				}
			}
		}),
		httpCheck("card.agrees", func(t *T) {
			c, _, url := fetchCard(t)
			live := servercard.Live{Endpoint: t.r.target.URL, Transport: "streamable-http", Version: t.r.facts.version}
			if t.r.facts.sse {
				live.Transport = "sse"
			}
			init := t.r.main.InitializeResult()
			live.ServerInfo, live.Capabilities = init.ServerInfo, init.Capabilities
			live.Version, live.Supported = "", t.supported(c, init.SupportedVersions)
			if c.Tools != nil && t.r.facts.declares("tools") {
				tools, _ := t.r.facts.items(t.ctx, "tools/list")
				live.Tools = append([]string{}, toolNames(tools, nil)...)
			}
			if d := servercard.Verify(c, live); len(d) > 0 {
				var lines []string
				for _, x := range d {
					lines = append(lines, x.Message())
				}
				t.FailExchange("GET "+url, clipped(c.Raw), "%s", strings.Join(lines, "; "))
			}
		}),
	}
}

// appCheck is the check of one of the extension's requirements, kept by
// what internal/apps finds under rules, over every app the server's
// tools carry.
func appCheck(id string, rules ...string) *Check {
	return appCheckOf(id, []apps.Level{apps.Error, apps.Warning}, rules...)
}

// appCheckOf is appCheck, failed by the problems of the rules whose
// level is one of counts. A check of what an app's resource holds is blocked by
// apps.resource-exists when no resource could be read.
func appCheckOf(id string, counts []apps.Level, rules ...string) *Check {
	content := !slices.Contains([]string{"apps.tool-meta", "apps.resource-uri", "apps.deprecated-key", "apps.resource-exists"}, id)
	return &Check{ID: id, needs: needs{capability: "tools"}, run: func(t *T) {
		reports := appReports(t)
		t.skipIf(len(reports) == 0, "none of the server's tools carries an app")
		read, unread := 0, ""
		for _, r := range reports {
			if content && r.ResourceURI != "" && slices.ContainsFunc(r.Problems, func(p apps.Problem) bool { return p.Rule == "apps.resource-exists" }) {
				unread = r.ResourceURI
				continue
			}
			read++
			for _, p := range r.Problems {
				if !slices.Contains(rules, p.Rule) || !slices.Contains(counts, p.Level) {
					continue
				}
				t.Sent(fmt.Sprintf("tools/list, then resources/read %s", r.ResourceURI))
				t.Fail("tool %q: %s", r.Tool, p.Message)
			}
		}
		t.blockIf(read == 0 && unread != "", "apps.resource-exists", "no app's resource could be read (%s)", unread)
	}}
}

// maxApps bounds the apps one run reads.
const maxApps = maxReads

// appTools are the tools listed that carry an app; the check is blocked
// by lists.shape when the listing broke, as the apps beyond it are
// unknown.
func appTools(t *T) []apps.ToolApp {
	var out []apps.ToolApp
	for _, tool := range t.listed("tools/list") {
		if a, ok := apps.OfTool(tool); ok {
			out = append(out, a)
		}
	}
	return out
}

// appReports are the reports of the apps the server's tools carry, each
// resource read once per run, bounded; a tool whose _meta.ui names no
// resource but is malformed has its problems reported too. The check is
// blocked by lists.shape when the listing broke.
func appReports(t *T) []apps.Report {
	var listing []json.RawMessage
	var out []apps.Report
	listed, read := false, 0
	for _, tool := range t.listed("tools/list") {
		a, ok := apps.OfTool(tool)
		if !ok {
			if len(a.Problems) > 0 {
				out = append(out, apps.Report{Tool: a.Tool, Problems: a.Problems})
			}
			continue
		}
		if read++; read > maxApps {
			t.Note("%d tools carry apps; the first %d were read", len(appTools(t)), maxApps)
			break
		}
		params, _ := json.Marshal(map[string]string{"uri": a.ResourceURI})
		res, rerr := t.r.readOnce(t, "resources/read", params)
		readErr := ""
		if rerr != nil {
			readErr = errText(rerr)
		}
		// Asked once: the lister keeps no walk that timed out, which would
		// be walked again for each app.
		if !listed && t.r.facts.declares("resources") {
			listing, _ = t.r.facts.items(t.ctx, "resources/list")
			listed = true
		}
		var entry json.RawMessage
		for _, l := range listing {
			if str1(member(l, "uri")) == a.ResourceURI {
				entry = l
			}
		}
		r, _ := apps.Check(a, nil, res, readErr, entry, 0)
		out = append(out, r)
	}
	return out
}

// supported are the versions of those the card lists that the server
// supports, asked version by version: in the 2026-07-28 era those its
// server/discover lists (discovered), in the initialize era those it
// echoes when initialize offers them. A card that lists a version the
// server speaks agrees with it, whichever version the run negotiated.
func (t *T) supported(c servercard.Card, discovered []string) []string {
	out := append([]string{}, discovered...)
	for _, r := range c.Remotes {
		for _, v := range r.SupportedVersions {
			switch {
			case slices.Contains(out, v):
				continue
			case v == mcp.ModernVersion:
				if ok, _ := t.r.offers(t.ctx, "modern"); ok {
					out = append(out, v)
				}
				continue
			}
			if a := t.versionAnswer(v); a.err == nil && a.rpcErr == nil && a.version == v {
				out = append(out, v)
			}
		}
	}
	return out
}

// fetchCard reads the card the server offers beside its endpoint, as a
// client would (bounded, https unless on loopback); the check is skipped
// when the server offers none.
func fetchCard(t *T) (servercard.Card, []servercard.Problem, string) {
	url := strings.TrimSuffix(t.r.target.URL, "/") + servercard.CardSuffix
	start, err := servercard.Start(url)
	t.skipIf(err != nil, "the server's URL takes no card: %v", err)
	f := servercard.New(start, servercard.Options{})
	f.DocTimeout = t.r.opts.CheckTimeout
	body, _, err := f.Get(t.ctx, url, servercard.CardType, f.MaxCard)
	var se *servercard.StatusError
	switch {
	case errors.As(err, &se) && (se.Status >= 400 && se.Status < 500 || se.Stream):
		// Any refusal of the request (404, 405, 401, or the 400 an MCP
		// handler at the endpoint's path gives a GET) offers no card.
		t.Skip("the server offers no card at %s (%v)", url, err)
	case err != nil:
		t.Sent("GET " + url)
		t.Fail("the card could not be read: %v", err)
	}
	c, ps := servercard.ParseCard(body)
	return c, ps, url
}
