package check

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// newBroken are servers each breaking one MUST of the specification that
// no check held a server to before: the check that names it.
var newBroken = []struct {
	name   string
	fake   fake
	change map[string]string
	id     string
}{
	// 2,000 elicitations at once: some come before the answer to the one
	// before is begun, however fast the answers are. The longest cases
	// here (seconds of CPU each) come first, so that neither is left
	// running alone at the package's end.
	{"the server's requests with one progressToken, each sent before the last is answered", askingFake, faults("asks", "asks-loop", "asks-progress-reuse"), "asks.progress-token-unique"},
	{"the server's requests with one progressToken, over HTTP", fake{transport: "http", change: faults("asks")}, faults("asks", "asks-loop", "asks-progress-reuse"), "asks.progress-token-unique"},
	{"a result's _meta key that breaks the key name format", stdio, map[string]string{"promptResults": `{"hello":{"_meta":{"9bad/key":1},"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}}`}, "jsonrpc.meta-keys"},
	{"a result's _meta prefix a domain name not reversed", metaFake("", `"com.example/trace":1`), metaChange(`"example.com/trace":1`), "jsonrpc.meta-reverse-dns"},
	{"a result's _meta traceparent that is no W3C traceparent (2026-07-28)", metaFake("modern", `"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"`), metaChange(`"traceparent":"0af7651916cd43dd8448eb211c80319c"`), "modern.trace-context"},
	{"a server request under a fractional id", stdio, faults("request-id-float"), "jsonrpc.request-id"},
	{"a notification sent with an id", stdio, faults("notification-with-id"), "jsonrpc.notification-id"},
	{"a cancellation of the client's own request", stdio, faults("stray-cancel"), "utilities.cancel-own"},
	{"a cancellation of a request no one sent", stdio, faults("cancel-never-sent"), "utilities.cancel-own"},
	// 2026-07-28: a server may cancel a subscriptions/listen of the
	// client's, and nothing else.
	{"a cancellation of a request no one sent, from a server that cancels a subscription (2026-07-28)", listenCancelled, faults("cancel-never-sent"), "utilities.cancel-own"},
	{"a cancellation of the client's own request, from a server that cancels a subscription (2026-07-28)", listenCancelled, faults("stray-cancel"), "utilities.cancel-own"},
	{"a progress token that is a boolean", stdio, faults("progress-token-bool"), "utilities.progress-token"},
	{"a log message holding the client's secret", fake{transport: "stdio", secret: "s3cr3t-Test-Value-42"}, faults("log-secret"), "utilities.log-secrets"},
	{"a prompt's image of no MIME type", stdio, map[string]string{"promptResults": `{"hello":{"messages":[{"role":"user","content":{"type":"image","data":"aGk=","mimeType":"png"}}]}}`}, "reading.prompt-messages"},
	{"a prompt's audio of no MIME type", stdio, map[string]string{"promptResults": `{"hello":{"messages":[{"role":"user","content":{"type":"audio","data":"aGk=","mimeType":"wav audio"}}]}}`}, "reading.prompt-messages"},
	{"a response on the GET stream to no request", fake{transport: "http", change: faults("get-stream")}, faults("get-stream-response"), "http.get-no-response"},
	{"a log message on the subscriptions/listen stream, over HTTP", httpModern, faults("log-on-listen"), "modern.log-unasked"},
	{"a notification on the subscriptions/listen stream without its subscriptionId, over HTTP", httpModern, faults("listen-no-sub-id"), "modern.listen"},
	{"a subscription acknowledged under another subscriptionId than its request's id", stdioModern, faults("listen-ack-other-id"), "modern.listen"},
	{"a subscription never acknowledged, whose news of a resource listed after the first comes at once", stdioModern, faults("listen-news-unacked"), "modern.listen"},
	{"a subscription acknowledged under another subscriptionId than its request's id, over HTTP", httpModern, faults("listen-ack-other-id"), "modern.listen"},
	{"an Origin served when it begins as localhost's (http://localhost.mcpv-check.invalid)", httpLegacy, faults("origin-prefix"), "http.origin"},
	{"an Origin served when it begins as localhost's, in 2026-07-28", httpModern, faults("origin-prefix"), "http.origin"},
	{"DELETE and GET served whatever their Origin", httpLegacy, faults("delete-origin-unchecked"), "http.origin-methods"},
	{"a second DELETE of an ended session answered 200", httpLegacy, faults("delete-again-200"), "http.session-deleted"},
	{"a call without the Mcp-Param header of an argument it gives served", fake{transport: "http", era: "modern", change: map[string]string{"tools": headerTools}},
		faults("param-header-optional"), "modern.header-param-missing"},
	{"an integer's Mcp-Param header of 1.0 refused as unlike the argument 1", fake{transport: "http", era: "modern", change: map[string]string{"tools": headerTools}},
		faults("param-header-text"), "modern.header-param-numeric"},
	{"an Mcp-Param header with a raw é, served once the é is dropped", fake{transport: "http", era: "modern", change: map[string]string{"tools": headerTools}},
		faults("param-header-chars-dropped"), "modern.header-param-invalid"},
	{"news of a resource on a subscription that asked for the tools' list alone", stdioModern, faults("listen-unasked"), "modern.listen-asked"},
	{"news of a resource on a subscription that asked for the tools' list alone, over HTTP", httpModern, faults("listen-unasked"), "modern.listen-asked"},
	{"debug log messages after logging/setLevel asked for error and above", fake{transport: "stdio", change: map[string]string{"edges": `["notify-first"]`}}, faults("log-level-ignored"), "utilities.log-level"},
	{"debug log messages after logging/setLevel asked for error and above, over HTTP", fake{transport: "http", change: map[string]string{"edges": `["notify-first"]`}}, faults("log-level-ignored"), "utilities.log-level"},
	{"a request whose _meta asks for a log level there is not, served (2026-07-28)", stdioModern, faults("lenient-log-level"), "reading.log-level"},
	{"a request whose _meta asks for a log level there is not, served (2026-07-28), over HTTP", httpModern, faults("lenient-log-level"), "reading.log-level"},
	{"debug log messages to requests that asked for error and above (2026-07-28)", fake{transport: "stdio", era: "modern", change: map[string]string{"edges": `["notify-first"]`}}, faults("log-level-ignored"), "modern.log-level"},
	{"debug log messages to requests that asked for error and above (2026-07-28), over HTTP", fake{transport: "http", era: "modern", change: map[string]string{"edges": `["notify-first"]`}}, faults("log-level-ignored"), "modern.log-level"},
	{"a tasks/result of a working task answered at once", fake{transport: "stdio", change: legacyTasks}, faults("task-result-working"), "tasks.result-blocks"},
	{"a tasks/result of a working task answered at once, over HTTP", fake{transport: "http", change: legacyTasks}, faults("task-result-working"), "tasks.result-blocks"},
	{"tasks/get answered with the related-task _meta", fake{transport: "stdio", change: legacyTasks}, faults("task-get-related"), "tasks.no-related-meta"},
	{"every task of a session given one id", fake{transport: "stdio", change: legacyTasks}, faults("task-id-reuse"), "tasks.unique-ids"},
	{"a tasks/list listing one task of two", fake{transport: "http", change: legacyTasks}, faults("task-list-newest"), "tasks.unique-ids"},
	{"news of a resource on the event stream of every request", fake{transport: "http", sse: true}, faults("unrelated-on-stream"), "http.stream-related"},
	{"news of a resource on the event stream of every request, in 2026-07-28", httpModern, faults("unrelated-on-stream"), "modern.stream-related"},
	{"news of a resource on the event stream of a named tool's call, in 2026-07-28", httpModern, faults("call-news-on-stream"), "modern.stream-related"},
	{"-32021 answered with HTTP 200", fake{transport: "http", era: "modern", change: extTasks}, faults("capability-error-200"), "modern.capability-status"},
	{"event streams without X-Accel-Buffering: no (2026-07-28)", httpModern, faults("sse-buffered"), "modern.sse-unbuffered"},
	{"tools listed in reverse order under every other id (2026-07-28)", stdioModern, faults("tools-order-varies"), "lists.tools-order"},
	{"tools listed in reverse order under every other id (2026-07-28), over HTTP", httpModern, faults("tools-order-varies"), "lists.tools-order"},
	{"tools listed with one more tool named for the connection (2026-07-28)", stdioModern, faults("tools-per-connection"), "lists.per-connection"},
	{"tools listed with one more tool once a tool was called on the connection (2026-07-28)", stdioModern, faults("tools-after-call"), "lists.per-connection"},
	{"a named tool asking for elicitation of a request that declares none, after one on the connection declared it (2026-07-28)", gatedAsking, faults("mrtr", "caps-remembered"), "modern.capabilities-per-request"},
	{"a named tool that asks a client that declares elicitation for it refused -32003 to one that declares none (2026-07-28)", gatedAsking,
		map[string]string{"errors": `{"tools/call gated":{"code":-32003,"message":"Missing required client capability: elicitation"}}`}, "modern.capability-status"},
	{"a result that is no object, which JSON-RPC 2.0 allows and MCP's schema does not", stdio, faults("null-result"), "jsonrpc.schema"},
	{"an Mcp-Name of =?base64?...?= compared with the body's name undecoded (2026-07-28)", httpModern, faults("header-name-raw"), "modern.header-name"},
	{"log messages to a call that asked for them, though logging is not declared (2026-07-28)", fake{transport: "stdio", era: "modern", change: map[string]string{"edges": `["notify-first"]`,
		"capabilities": `{"tools":{"listChanged":true},"prompts":{},"resources":{"subscribe":true},"completions":{}}`,
		"tools":        `[{"name":"shaped","description":"Structured.","inputSchema":{"type":"object"}}]`}}, faults("log-asked-undeclared"), "lifecycle.logging-declared"},
	{"a named tool's -32021 answered with HTTP 200 (2026-07-28)", fake{transport: "http", era: "modern", change: map[string]string{
		"tools":  `[{"name":"gated","description":"Needs a capability.","inputSchema":{"type":"object"}},{"name":"echo","description":"Echoes.","inputSchema":{"type":"object"}}]`,
		"errors": `{"tools/call gated":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{}}}}}`}},
		faults("capability-error-200"), "modern.capability-status"},
	{"a named tool's -32021 listing no requiredCapabilities, over stdio (2026-07-28)", fake{transport: "stdio", era: "modern", change: map[string]string{
		"tools":  `[{"name":"gated","description":"Needs a capability.","inputSchema":{"type":"object"}},{"name":"echo","description":"Echoes.","inputSchema":{"type":"object"}}]`,
		"errors": `{"tools/call gated":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{}}}}}`}},
		map[string]string{"errors": `{"tools/call gated":{"code":-32021,"message":"Missing required client capability"}}`}, "modern.capability-status"},
	// A server of resources.subscribe alone is listened to for its resources.
	{"news of another resource on a subscription to one resource's updates (2026-07-28)", subscribeOnly, faults("listen-unasked"), "modern.listen-asked"},
	{"news of another resource listed on a subscription to one resource's updates (2026-07-28)", subscribeOnly, faults("listen-unasked-listed"), "modern.listen-asked"},
	// A client may ping before initialize (2025-11-25 basic/lifecycle).
	{"ping before initialize answered with an error", stdio, faults("ping-early-error"), "lifecycle.ping"},
	{"roots/list before initialized, to a client that declared roots", stdio, faults("early-request-declared"), "lifecycle.early-requests"},
	{"a result beside \"error\": null", stdio, faults("result-and-null-error"), "jsonrpc.result-or-error"},
	// A server may complete some arguments and not others: the prompt's
	// argument (asked first) gets no values, the template's variable 150.
	{"150 completion values for a template's variable alone", stdio, faults("complete-template-150"), "reading.completion"},
	{"completions served for a template's variable alone, undeclared", noCompletions("stdio", ""),
		map[string]string{"serveUndeclared": `["completion/complete"]`, "faults": `["complete-template-150"]`}, "lifecycle.undeclared-completions"},
	// A defect a check of its own names, which breaks the schema too: that
	// check's alone.
	{"a tool result's content of a type no revision has", stdio, map[string]string{"callResults": `{"shaped":{"content":[{"type":"text","text":"{\"n\":1}"},{"type":"video","url":"v"}],"structuredContent":{"n":1}}}`}, "tools.result"},
	// A prompt whose arguments cannot be read is not got: which it requires
	// is not known (and a server that refuses it is not blamed).
	{"a prompt's argument whose required is a string", stdio, map[string]string{"prompts": `[{"name":"hello","description":"Hello."},{"name":"greet","description":"Greets.","arguments":[{"name":"who","description":"Who.","required":"true"}]}]`}, "jsonrpc.schema"},
	{"the only prompt's argument's required a string", stdio, map[string]string{"prompts": `[{"name":"greet","description":"Greets.","arguments":[{"name":"who","description":"Who.","required":"yes"}]}]`}, "jsonrpc.schema"},
	// What the server asks of a connection that declares elicitation,
	// sampling and roots: the asks fault's correct requests, one broken.
	{"an elicitation's form with a property of type object", askingFake, faults("asks", "asks-nested"), "asks.elicitation"},
	{"an elicitation's form with a property of type object, over HTTP", fake{transport: "http", change: faults("asks")}, faults("asks", "asks-nested"), "asks.elicitation"},
	{"an elicitation's form without a message", askingFake, faults("asks", "asks-no-message"), "asks.elicitation"},
	{"a URL elicitation without elicitationId", askingFake, faults("asks", "asks-no-id"), "asks.elicitation"},
	{"a URL elicitation of a client that declared form mode alone", askingFake, faults("asks", "asks-url-always"), "asks.elicitation-mode"},
	{"a URL elicitation whose url is no URL", askingFake, faults("asks", "asks-bad-url"), "asks.elicitation-url"},
	{"a URL elicitation whose url is javascript:", askingFake, faults("asks", "asks-js-url"), "asks.elicitation-https"},
	{"a URL elicitation whose url carries the user's email address", askingFake, faults("asks", "asks-url-private"), "asks.elicitation-url-private"},
	{"a form elicitation whose message holds a web address", askingFake, faults("asks", "asks-form-link"), "asks.elicitation-links"},
	{"a dozen pings in a row", askingFake, faults("asks", "asks-ping-storm"), "utilities.ping-rate"},
	{"initialize refused without the versions the server speaks", stdioModern, faults("initialize-no-versions"), "modern.initialize-versions"},
	{"initialize refused without the versions the server speaks, over HTTP", httpModern, faults("initialize-no-versions"), "modern.initialize-versions"},
	{"a file resource read by a path that climbs out of its directory", fake{transport: "stdio", era: "modern", change: map[string]string{"resources": `[{"uri":"file:///srv/docs/readme.md","name":"readme"}]`}},
		faults("file-traversal"), "reading.path-traversal"},
	{"-32042 whose elicitation is of form mode, without elicitationId", askingFake, faults("asks", "url-required-bare"), "asks.url-required"},
	{"-32042 whose elicitation is of form mode, without elicitationId, over HTTP", fake{transport: "http", change: faults("asks")}, faults("asks", "url-required-bare"), "asks.url-required"},
	{"a completion naming an elicitationId never sent", askingFake, faults("asks", "asks-complete-unknown"), "asks.elicitation-complete"},
	{"a sampling request with tools, to a client that did not declare sampling.tools", askingFake, faults("asks", "asks-sampling-tools"), "asks.sampling-tools"},
	{"a sampling request with includeContext, to a client that did not declare sampling.context", askingFake, faults("asks", "asks-sampling-context"), "asks.sampling-context"},
	{"a sampling request made as a task, to a client that declared no tasks", askingFake, faults("asks", "asks-sampling-task"), "asks.task-undeclared"},
	{"a sampling request made as a task, to a client that declared no tasks, over HTTP", fake{transport: "http", change: faults("asks")}, faults("asks", "asks-sampling-task"), "asks.task-undeclared"},
	{"a sampling request's tool result beside a text", askingFake, faults("asks", "asks-sampling-mixed"), "asks.sampling-messages"},
	{"a sampling request's tool result of a tool use no message made", askingFake, faults("asks", "asks-sampling-orphan"), "asks.sampling-messages"},
	{"a sampling request's tool result not of its tool's outputSchema", askingFake, faults("asks", "asks-sampling-output"), "asks.sampling-tool-output"},
	{"an input request written twice under its key (2026-07-28)", fake{transport: "stdio", era: "modern", change: mrtrChange()}, mrtrChange("mrtr-key-twice"), "modern.input-request-kinds"},
	{"an input request written twice under its key, over HTTP (2026-07-28)", fake{transport: "http", era: "modern", change: mrtrChange()}, mrtrChange("mrtr-key-twice"), "modern.input-request-kinds"},
	{"an input request's form with a property of type object (2026-07-28)", fake{transport: "stdio", era: "modern", change: mrtrChange()}, mrtrChange("mrtr-nested"), "asks.elicitation"},
	{"a form elicitation that asks for a password", askingFake, faults("asks", "asks-password"), "asks.elicitation-sensitive"},
	{"an input request's form that asks for an API key (2026-07-28)", fake{transport: "stdio", era: "modern", change: mrtrChange()}, mrtrChange("asks-password"), "asks.elicitation-sensitive"},
	// An answer under an id no request waiting had: the request it was
	// meant for is blocked by it at once, not left to the check's time.
	{"every tools/call answered under the id of a request answered before", stdio, faults("call-other-id"), responseID},
	{"every tools/call answered under the id of a request answered before, over HTTP", httpLegacy, faults("call-other-id"), responseID},
	// Every session given one id: that failure alone, the other checks
	// judged as they are (no connection ends a session another holds).
	{"every session given the same session id", httpLegacy, faults("shared-session-id"), "http.session-unique"},
	{"a resource annotated for the audience system", stdio, map[string]string{"resources": `[{"uri":"mem://a","name":"a","annotations":{"audience":["system"]}},{"uri":"mem://b","name":"b"}]`}, "surface.annotations"},
}

