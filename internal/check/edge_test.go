package check

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A MUST check is held to the exact scope of the sentence it quotes: a
// correct server at the edge of that scope (the legal behaviour closest to
// the defect) passes it, in each era and on each transport the check
// applies to. The edge servers below are correct servers, each at the edge
// of the checks it holds; TestEveryMustHasItsEdges keeps every MUST check
// of the catalogue held by one in each place it applies.

// edgeServer is a correct server at the edges of the MUST checks it holds.
type edgeServer struct {
	name string
	fake fake
	// holds are the MUST checks this server is at the edge of: each must
	// pass here (unsure: end in a warning, a check that says it cannot
	// tell).
	holds  []string
	unsure []string
	// skips are the checks that must not fail here but skip, saying why:
	// the server is legal and the rule does not bind it.
	skips []string
	long  string
}

// edgeSurface is a surface at the edges of the schema: every optional
// member the revision has (titles, icons, annotations, _meta, execution,
// output schemas with $defs, a description of the server), content of
// every kind in results (an image, an audio clip, a link, embedded text
// and a blob), resources of odd URIs read as text, as a blob and as
// several contents, templates with every operator, completions with a
// total, and names with dots, dashes and underscores.
var edgeSurface = map[string]string{
	"serverInfo": `{"name":"edge-server","title":"Edge ☃ Server","version":"1.0.0-rc.1+build.7","description":"At the edges.","websiteUrl":"https://example.com/edge",
		"icons":[{"src":"data:image/png;base64,iVBORw0KGgo=","mimeType":"image/png","sizes":["16x16","any"],"theme":"dark"}]}`,
	"instructions": `"Use it \u2014 carefully.\nTwo lines."`,
	"capabilities": `{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"logging":{},"completions":{},"experimental":{"com.example.mcpv/x":{"on":true}}}`,
	"tools": `[
		{"name":"slow","title":"Slow","description":"Takes a while.","inputSchema":{"type":"object","properties":{}},"annotations":{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false,"title":"Slow one"},"_meta":{"com.example.mcpv/cost":1}},
		{"name":"shaped","description":"Structured.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","description":"N.","minimum":0}},"required":["n"],"additionalProperties":false},
		 "outputSchema":{"type":"object","properties":{"n":{"type":"integer"},"items":{"type":"array","items":{"$ref":"#/$defs/item"}}},"required":["n"],"$defs":{"item":{"type":"object","properties":{"k":{"type":"string"}}}}},
		 "icons":[{"src":"https://example.com/i.svg","mimeType":"image/svg+xml"}],"execution":{"taskSupport":"forbidden"}},
		{"name":"media.get-all_v2","description":"Every kind of content.","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"q":{"type":["string","null"],"default":null}}}},
		{"name":"legacy-schema","description":"A draft-07 schema.","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"p":{"type":"string","pattern":"^\\p{L}+$"}},"properties":{"p":{"$ref":"#/definitions/p"},"when":{"type":"string","format":"date-time"}},"dependencies":{"p":["when"]}}}]`,
	"callResults": `{
		"shaped":{"content":[{"type":"text","text":"{\"n\":1,\"items\":[{\"k\":\"a\"}],\"extra\":true}"}],"structuredContent":{"n":1,"items":[{"k":"a"}],"extra":true},"isError":false},
		"media.get-all_v2":{"content":[
			{"type":"text","text":"","annotations":{"audience":["user","assistant"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"}},
			{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},
			{"type":"audio","data":"UklGRg==","mimeType":"audio/ogg; codecs=opus"},
			{"type":"resource_link","uri":"file:///tmp/a%20b.txt","name":"a b","mimeType":"text/plain","size":0,"description":"A link."},
			{"type":"resource","resource":{"uri":"mem://blob","mimeType":"application/octet-stream","blob":""}},
			{"type":"resource","resource":{"uri":"mem://text","text":"x","_meta":{"k":1}}}]}}`,
	"prompts": `[
		{"name":"hello","title":"Hello","description":"Hello.","icons":[{"src":"https://example.com/h.png"}],"_meta":{"a.b-c/d_e":1}},
		{"name":"greet","description":"Greets.","arguments":[{"name":"who","title":"Who","description":"Who.","required":true},{"name":"how"}]},
		{"name":"rich","description":"Every content."}]`,
	"promptResults": `{
		"hello":{"description":"Hi.","messages":[{"role":"user","content":{"type":"text","text":"hi","annotations":{"priority":1}}},{"role":"assistant","content":{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}}]},
		"rich":{"messages":[
			{"role":"user","content":{"type":"audio","data":"","mimeType":"audio/wav"}},
			{"role":"user","content":{"type":"resource","resource":{"uri":"mem://blob","blob":"AAEC/w=="}}},
			{"role":"assistant","content":{"type":"resource_link","uri":"https://example.com/x?y=1#z","name":"x"}},
			{"role":"assistant","content":{"type":"text","text":"\u0000\u001f é ☃","_meta":{"com.example/x":true}}}]}}`,
	"resources": `[
		{"uri":"mem://a","name":"a","title":"A","mimeType":"text/plain; charset=utf-8","size":0,"annotations":{"audience":["user"],"priority":0,"lastModified":"2025-06-18T10:00:00Z"},"icons":[{"src":"https://example.com/a.png"}]},
		{"uri":"file:///tmp/b%20c.bin","name":"b","mimeType":"application/octet-stream"},
		{"uri":"https://example.com/docs?x=1#y","name":"web","description":"A page."},
		{"uri":"urn:isbn:0451450523","name":"book"},{"uri":"my-app+v2.x://hé/%F0%9F%98%80/a;b=c","name":"odd"},{"uri":"data:text/plain;base64,aGk=","name":"data"}]`,
	"readResults": `{
		"mem://a":{"contents":[{"uri":"mem://a","mimeType":"text/plain; charset=utf-8","text":"","_meta":{"com.example/rev":2}}]},
		"file:///tmp/b%20c.bin":{"contents":[{"uri":"file:///tmp/b%20c.bin","mimeType":"application/octet-stream","blob":"AAEC/w=="}]},
		"https://example.com/docs?x=1#y":{"contents":[{"uri":"https://example.com/docs?x=1#y","text":"page"},{"uri":"https://example.com/docs/child","text":"child"}]}}`,
	"resourceTemplates": `[{"uriTemplate":"mem://{id}{?q,lang}","name":"t"},{"uriTemplate":"file:///{+path}","name":"p","mimeType":"text/plain"},{"uriTemplate":"mem://x{/seg*}{#frag}","name":"s"},
		{"uriTemplate":"mem://{name:3}{;x,y}{&more*}{.ext}","name":"m"}]`,
	"answers":  `{"completion/complete":{"completion":{"values":["a","b"],"total":2,"hasMore":false}}}`,
	"pageSize": `2`,
}

