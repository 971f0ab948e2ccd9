package check

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// oneDefect is a server with one defect, and the check that names it.
type oneDefect struct {
	name   string
	fake   fake
	change map[string]string
	id     string // the one check that fails
	// opens: the main session opens despite the defect; else every
	// other check is blocked by it.
	opens bool
	long  string
	says  string // what the failure's message says, where it matters
	calls []Call // the tools named with --call
}

// shapedCall names goodSpec's tool of a canned result.
var shapedCall = []Call{{Tool: "shaped", Words: []string{"n=1"}}}

var oneDefects = []oneDefect{
	// The first exchange: no session opens, and the report says why.
	{name: "messages over several lines", fake: stdio, change: faults("pretty-json"), id: "jsonrpc.framing"},
	{name: "an integer id answered as a string", fake: stdio, change: faults("string-ids"), id: "jsonrpc.number-id"},
	{name: "an integer id answered as a string over HTTP", fake: httpLegacy, change: faults("string-ids"), id: "jsonrpc.number-id"},
	{name: "every answer text/plain", fake: httpLegacy, change: faults("text-plain-init"), id: "http.answer-type"},
	{name: "a session demanded, never given", fake: httpLegacy, change: faults("session-never-given"), id: "http.session-assigned"},
	{name: "server/discover without supportedVersions", fake: stdioModern, change: faults("discover-no-versions"), id: "modern.discover"},
	{name: "result and error in one response", fake: stdio, change: faults("result-and-error"), id: "jsonrpc.result-or-error"},
	// Later: the session opens, and one check reports the defect.
	{name: "errors with a null id", fake: stdio, change: faults("null-id-errors"), id: "jsonrpc.error-id", opens: true},
	{name: "errors with a null id over HTTP", fake: httpLegacy, change: faults("null-id-errors"), id: "jsonrpc.error-id", opens: true},
	{name: "notifications/initialized answered", fake: stdio, change: faults("answer-initialized"), id: "jsonrpc.notification", opens: true, says: "a result with a null id"},
	{name: "event streams left open", fake: httpLegacy, change: faults("stream-left-open"), id: "http.stream-ends", opens: true, says: "stayed open"},
	{name: "a prompt of a required argument answering a system message", fake: stdio, change: map[string]string{"promptResults": `{"greet":{"messages":[{"role":"system","content":{"type":"text","text":"hi"}}]}}`}, id: "reading.prompt-messages", opens: true, says: `role "system"`},
	{name: "error messages over two lines", fake: stdio, change: faults("multiline-errors"), id: "jsonrpc.error-message", opens: true, says: `\n    at serve`},
	{name: "error messages over two lines over HTTP, in 2026-07-28", fake: httpModern, change: faults("multiline-errors"), id: "jsonrpc.error-message", opens: true},
	{name: "every response twice", fake: stdio, change: faults("duplicate-responses"), id: "jsonrpc.one-response", opens: true},
	{name: "ping never answered", fake: stdio, change: faults("ping-unanswered"), id: "lifecycle.ping", opens: true},
	{name: "ping answered under another id", fake: stdio, change: faults("ping-wrong-id"), id: "lifecycle.ping", opens: true},
	{name: "ping never answered over HTTP", fake: httpLegacy, change: faults("ping-unanswered"), id: "lifecycle.ping", opens: true},
	{name: "an integer cursor", fake: stdio, change: faults("integer-cursor"), id: "lists.shape", opens: true},
	{name: "a null cursor", fake: stdio, change: faults("null-cursor"), id: "lists.shape", opens: true},
	{name: "JSON log lines on stdout", fake: stdio, change: faults("json-log-stdout"), id: "jsonrpc.stdout-only", opens: true, says: "JSON without a jsonrpc member"},
	{name: "server requests under one id", fake: stdio, change: faults("request-id-reuse"), id: "jsonrpc.request-id-unique", opens: true},
	{name: "a server request with a null id", fake: stdio, change: faults("null-id-request"), id: "jsonrpc.request-id", opens: true},
	{name: "JSON answers in arrays", fake: httpLegacy, change: faults("json-array-answer"), id: "http.one-object", opens: true},
	{name: "sampling asked of a client that did not declare it", fake: stdio, change: faults("undeclared-sampling"), id: "lifecycle.client-capabilities", opens: true},
	{name: "completion/complete without its argument answered", fake: stdio, change: faults("lenient-complete"), id: "reading.completion-inputs", opens: true},
	{name: "completion/complete without its argument answered over HTTP, in 2026-07-28", fake: httpModern, change: faults("lenient-complete"), id: "reading.completion-inputs", opens: true},
	{name: "a tool that does not run as a task made a task", fake: httpLegacy, change: merge(legacyTasks, faults("task-forbidden-served")), id: "tasks.forbidden-tool", opens: true, says: `"shaped" does not run as a task`, calls: shapedCall},
	{name: "tasks/get answered with an event stream", fake: httpLegacy, change: merge(legacyTasks, faults("tasks-get-streamed")), id: "tasks.get-polled", opens: true, calls: []Call{{Tool: "job"}}},
	{name: "a cancelled task completed by its job running on", fake: httpLegacy, change: merge(legacyTasks, faults("task-cancel-overrun")), id: "tasks.cancel", opens: true, says: `was "completed"`, calls: []Call{{Tool: "job"}}},
	{name: "an ended task gone from tasks/list", fake: httpLegacy, change: merge(legacyTasks, faults("task-list-live-only")), id: "tasks.listed", opens: true, says: "a task that has ended stays listed", calls: []Call{{Tool: "job"}}},
	{name: "a declared subscribe not served", fake: stdio, change: faults("subscribe-not-found"), id: "lifecycle.declared-methods", opens: true},
	{name: "a log message of a level no revision has", fake: stdio, change: faults("bad-log-level"), id: "jsonrpc.schema", opens: true},
	{name: "input_required where the era has none", fake: stdioModern, change: faults("input-required-elsewhere"), id: "modern.input-required-methods", opens: true},
	{name: "input_required asking nothing", fake: stdioModern, change: faults("input-required-empty"), id: "modern.input-required-shape", opens: true},
	{name: "input_required asking for a tools/call", fake: stdioModern, change: faults("input-asks-tool-call"), id: "modern.input-request-kinds", opens: true, says: `asks for "tools/call"`},
	{name: "input_required asking for a tools/call over HTTP", fake: httpModern, change: faults("input-asks-tool-call"), id: "modern.input-request-kinds", opens: true},
	{name: "input_required asking for elicitation of any client", fake: stdioModern, change: faults("input-asks-elicitation"), id: "modern.input-capabilities", opens: true},
	{name: "the initialize era's methods not implemented, answered 200", fake: httpModern, change: faults("removed-methods-200"), id: "modern.removed-methods", opens: true},
	{name: "clientInfo required", fake: stdioModern, change: faults("client-info-required"), id: "modern.client-info-optional", opens: true},
	{name: "answers crossed between streams", fake: httpLegacy, change: faults("crossed-streams"), id: "http.one-stream", opens: true,
		long: "each lone ping of a string id waits out the fake's 5 s for another to cross with"},
	{name: "a tool's result that embeds a resource, resources undeclared", fake: stdio, change: merge(embedsResource, withoutResources), id: "tools.embedded-resources", opens: true, says: `"shaped" embeds a resource`, calls: shapedCall},
	{name: "a tool's result that embeds a resource, resources undeclared, in 2026-07-28", fake: stdioModern, change: merge(embedsResource, withoutResources), id: "tools.embedded-resources", opens: true, says: `"shaped" embeds a resource`, calls: shapedCall},
	{name: "a tool called by its name in capitals served", fake: stdio, change: faults("tool-names-fold"), id: "tools.name-case", opens: true, says: `"shaped", called as "SHAPED", was served`, calls: shapedCall},
	{name: "a tool called by its name in capitals served over HTTP, in 2026-07-28", fake: httpModern, change: faults("tool-names-fold"), id: "tools.name-case", opens: true, calls: shapedCall},
	// What the hand checks leave, the schema finds: once.
	{name: "a tool's title that is a number", fake: stdio, change: faults("tool-title-number"), id: "jsonrpc.schema", opens: true, says: "/title: got number"},
	{name: "a tool's taskSupport of no revision", fake: stdio, change: faults("task-support-sometimes"), id: "jsonrpc.schema", opens: true, says: "/execution/taskSupport"},
	{name: "a tool result's content for the audience system", fake: stdio, change: faults("content-audience-system"), id: "jsonrpc.schema", opens: true, says: "/content/0/annotations/audience/0", calls: shapedCall},
	{name: "a tool result's content of priority 5", fake: stdio, change: faults("content-priority-5"), id: "jsonrpc.schema", opens: true, says: "/content/0/annotations/priority", calls: shapedCall},
	{name: "a resource's size that is a string", fake: stdio, change: faults("resource-size-string"), id: "jsonrpc.schema", opens: true, says: "/size: got string"},
	{name: "a tool's title that is a number, in 2026-07-28", fake: stdioModern, change: faults("tool-title-number"), id: "jsonrpc.schema", opens: true, says: "/title: got number"},
	{name: "a completion's hasMore that is a string", fake: stdio, change: faults("has-more-string"), id: "jsonrpc.schema", opens: true, says: "/completion/hasMore: got string"},
	// Numbers read as JSON numbers: a wrong type said, by member.
	{name: "a ttlMs that is a string", fake: stdioModern, change: faults("ttl-string"), id: "modern.cache-hints", opens: true, says: `ttlMs held a string ("60000")`},
	{name: "a progress that is a string", fake: stdio, change: faults("progress-string"), id: "utilities.progress", opens: true, says: `progress held a string ("1")`, calls: []Call{{Tool: "slow"}}},
	{name: "a progress total that is a string", fake: stdio, change: faults("total-string"), id: "jsonrpc.schema", opens: true, says: "/params/total: got string", calls: []Call{{Tool: "slow"}}},
	// x-mcp-header: each constraint broken by one tool, the tool, the property and the constraint named.
	{name: "an x-mcp-header that is empty", fake: stdioModern, change: faults("param-header-empty"), id: "surface.param-headers", opens: true, says: `tool "header-empty", property "value": x-mcp-header "" is empty`},
	{name: "an x-mcp-header that is no token", fake: stdioModern, change: faults("param-header-token"), id: "surface.param-headers", opens: true, says: `tool "header-token", property "value": x-mcp-header "My Region" is not an HTTP header name`},
	{name: "an x-mcp-header holding CR LF", fake: stdioModern, change: faults("param-header-control"), id: "surface.param-headers", opens: true, says: `tool "header-control", property "value": x-mcp-header "Region\r\nX-Injected: 1" holds a control character`},
	{name: "two x-mcp-headers differing in case", fake: stdioModern, change: faults("param-header-duplicate"), id: "surface.param-headers", opens: true, says: `tool "header-duplicate", property "second": x-mcp-header "myfield" repeats the header name of property "first"`},
	{name: "an x-mcp-header on a number", fake: stdioModern, change: faults("param-header-number"), id: "surface.param-headers", opens: true, says: `tool "header-number", property "score": x-mcp-header "Score" is on a property of type "number"`},
	{name: "an x-mcp-header under items", fake: stdioModern, change: faults("param-header-items"), id: "surface.param-headers", opens: true, says: `tool "header-items", property "tags": x-mcp-header "Tag" is under items`},
	{name: "an x-mcp-header on an API key", fake: stdioModern, change: faults("param-header-secret"), id: "surface.param-header-secrets", opens: true, says: `tool "header-secret", property "apiKey": x-mcp-header "Api-Key" mirrors a sensitive argument (apikey)`},
	{name: "an x-mcp-header on a number over HTTP", fake: httpModern, change: faults("param-header-number"), id: "surface.param-headers", opens: true, says: `property "score"`},
	// Cascades: what cannot be read for the defect is blocked by its check.
	{name: "server/discover without capabilities", fake: stdioModern, change: faults("discover-no-capabilities"), id: "modern.discover", opens: true},
	{name: "results of a resultType no revision has", fake: stdioModern, change: faults("result-type-unknown"), id: "modern.result-type", opens: true},
	{name: "a resource not found answered with the retired code", fake: stdioModern, change: faults("old-not-found-code"), id: "modern.resource-not-found", opens: true},
	{name: "SSE event ids reused", fake: fake{transport: "http", sse: true}, change: faults("event-id-reuse"), id: "http.event-ids", opens: true},
}

