package mcptest

// A fake server whose whole surface comes from a JSON spec: the tools,
// prompts, resources and resource templates it lists (names and schemas as
// written, valid or not), the capabilities it declares, canned answers, and
// faults to plant (a cursor that repeats or never ends, a method answered
// as not found, a result that is not what the method should return). It is
// the behaviour spec=FILE of the fake, or served by ServeSpec over any
// reader and writer.
//
// It speaks in the initialize era (2025-11-25 and the versions before it)
// or, with era "modern", in the 2026-07-28 era (server/discover, no
// initialize). Like most servers, it answers a method of a capability it
// does not declare (tools/*, prompts/*, resources/*) as not found, unless
// the spec names the method in ServeUndeclared.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
)

// Spec is a fixture server's surface. Every field is optional.
type Spec struct {
	// Era is "" or "initialize" (the initialize handshake; server/discover
	// is not found) or "modern" (server/discover; initialize is not found).
	Era string `json:"era,omitempty"`
	// ProtocolVersion is the version answered to an initialize that asks
	// for one the server does not know; default the latest it speaks.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// ServerInfo is sent as is; default {"name":"fixture-server","version":"0"}.
	ServerInfo json.RawMessage `json:"serverInfo,omitempty"`
	// Capabilities is sent as is. Absent, the server declares tools,
	// prompts and resources for each of its lists that is not empty.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	Instructions string          `json:"instructions,omitempty"`

	// Card, over HTTP, is the Server Card served at the endpoint's URL
	// + /server-card, as written but for {{endpoint}}, which is the
	// endpoint's URL.
	Card json.RawMessage `json:"card,omitempty"`

	// The lists, each item sent as written.
	Tools             []json.RawMessage `json:"tools,omitempty"`
	Prompts           []json.RawMessage `json:"prompts,omitempty"`
	Resources         []json.RawMessage `json:"resources,omitempty"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates,omitempty"`
	// Skills are the skills extension's entries, served by skills/list
	// (paged as the lists are) and skills/get; their files are read with
	// resources/read from ReadResults, and each skill's directory with
	// resources/directory/read.
	Skills []json.RawMessage `json:"skills,omitempty"`

	// CallResults are tools/call results by tool name. A listed tool with
	// none answers one text block, "called NAME"; any other name -32602.
	CallResults map[string]json.RawMessage `json:"callResults,omitempty"`
	// PromptResults are prompts/get results by prompt name. A listed
	// prompt with none answers one user message, its name.
	PromptResults map[string]json.RawMessage `json:"promptResults,omitempty"`
	// ReadResults are resources/read results by URI. A listed resource
	// with none answers one empty text content.
	ReadResults map[string]json.RawMessage `json:"readResults,omitempty"`
	// Answers are results by method, sent as written instead of whatever
	// the server would answer: a malformed page, say.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`

	// PageSize is how many items a list page holds; 0 is all of them.
	PageSize int `json:"pageSize,omitempty"`
	// RepeatCursor names list methods whose every page has nextCursor
	// "again": a client that follows it never reaches the end.
	RepeatCursor []string `json:"repeatCursor,omitempty"`
	// EndlessCursor names list methods whose pages never end: each page
	// has a new nextCursor, past the last item with no items at all.
	EndlessCursor []string `json:"endlessCursor,omitempty"`
	// EndlessItems names list methods whose pages never end and each
	// bring new items (named after their place): an endless list that
	// looks like progress to a client.
	EndlessItems []string `json:"endlessItems,omitempty"`
	// GenerateTools adds that many tools, t0, t1, ..., after Tools: a
	// long list (with PageSize, many pages) without a long spec.
	GenerateTools int `json:"generateTools,omitempty"`
	// MethodNotFound names methods answered with -32601, served or not.
	MethodNotFound []string `json:"methodNotFound,omitempty"`
	// Errors are JSON-RPC errors ({"code", "message", "data"}) by method, or by
	// method and name ("tools/call NAME"), sent instead of any answer.
	Errors map[string]specError `json:"errors,omitempty"`
	// ServeUndeclared names methods served though their capability is
	// not declared.
	ServeUndeclared []string `json:"serveUndeclared,omitempty"`
	// Faults name the requirements of the specification the server
	// breaks, one fault each (Faults lists them).
	Faults []string `json:"faults,omitempty"`
	// Edges name what a correct server may do at the edge of a
	// requirement, the legal behaviour closest to a fault (Edges lists
	// them; spec_edges.go): a checker must not fail a server for them.
	Edges []string `json:"edges,omitempty"`
	// Tasks, when set, runs the tools whose execution.taskSupport is
	// "optional" or "required" as tasks (spec_tasks.go).
	Tasks *TaskSpec `json:"tasks,omitempty"`
	// Versions are the initialize-era versions the server speaks, latest
	// first; default knownVersions. A version it does not speak is
	// answered with ProtocolVersion, or its latest.
	Versions []string `json:"versions,omitempty"`
	// Mute names methods (or "tools/call NAME") never answered: the request is read and
	// nothing comes back (over HTTP the POST is held open), as a server
	// that ignores what it does not know may do.
	Mute []string `json:"mute,omitempty"`

	// TTLMs and CacheScope, when set, are the caching hints of the
	// results that carry them in the modern era (server/discover's and
	// the lists'): how long a client may keep them (a number as written,
	// 1e19 as well as 60000), and for whom.
	TTLMs      *json.Number `json:"ttlMs,omitempty"`
	CacheScope string       `json:"cacheScope,omitempty"`

	// named is the named fake this spec is (behaviours.go), nil for a
	// spec as written: it answers first (namedRequest).
	named *named
	// lat, when set, delays each tools/call (clock.go).
	lat *latency
}