// edgesOf is the edge surface with the generic edges of the transport
// and era, and more.
func edgesOf(transport, era string, more map[string]string) map[string]string {
	edges := []string{"extra-members", "meta", "error-data", "error-code-fraction", "input-error-bare", "notify-first", "progress-float", "ascii-json"}
	if transport == "stdio" {
		edges = append(edges, "crlf")
	} else {
		edges = append(edges, "sse-priming", "json-charset")
	}
	if era == "" {
		edges = append(edges, "server-pings")
	}
	if era == "modern" {
		edges = append(edges, "param-headers")
	}
	b, _ := json.Marshal(edges)
	out := merge(edgeSurface, map[string]string{"edges": string(b)})
	if e := more["edges"]; e != "" {
		var extra []string
		json.Unmarshal([]byte(e), &extra)
		b, _ := json.Marshal(append(edges, extra...))
		more = merge(more, map[string]string{"edges": string(b)})
	}
	return merge(out, more)
}

// edgeFake is the edge surface's server.
func edgeFake(transport, era string, more map[string]string) fake {
	return fake{transport: transport, era: era, change: edgesOf(transport, era, more)}
}

// watched are the checks that judge every message: on an edge server they
// hold its every message at their edge.
var watched = []string{"jsonrpc.messages", "jsonrpc.schema", "jsonrpc.result-or-error", "jsonrpc.error-id", "jsonrpc.error-message", "jsonrpc.one-response",
	"jsonrpc.request-id", "jsonrpc.notification-id", "jsonrpc.meta-keys", "jsonrpc.request-id-unique", "jsonrpc.utf8", responseID,
	"utilities.unknown-progress", "utilities.progress-token", "utilities.cancel-own", "utilities.log-secrets",
	"lifecycle.undeclared-notifications", "lifecycle.logging-declared"}