// metaFake is the stdio fake of era whose prompt hello's result carries
// the _meta members given (JSON, without braces); metaChange, that change.
func metaFake(era, members string) fake {
	return fake{transport: "stdio", era: era, change: metaChange(members)}
}

func metaChange(members string) map[string]string {
	return map[string]string{"promptResults": `{"hello":{"_meta":{` + members + `},"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}}`}
}

// listenCancelled is the 2026-07-28 stdio fake that tears each
// subscription down at once with a notifications/cancelled naming it.
var listenCancelled = fake{transport: "stdio", era: "modern", change: map[string]string{"edges": `["listen-cancelled"]`}}

// gatedAsking is a 2026-07-28 server whose tool gated asks a client that
// declares elicitation for it (input_required) and refuses one that
// declares none -32021; no prompt of it asks.
var gatedAsking = fake{transport: "stdio", era: "modern", change: map[string]string{"faults": `["mrtr"]`,
	"tools":  `[{"name":"gated","description":"Asks who.","inputSchema":{"type":"object"}},{"name":"echo","description":"Echoes.","inputSchema":{"type":"object"}}]`,
	"errors": `{"tools/call gated":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{}}}}}`}}

// askingFake is the stdio fake that asks, of a connection that declares
// them, for elicitations, sampling and roots, keeping every rule.
var askingFake = fake{transport: "stdio", change: faults("asks")}

