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

const (
	// extSpec is the extensions overview the 2026-07-28 revision links
	// (SEP-2133); the rule on identifiers is stated in that revision's
	// schema.
	extSpec  = "SEP-2133"
	extPage  = "extensions/overview#negotiation"
	appsSpec = "ext-apps 2026-01-26"
)

func extensionChecks() []*Check {
	return []*Check{
		{
			ID: "extensions.identifiers", Title: "declared extensions are identifiers with settings objects", Level: MUST,
			Spec: "2026-07-28", Section: "schema#ServerCapabilities",
			Quote: "Optional MCP extensions that the server supports. Keys are extension identifiers ... and values are per-extension settings objects ... Keys MUST follow the [_meta] key naming rules ... with a mandatory prefix",
			run: func(t *T) {
				ext := t.r.main.ServerExtensions()
				if ext == nil {
					t.Skip("the server declares no extensions")
				}
				if ps := mcp.ExtensionProblems(ext); len(ps) > 0 {
					t.FailGot(clipped(ext), "%s", strings.Join(ps, "; "))
				}
			},
		},
		// The overview says how support is advertised, with no requirement
		// word on advertising only what is served: a declaration the
		// server does not keep misleads a host, which is a warning.
		{
			ID: "extensions.declared-served", Title: "an extension the server declares is one it serves", Level: SHOULD,
			Spec: extSpec, Section: extPage,
			Quote: "Clients and servers advertise their support for extensions in the extensions field within their respective capability declarations",
			run: func(t *T) {
				// The skills extension's methods are skills.methods' (a MUST).
				if !t.r.main.HasExtension(mcp.UIExtension) {
					t.Skip("the server declares no extension mcpv can try here (ui; skills has checks of its own)")
				}
				if len(appTools(t)) == 0 {
					t.Fail("the server declares %s, but none of its tools carries an app (_meta.ui.resourceUri)", mcp.UIExtension)
				}
			},
		},
		// "must" here is in lower case, not the RFC 2119 keyword, and
		// the extension says no more of a server that serves apps
		// undeclared: a warning.
		{
			ID: "extensions.served-declared", Title: "an extension the server serves is one it declares", Level: SHOULD,
			Spec: appsSpec, Section: "apps#overview",
			Quote: "As an extension, MCP Apps is optional and must be explicitly negotiated between clients and servers through the extension capabilities mechanism",
			run: func(t *T) {
				if n := len(appTools(t)); n > 0 && !t.r.main.HasExtension(mcp.UIExtension) {
					t.FailGot(clip(string(t.r.main.ServerExtensions()), 200), "%d of its tools carry an app, but the server does not declare %s: a host that holds to the negotiation shows none", n, mcp.UIExtension)
				}
			},
		},
		// The shape of a tool's _meta.ui is given by the extension's
		// interface, with no requirement word: a tool that breaks it is a
		// warning.
		appCheck("apps.tool-meta", SHOULD, "apps#resource-discovery", "a tool's _meta.ui has the shape the extension defines",
			`Tools are associated with UI resources through the _meta.ui field ... "model": Tool visible to and callable by the agent ... "app": Tool callable by the app from this server only`, "apps.tool-meta", "apps.visibility"),
		appCheck("apps.resource-uri", MUST, "apps#content-requirements", "an app's resource uses the ui:// scheme", "URI MUST start with ui:// scheme", "apps.resource-uri"),
		// A deprecation notice, with no requirement word: a warning.
		appCheck("apps.deprecated-key", SHOULD, "apps#resource-discovery", "an app is named by _meta.ui.resourceUri", `The flat _meta["ui/resourceUri"] format is deprecated. Use _meta.ui.resourceUri instead.`, "apps.deprecated-key"),
		appCheck("apps.resource-exists", MUST, "apps#behavior", "an app's resource can be read", "Resource MUST exist on the server ... Host MUST use resources/read to fetch the referenced resource URI", "apps.resource-exists"),
		appCheck("apps.mime-type", MUST, "apps#content-requirements", "an app's content is text/html;profile=mcp-app", "mimeType MUST be text/html;profile=mcp-app", "apps.mime-type"),
		appCheck("apps.content", MUST, "apps#content-requirements", "an app's content is text or a base64 blob", "Content MUST be provided via either text (string) or blob (base64-encoded)", "apps.content"),
		appCheck("apps.html", MUST, "apps#content-requirements", "an app's content is an HTML5 document", "Content MUST be valid HTML5 document", "apps.html", "apps.size"),
		// The interface bounds each declared domain to an origin: one
		// that is no origin, or admits every one, is outside it, and a
		// host refuses the app (as mcpv app does); an origin reached
		// without encryption is only a warning, as mcpv app has it.
		appCheckOf(&Check{ID: "apps.csp", Level: MUST, Section: "apps#ui-resource-format", Title: "an app's declared domains are origins, none admitting everything",
			Quote: "Servers declare which external origins their UI needs to access. Hosts use this to enforce appropriate CSP headers ... Origins for network requests (fetch/XHR/WebSocket)"},
			only(apps.Error), "apps.csp"),
		appCheckOf(&Check{ID: "apps.csp-encrypted", Level: SHOULD, Section: "apps#ui-resource-format", Title: "an app's declared origins are reached with encryption",
			Quote: "Servers declare which external origins their UI needs to access. Hosts use this to enforce appropriate CSP headers ... Origins for network requests (fetch/XHR/WebSocket)"},
			only(apps.Warning), "apps.csp"),
		// The shape of a resource's _meta.ui is given by the extension's
		// interface, with no requirement word: a warning.
		appCheck("apps.resource-meta", SHOULD, "apps#ui-resource-format", "an app's _meta.ui has the shape the extension defines",
			"Resource metadata for security and rendering configuration ... Includes Content Security Policy configuration, dedicated domain settings, and visual preferences", "apps.resource-meta", "apps.permissions"),
		appCheck("apps.listed-mime-type", SHOULD, "apps#ui-resource-format", "resources/list gives an app's resource the extension's media type",
			"MIME type of the UI content ... SHOULD be text/html;profile=mcp-app for HTML-based UIs in the initial MVP", "apps.listed-mime-type"),
		{
			ID: "apps.text-fallback", Title: "a tool with an app returns content for hosts without apps", Level: MUST,
			Spec: appsSpec, Section: "apps#server-behavior",
			Quote: "Graceful Degradation ... Tools MUST return meaningful content array even when UI is available",
			needs: needs{call: true, capability: "tools"},
			run: func(t *T) {
				checked := false
				for i, c := range t.r.opts.Calls {
					if _, ok := apps.OfTool(t.calledTool(c.Tool)); !ok {
						continue
					}
					checked = true
					rec := t.r.callOnce(t, i)
					r := apps.Report{Valid: true}
					r.AddCall(nil, rec.result)
					if !r.Valid {
						t.Sent(rec.sent)
						t.FailGot(clipped(rec.result), "%s", r.Problems[0].Message)
					}
				}
				if !checked {
					t.Skip("none of the tools named with --call carries an app")
				}
			},
		},
	}
}