// every are the checks every edge server of the surface holds, in each era.
var every = slices.Concat(watched, []string{"jsonrpc.string-id", "jsonrpc.number-id", "jsonrpc.notification",
	"lists.shape", "surface.input-schema", "surface.output-schema", "surface.uris", "surface.uri-templates", "surface.annotations", "surface.icons", "surface.meta-keys",
	"reading.resource-contents", "reading.prompt-messages", "reading.completion", "reading.completion-inputs",
	"utilities.progress", "tools.result", "tools.structured-result", "tools.validate-inputs"})

var modernEvery = []string{"modern.discover", "modern.result-type", "modern.cache-hints", "modern.cache-scope-pages", "modern.meta-required",
	"modern.unsupported-version", "modern.resource-not-found", "modern.listen", "modern.listen-asked", "modern.no-requests", "modern.log-unasked", "modern.error-codes",
	"modern.input-required-methods", "modern.input-required-shape", "modern.input-request-kinds", "modern.input-capabilities", "surface.param-headers", "modern.declared-lists", "modern.trace-context", "lists.per-connection"}

var legacyEvery = []string{"lifecycle.initialize", "lifecycle.version-echo", "lifecycle.version-unknown", "lifecycle.client-capabilities", "lifecycle.ping", "utilities.log-level"}

var httpEvery = []string{"http.origin", "http.dns-rebinding", "http.answer-type", "http.one-object", "http.notification-202", "http.malformed-body", "http.origin-methods"}

var httpLegacyEvery = []string{"http.session-id", "http.event-ids", "http.one-stream", "http.session-deleted", "http.protocol-version", "http.get", "http.get-no-response", "http.stream-related"}

var modernHTTPEvery = []string{"modern.header-case", "modern.method-not-found", "modern.header-method", "modern.header-version", "modern.header-missing", "modern.header-version-missing", "modern.header-name", "modern.removed-methods", "modern.stream-related"}

var edgeServers = []edgeServer{
	{name: "stdio 2025-11-25 at every edge", fake: edgeFake("stdio", "", nil),
		holds: slices.Concat(every, legacyEvery, []string{"jsonrpc.framing", "jsonrpc.stdout-only", "utilities.cancel-race"})},
	{name: "stdio 2026-07-28 at every edge", fake: edgeFake("stdio", "modern", nil),
		holds: slices.Concat(every, modernEvery, []string{"jsonrpc.framing", "jsonrpc.stdout-only", "utilities.cancel-race", "modern.cancel-call"})},
	{name: "HTTP 2025-11-25 at every edge, every answer a stream", fake: withSSE(edgeFake("http", "", map[string]string{"edges": `["session-every-response"]`, "faults": `["get-stream"]`})),
		holds: slices.Concat(every, legacyEvery, httpEvery, httpLegacyEvery, []string{"utilities.cancel-race"})},
	{name: "HTTP 2025-11-25 at every edge, every stream polled", fake: withSSE(edgeFake("http", "", map[string]string{"edges": `["session-every-response","sse-polling"]`, "faults": `["get-stream"]`})),
		holds: slices.Concat(every, legacyEvery, httpEvery, httpLegacyEvery, []string{"utilities.cancel-race", "http.resume"})},
	{name: "HTTP 2026-07-28 at every edge", fake: edgeFake("http", "modern", nil),
		holds: slices.Concat(every, modernEvery, httpEvery, modernHTTPEvery, []string{"modern.cancel-call"})},
}