// subscribeOnly is a 2026-07-28 server of resources.subscribe and no
// list's news.
var subscribeOnly = fake{transport: "stdio", era: "modern", change: map[string]string{"capabilities": `{"tools":{},"prompts":{},"resources":{"subscribe":true},"logging":{},"completions":{}}`}}

// Each new broken server fails the check that names its defect, and no
// other; the correct server it is made from passes that check.
// The checks new here have their broken servers among brokenCases too.
func addNewBrokenCases() {
	had := map[string]bool{}
	for _, c := range brokenCases {
		had[c.id] = true
	}
	for _, nb := range newBroken {
		if !had[nb.id] {
			had[nb.id] = true
			brokenCases = append(brokenCases, brokenCase{id: nb.id, fake: nb.fake, break_: merge(nb.fake.change, nb.change)})
		}
	}
}

func TestNewBrokenServers(t *testing.T) {
	t.Parallel()
	for _, nb := range newBroken {
		t.Run(nb.name, func(t *testing.T) {
			t.Parallel()
			switch r, ok := goodRun(t, nb.fake)[nb.id]; {
			case !ok:
				t.Fatalf("the correct server: no result of %s", nb.id)
			case r.Status != Passed:
				t.Errorf("the correct server: %s", describeResult(r))
			}
			f := nb.fake
			f.change = merge(f.change, nb.change)
			if strings.Contains(f.change["faults"], `"call-other-id"`) {
				// A call answered under another id while another request of
				// the main session waits is not told from one unanswered: it
				// waits the session's whole time, 20 s, four times that on
				// a loaded machine, at the end of the run.
				f.timeout = patient(5 * time.Second)
			}
			if strings.Contains(f.change["faults"], `"listen-news-unacked"`) {
				// modern.listen-asked subscribes to the first resource
				// alone, which never changes: it waits the check's whole
				// time for an acknowledgement or news.
				f.checkTime = 5 * time.Second
			}
			for id, r := range runChecks(t, f) {
				switch {
				case id == nb.id && r.Status != Failed:
					t.Errorf("the broken server: %s", describeResult(r))
				case id != nb.id && r.Status == Failed:
					t.Errorf("failed too: %s", describeResult(r))
				}
			}
		})
	}
}