// A server with one defect gets one failure, from the check that names
// it: when the defect keeps any session from opening, every other check
// is blocked by that one, and the run ends as soon as it is known.
func TestOneDefectOneFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range oneDefects {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long != "" {
				testkit.SkipLong(t, tc.long)
			}
			t.Parallel()
			f := tc.fake
			f.change = tc.change
			ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
			defer cancel()
			tg := f.target(t)
			report, err := Run(ctx, tg, Options{Strict: true, CheckTimeout: patient(20 * time.Second), Calls: tc.calls})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if report.Stopped != nil {
				t.Fatalf("the run stopped: %v", report.Stopped)
			}
			var failed []string
			for _, r := range report.Results {
				switch {
				case r.Status == Failed:
					failed = append(failed, r.ID)
				case !tc.opens && r.Status != Blocked:
					t.Errorf("not blocked: %s", describeResult(r))
				case !tc.opens && r.BlockedBy != tc.id:
					t.Errorf("blocked by another: %s (by %s)", describeResult(r), r.BlockedBy)
				}
			}
			sort.Strings(failed)
			if !slices.Equal(failed, []string{tc.id}) {
				for _, r := range report.Results {
					if r.Status == Failed {
						t.Logf("%s", describeResult(r))
					}
				}
				t.Errorf("failed: %v, want only %s", failed, tc.id)
			}
			for _, r := range report.Results {
				if r.ID == tc.id && (r.Received == "" && !strings.Contains(r.Message, "id")) {
					t.Errorf("the failure quotes nothing received: %s", describeResult(r))
				}
				if r.ID == tc.id && !strings.Contains(r.Message, tc.says) {
					t.Errorf("the failure does not say %q: %s", tc.says, describeResult(r))
				}
			}
		})
	}
}