// appCheck is the check of one of the extension's requirements, kept by
// what internal/apps finds under rules, over every app the server's
// tools carry.
func appCheck(id string, level Level, section, title, quote string, rules ...string) *Check {
	return appCheckOf(&Check{ID: id, Title: title, Level: level, Section: section, Quote: quote}, only(apps.Error, apps.Warning), rules...)
}

// only is a choice of the levels of problems that fail a check.
func only(levels ...apps.Level) func(apps.Level) bool {
	return func(l apps.Level) bool { return slices.Contains(levels, l) }
}

// appCheckOf is appCheck of c, failed by the problems of the rules whose
// level counts. A check of what an app's resource holds is blocked by
// apps.resource-exists when no resource could be read.
func appCheckOf(c *Check, counts func(apps.Level) bool, rules ...string) *Check {
	c.Spec, c.needs = appsSpec, needs{capability: "tools"}
	content := !slices.Contains([]string{"apps.tool-meta", "apps.resource-uri", "apps.deprecated-key", "apps.resource-exists"}, c.ID)
	c.run = func(t *T) {
		reports := appReports(t)
		if len(reports) == 0 {
			t.Skip("none of the server's tools carries an app")
		}
		read, unread := 0, ""
		for _, r := range reports {
			if content && r.ResourceURI != "" && slices.ContainsFunc(r.Problems, func(p apps.Problem) bool { return p.Rule == "apps.resource-exists" }) {
				unread = r.ResourceURI
				continue
			}
			read++
			for _, p := range r.Problems {
				if !slices.Contains(rules, p.Rule) || !counts(p.Level) {
					continue
				}
				t.Sent(fmt.Sprintf("tools/list, then resources/read %s", r.ResourceURI))
				t.Fail("tool %q: %s", r.Tool, p.Message)
			}
		}
		if read == 0 && unread != "" {
			t.Block("apps.resource-exists", "no app's resource could be read (%s)", unread)
		}
	}
	return c
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
	listed := false
	var out []apps.Report
	read := 0
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
		if !listed && t.r.facts.declares("resources") {
			listing, _ = t.r.facts.items(t.ctx, "resources/list")
			listed = true
		}
		var entry json.RawMessage
		for _, l := range listing {
			if uri, _ := str(member(l, "uri")); uri == a.ResourceURI {
				entry = l
			}
		}
		r, _ := apps.Check(a, nil, res, readErr, entry, 0)
		out = append(out, r)
	}
	return out
}