// mrtrChange is goodSpec of the 2026-07-28 era with a prompt that asks
// a client that can answer for input, with a request state.
func mrtrChange(more ...string) map[string]string {
	return map[string]string{
		"prompts": `[{"name":"hello","description":"Hello."},{"name":"ask","description":"Asks who."}]`,
		"faults":  `["` + strings.Join(append([]string{"mrtr"}, more...), `","`) + `"]`,
	}
}

func addModernInputCases() {
	good := fake{transport: "stdio", era: "modern", change: mrtrChange()}
	for id, fault := range map[string]string{"modern.input-missing": "mrtr-missing-error", "modern.input-extra": "mrtr-extra-error",
		"modern.input-invalid": "mrtr-invalid-accepted", "modern.capabilities-per-request": "caps-remembered",
		"modern.elicitation-validated": "mrtr-unvalidated", "modern.stateless": "mrtr-state-kept"} {
		brokenCases = append(brokenCases, brokenCase{id: id, fake: good, break_: mrtrChange(fault)})
	}
	// Whether a forged state breaks the rule depends on what the state is
	// for, which the server alone knows: a warning, never a failure.
	brokenCases = append(brokenCases, brokenCase{id: "modern.request-state", fake: good, break_: mrtrChange("mrtr-tamper-accepted"), unsure: true})
	// An internal error to a decline may be a handler's own refusal, as
	// an SDK answers one: a warning (no answer at all fails, as every
	// request a check sends does).
	brokenCases = append(brokenCases, brokenCase{id: "modern.input-declined", fake: good, break_: mrtrChange("mrtr-decline-fails"), unsure: true})
}