// What a failure quotes of the server is what it sent, as it came (clipped
// and made safe): a notification without params is not shown with
// "params": null, nor its members reordered.
func TestQuotedAsItCame(t *testing.T) {
	t.Parallel()
	f := stdio
	f.change = map[string]string{"capabilities": `{"tools":{},"prompts":{},"resources":{},"logging":{},"completions":{}}`, "faults": `["list-changed-undeclared"]`}
	r := runShared(t, f, "lifecycle.undeclared-notifications")["lifecycle.undeclared-notifications"]
	if r.Status != Failed || r.Received != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
		t.Errorf("%s", describeResult(r))
	}
}

// A ping answered with an error is quoted as the failure's answer, not
// the answer to the request sent beside it.
func TestPingAnsweredWithAnErrorIsQuoted(t *testing.T) {
	t.Parallel()
	f := stdio
	f.change = faults("ping-not-found")
	r := runChecks(t, f, "lifecycle.ping")["lifecycle.ping"]
	if r.Status != Failed || !strings.Contains(r.Received, "method not found: ping") {
		t.Errorf("%s", describeResult(r))
	}
}

// A server that answers params it cannot read with -32601, though it
// serves the method, fails jsonrpc.invalid-params on its code, and is not
// said to lack the method (lifecycle.declared-methods passes).
func TestMethodNotFoundForBadParamsIsNoMissingMethod(t *testing.T) {
	t.Parallel()
	f := stdio
	f.change = faults("invalid-params-32601")
	rs := runChecks(t, f, "jsonrpc.invalid-params", "lifecycle.declared-methods")
	if r := rs["jsonrpc.invalid-params"]; r.Status != Warned && r.Status != Failed || r.BlockedBy != "" {
		t.Errorf("%s", describeResult(r))
	}
	if r := rs["lifecycle.declared-methods"]; r.Status != Passed {
		t.Errorf("%s", describeResult(r))
	}
}

