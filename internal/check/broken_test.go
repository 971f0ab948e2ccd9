package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// brokenCase is a check, a fake on which it applies and passes, and what
// breaks that fake the way the check names.
type brokenCase struct {
	id     string
	fake   fake              // the correct server
	break_ map[string]string // its spec's members replaced to break it
	auth   string            // or oauthtest's Broken, for an authorization check
	// behaviours of the stdio fake that break it
	junk, ignoreExit bool
	long             string // why the case is long, if it is (testkit.SkipLong)
	// unsure: the check cannot be sure the broken server breaks the
	// requirement, and warns (T.Unsure) rather than fails
	unsure bool
}

// waitsOut is why a case is long when the broken server makes its check
// wait out one of its bounds.
const waitsOut = "the broken server makes the check wait out a bound"

// faults are a spec change that plants faults.
func faults(names ...string) map[string]string {
	b := `[`
	for i, n := range names {
		if i > 0 {
			b += ","
		}
		b += fmt.Sprintf("%q", n)
	}
	return map[string]string{"faults": b + `]`}
}

// withJob is goodSpec's tools and a tool that requires a task.
var withJob = map[string]string{"tools": `[
	{"name":"slow","description":"Takes a while.","inputSchema":{"type":"object"}},
	{"name":"echo","description":"Echoes.","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"M."}}}},
	{"name":"job","description":"A job.","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]`}

// embedsResource is goodSpec with a result of shaped's that embeds a
// resource; withoutResources, goodSpec's capabilities without resources.
var (
	embedsResource   = map[string]string{"callResults": `{"shaped":{"content":[{"type":"text","text":"{\"n\":1}"},{"type":"resource","resource":{"uri":"mem://a","text":"a"}}],"structuredContent":{"n":1}}}`}
	withoutResources = map[string]string{"capabilities": `{"tools":{"listChanged":true},"prompts":{},"logging":{},"completions":{}}`}
)

var (
	stdio       = fake{transport: "stdio"}
	stdioModern = fake{transport: "stdio", era: "modern"}
	httpLegacy  = fake{transport: "http"}
	httpModern  = fake{transport: "http", era: "modern"}
	httpAuth    = fake{transport: "http", auth: "ok"}
)