// quiet is a server that declares none of tools, prompts and resources,
// and answers their lists all the same, empty (as servers built on an SDK
// do): an empty list offers nothing.
func quiet(transport, era string) fake {
	return fake{transport: transport, era: era, change: map[string]string{"capabilities": `{"logging":{}}`, "tools": `[]`, "prompts": `[]`, "resources": `[]`, "resourceTemplates": `[]`,
		"serveUndeclared": `["tools/list","prompts/list","resources/list","resources/templates/list"]`}}
}

// noCompletions is a server that declares everything but completions,
// and refuses completion/complete (-32601).
func noCompletions(transport, era string) fake {
	return fake{transport: transport, era: era, change: map[string]string{"capabilities": `{"tools":{},"prompts":{},"resources":{"subscribe":true},"logging":{}}`}}
}

var undeclared = []string{"lifecycle.undeclared", "lifecycle.undeclared-prompts", "lifecycle.undeclared-resources"}

// older is the edge surface of a server of the initialize era whose
// latest version is versions' first, with more.
func older(transport string, versions string, more map[string]string) fake {
	return edgeFake(transport, "", merge(map[string]string{"versions": versions}, more))
}

// edgeApps is the app fixture at the edges of the extension: the app's
// HTML a base64 blob, its media type's parameter spelt with a space, its
// domains origins with ports and WebSocket schemes, every key of its
// _meta.ui, a tool visible to the model and the app.
func edgeApps(t testing.TB, transport, era string) fake {
	c := appsChange(t, func(tools, _ []map[string]any, read, caps map[string]any) {
		m := shapedMeta(tools)["ui"].(map[string]any)
		m["visibility"] = []string{"model", "app"}
		read["blob"] = base64.StdEncoding.EncodeToString([]byte(read["text"].(string)))
		delete(read, "text")
		read["_meta"] = map[string]any{"ui": map[string]any{"csp": map[string]any{"connectDomains": []string{"https://api.test:8443", "wss://live.test"},
			"resourceDomains": []string{"https://cdn.test"}, "frameDomains": []string{}}, "prefersBorder": false, "domain": "https://app.test"}}
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}, "com.example.mcpv/other": map[string]any{}}
	})
	return fake{transport: transport, era: era, change: c}
}

var appsHeld = []string{"extensions.identifiers", "apps.resource-uri", "apps.resource-exists", "apps.mime-type", "apps.content", "apps.html", "apps.csp", "apps.text-fallback"}

// edgeSkills is the skills fixture with _meta on its entry.
func edgeSkills(transport, era string) fake {
	return fake{transport: transport, era: era, change: skillsChange(mcptest.SkillMD, func(e map[string]any) {
		e["_meta"] = map[string]any{"com.example.mcpv/source": "edge"}
	})}
}

var skillsHeld = []string{"extensions.identifiers", "skills.methods", "skills.entries", "skills.manifest", "skills.directory"}

var authHeld = []string{"auth.challenge", "auth.resource-metadata", "auth.metadata-location", "auth.server-metadata", "auth.invalid-token", "auth.challenge-scope", "auth.offline-access"}