// A batch refused whole, as many servers of 2025-03-26 refuse one, is said
// so, with the refusal quoted.
func TestBatchRefusedIsQuoted(t *testing.T) {
	t.Parallel()
	f := fake{transport: "stdio", version: "2025-03-26"}
	f.change = faults("no-batches")
	r := runChecks(t, f, "jsonrpc.batch-2025-03-26")["jsonrpc.batch-2025-03-26"]
	if r.Status != Failed || !strings.Contains(r.Received, "batches are not served") || !strings.Contains(r.Message, "answered with an error") {
		t.Errorf("%s", describeResult(r))
	}
}

// Each dependency a check declares, broken, makes the check blocked by
// the check that names the defect, not failed with it: the listing
// (lists.shape, for the --call tool beyond the page that broke it and the
// checks that need the whole list), an input request of the 2026-07-28
// era the session cannot give (modern.input-capabilities,
// modern.input-required-methods), a working ping (lifecycle.ping). A
// --call tool on the page that came is found, and its checks run.
func TestBlockedByCascades(t *testing.T) {
	t.Parallel()
	var callChecks []string
	for _, c := range Catalogue() {
		// The fakes below are of the initialize era: a check of the
		// 2026-07-28 era skips for the era before it needs the tool.
		if c.needs.call && c.needs.transport != "http" && c.needs.era != "modern" {
			callChecks = append(callChecks, c.ID)
		}
	}
	tests := []struct {
		name    string
		fake    fake
		fault   string
		change  map[string]string // the spec changed, besides the fault
		calls   []Call
		by      string
		blocked []string
		runs    []string // checks that must neither fail nor be blocked
	}{
		{name: "an integer cursor: the --call tool on page 2", fake: stdio, fault: "integer-cursor", calls: []Call{{Tool: "echo", Words: []string{"message=hi"}}},
			by: "lists.shape", blocked: append([]string{"lists.unique", "reading.unknown-tool"}, callChecks...)},
		{name: "an integer cursor: the --call tool on page 1", fake: stdio, fault: "integer-cursor", calls: []Call{{Tool: "slow"}},
			by: "lists.shape", blocked: []string{"lists.unique", "reading.unknown-tool"}, runs: callChecks},
		{name: "prompts that ask for elicitation", fake: stdioModern, fault: "input-asks-elicitation",
			by: "modern.input-capabilities", blocked: []string{"reading.prompts", "reading.prompt-messages"}},
		{name: "prompts that ask for a tools/call", fake: stdioModern, fault: "input-asks-tool-call",
			by: "modern.input-request-kinds", blocked: []string{"reading.prompts", "reading.prompt-messages"}},
		{name: "completion that asks for input", fake: stdioModern, fault: "input-required-elsewhere",
			by: "modern.input-required-methods", blocked: []string{"reading.completion"}},
		{name: "ping never answered over HTTP", fake: httpLegacy, fault: "ping-unanswered",
			by: "lifecycle.ping", blocked: []string{"http.one-stream"}},
		{name: "error codes written as strings over HTTP", fake: httpLegacy, fault: "string-error-code",
			by: "jsonrpc.messages", blocked: []string{"jsonrpc.unknown-method", "jsonrpc.invalid-params", "lists.invalid-cursor", "reading.unknown-prompt", "reading.unknown-tool", "reading.log-level"}},
		{name: "prompts declared and prompts/get not served", fake: stdio, change: map[string]string{"methodNotFound": `["prompts/get"]`},
			by: "lifecycle.declared-methods", blocked: []string{"jsonrpc.invalid-params", "reading.prompts", "reading.missing-argument", "reading.unknown-prompt"}},
		{name: "params by position", fake: stdio, fault: "array-params", by: "jsonrpc.schema", runs: []string{"jsonrpc.messages"}},
		{name: "resource metadata named and not there", fake: fake{transport: "http", auth: "metadata-gone"},
			by: "auth.metadata-location", blocked: []string{"auth.resource-metadata", "auth.server-metadata"}},
		{name: "resource metadata without an authorization server", fake: fake{transport: "http", auth: "no-auth-servers"},
			by: "auth.resource-metadata", blocked: []string{"auth.server-metadata"}, runs: []string{"auth.metadata-location"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.fake
			f.change = tc.change
			if tc.fault != "" {
				f.change = merge(tc.change, faults(tc.fault))
			}
			ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
			defer cancel()
			report, err := Run(ctx, f.target(t), Options{Strict: true, CheckTimeout: patient(20 * time.Second), Calls: tc.calls})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			byID := map[string]Result{}
			for _, r := range report.Results {
				byID[r.ID] = r
				if r.Status == Failed && r.ID != tc.by {
					t.Errorf("failed, not blocked: %s", describeResult(r))
				}
			}
			if r := byID[tc.by]; r.Status != Failed {
				t.Errorf("the defect's check: %s", describeResult(r))
			}
			for _, id := range tc.blocked {
				if r := byID[id]; r.Status != Blocked || r.BlockedBy != tc.by {
					t.Errorf("not blocked by %s: %s (by %q)", tc.by, describeResult(r), r.BlockedBy)
				}
			}
			for _, id := range tc.runs {
				if r := byID[id]; r.Status == Blocked || r.Status == Failed {
					t.Errorf("the tool is listed on the page that came: %s", describeResult(r))
				}
			}
		})
	}
}