// headerTools are goodSpec's tools, shaped's argument n mirrored in the
// header Mcp-Param-N.
const headerTools = `[
	{"name":"slow","description":"Takes a while.","inputSchema":{"type":"object"}},
	{"name":"shaped","description":"Structured.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","description":"N.","x-mcp-header":"N"}}},
	 "outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}},
	{"name":"echo","description":"Echoes.","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"M."}}}}]`

func addHeaderParamCase() {
	good := fake{transport: "http", era: "modern", change: map[string]string{"tools": headerTools}}
	brokenCases = append(brokenCases, brokenCase{id: "modern.header-param", fake: good, break_: map[string]string{"tools": headerTools, "faults": `["no-param-header-check"]`}})
	brokenCases = append(brokenCases, brokenCase{id: "modern.header-param-absent", fake: fake{transport: "http", era: "modern", change: map[string]string{"tools": absentHeaderTools}},
		break_: map[string]string{"tools": absentHeaderTools, "faults": `["param-header-expected"]`}})
}

// absentHeaderTools are headerTools whose shaped tool, called with n
// alone, mirrors an argument it is not given in a header too.
var absentHeaderTools = strings.Replace(headerTools, `"properties":{"n":{"type":"integer","description":"N.","x-mcp-header":"N"}}`,
	`"properties":{"n":{"type":"integer","description":"N.","x-mcp-header":"N"},"region":{"type":"string","description":"R.","x-mcp-header":"Region"}}`, 1)