// brokenCases: one for every check of the catalogue
// (TestEveryCheckHasABrokenServer keeps it so).
var brokenCases = []brokenCase{
	{id: "jsonrpc.messages", fake: stdio, break_: faults("no-jsonrpc-version"), long: waitsOut},
	{id: "jsonrpc.stdout-only", fake: stdio, junk: true, long: waitsOut},
	{id: "jsonrpc.utf8", fake: stdio, break_: faults("bad-utf8")},
	{id: "jsonrpc.string-id", fake: stdio, break_: faults("mangle-string-id"), long: waitsOut},
	{id: "jsonrpc.number-id", fake: httpLegacy, break_: faults("mangle-number-id")},
	{id: "jsonrpc.unknown-method", fake: stdio, break_: faults("unknown-method-internal")},
	{id: "jsonrpc.invalid-params", fake: stdio, break_: faults("lenient-params")},
	{id: "jsonrpc.notification", fake: stdio, break_: faults("answer-notifications")},
	{id: "jsonrpc.parse-error", fake: stdio, break_: faults("parse-error-code")},
	{id: "jsonrpc.invalid-request", fake: stdio, break_: faults("ignore-invalid")},
	{id: "jsonrpc.survives-bad-input", fake: stdio, break_: faults("die-on-bad-input")},
	{id: "jsonrpc.batch-2025-03-26", fake: fake{transport: "stdio", version: "2025-03-26"}, break_: faults("no-batches"), long: waitsOut},
	{id: "jsonrpc.batch", fake: stdio, break_: faults("die-on-batch")},
	{id: "jsonrpc.framing", fake: stdio, break_: faults("pretty-json")},
	{id: "jsonrpc.schema", fake: stdio, break_: faults("bad-log-level")},
	{id: "jsonrpc.result-or-error", fake: stdio, break_: faults("result-and-error")},
	{id: "jsonrpc.error-id", fake: stdio, break_: faults("null-id-errors")},
	{id: "jsonrpc.error-message", fake: stdio, break_: faults("multiline-errors")},
	{id: "jsonrpc.one-response", fake: stdio, break_: faults("duplicate-responses")},
	{id: "jsonrpc.request-id", fake: stdio, break_: faults("null-id-request")},
	{id: "jsonrpc.request-id-unique", fake: stdio, break_: faults("request-id-reuse")},
	{id: "utilities.cancel-task", fake: askingFake, break_: faults("asks", "asks-task-cancelled")},
	{id: "asks.elicitation-validated", fake: fake{transport: "stdio", change: map[string]string{"edges": `["form-checked"]`}}, break_: faults("form-unchecked")},

	{id: "lifecycle.initialize", fake: stdio, break_: faults("init-no-server-info")},
	{id: "lifecycle.version-echo", fake: stdio, break_: faults("version-cycle")},
	{id: "lifecycle.version-unknown", fake: stdio, break_: faults("echo-any-version")},
	{id: "lifecycle.version-latest", fake: stdio, break_: faults("old-fallback")},
	{id: "lifecycle.undeclared", fake: fake{transport: "stdio", change: map[string]string{"capabilities": `{"prompts":{},"resources":{"subscribe":true},"logging":{},"completions":{}}`}},
		break_: map[string]string{"capabilities": `{"prompts":{},"resources":{"subscribe":true},"logging":{},"completions":{}}`, "serveUndeclared": `["tools/list"]`}},
	{id: "lifecycle.undeclared-prompts", fake: fake{transport: "stdio", change: map[string]string{"capabilities": `{"tools":{},"resources":{"subscribe":true},"logging":{},"completions":{}}`, "serveUndeclared": `["prompts/list"]`, "prompts": `[]`}},
		break_: map[string]string{"capabilities": `{"tools":{},"resources":{"subscribe":true},"logging":{},"completions":{}}`, "serveUndeclared": `["prompts/list"]`}},
	{id: "lifecycle.undeclared-resources", fake: fake{transport: "stdio", change: map[string]string{"capabilities": `{"tools":{},"prompts":{},"logging":{},"completions":{}}`}},
		break_: map[string]string{"capabilities": `{"tools":{},"prompts":{},"logging":{},"completions":{}}`, "serveUndeclared": `["resources/list"]`}},
	{id: "lifecycle.undeclared-completions", fake: noCompletions("stdio", ""),
		break_: map[string]string{"capabilities": `{"tools":{},"prompts":{},"resources":{"subscribe":true},"logging":{}}`, "serveUndeclared": `["completion/complete"]`}},
	{id: "lifecycle.declared", fake: stdio, break_: map[string]string{"methodNotFound": `["resources/templates/list"]`}},
	{id: "modern.declared-lists", fake: stdioModern, break_: map[string]string{"methodNotFound": `["resources/list"]`}},
	{id: "lifecycle.undeclared-notifications", fake: stdio, break_: map[string]string{"capabilities": `{"tools":{},"prompts":{},"resources":{},"logging":{},"completions":{}}`, "faults": `["list-changed-undeclared"]`}},
	{id: "lifecycle.logging-declared", fake: stdio, break_: map[string]string{"capabilities": `{"tools":{"listChanged":true},"prompts":{},"resources":{},"completions":{}}`, "faults": `["log-undeclared"]`}},
	{id: "lifecycle.early-requests", fake: stdio, break_: faults("early-request")},
	{id: "lifecycle.client-capabilities", fake: stdio, break_: faults("undeclared-sampling")},
	{id: "lifecycle.declared-methods", fake: stdio, break_: faults("subscribe-not-found")},
	{id: "lifecycle.ping", fake: stdio, break_: faults("ping-nonempty")},
	{id: "lifecycle.stdin-close", fake: stdio, ignoreExit: true, long: "waits out the grace of a server that outlives its stdin"},

	{id: "lists.shape", fake: stdio, break_: map[string]string{"answers": `{"prompts/list":{"prompts":{"hello":{}}}}`}},
	{id: "lists.terminates", fake: stdio, break_: map[string]string{"repeatCursor": `["tools/list"]`}},
	{id: "lists.unique", fake: stdio, break_: map[string]string{"resources": `[{"uri":"mem://a","name":"a"},{"uri":"mem://a","name":"again"}]`}},
	{id: "lists.cursor-stable", fake: stdio, break_: faults("unstable-cursor")},
	{id: "lists.invalid-cursor", fake: stdio, break_: faults("lenient-cursor")},

	{id: "surface.tool-names", fake: stdio, break_: map[string]string{"tools": `[{"name":"a tool","description":"d","inputSchema":{"type":"object"}}]`}},
	{id: "surface.input-schema", fake: stdio, break_: map[string]string{"tools": `[{"name":"a","description":"d","inputSchema":{"type":"array"}}]`}},
	{id: "surface.output-schema", fake: stdio, break_: map[string]string{"tools": `[{"name":"a","description":"d","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":7}}}}]`}},
	{id: "surface.uris", fake: stdio, break_: map[string]string{"resources": `[{"uri":"no scheme here","name":"a"}]`}},
	{id: "surface.uri-templates", fake: stdio, break_: map[string]string{"resourceTemplates": `[{"uriTemplate":"mem://{id","name":"t"}]`}},
	{id: "surface.annotations", fake: stdio, break_: map[string]string{"resources": `[{"uri":"mem://a","name":"a","annotations":{"priority":3}}]`}},
	{id: "surface.icons", fake: stdio, break_: map[string]string{"prompts": `[{"name":"hello","description":"d","icons":[{"mimeType":"image/png"}]}]`}},
	{id: "surface.meta-keys", fake: stdio, break_: map[string]string{"prompts": `[{"name":"hello","description":"d","_meta":{"9bad/key":1}}]`}},

	{id: "reading.resources", fake: stdio, break_: map[string]string{"errors": `{"resources/read":{"code":-32603,"message":"broken"}}`}},
	{id: "reading.resource-contents", fake: stdio, break_: map[string]string{"readResults": `{"mem://a":{"contents":[{"uri":"mem://a","blob":"not base64!"}]}}`}},
	{id: "reading.contents-uri", fake: stdio, break_: map[string]string{"readResults": `{"mem://a":{"contents":[{"uri":"mem://other","text":"x"}]}}`}},
	{id: "reading.unknown-resource", fake: stdio, break_: faults("unknown-resource-empty")},
	{id: "reading.prompts", fake: stdio, break_: map[string]string{"errors": `{"prompts/get":{"code":-32603,"message":"broken"}}`}},
	{id: "reading.prompt-messages", fake: stdio, break_: map[string]string{"promptResults": `{"hello":{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}}`}},
	{id: "reading.completion-inputs", fake: stdio, break_: faults("lenient-complete")},
	{id: "reading.missing-argument", fake: stdio, break_: faults("lenient-prompt-args")},
	{id: "reading.unknown-prompt", fake: stdio, break_: faults("unknown-prompt-result")},
	{id: "reading.unknown-tool", fake: stdio, break_: faults("unknown-tool-result")},
	{id: "reading.completion", fake: stdio, break_: map[string]string{"answers": `{"completion/complete":{"completion":{"values":"a"}}}`}},
	{id: "reading.log-level", fake: stdio, break_: faults("lenient-log-level")},

	{id: "utilities.progress", fake: stdio, break_: faults("progress-decreasing")},
	{id: "utilities.cancel-call", fake: stdio, break_: faults("answer-cancelled")},
	{id: "modern.cancel-call", fake: stdioModern, break_: faults("cancel-continues")},
	{id: "modern.cancel-call", fake: stdioModern, break_: faults("ignore-cancel")},
	{id: "modern.cancel-call", fake: httpModern, break_: faults("call-on-listen")},
	{id: "utilities.cancel-race", fake: stdio, break_: faults("die-on-cancel")},
	{id: "utilities.cancel-unknown", fake: stdio, break_: faults("answer-notifications")},
	{id: "utilities.unknown-progress", fake: stdio, break_: faults("stray-progress")},
	{id: "utilities.unknown-progress", fake: stdio, break_: faults("progress-unasked")},
	{id: "utilities.unknown-progress", fake: stdio, break_: faults("progress-after-result")},

	{id: "tools.result", fake: stdio, break_: map[string]string{"callResults": `{"shaped":{"content":[{"type":"text"}],"structuredContent":{"n":1}}}`}},
	{id: "tools.task-required", fake: fake{transport: "stdio", change: withJob}, break_: merge(withJob, faults("task-required-served"))},
	{id: "tools.structured-result", fake: stdio, break_: map[string]string{"callResults": `{"shaped":{"content":[{"type":"text","text":"{\"n\":\"one\"}"}],"structuredContent":{"n":"one"}}}`}},
	{id: "tools.embedded-resources", fake: fake{transport: "stdio", change: embedsResource}, break_: merge(embedsResource, withoutResources)},
	{id: "tools.name-case", fake: stdio, break_: faults("tool-names-fold")},
	{id: "tools.structured-text", fake: stdio, break_: map[string]string{"callResults": `{"shaped":{"content":[],"structuredContent":{"n":1}}}`}},
	{id: "tools.validate-inputs", fake: stdio, break_: faults("no-input-validation")},
	{id: "tools.input-errors", fake: stdio, break_: faults("input-errors-32602")},

	{id: "http.origin", fake: httpLegacy, break_: faults("no-origin-check")},
	{id: "http.dns-rebinding", fake: httpLegacy, break_: faults("origin-matches-host")},
	{id: "http.authentication", fake: fake{transport: "http", auth: "ok", remote: true}, auth: "token-optional"},
	{id: "http.answer-type", fake: httpLegacy, break_: faults("text-plain")},
	{id: "http.stream-ends", fake: fake{transport: "http", sse: true}, break_: faults("stream-left-open"), long: waitsOut},
	{id: "http.one-object", fake: httpLegacy, break_: faults("json-array-answer")},
	{id: "http.notification-202", fake: httpLegacy, break_: faults("notification-200")},
	{id: "http.malformed-body", fake: httpLegacy, break_: faults("malformed-200")},
	{id: "http.session-id", fake: httpLegacy, break_: faults("session-id-space")},
	{id: "http.session-required", fake: httpLegacy, break_: faults("no-session-404")},
	{id: "http.session-unknown", fake: httpLegacy, break_: faults("unknown-session-400")},
	{id: "http.session-deleted", fake: httpLegacy, break_: faults("delete-ignored")},
	{id: "http.protocol-version", fake: httpLegacy, break_: faults("any-version-header")},
	{id: "http.get", fake: httpLegacy, break_: faults("get-json")},
	{id: "http.session-assigned", fake: httpLegacy, break_: faults("session-never-given")},
	{id: "http.one-stream", fake: httpLegacy, break_: faults("crossed-streams")},
	{id: "http.event-ids", fake: fake{transport: "http", sse: true}, break_: faults("event-id-reuse")},
	{id: "http.priming", fake: fake{transport: "http", sse: true}, break_: faults("no-priming")},
	{id: "http.disconnect", fake: fake{transport: "http", change: map[string]string{"edges": `["sse-resumable"]`}}, break_: merge(map[string]string{"edges": `["sse-resumable"]`}, faults("disconnect-cancels")), long: waitsOut},
	{id: "http.retry", fake: polling(), break_: polling("poll-bad-retry").change},
	{id: "http.resume", fake: polling(), break_: polling("poll-other-stream").change},

	{id: "modern.discover", fake: stdioModern, break_: faults("discover-no-capabilities")},
	{id: "modern.server-info", fake: stdioModern, break_: faults("discover-no-server-info")},
	{id: "modern.result-server-info", fake: stdioModern, break_: faults("result-no-server-info")},
	{id: "modern.result-type", fake: stdioModern, break_: faults("no-result-type")},
	{id: "modern.cache-hints", fake: httpModern, break_: faults("no-cache-hints")},
	{id: "modern.cache-scope-pages", fake: stdioModern, break_: faults("scope-per-page")},
	{id: "modern.meta-required", fake: httpModern, break_: faults("lenient-meta")},
	{id: "modern.unsupported-version", fake: stdioModern, break_: faults("any-modern-version")},
	{id: "modern.unsupported-version", fake: stdioModern, break_: faults("version-first-only")},
	{id: "modern.method-not-found", fake: httpModern, break_: faults("method-not-found-200")},
	{id: "modern.header-method", fake: httpModern, break_: faults("no-header-check")},
	{id: "modern.header-version", fake: httpModern, break_: faults("no-header-check")},
	{id: "modern.header-missing", fake: httpModern, break_: faults("no-header-check")},
	{id: "modern.header-version-missing", fake: httpModern, break_: faults("version-header-optional")},
	{id: "modern.header-case", fake: httpModern, break_: faults("header-case-sensitive")},
	{id: "http.version-header-absent", fake: fake{transport: "http"}, break_: faults("version-header-required")},
	{id: "modern.header-name", fake: httpModern, break_: faults("no-header-check")},
	{id: "modern.resource-not-found", fake: stdioModern, break_: faults("old-not-found-code")},
	{id: "modern.listen", fake: stdioModern, break_: faults("listen-no-ack")},
	{id: "modern.cancel-listen", fake: stdioModern, break_: faults("listen-cancel-ignored")},
	{id: "modern.get-405", fake: httpModern, break_: faults("get-json")},
	{id: "modern.no-session", fake: httpModern, break_: faults("mint-session")},
	{id: "modern.no-requests", fake: stdioModern, break_: faults("server-request"), long: waitsOut},
	{id: "modern.log-unasked", fake: stdioModern, break_: faults("log-undeclared"), long: waitsOut},
	{id: "modern.error-codes", fake: httpModern, break_: faults("old-not-found-code")},
	{id: "modern.input-required-methods", fake: stdioModern, break_: faults("input-required-elsewhere")},
	{id: "modern.input-required-shape", fake: stdioModern, break_: faults("input-required-empty")},
	{id: "modern.input-request-kinds", fake: stdioModern, break_: faults("input-asks-tool-call")},
	{id: "modern.input-capabilities", fake: stdioModern, break_: faults("input-asks-elicitation")},
	{id: "modern.removed-methods", fake: httpModern, break_: faults("removed-methods-200")},
	{id: "surface.param-headers", fake: stdioModern, break_: faults("param-header-number")},
	{id: "surface.param-header-secrets", fake: fake{transport: "stdio", era: "modern", change: map[string]string{"edges": `["param-headers"]`}}, break_: faults("param-header-secret")},
	{id: "modern.client-info-optional", fake: stdioModern, break_: faults("client-info-required")},

	{id: "auth.challenge", fake: httpAuth, auth: "no-challenge"},
	{id: "auth.resource-metadata", fake: httpAuth, auth: "no-auth-servers"},
	{id: "auth.metadata-location", fake: httpAuth, auth: "metadata-gone"},
	{id: "auth.server-metadata", fake: httpAuth, auth: "no-s256"},
	{id: "auth.invalid-token", fake: httpAuth, auth: "any-token"},
	{id: "auth.challenge-scope", fake: httpAuth, auth: "no-scope"},
	{id: "auth.resource-slash", fake: httpAuth, auth: "resource-slash"},
	{id: "auth.insufficient-scope", fake: fake{transport: "http", auth: "scoped"}, auth: "scope-bare"},
	{id: "auth.offline-access", fake: fake{transport: "http", era: "modern", auth: "ok"}, auth: "offline-access"},
}