// The versions a spec server speaks by default: those of mcp, copied on
// purpose, as mcptest cannot import mcp (mcp's tests import mcptest).
const specModernVersion = "2026-07-28" // the modern era's

// knownVersions are the initialize-era versions echoed when a client asks
// for one, latest first.
var knownVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// versions are the initialize-era versions the server speaks, latest
// first.
func (s *Spec) versions() []string {
	if len(s.Versions) > 0 {
		return s.Versions
	}
	return knownVersions
}

// LoadSpec reads a spec file.
func LoadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseSpec reads a spec. A member the spec does not have is an error: a
// misspelt fault must not pass for a server without it.
func ParseSpec(data []byte) (*Spec, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var s Spec
	switch err := d.Decode(&s); {
	case err != nil:
		return nil, err
	case d.More():
		return nil, fmt.Errorf("more than one JSON value")
	case !slices.Contains([]string{"", "initialize", "modern"}, s.Era):
		return nil, fmt.Errorf("era %q: want \"initialize\" or \"modern\"", s.Era)
	case s.PageSize < 0:
		return nil, fmt.Errorf("pageSize %d is negative", s.PageSize)
	}
	for i := range s.GenerateTools {
		s.Tools = append(s.Tools, json.RawMessage(fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i)))
	}
	var statuses []string
	if s.Tasks != nil {
		statuses = s.Tasks.Statuses
	}
	// Each name the spec gives must be one of those known of its kind;
	// unknown is the error's format, of the first name that is not.
	for _, names := range []struct {
		given, known []string
		unknown      string
	}{
		{s.Faults, slices.Concat(Faults, TaskFaults), "no fault %q"},
		{s.Edges, Edges, "no edge %q"},
		{statuses, taskStatuses, "tasks: no status %q"},
		{slices.Concat(s.RepeatCursor, s.EndlessCursor, s.EndlessItems), slices.Collect(maps.Keys(lists)), "%q is not a list method"},
	} {
		if i := slices.IndexFunc(names.given, func(n string) bool { return !slices.Contains(names.known, n) }); i >= 0 {
			return nil, fmt.Errorf(names.unknown, names.given[i])
		}
	}
	s.Tools = append(s.Tools, paramHeaderTools(&s)...)
	return &s, nil
}

// declared is what the server declares at path, a capability or a
// member of one (resources, subscribe); nil where it declares nothing,
// null or false.
func (s *Spec) declared(path ...string) json.RawMessage {
	v := s.capabilities()
	for _, k := range path {
		v = member(v, k)
	}
	if string(v) == "null" || string(v) == "false" {
		return nil
	}
	return v
}

// capabilities is what the server declares.
func (s *Spec) capabilities() json.RawMessage {
	if s.Capabilities != nil {
		return s.Capabilities
	}
	caps := map[string]struct{}{}
	for name, listed := range map[string]int{"tools": len(s.Tools), "prompts": len(s.Prompts), "resources": len(s.Resources) + len(s.ResourceTemplates)} {
		if listed > 0 {
			caps[name] = struct{}{}
		}
	}
	return mustJSON(caps)
}