// An answer under an id no request waiting had names the id, that it
// answered another request before, and the request it may be the answer
// to, with the answer as it came in received; the call that waited for
// it is blocked by it, not left to run out of time.
func TestAnswerUnderAnotherID(t *testing.T) {
	t.Parallel()
	for _, f := range []fake{stdio, httpLegacy} {
		f.change = faults("call-other-id")
		got := runChecks(t, f, responseID, "tools.result")
		r := got[responseID]
		if r.Status != Failed || !strings.Contains(r.Message, "which answered another request before; it may be the answer to tools/call (id ") ||
			!strings.Contains(r.Received, `"answered under another id"`) {
			t.Errorf("%s: %s", f.transport, describeResult(r))
		}
		if r := got["tools.result"]; r.Status != Blocked || r.BlockedBy != responseID {
			t.Errorf("%s: the call's check: %s", f.transport, describeResult(r))
		}
	}
}

// A server that answers initialize and leaves the ping sent before it
// unanswered fails lifecycle.ping, which waits for it no longer than the
// grace after initialize's answer.
func TestPingBeforeInitializeUnanswered(t *testing.T) {
	t.Parallel()
	r := runChecks(t, fake{transport: "stdio", change: faults("mute-early")}, "lifecycle.ping")["lifecycle.ping"]
	if r.Status != Failed || !strings.Contains(r.Message, "ping before initialize was not answered, though initialize") {
		t.Errorf("lifecycle.ping: %s", describeResult(r))
	}
}