func TestEveryCheckHasABrokenServer(t *testing.T) {
	var ids []string
	for _, c := range brokenCases {
		ids = append(ids, c.id)
	}
	for _, c := range Catalogue() {
		if !slices.Contains(ids, c.ID) {
			t.Errorf("no broken server for %s", c.ID)
		}
	}
}

// Each check passes against a server that keeps its requirement, and
// fails against the same server broken the way the check names.
func TestBrokenServers(t *testing.T) {
	t.Parallel()
	for _, tc := range brokenCases {
		t.Run(tc.id, func(t *testing.T) {
			if tc.long != "" {
				testkit.SkipLong(t, tc.long)
			}
			t.Parallel()
			if r := goodRun(t, tc.fake)[tc.id]; r.Status != Passed {
				t.Errorf("the correct server: %s", describeResult(r))
			}
			bad := tc.fake
			bad.change = tc.break_
			if tc.auth != "" {
				bad.auth = tc.auth
			}
			bad.junk, bad.ignoreExit = tc.junk, tc.ignoreExit
			want := Failed
			if tc.unsure {
				want = Warned
			}
			if r := runShared(t, bad, tc.id)[tc.id]; r.Status != want {
				t.Errorf("the broken server, want %s: %s", want, describeResult(r))
			}
		})
	}
}

// A server that serves a request without credentials is not warned of
// on loopback, where the spec has a local server listen for its user.
func TestUnauthenticatedOnLoopback(t *testing.T) {
	t.Parallel()
	r := runShared(t, fake{transport: "http", auth: "token-optional"}, "http.authentication")["http.authentication"]
	if r.Status != Passed || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "loopback") }) {
		t.Errorf("want a pass with a note of loopback: %s", describeResult(r))
	}
}

// This machine is named by more than 127.0.0.1: the unspecified address
// a server prints when it listens on every interface, and names under
// localhost (RFC 6761).
func TestLoopbackNames(t *testing.T) {
	for host, want := range map[string]bool{"localhost": true, "LocalHost": true, "localhost.": true, "app.localhost": true, "127.0.0.2": true, "::1": true, "0.0.0.0": true, "::": true,
		"localhost.example": false, "10.0.0.5": false, "mcp.example.com": false, "": false} {
		if loopback(host) != want {
			t.Errorf("loopback(%q) = %v, want %v", host, !want, want)
		}
	}
}

// merge is the spec changes of a and b, b's over a's.
func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