const cardSpec = "SEP-2127"

// cardChecks hold the card a server over HTTP offers at its endpoint's
// URL + /server-card to the extension's schema, and to what the server
// says once connected.
func cardChecks() []*Check {
	return []*Check{
		{
			ID: "card.valid", Title: "the server's card has the schema's shape", Level: MUST,
			Spec: cardSpec, Section: "schema#ServerCard",
			Quote: "The Server Card JSON Schema URI that this document conforms to. Required ... Server name in reverse-DNS format. Must contain exactly one forward slash separating namespace from server name ... Version ranges are rejected ... Clear human-readable explanation of server functionality",
			needs: needs{transport: "http"},
			run: func(t *T) {
				c, problems, url := fetchCard(t)
				for _, p := range problems {
					if p.Level == servercard.Error {
						t.Sent("GET " + url)
						t.FailGot(clipped(c.Raw), "%s", p.Message)
					}
				}
			},
		},
		{
			ID: "card.agrees", Title: "the server's card says what the server says", Level: SHOULD,
			Spec: cardSpec, Section: "discovery#consistency-with-runtime-behavior",
			Quote: "A Server Card SHOULD accurately reflect the server's runtime behavior: the values a client observes once connected ... SHOULD NOT contradict the equivalent values declared in the Server Card",
			needs: needs{transport: "http"},
			run: func(t *T) {
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
					t.Sent("GET " + url)
					t.FailGot(clipped(c.Raw), "%s", strings.Join(lines, "; "))
				}
			},
		},
	}
}

// supported are the versions of those the card lists that the server
// supports, asked version by version: in the 2026-07-28 era those its
// server/discover lists (discovered), in the initialize era those it
// echoes when initialize offers them. A card that lists a version the
// server speaks agrees with it, whichever version the run negotiated.
func (t *T) supported(c servercard.Card, discovered []string) []string {
	out := slices.Clone(discovered)
	if out == nil {
		out = []string{}
	}
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
	if err != nil {
		t.Skip("the server's URL takes no card: %v", err)
	}
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