// A list the server does not declare is none: a check that reads it
// (completions, of prompts and templates) does not ask for it, and is not
// blocked by lists.shape, which passes (28 of 31 real servers that
// declare tools alone had lifecycle.undeclared-completions blocked).
func TestUndeclaredListsAreNone(t *testing.T) {
	t.Parallel()
	for _, change := range []map[string]string{{"capabilities": `{"tools":{}}`},
		// and a declared list answered -32601 (resources without templates:
		// 4 of 32 real servers in the same run)
		{"capabilities": `{"tools":{},"resources":{}}`, "resources": `[]`, "methodNotFound": `["resources/templates/list"]`}} {
		got := runChecks(t, fake{transport: "stdio", change: change}, "lists.shape", "lifecycle.undeclared-completions")
		if r := got["lists.shape"]; r.Status != Passed {
			t.Errorf("%v: lists.shape: %s", change, describeResult(r))
		}
		if r := got["lifecycle.undeclared-completions"]; r.Status != Skipped || !strings.Contains(r.Message, "no prompt argument") {
			t.Errorf("%v: lifecycle.undeclared-completions: %s", change, describeResult(r))
		}
	}
}

// An argument of type string that holds digits is compared as text, as the
// transport says: a server that refuses "1.0" for the string "1" is right,
// and modern.header-param-numeric, which sends an integer as N.0, judges
// only an argument that is a JSON integer; its twin mirrors an integer
// after a string argument the call does not give.
func TestHeaderParamNumericJudgesIntegersAlone(t *testing.T) {
	t.Parallel()
	text := `{"name":"shaped","description":"Structured.","inputSchema":{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"N"}}}}`
	both := `{"name":"shaped","description":"Structured.","inputSchema":{"type":"object","properties":{"s":{"type":"string","x-mcp-header":"S"},"n":{"type":"integer","x-mcp-header":"N"}}}}`
	for _, tc := range []struct {
		name, tool string
		want       Status
	}{
		{"a string of digits alone", text, Skipped},
		{"a string of digits beside an integer", both, Passed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := fake{transport: "http", era: "modern", change: map[string]string{"tools": `[` + tc.tool + `]`}}
			r := runChecks(t, f, "modern.header-param-numeric")["modern.header-param-numeric"]
			if r.Status != tc.want || tc.want == Passed && !strings.Contains(r.Sent, "Mcp-Param-N: 1.0") {
				t.Errorf("%s", describeResult(r))
			}
		})
	}
}

