package check

// The official conformance suite's server scenarios
// (@modelcontextprotocol/conformance 0.2.0-alpha.12, `conformance list
// --server`), each with the checks that test what it tests on any
// server: docs/guide/check.md's table is made from this one, and
// --expected-failures reads a scenario's name as its checks.

// Scenario is a server scenario of the suite.
type Scenario struct {
	Name      string
	Revisions string   // those the suite runs it for
	Checks    []string // test what it tests, on whatever server; none when the scenario needs the suite's own fixtures (a tool, prompt or resource by name) to test anything at all
	Note      string   // how the checks and the scenario differ, or why none
}

// SuiteVersion is the suite whose scenarios Scenarios lists.
const SuiteVersion = "0.2.0-alpha.12"

const (
	fixtures  = "the scenario calls the suite's own fixture (a tool, prompt or resource the everything server of the suite has, by name); "
	withCall  = fixtures + "with --call naming a tool of yours that does the same, the checks hold its result to the schema"
	extension = "an extension of the protocol; "
	notTried  = "not tried: "
)

// Scenarios are the suite's server scenarios, in its order.
var Scenarios = []Scenario{
	{Name: "server-initialize", Revisions: "2025-06-18, 2025-11-25", Checks: []string{"lifecycle.initialize", "http.session-id"}},
	{Name: "server-session-lifecycle", Revisions: "2025-03-26 to 2025-11-25", Checks: []string{"http.notification-202", "http.session-deleted", "http.session-unknown"}},
	{Name: "server-stateless", Revisions: "2026-07-28", Checks: []string{"modern.discover", "modern.server-info", "modern.meta-required", "modern.client-info-optional", "modern.unsupported-version",
		"modern.header-version", "modern.removed-methods", "modern.method-not-found", "modern.no-requests", "modern.log-unasked", "modern.listen", "lifecycle.declared-methods", "jsonrpc.error-id"},
		Note: "the scenario's test_missing_capability (-32021) and its subscriptions' list_changed are its fixtures'"},
	{Name: "logging-set-level", Revisions: "2025-06-18, 2025-11-25", Checks: []string{"lifecycle.declared-methods", "reading.log-level"}},
	{Name: "ping", Revisions: "2025-06-18, 2025-11-25", Checks: []string{"lifecycle.ping"}},
	{Name: "completion-complete", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"reading.completion"}, Note: "the check completes the server's own first prompt argument or template variable"},
	{Name: "tools-list", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"lists.shape", "surface.input-schema", "surface.tool-names"}},
	{Name: "tools-call-simple-text", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"tools.result"}, Note: withCall},
	{Name: "tools-call-image", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"tools.result"}, Note: withCall},
	{Name: "tools-call-audio", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"tools.result"}, Note: withCall},
	{Name: "tools-call-embedded-resource", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"tools.result"}, Note: withCall},
	{Name: "tools-call-mixed-content", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"tools.result"}, Note: withCall},
	{Name: "tools-call-with-logging", Revisions: "2025-06-18, 2025-11-25", Checks: []string{"lifecycle.logging-declared", "jsonrpc.schema"}, Note: withCall},
	{Name: "tools-call-error", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"tools.result"}, Note: withCall},
	{Name: "tools-call-with-progress", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"utilities.progress"}, Note: withCall},
	{Name: "tools-call-sampling", Revisions: "2025-06-18, 2025-11-25", Checks: []string{"lifecycle.client-capabilities", "asks.sampling-messages", "asks.sampling-tools", "jsonrpc.schema"},
		Note: "a connection that declares no sampling checks that the server asks none of it; one that declares sampling answers with a message and holds the request to its rules"},
	{Name: "tools-call-elicitation", Revisions: "2025-06-18, 2025-11-25", Checks: []string{"lifecycle.client-capabilities", "asks.elicitation", "asks.elicitation-mode", "jsonrpc.schema"},
		Note: "a connection that declares no elicitation checks that the server asks none of it; one that declares both modes declines, and holds the request to its rules"},
	{Name: "json-schema-2020-12", Revisions: "2025-11-25, 2026-07-28", Checks: []string{"surface.input-schema", "surface.output-schema"},
		Note: "the checks compile every tool's schemas in their dialect (2020-12 by default, $defs, $anchor, composition and conditions kept), not only the suite's tool"},
	{Name: "elicitation-sep1034-defaults", Revisions: "2025-11-25", Checks: []string{"jsonrpc.schema"}, Note: "an elicitation request's defaults are held to the schema's types wherever the server sends one; " + fixtures + "to make it send one"},
	{Name: "server-sse-polling", Revisions: "2025-11-25", Checks: []string{"http.event-ids", "http.retry", "http.resume", "http.get"},
		Note: "every check resumes a request's stream the server closes before its response as mcpv does (GET with Last-Event-ID, after the retry asked), and the polling is held to the transport: unique event ids (none replayed after Last-Event-ID), a retry of milliseconds before each close, no other stream's messages"},
	{Name: "server-sse-multiple-streams", Revisions: "2025-11-25, 2026-07-28", Checks: []string{"http.one-stream", "http.event-ids"},
		Note: "stricter: the suite sends three requests at once and asks that each be accepted; http.one-stream sends four and holds each answer to carry its own response, on its own stream, and no other's"},
	{Name: "elicitation-sep1330-enums", Revisions: "2025-11-25", Checks: []string{"jsonrpc.schema"}, Note: "an elicitation request's enums (titled, untitled, multi-select, the legacy enumNames) are held to the schema wherever the server sends one; " + fixtures + "to make it send one"},
	{Name: "resources-list", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"lists.shape", "surface.uris"}},
	{Name: "resources-read-text", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"reading.resource-contents", "reading.contents-uri"}, Note: "the checks read every resource the server lists (the first 20)"},
	{Name: "resources-read-binary", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"reading.resource-contents"}, Note: "a blob must be base64, of every resource read"},
	{Name: "resources-templates-read", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"surface.uri-templates"}, Note: "reading an expansion of a template needs values only the suite's fixture knows: the check holds templates to RFC 6570"},
	{Name: "resources-subscribe", Revisions: "2025-06-18, 2025-11-25", Checks: []string{"lifecycle.declared-methods", "lifecycle.undeclared-notifications"}, Note: "subscribe answered for a resource listed; the updates the suite's fixture sends are its own"},
	{Name: "resources-unsubscribe", Revisions: "2025-06-18, 2025-11-25", Checks: []string{"lifecycle.declared-methods"}},
	{Name: "sep-2164-resource-not-found", Revisions: "2026-07-28", Checks: []string{"modern.resource-not-found", "reading.unknown-resource"}},
	{Name: "sep-2640-skills-directory", Revisions: "extension", Checks: []string{"skills.directory"}, Note: extension + "a skill's directory read where directoryRead is declared"},
	{Name: "sep-2640-skills-enumeration", Revisions: "extension", Checks: []string{"skills.methods", "skills.entries"}, Note: extension + "every entry of every page read as mcpv skills reads it (internal/skills)"},
	{Name: "sep-2640-skills-manifest", Revisions: "extension", Checks: []string{"skills.manifest"}, Note: extension + "each listed skill's SKILL.md read and verified against its entry: digest, size, frontmatter"},
	{Name: "prompts-list", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"lists.shape"}},
	{Name: "prompts-get-simple", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"reading.prompts", "reading.prompt-messages"}, Note: "the checks get every prompt without required arguments"},
	{Name: "prompts-get-with-args", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"reading.missing-argument"}, Note: fixtures + "the check gets a prompt without its required argument"},
	{Name: "prompts-get-embedded-resource", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"reading.prompt-messages"}},
	{Name: "prompts-get-with-image", Revisions: "2025-06-18 to 2026-07-28", Checks: []string{"reading.prompt-messages"}},
	{Name: "dns-rebinding-protection", Revisions: "2025-11-25, 2026-07-28", Checks: []string{"http.dns-rebinding", "http.origin"}, Note: "stricter: a foreign Origin must get 403, as the text says, not any 4xx"},
	{Name: "caching", Revisions: "2026-07-28", Checks: []string{"modern.cache-hints", "modern.cache-scope-pages"}},
	{Name: "http-header-validation", Revisions: "2026-07-28", Checks: []string{"modern.header-method", "modern.header-version", "modern.header-missing", "modern.header-name"}},
	{Name: "http-custom-header-server-validation", Revisions: "2026-07-28", Checks: []string{"modern.header-param"}, Note: "the check calls a tool named with --call whose argument a header mirrors (x-mcp-header), with a header unlike the argument; mcpv check calls no tool of its own accord"},
	{Name: "tasks-lifecycle", Revisions: "extension", Checks: []string{"lifecycle.declared-methods", "jsonrpc.schema", "tasks.ext-unknown-task", "tasks.ext-create", "tasks.ext-durable", "tasks.ext-get", "tasks.ext-cancel"},
		Note: extension + "tasks/get, tasks/result, tasks/list and tasks/cancel answered where declared, every task result and notification held to the schema, a task that does not exist answered -32602; creating a task calls a tool: " + fixtures + "with --call naming a tool of yours that runs as a task, its task is followed to its end and another cancelled"},
	{Name: "tasks-capability-negotiation", Revisions: "extension", Checks: []string{"lifecycle.initialize", "lifecycle.declared-methods", "tasks.ext-gated", "tasks.ext-undeclared"},
		Note: extension + "the tasks capability held to the schema, its methods answered, and refused -32021 to a request that does not declare the extension; with --call, no task for such a request; the scenario's per-request overrides are not tried"},
	{Name: "tasks-wire-fields", Revisions: "extension", Checks: []string{"jsonrpc.schema"}, Note: extension + "every task the server sends held to the schema"},
	{Name: "tasks-request-state-removal", Revisions: "extension", Note: extension + notTried + "no check holds a task to the absence of requestState (on a CreateTaskResult, on tasks/get in every status); the scenario asks it of its fixture slow_compute"},
	{Name: "tasks-mrtr-input", Revisions: "extension", Checks: []string{"tasks.ext-update", "tasks.ext-input-keys"}, Note: extension + fixtures + "with --call naming a tool of yours whose task asks for input, its input is answered with tasks/update and the keys held"},
	{Name: "tasks-request-headers", Revisions: "extension", Checks: []string{"tasks.ext-header-name"}, Note: extension + "tasks/get sent with an Mcp-Name that is not its taskId must be refused; the scenario's calls of its fixtures are not tried"},
	{Name: "tasks-dispatch-and-envelope", Revisions: "extension", Note: extension + notTried + "tasks/result and tasks/list refused -32601, a legacy task member tolerated without making a task, and a task made with no hint from the client are judged on the suite's fixtures; no check sends them"},
	{Name: "tasks-status-notifications", Revisions: "extension", Checks: []string{"jsonrpc.schema"}, Note: extension + "every notifications/tasks/status held to the schema"},
	{Name: "tasks-required-task-error", Revisions: "extension", Checks: []string{"tools.task-required"},
		Note: extension + "a tool whose taskSupport is required must refuse a call without a task (-32601); mcpv check calls no tool of its own accord: the check calls each such tool named with --call (2025-11-25, where tasks are the protocol's)"},
	{Name: "tasks-mrtr-composition", Revisions: "extension", Note: extension + notTried + "input asked for in rounds that ends in a task needs a tool that does both (the suite's test_tool_with_task); no check follows such a call"},
	{Name: "input-required-result-basic-elicitation", Revisions: "2026-07-28", Checks: []string{"modern.input-extra", "jsonrpc.schema"}, Note: answered + "; every input_required result held to InputRequiredResult"},
	{Name: "input-required-result-basic-sampling", Revisions: "2026-07-28", Checks: []string{"modern.input-extra", "jsonrpc.schema"}, Note: answered + "; every input_required result held to InputRequiredResult"},
	{Name: "input-required-result-basic-list-roots", Revisions: "2026-07-28", Checks: []string{"modern.input-extra", "jsonrpc.schema"}, Note: answered + "; every input_required result held to InputRequiredResult"},
	{Name: "input-required-result-request-state", Revisions: "2026-07-28", Checks: []string{"modern.input-required-shape", "modern.input-extra"}, Note: answered},
	{Name: "input-required-result-multiple-input-requests", Revisions: "2026-07-28", Checks: []string{"jsonrpc.schema"}, Note: "several input requests in one result are held to InputRequiredResult wherever the server sends them; the scenario's own fixture (a tool of the suite's, by name) is what sends them"},
	{Name: "input-required-result-multi-round", Revisions: "2026-07-28", Checks: []string{"modern.input-extra", "modern.input-required-shape"}, Note: answered + ", up to five rounds"},
	{Name: "input-required-result-missing-input-response", Revisions: "2026-07-28", Checks: []string{"modern.input-missing"}, Note: answered},
	{Name: "input-required-result-non-tool-request", Revisions: "2026-07-28", Checks: []string{"modern.input-required-methods"}},
	{Name: "input-required-result-result-type", Revisions: "2026-07-28", Checks: []string{"modern.result-type"}},
	{Name: "input-required-result-unsupported-methods", Revisions: "2026-07-28", Checks: []string{"modern.input-required-methods"}},
	{Name: "input-required-result-tampered-state", Revisions: "2026-07-28", Checks: []string{"modern.request-state"}, Note: answered + "; a forged state taken is a warning: whether it must be refused depends on what the state is for"},
	{Name: "input-required-result-capability-check", Revisions: "2026-07-28", Checks: []string{"modern.input-capabilities"}, Note: "stricter: the check asks a prompt too, not only the suite's tool"},
	{Name: "input-required-result-ignore-extra-params", Revisions: "2026-07-28", Checks: []string{"modern.input-extra"}, Note: answered},
	{Name: "input-required-result-validate-input", Revisions: "2026-07-28", Checks: []string{"modern.input-invalid"}, Note: answered},
}

// answered says how the checks of input requests ask and answer.
const answered = "the checks ask the server's own prompts, answer each input request as a client does (an elicitation declined, a sampled message, no roots) and retry with the request state"