func (s *Spec) serverInfo() json.RawMessage {
	if s.ServerInfo != nil {
		return s.ServerInfo
	}
	return json.RawMessage(`{"name":"fixture-server","version":"0"}`)
}

// Faults are what Spec.Faults may name: each makes the server break one
// requirement (HTTP's only over HTTP). spec_run.go and spec_results.go
// plant them, http.go the transport's.
var Faults = []string{
	// JSON-RPC and framing
	"no-jsonrpc-version",      // answers without "jsonrpc": "2.0"
	"bad-utf8",                // answers holding a byte that is not UTF-8
	"mangle-string-id",        // a string id answered with another string
	"mangle-number-id",        // an integer id of 0 or past 2^32 answered as a string
	"unknown-method-internal", // an unknown method answered -32603
	"lenient-params",          // prompts/get, resources/read, tools/call without their name or uri answered with a result
	"answer-notifications",    // every notification answered with an error without an id
	"answer-initialized",      // notifications/initialized answered with a result under a null id
	"parse-error-code",        // a line that is no JSON answered -32600
	"ignore-invalid",          // a message that is no request not answered
	"die-on-bad-input",        // input that is no request ends the server
	"no-batches",              // batches refused even in 2025-03-26
	"die-on-batch",            // a batch ends the server
	"multiline-errors",        // every error's message followed by a line of a stack trace
	// lifecycle
	"init-no-server-info",     // initialize answered without serverInfo
	"version-cycle",           // each known version answered with the one before it
	"echo-any-version",        // an unknown version echoed
	"old-fallback",            // an unknown version answered with the oldest
	"list-changed-undeclared", // notifications/tools/list_changed after initialized, undeclared
	"log-undeclared",          // a log message after every answer
	"early-request",           // roots/list sent between initialize and initialized
	"early-request-declared",  // roots/list sent between initialize and initialized, to a client that declared roots alone
	"ping-nonempty",           // ping answered with a member
	// lists
	"unstable-cursor",      // a cursor's page moves on each time it is asked for
	"lenient-cursor",       // an unknown cursor answered with the first page
	"tools-order-varies",   // tools/list's first page, asked for under an id that ends in an odd digit, answered with its tools in reverse order
	"tools-per-connection", // tools/list's first page lists one more tool, named for the connection (its process and state)
	"tools-after-call",     // once a tools/call came on the connection, tools/list's first page there lists one more tool, named for it
	// reading
	"unknown-resource-empty", // an unknown resource read as empty contents
	"file-traversal",         // resources/read of a file: URI that climbs out with .. (or %2e%2e) answered with a file's contents, though the same file by its own path is not found
	"lenient-prompt-args",    // a prompt without its required arguments got
	"unknown-prompt-result",  // an unknown prompt got
	"unknown-tool-result",    // an unknown tool answered with an isError result
	"no-input-validation",    // a tool called with arguments its inputSchema refuses answered as if they were valid
	"input-errors-32602",     // a tool called with arguments its inputSchema refuses answered -32602, not an isError result
	"unknown-tool-32601",     // an unknown tool answered -32601, "Unknown tool: NAME"
	"tool-names-fold",        // a tool called by its name in another case served as that tool
	"killed-on-prompts-list", // prompts/list kills the server, as another process may (SIGKILL; on Windows, ended)
	"lenient-complete",       // completion/complete without its ref or argument answered with values
	"lenient-log-level",      // an unknown log level taken (logging/setLevel's; in the modern era a request's _meta logLevel)
	// cancellation and progress
	"progress-decreasing",   // the slow tool's progress goes down
	"progress-unasked",      // the slow tool, called without a progress token, sends progress under one of its own
	"progress-after-result", // the slow tool sends one more progress notification for its token after its result
	"answer-cancelled",      // a cancelled slow call answered anyway, with an error -32800
	"ignore-cancel",         // a cancelled slow call stops, and sends its result all the same
	"die-on-cancel",         // notifications/cancelled ends the server
	"cancel-continues",      // a cancelled slow call sends progress on, until the client goes
	"stray-progress",        // a progress notification for no token after every answer
	"progress-string",       // the slow tool's progress written as a string ("1")
	"total-string",          // the slow tool's progress total written as a string ("10")
	// the modern era
	"no-result-type",           // results without resultType
	"no-cache-hints",           // cacheable results without ttlMs and cacheScope
	"ttl-string",               // cacheable results with ttlMs written as a string ("60000")
	"scope-per-page",           // each page of a list with another cacheScope
	"lenient-meta",             // requests without their _meta served
	"any-modern-version",       // any protocol version served
	"version-first-only",       // (modern, stdio) a request's protocol version is checked until one other than server/discover was served
	"listen-no-ack",            // subscriptions/listen's first message is no acknowledgement
	"listen-ack-other-id",      // (modern) subscriptions/listen's acknowledgement, and what follows it, under the subscriptionId "sub-1", not the request's id
	"listen-news-unacked",      // (modern) subscriptions/listen never acknowledged: an update of the last resource it subscribes to comes at once, where it subscribes to more than one (the first never changes)
	"listen-cancel-ignored",    // (modern, stdio) a subscriptions/listen the client cancelled sends a notifications/tools/list_changed on it every 20 ms, until the client goes
	"server-request",           // a roots/list request after every answer
	"old-not-found-code",       // an unknown resource answered -32002
	"discover-no-capabilities", // server/discover without capabilities
	"discover-no-server-info",  // server/discover without _meta serverInfo
	"result-no-server-info",    // (modern) results other than server/discover's without _meta serverInfo
	"no-priming",               // (HTTP, initialize era) an event stream that begins with no priming event
	// x-mcp-header: each lists one more tool whose annotation breaks one constraint (paramHeaderTools)
	"param-header-empty",     // an annotation that is empty
	"param-header-token",     // an annotation that is no HTTP token ("My Region")
	"param-header-control",   // an annotation that holds a carriage return and a line feed
	"param-header-duplicate", // two annotations that differ only in case
	"param-header-number",    // an annotation on a property of type number
	"param-header-items",     // an annotation under items, which no chain of properties reaches
	"param-header-secret",    // an annotation on an API key, which intermediaries then see
	"param-header-text",      // (HTTP) an integer's Mcp-Param header compared with the argument as text (42.0 unlike 42)
	// Streamable HTTP
	"no-origin-check",            // any Origin served
	"origin-matches-host",        // an Origin served when it names the Host the request came to
	"text-plain",                 // requests but the first (initialize, server/discover) answered as text/plain
	"notification-200",           // notifications answered 200 with a body
	"stream-left-open",           // every request answered on an event stream held open after the response
	"malformed-200",              // a body that is no JSON answered 200
	"session-id-space",           // session ids with a space in them
	"no-session-404",             // a request without a session id answered 404
	"unknown-session-400",        // an unknown session id answered 400
	"delete-ignored",             // DELETE answered 200, the session kept
	"any-version-header",         // any MCP-Protocol-Version served
	"get-json",                   // GET answered 200 with JSON
	"method-not-found-200",       // (modern) an unknown method answered 200
	"no-header-check",            // (modern) Mcp-* headers that do not match the body served
	"header-name-raw",            // (modern, HTTP) an Mcp-Name of =?base64?...?= compared with the body's name undecoded
	"version-header-optional",    // (modern, HTTP) a request without MCP-Protocol-Version served as the body's era
	"version-header-required",    // (initialize era, HTTP) a request after initialize without MCP-Protocol-Version answered 400
	"header-case-sensitive",      // (HTTP) a header whose name is written in lower case goes unread
	"no-param-header-check",      // (modern) Mcp-Param-NAME headers that do not match a tool's x-mcp-header arguments served
	"param-header-chars-dropped", // (modern, HTTP) what an Mcp-Param-NAME header holds outside visible ASCII, space and tab (sent as it is, not in Base64) dropped before it is compared, not refused
	"param-header-expected",      // (modern, HTTP) a call without an argument a header mirrors refused for the header it does not have
	"mint-session",               // (modern) a session id minted
	"origin-prefix",              // an Origin served when it begins as one of this machine's does (http://localhost.mcpv-check.invalid)
	"delete-origin-unchecked",    // DELETE and GET served whatever their Origin
	"delete-again-200",           // (initialize era) DELETE of a session ended answered 200
	"param-header-optional",      // (modern) a tools/call without the Mcp-Param-NAME header of an argument it gives served
	"sse-buffered",               // (modern, HTTP) event streams without X-Accel-Buffering: no
	"capability-error-200",       // (modern, HTTP) -32021 answered with HTTP 200, not 400
	"listen-unasked",             // (modern) a notifications/resources/updated of mcpv-fake://unasked, a resource no one asked for, on every subscriptions/listen stream
	"listen-unasked-listed",      // (modern) a notifications/resources/updated of the last resource listed, asked for or not, on every subscriptions/listen stream
	"log-asked-undeclared",       // (modern) with notify-first, the log messages a request asks for sent though logging is not declared
	"log-level-ignored",          // the level asked not kept (logging/setLevel's; in the modern era a request's _meta logLevel): with notify-first, debug messages go on
	"unrelated-on-stream",        // (HTTP) ping (initialize era), server/discover and the lists answered on an event stream that carries a notifications/resources/updated first, which no request of the client's asked for
	"call-news-on-stream",        // (HTTP) tools/call answered on an event stream that carries a notifications/resources/updated first: news of the call's own, yet a subscription's in 2026-07-28
	// mcpv check, round two: first contact, one defect one failure, the misses
	"pretty-json",              // (stdio) every message written over several lines, indented
	"spaced-json",              // (stdio) every message on one line, spaced as Python's json.dumps spaces it: no fault, the same messages
	"string-ids",               // every integer id answered as a string ("1" for 1)
	"null-id-errors",           // every error to a request sent with a null id
	"duplicate-responses",      // (stdio) every response sent twice
	"ping-unanswered",          // ping never answered
	"ping-wrong-id",            // ping answered under an id no request had
	"ping-early-error",         // (initialize era) ping before initialize answered with an error, "Server not initialized"
	"call-other-id",            // every tools/call answered under the id of the first request (answered long before)
	"shared-session-id",        // (HTTP) every session given the same session id, the one state
	"ping-not-found",           // ping answered -32601, as a method the server does not have
	"invalid-params-32601",     // prompts/get, resources/read, tools/call without their name or uri answered -32601
	"integer-cursor",           // nextCursor an integer, not a string
	"result-and-error",         // every result response carries an error too
	"result-and-null-error",    // every result response carries "error": null too (the member there, though null)
	"undeclared-sampling",      // (initialize era) sampling/createMessage asked of a client that did not declare sampling, after every answer
	"subscribe-not-found",      // resources/subscribe answered -32601, though resources.subscribe is declared
	"discover-no-versions",     // (modern) server/discover without supportedVersions
	"text-plain-init",          // (HTTP) every request answered as text/plain, initialize too
	"session-never-given",      // (HTTP) no session id at initialize, but one required after it
	"event-id-reuse",           // (HTTP) every request answered as an event stream whose event ids start at 1
	"poll-replay-start",        // (HTTP, sse-polling) Last-Event-ID read only to find the stream: each GET replays it from its start
	"poll-other-stream",        // (HTTP, sse-polling) each GET replays the session's stream before, another request's, first
	"poll-bad-retry",           // (HTTP, sse-polling) the priming event's retry "1.5s", no number of milliseconds
	"poll-no-retry",            // (HTTP, sse-polling) the connection closed after the priming event with no retry field
	"poll-close-forever",       // (HTTP, sse-polling) each GET answered with another priming event and closed: the response never comes
	"call-on-listen",           // (HTTP, 2026-07-28 era) the slow call's messages sent on a subscriptions/listen stream too, after its own stream is closed as before
	"disconnect-cancels",       // (HTTP, sse-resumable) a call whose stream's connection the client closes is cancelled, and the slow tool runs until then (up to 10 s)
	"task-required-served",     // a tool whose execution.taskSupport is "required" served when called without a task
	"task-forbidden-served",    // a tool that does not run as a task (execution.taskSupport absent) made a task when called as one
	"tasks-get-streamed",       // (HTTP) tasks/get answered with an event stream
	"task-id-from-meta",        // tasks/get, tasks/result and tasks/cancel find their task by the related-task _meta, when it is given, not by params.taskId
	"task-progress-late",       // every tasks/get of a task that has ended sends a progress notification of its call's token more
	"task-asks-working",        // a task that waits for the client's answer said to be working, not input_required
	"task-input-stays",         // a task the client has answered said to be input_required still, to its end
	"crossed-streams",          // (HTTP) pings with string ids of one session that wait at once are answered on each other's streams
	"bad-log-level",            // a log message of level "loud", which no revision has, after every answer
	"input-required-elsewhere", // (modern) completion/complete answered input_required
	"input-required-empty",     // (modern) prompts/get answered input_required with neither inputRequests nor requestState
	"input-asks-elicitation",   // (modern) prompts/get answered input_required asking for elicitation of any client
	"input-asks-tool-call",     // (modern) prompts/get answered input_required asking for a tools/call, which no input request is
	"removed-methods-served",   // (modern) ping, logging/setLevel, resources/subscribe and unsubscribe served (no defect: the era lets a server keep them)
	"removed-methods-200",      // (modern, HTTP) ping, logging/setLevel, resources/subscribe and unsubscribe answered -32601 with HTTP 200; other unknown methods 404
	"client-info-required",     // (modern) a request without _meta clientInfo refused -32602
	"null-cursor",              // the last page of every list with "nextCursor": null
	"request-id-reuse",         // (initialize era) a ping request of the server's after every answer, always with id "srv-ping"
	"timed-ping-reuse",         // (initialize era, stdio) a ping request of the server's as initialized comes and every timedPing after, always with id "srv-ping": a run shorter than timedPing sees one on each connection
	"null-id-request",          // (initialize era) a ping request of the server's with a null id after every answer
	"json-array-answer",        // (HTTP) every JSON answer wrapped in a JSON array
	"string-error-code",        // every error's code written as a string ("-32601")
	"array-params",             // a log message whose params are an array (by position, as JSON-RPC 2.0 allows and MCP's schema does not) after every answer
	"request-id-float",         // (initialize era) a ping request of the server's under a fractional id (1.5, 2.5, ...) after every answer
	"stray-cancel",             // a notifications/cancelled naming the request just answered, the client's, after every answer
	"cancel-never-sent",        // a notifications/cancelled naming a request id no one sent, after every answer
	"log-secret",               // (initialize era) a log message holding the value of the environment variable MCPV_TEST_SECRET after every answer
	"progress-token-bool",      // a progress notification whose token is true after every answer
	"notification-with-id",     // a log message sent with an id (as a request) after every answer
	"result-type-unknown",      // (modern) results with resultType "done"
	"tool-title-number",        // every tool listed with a title that is a number
	"task-support-sometimes",   // every tool listed with execution.taskSupport "sometimes", which no revision has
	"content-audience-system",  // every content block of a tool's result annotated for the audience "system", which is no role
	"content-priority-5",       // every content block of a tool's result annotated with priority 5, past the schema's 1
	"resource-size-string",     // every resource listed with a size that is a string ("12")
	"url-required-bare",        // every tools/call of valid arguments answered -32042 whose data's one elicitation is of form mode, without elicitationId
	"has-more-string",          // completion/complete answered with hasMore "false", a string
	"complete-template-150",    // completion/complete answered no values for a prompt's argument, 150 for a template's variable
	"log-on-listen",            // (modern) a log message on every subscriptions/listen stream
	"listen-no-sub-id",         // (modern) a notification on every subscriptions/listen stream, after its acknowledgement, without its subscriptionId
	"get-stream",               // (HTTP) GET opens an event stream, which stays quiet (no defect)
	"get-stream-response",      // (HTTP) the GET stream opened with a JSON-RPC response to no request of its own
	"mrtr",                     // (modern) prompts/get of "ask", and tools/call of "gated", ask for elicitation (the client's capability declared) with a request state, and keep every rule of answering it (no defect)
	"mrtr-missing-error",       // with mrtr: a retry without its input answered with an error, not asked again
	"mrtr-key-twice",           // with mrtr: the prompt ask's input request written twice under its key
	"mrtr-extra-error",         // with mrtr: an input response of a key never asked refused
	"mrtr-invalid-accepted",    // with mrtr: an input response that is no result taken
	"mrtr-tamper-accepted",     // with mrtr: a request state the server never gave taken
	"caps-remembered",          // with mrtr: the client capabilities an earlier request declared taken for a later one that declares none (of the prompt ask, the tool gated)
	"mrtr-unvalidated",         // with mrtr: a form accepted with values of another type than its schema's taken
	"mrtr-decline-fails",       // with mrtr: an elicitation declined or cancelled answered -32603, as a server that took every answer for an accept
	"mrtr-state-kept",          // with mrtr: a request state taken only on the connection that gave it
	"discover-any-version",     // (modern) server/discover answered whatever version it is stamped with; other requests held to theirs (no defect)
	"initialize-no-versions",   // (modern) initialize refused without naming the versions the server speaks
	"initialize-served",        // (modern) initialize answered as a server of the initialize era answers it, as a server of both eras may (no defect)
	"json-log-stdout",          // (stdio) a JSON log line that is no JSON-RPC message ({"level":50,"error":...}) after every answer
	"bom",                      // (stdio) a byte order mark before every message
	"text-answers",             // (stdio) every request answered with a line of plain text, no JSON-RPC
	"null-result",              // logging/setLevel answered with a result of null, which JSON-RPC 2.0 lets be and MCP's schema does not
	// what the server asks of its client (spec_edges.go's asks)
	"asks",                  // (initialize era) before every tools/call and prompts/get is answered, of a client that declared each: a form elicitation, a URL elicitation and its completion, a sampling request, roots/list (no defect)
	"asks-nested",           // with asks: the form's property an object of its own
	"asks-password",         // with asks or mrtr: the form asks for a password (asks) or an API key (mrtr)
	"asks-no-message",       // with asks: the form without a message
	"asks-no-id",            // with asks: the URL elicitation without elicitationId
	"asks-bad-url",          // with asks: the URL elicitation's url "https://exa mple.com/%zz"
	"asks-js-url",           // with asks: the URL elicitation's url "javascript:alert(1)"
	"asks-url-always",       // with asks: the URL elicitation of a client that declared elicitation of form mode alone too
	"asks-url-private",      // with asks: the URL elicitation's url carries the user's email address
	"asks-form-link",        // with asks: the form's message holds a web address to visit
	"asks-id-reuse",         // with asks: every request of the asks under one id, "srv-asks-again"
	"asks-complete-unknown", // with asks: the completion names an elicitationId never sent
	"asks-sampling-tools",   // with asks: the sampling request offers tools, to a client that did not declare sampling.tools
	"asks-sampling-context", // with asks: the sampling request's includeContext "thisServer", to a client that did not declare sampling.context
	"asks-progress-reuse",   // with asks: every request (but ping) with the one progressToken, each sent before the last is answered
	"asks-sampling-task",    // with asks: the sampling request made as a task, to a client that declared no tasks
	"asks-task-cancelled",   // with asks: the sampling request made as a task of a client that runs it so, then cancelled with notifications/cancelled, not tasks/cancel
	"form-unchecked",        // (initialize era, stdio) every tools/call, of a client that declared elicitation, asks a form of a name and an age first and answers with its values as they came, whatever their types
	"asks-sampling-mixed",   // with asks: the sampling request's user message holds a tool result and a text
	"asks-sampling-orphan",  // with asks: the sampling request's last message holds a result of a tool use no message made
	"asks-sampling-output",  // with asks, to a client that declares sampling.tools: the sampling request's tool result is not of its tool's outputSchema
	"asks-loop",             // with asks: 2,000 elicitations after every answer, not one
	"asks-ping-storm",       // with asks: 12 pings in a row, not one
	"asks-huge-schema",      // with asks: the form's requestedSchema of 20,000 properties and one 5,000 objects deep
	"mrtr-nested",           // with mrtr: the elicitation asked for has a property that is an object of its own
	// hostile: what a server may do to its client, whatever it is asked
	"hang",         // nothing answered but initialize and server/discover
	"mute-early",   // (initialize era) nothing answered before initialize, not even ping
	"flood",        // 100,000 log notifications after the first answer
	"answer-flood", // 100,000 responses to ids no request had after the first answer
	"ask-flood",    // (initialize era) once initialized, 10,000 elicitation/create requests and then a log message "asked them all", reading nothing meanwhile (with deaf, nothing ever)
	"huge-answer",  // tools/list answered with 17 MiB
	"die-midway",   // the server ends at its 8th request
	"escapes",      // errors carry terminal escapes and a secret
}

func (s *Spec) has(fault string) bool { return slices.Contains(s.Faults, fault) }

// removedMethods are the initialize era's methods the 2026-07-28 era has
// not (besides initialize).
var removedMethods = []string{"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}

// pick is yes when cond holds, else no: a fault's choice between two
// values of what a fake sends, both already worked out.
func pick[T any](cond bool, yes, no T) T {
	if cond {
		return yes
	}
	return no
}