// A server that answers notifications (with an error whose id is null)
// fails the check that sent one for answering it, not because the
// barrier request after it took that error for its own answer.
func TestAnsweredNotificationNamed(t *testing.T) {
	t.Parallel()
	f := stdio
	f.change = faults("answer-notifications")
	for id, want := range map[string]string{
		"jsonrpc.notification":     "the server answered a notification",
		"utilities.cancel-unknown": "the server answered an invalid cancellation",
	} {
		if r := runShared(t, f, id)[id]; r.Status != Failed || r.Message != want || !strings.Contains(r.Received, `"id":null`) {
			t.Errorf("%s, want failed: %s", describeResult(r), want)
		}
	}
	// Its error names the notification: the request that waits, a
	// barrier's or the cancelled one's, is not given it as its answer.
	for _, r := range runChecks(t, f, "utilities.cancel-race", "jsonrpc.error-id") {
		if r.Status == Failed {
			t.Errorf("%s: the answer to a notification taken for a request's", describeResult(r))
		}
	}
}

// A failure says what happened: a ping answered under an id no request
// had is said so, not "not answered".
func TestFailuresSayWhatHappened(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, fault, id, has string
	}{
		{"ping answered under another id", "ping-wrong-id", "lifecycle.ping", "answered under an id it was not sent with"},
		{"params by position", "array-params", "jsonrpc.schema", "params"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runChecks(t, fake{transport: "stdio", change: faults(tc.fault)}, tc.id)[tc.id]
			if r.Status != Failed || !strings.Contains(r.Message, tc.has) || strings.Contains(r.Message, "JSON-RPC 2.0") {
				t.Errorf("want a failure saying %q: %s", tc.has, describeResult(r))
			}
		})
	}
}