// A server of both eras that refuses a ping before initialize, as a
// request of the 2026-07-28 era without _meta, and serves a client of
// the initialize era from then on, is warned of it, not failed: the
// ping opened neither era. Its twin of the initialize era alone fails.
func TestPingBeforeInitializeOfBothEras(t *testing.T) {
	t.Parallel()
	dual := fake{transport: "stdio", era: "modern", change: map[string]string{"edges": `["dual-era"]`}}
	for id, r := range runChecks(t, dual) {
		switch {
		case id == "lifecycle.ping" && (r.Status != Warned || !strings.Contains(r.Message, "speaks the 2026-07-28 era too")):
			t.Errorf("lifecycle.ping: %s", describeResult(r))
		case id != "lifecycle.ping" && r.Status == Failed:
			t.Errorf("failed too: %s", describeResult(r))
		}
	}
}

// A watch judges what every watch check's traffic showed, not only what
// came before its own verdict: the server's asks all under one id, seen
// by the asks checks' traffic alone (run after the id watch's), fail
// jsonrpc.request-id-unique.
func TestWatchSeesEveryWatchsTraffic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		faults []string
		want   Status
	}{{[]string{"asks"}, Passed}, {[]string{"asks", "asks-id-reuse"}, Failed}} {
		r := runChecks(t, fake{transport: "stdio", change: faults(tc.faults...)}, "jsonrpc.request-id-unique", "asks.elicitation")["jsonrpc.request-id-unique"]
		if r.Status != tc.want {
			t.Errorf("%v: %s", tc.faults, describeResult(r))
		}
	}
}

// A named tool refused with a code other than -32021 to a client that
// declares every capability too is refused for another reason than one
// the client lacks: modern.capability-status does not fail it.
func TestRefusedForAnotherReason(t *testing.T) {
	t.Parallel()
	f := gatedAsking
	f.change = merge(f.change, map[string]string{"faults": `[]`, "errors": `{"tools/call gated":{"code":-32003,"message":"Down for maintenance"}}`})
	if r := runChecks(t, f, "modern.capability-status")["modern.capability-status"]; r.Status != Skipped {
		t.Errorf("want skipped: %s", describeResult(r))
	}
}

// A server that pings on a timer has pinged the main session once when
// the run is shorter than its period: the check waits for its second
// ping, and fails it under the id of the first; a ping under a new id
// each time passes. Whether the run waited, or was slow enough on a busy
// machine to see the second ping without waiting, is the machine's.
func TestTimedPingIDs(t *testing.T) {
	testkit.SkipLong(t, "waits for the server's second ping, 1.5 s after its first")
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change map[string]string
		want   Status
	}{
		{"each ping a new id", map[string]string{"edges": `["timed-pings"]`}, Passed},
		{"every ping one id", faults("timed-ping-reuse"), Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runChecks(t, fake{transport: "stdio", change: tc.change}, "jsonrpc.request-id-unique")["jsonrpc.request-id-unique"]
			switch {
			case r.Status != tc.want:
				t.Errorf("want %s: %s", tc.want, describeResult(r))
			case tc.want == Failed && !strings.Contains(r.Message, `under id "srv-ping", which the server used before`):
				t.Errorf("%s", describeResult(r))
			}
		})
	}
}