func addEdgeServers() {
	addAsksEdgeServers()
	for _, tr := range []string{"stdio", "http"} {
		for _, era := range []string{"", "modern"} { // a file resource deep in a directory whose name a URI escapes
			edgeServers = append(edgeServers, edgeServer{name: tr + " " + cmp.Or(era, "legacy") + " listing a file deep in a directory", holds: []string{"reading.path-traversal"},
				fake: edgeFake(tr, era, map[string]string{"resources": `[{"uri":"file:///srv/my%20docs/guide/readme.md","name":"readme"}]`})})
		}
	}
	t := &testing.T{}
	edgeServers = append(edgeServers,
		// The lists answered empty, the capability undeclared.
		edgeServer{name: "stdio 2025-11-25 declaring nothing, lists empty", fake: quiet("stdio", ""), holds: undeclared},
		edgeServer{name: "stdio 2026-07-28 declaring nothing, lists empty", fake: quiet("stdio", "modern"), holds: undeclared},
		edgeServer{name: "HTTP 2025-11-25 declaring nothing, lists empty", fake: quiet("http", ""), holds: undeclared},
		edgeServer{name: "HTTP 2026-07-28 declaring nothing, lists empty", fake: quiet("http", "modern"), holds: undeclared},
		// Completions undeclared, and completion/complete refused.
		edgeServer{name: "stdio 2025-11-25 without completions", fake: noCompletions("stdio", ""), holds: []string{"lifecycle.undeclared-completions"}},
		edgeServer{name: "stdio 2026-07-28 without completions", fake: noCompletions("stdio", "modern"), holds: []string{"lifecycle.undeclared-completions"}},
		edgeServer{name: "HTTP 2025-11-25 without completions", fake: noCompletions("http", ""), holds: []string{"lifecycle.undeclared-completions"}},
		edgeServer{name: "HTTP 2026-07-28 without completions", fake: noCompletions("http", "modern"), holds: []string{"lifecycle.undeclared-completions"}},
		// Older revisions, where the rules differ: a foreign Origin
		// refused with 400, the version header unread in 2025-03-26,
		// batches answered in another order.
		edgeServer{name: "HTTP 2025-06-18 refusing a foreign Origin with 400", fake: older("http", `["2025-06-18","2025-03-26"]`, map[string]string{"edges": `["origin-refused-400"]`, "faults": `["get-stream"]`}),
			holds: slices.Concat(legacyEvery, httpEvery, httpLegacyEvery)},
		edgeServer{name: "HTTP 2025-03-26 with batches, no version header", fake: older("http", `["2025-03-26"]`, map[string]string{"edges": `["origin-refused-400","version-header-ignored","batch-reversed"]`}),
			holds: slices.Concat(legacyEvery, httpEvery, []string{"jsonrpc.batch-2025-03-26", "http.session-id", "http.event-ids", "http.session-deleted", "http.get"}), skips: []string{"http.protocol-version"}},
		edgeServer{name: "stdio 2025-03-26 with batches answered in another order", fake: older("stdio", `["2025-03-26","2024-11-05"]`, map[string]string{"edges": `["batch-reversed"]`}),
			holds: slices.Concat(legacyEvery, []string{"jsonrpc.batch-2025-03-26"})},
		edgeServer{name: "stdio 2025-06-18", fake: older("stdio", `["2025-06-18"]`, nil), holds: legacyEvery},
		// Pings on a timer of the server's own, each under a new id.
		edgeServer{name: "stdio 2025-11-25 pinging every 1.5 s", fake: edgeFake("stdio", "", map[string]string{"edges": `["timed-pings"]`}),
			holds: slices.Concat(every, legacyEvery), long: "its pings come 1.5 s apart, and a run shorter waits for the second"},
		// Sessions: none at all; or one a client may not end.
		edgeServer{name: "HTTP 2025-11-25 without sessions", fake: edgeFake("http", "", map[string]string{"edges": `["no-sessions"]`}),
			holds: slices.Concat(every, legacyEvery, httpEvery, []string{"http.event-ids", "http.one-stream", "http.get", "http.protocol-version"}), skips: []string{"http.session-id", "http.session-deleted"}},
		edgeServer{name: "HTTP 2025-11-25 whose sessions a client may not end", fake: edgeFake("http", "", map[string]string{"edges": `["delete-405"]`}),
			holds: []string{"http.session-id"}, skips: []string{"http.session-deleted"}},
		// The 2026-07-28 era: the initialize era's methods still served,
		// any version discovered, caching hints of a private scope, a
		// subscription that notifies at once, input asked only of a
		// client that can answer.
		edgeServer{name: "HTTP 2026-07-28 serving ping, private caches, input asked", fake: edgeFake("http", "modern", merge(mrtrChange("removed-methods-served", "discover-any-version"),
			map[string]string{"edges": `["listen-notifies"]`, "ttlMs": `86400000`, "cacheScope": `"private"`, "prompts": `[{"name":"hello","description":"Hello."},{"name":"ask","description":"Asks who."}]`})),
			holds: slices.Concat(modernEvery, modernHTTPEvery, asksEvery, []string{"modern.request-state", "modern.input-declined", "modern.capabilities-per-request"})},
		edgeServer{name: "stdio 2026-07-28 keeping its results longer than an int64 of milliseconds", fake: edgeFake("stdio", "modern", map[string]string{"ttlMs": `1e19`}),
			holds: []string{"modern.cache-hints"}},
		edgeServer{name: "stdio 2026-07-28 input asked, any version discovered", fake: edgeFake("stdio", "modern", merge(mrtrChange("discover-any-version"),
			map[string]string{"edges": `["listen-notifies"]`, "prompts": `[{"name":"hello","description":"Hello."},{"name":"ask","description":"Asks who."}]`})),
			holds: slices.Concat(modernEvery, asksEvery, []string{"modern.request-state", "modern.input-declined", "modern.capabilities-per-request", "modern.cancel-listen"})},
		edgeServer{name: "HTTP 2026-07-28 with a header-mirrored argument", fake: fake{transport: "http", era: "modern", change: map[string]string{"tools": headerTools}},
			holds: []string{"modern.header-param", "modern.header-param-missing", "modern.header-param-numeric", "modern.header-param-invalid"}},
		edgeServer{name: "HTTP 2026-07-28 mirroring an argument a call does not give", fake: fake{transport: "http", era: "modern", change: map[string]string{"tools": absentHeaderTools}},
			holds: []string{"modern.header-param-absent"}},
		// A request without MCP-Protocol-Version read as 2025-03-26, as
		// a server that serves clients of before 2025-06-18 may.
		edgeServer{name: "HTTP 2026-07-28 reading a request without its version header as 2025-03-26", fake: fake{transport: "http", era: "modern",
			change: map[string]string{"edges": `["missing-version-as-2025-03-26"]`}}, holds: []string{"modern.header-version-missing"}},
		// Completion refused for an argument the server has none for:
		// no values to bound.
		edgeServer{name: "stdio 2025-11-25 refusing a completion", fake: edgeFake("stdio", "", map[string]string{"errors": `{"completion/complete":{"code":-32602,"message":"no completions for that argument"}}`}),
			skips: []string{"reading.completion"}},
		edgeServer{name: "HTTP 2026-07-28 refusing a completion", fake: edgeFake("http", "modern", map[string]string{"errors": `{"completion/complete":{"code":-32602,"message":"no completions for that argument"}}`}),
			skips: []string{"reading.completion"}},
		// A list the server cannot give now, its backend unreachable: an
		// error is an answer, and has no list's shape to judge.
		edgeServer{name: "stdio 2025-11-25 whose resources cannot be listed now", fake: edgeFake("stdio", "", map[string]string{"errors": unreachable}), skips: []string{"lists.shape"}},
		edgeServer{name: "HTTP 2026-07-28 whose resources cannot be listed now", fake: edgeFake("http", "modern", map[string]string{"errors": unreachable}), skips: []string{"lists.shape"}},
		// A tool that requires a task, refused without one with data.
		edgeServer{name: "stdio 2025-11-25 with a tool that requires a task", fake: edgeFake("stdio", "", withJob), holds: []string{"tools.task-required"}},
		edgeServer{name: "HTTP 2025-11-25 with a tool that requires a task", fake: edgeFake("http", "", withJob), holds: []string{"tools.task-required"}},
		// Extensions: an app and skills at their edges, in each era and
		// on each transport.
		edgeServer{name: "stdio 2025-11-25 app", fake: edgeApps(t, "stdio", ""), holds: appsHeld},
		edgeServer{name: "stdio 2026-07-28 app", fake: edgeApps(t, "stdio", "modern"), holds: appsHeld},
		edgeServer{name: "HTTP 2025-11-25 app", fake: edgeApps(t, "http", ""), holds: appsHeld},
		edgeServer{name: "HTTP 2026-07-28 app", fake: edgeApps(t, "http", "modern"), holds: appsHeld},
		edgeServer{name: "stdio 2025-11-25 skills", fake: edgeSkills("stdio", ""), holds: skillsHeld},
		edgeServer{name: "stdio 2026-07-28 skills", fake: edgeSkills("stdio", "modern"), holds: skillsHeld},
		edgeServer{name: "HTTP 2025-11-25 skills", fake: edgeSkills("http", ""), holds: skillsHeld},
		edgeServer{name: "HTTP 2026-07-28 skills", fake: edgeSkills("http", "modern"), holds: skillsHeld},
		// A card with a remote listing an older version the server speaks.
		edgeServer{name: "HTTP 2025-11-25 card", fake: fake{transport: "http", change: map[string]string{"card": cardWithRemote(`["2025-06-18","2025-11-25"]`)}}, holds: []string{"card.valid"}},
		edgeServer{name: "HTTP 2026-07-28 card", fake: fake{transport: "http", era: "modern", change: map[string]string{"card": goodCard}}, holds: []string{"card.valid"}},
		// Authorization: a token of the server's own, which MCP's
		// authorization does not cover (its checks skip but for the
		// challenge); OAuth as it should be.
		edgeServer{name: "HTTP 2025-11-25 with a token of its own", fake: fake{transport: "http", auth: "no-metadata"}, holds: []string{"auth.challenge"},
			skips: []string{"auth.resource-metadata", "auth.metadata-location", "auth.server-metadata", "auth.invalid-token", "auth.challenge-scope", "auth.offline-access"}},
		edgeServer{name: "HTTP 2025-11-25 behind OAuth", fake: fake{transport: "http", auth: "ok"}, holds: slices.DeleteFunc(slices.Clone(authHeld), func(id string) bool { return id == "auth.offline-access" })},
		edgeServer{name: "HTTP 2026-07-28 behind OAuth", fake: fake{transport: "http", era: "modern", auth: "ok"}, holds: authHeld},
	)
}

// unreachable answers resources/list as a server whose backend is down does.
const unreachable = `{"resources/list":{"code":-32603,"message":"connect ECONNREFUSED 127.0.0.1:9"}}`

func withSSE(f fake) fake {
	f.sse = true
	return f
}

// A correct server at the edge of a MUST's scope is not failed by it, nor
// by any other MUST check.
func TestEdgesOfMusts(t *testing.T) {
	t.Parallel()
	var musts []string
	for _, c := range Catalogue() {
		if c.Level == MUST {
			musts = append(musts, c.ID)
		}
	}
	for _, es := range edgeServers {
		t.Run(es.name, func(t *testing.T) {
			if es.long != "" {
				testkit.SkipLong(t, es.long)
			}
			t.Parallel()
			results := runShared(t, es.fake, musts...)
			for _, id := range musts {
				r := results[id]
				want, held := Status(-1), false
				switch {
				case slices.Contains(es.holds, id):
					want, held = Passed, true
				case slices.Contains(es.unsure, id):
					want, held = Warned, true
				case slices.Contains(es.skips, id):
					want, held = Skipped, true
				}
				switch {
				case held && r.Status != want:
					t.Errorf("want %s: %s", want, describeResult(r))
				case !held && r.Status == Failed:
					t.Errorf("a correct server failed: %s", describeResult(r))
				}
			}
		})
	}
}

// place is where a check applies: an era (and in the initialize era a
// version) and a transport.
type place struct{ era, version, transport string }

func (p place) String() string {
	if p.era == "modern" {
		return "2026-07-28 over " + p.transport
	}
	return p.version + " over " + p.transport
}

// placeOf is where a fake's server is.
func placeOf(f fake) place {
	if f.era == "modern" {
		return place{"modern", mcpModern, f.transport}
	}
	v := f.version
	var spec struct {
		Versions []string `json:"versions"`
	}
	json.Unmarshal([]byte("{\"versions\":"+f.change["versions"]+"}"), &spec)
	if v == "" && len(spec.Versions) > 0 {
		v = spec.Versions[0]
	}
	if v == "" {
		v = "2025-11-25"
	}
	return place{"legacy", v, f.transport}
}

const mcpModern = "2026-07-28"

// placesOf are the places a check applies to, as its needs say, at the
// initialize-era versions versionsOf names (2025-11-25 by default), but
// for those notIn names.
func placesOf(c *Check) []place {
	eras := []string{"legacy", "modern"}
	if c.needs.era != "" {
		eras = []string{c.needs.era}
	}
	transports := []string{"stdio", "http"}
	if c.needs.transport != "" {
		transports = []string{c.needs.transport}
	}
	var out []place
	for _, e := range eras {
		versions := []string{mcpModern}
		if e == "legacy" {
			versions = []string{"2025-11-25"}
			if vs, ok := versionsOf[c.ID]; ok {
				versions = vs
			}
		}
		for _, v := range versions {
			for _, tr := range transports {
				p := place{e, v, tr}
				if _, no := notIn[c.ID+" "+p.String()]; !no {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// versionsOf are the initialize-era versions at which a check is held,
// where its rule is not 2025-11-25's alone: the revision it is of, or the
// older ones whose rule differs.
var versionsOf = map[string][]string{
	"jsonrpc.batch-2025-03-26":  {"2025-03-26"},
	"http.origin":               {"2025-11-25", "2025-06-18", "2025-03-26"},
	"http.dns-rebinding":        {"2025-11-25", "2025-06-18", "2025-03-26"},
	"http.protocol-version":     {"2025-11-25", "2025-06-18"},
	"http.one-object":           {"2025-11-25", "2025-03-26"},
	"lifecycle.version-echo":    {"2025-11-25", "2025-06-18", "2025-03-26"},
	"lifecycle.version-unknown": {"2025-11-25", "2025-06-18", "2025-03-26"},
}

// notIn are the places a check's needs admit where its rule does not
// apply, each with why.
var notIn = map[string]string{
	"utilities.cancel-race 2026-07-28 over http":     "a request of the 2026-07-28 era over HTTP is cancelled by closing its stream: no notification crosses its response",
	"jsonrpc.batch-2025-03-26 2026-07-28 over stdio": "batches are 2025-03-26's",
	"jsonrpc.batch-2025-03-26 2026-07-28 over http":  "batches are 2025-03-26's",
}

// noEdge are the MUST checks that need a broken peer to run at all, each
// with why.
var noEdge = map[string]string{}

// Every MUST check of the catalogue is held at its edge by a correct
// server in each era and on each transport it applies to.
func TestEveryMustHasItsEdges(t *testing.T) {
	held := map[string]bool{}
	for _, es := range edgeServers {
		p := placeOf(es.fake)
		for _, id := range slices.Concat(es.holds, es.unsure) {
			held[id+" "+p.String()] = true
		}
	}
	musts, covered := 0, 0
	for _, c := range Catalogue() {
		if c.Level != MUST {
			continue
		}
		musts++
		if _, ok := noEdge[c.ID]; ok {
			continue
		}
		missing := []string{}
		for _, p := range placesOf(c) {
			if !held[c.ID+" "+p.String()] {
				missing = append(missing, p.String())
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s: no correct server at its edge in %s", c.ID, strings.Join(missing, ", "))
			continue
		}
		covered++
	}
	t.Logf("%d MUST checks, %d held at their edges everywhere they apply, %d exempt", musts, covered, len(noEdge))
}

// cardWithRemote is goodCard with a remote at the endpoint listing the
// versions given (a JSON array).
func cardWithRemote(versions string) string {
	return strings.Replace(goodCard, `"description"`, `"remotes":[{"type":"streamable-http","url":"{{endpoint}}","supportedProtocolVersions":`+versions+`}],"description"`, 1)
}
