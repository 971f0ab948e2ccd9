package mcptest

// A spec server's conversation with one client, on any transport: the
// answers to requests (spec_answer.go), what it does with notifications,
// batches and input that is no request, the modern era's per-request
// _meta and result fields, a slow tool that reports progress and stops
// when cancelled, subscriptions/listen, and the faults a spec may plant
// (Spec.Faults), each one way a server breaks one requirement of the
// specification. Without faults the server keeps every requirement
// mcpv check checks.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/jsonschema"
)

// Faults are what Spec.Faults may name: each makes the server break one
// requirement (HTTP's only over HTTP).
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
	// lifecycle
	"init-no-server-info",     // initialize answered without serverInfo
	"version-cycle",           // each known version answered with the one before it
	"echo-any-version",        // an unknown version echoed
	"old-fallback",            // an unknown version answered with the oldest
	"list-changed-undeclared", // notifications/tools/list_changed after initialized, undeclared
	"log-undeclared",          // a log message after every answer
	"early-request",           // roots/list sent between initialize and initialized
	"ping-nonempty",           // ping answered with a member
	// lists
	"unstable-cursor", // a cursor's page moves on each time it is asked for
	"lenient-cursor",  // an unknown cursor answered with the first page
	// reading
	"unknown-resource-empty", // an unknown resource read as empty contents
	"lenient-prompt-args",    // a prompt without its required arguments got
	"unknown-prompt-result",  // an unknown prompt got
	"unknown-tool-result",    // an unknown tool answered with an isError result
	"no-input-validation",    // a tool called with arguments its inputSchema refuses answered as if they were valid
	"input-errors-32602",     // a tool called with arguments its inputSchema refuses answered -32602, not an isError result
	"unknown-tool-32601",     // an unknown tool answered -32601, "Unknown tool: NAME"
	"killed-on-prompts-list", // prompts/list kills the server, as another process may (SIGKILL; on Windows, ended)
	"lenient-log-level",      // an unknown log level taken
	// cancellation and progress
	"progress-decreasing", // the slow tool's progress goes down
	"answer-cancelled",    // a cancelled slow call answered anyway, with an error -32800
	"ignore-cancel",       // a cancelled slow call stops, and sends its result all the same
	"die-on-cancel",       // notifications/cancelled ends the server
	"stray-progress",      // a progress notification for no token after every answer
	"progress-string",     // the slow tool's progress written as a string ("1")
	"total-string",        // the slow tool's progress total written as a string ("10")
	// the modern era
	"no-result-type",           // results without resultType
	"no-cache-hints",           // cacheable results without ttlMs and cacheScope
	"ttl-string",               // cacheable results with ttlMs written as a string ("60000")
	"scope-per-page",           // each page of a list with another cacheScope
	"lenient-meta",             // requests without their _meta served
	"any-modern-version",       // any protocol version served
	"listen-no-ack",            // subscriptions/listen's first message is no acknowledgement
	"server-request",           // a roots/list request after every answer
	"old-not-found-code",       // an unknown resource answered -32002
	"discover-no-capabilities", // server/discover without capabilities
	"discover-no-server-info",  // server/discover without _meta serverInfo
	// x-mcp-header: each lists one more tool whose annotation breaks one constraint (paramHeaderTools)
	"param-header-empty",     // an annotation that is empty
	"param-header-token",     // an annotation that is no HTTP token ("My Region")
	"param-header-control",   // an annotation that holds a carriage return and a line feed
	"param-header-duplicate", // two annotations that differ only in case
	"param-header-number",    // an annotation on a property of type number
	"param-header-items",     // an annotation under items, which no chain of properties reaches
	// Streamable HTTP
	"no-origin-check",         // any Origin served
	"origin-matches-host",     // an Origin served when it names the Host the request came to
	"text-plain",              // requests but the first (initialize, server/discover) answered as text/plain
	"notification-200",        // notifications answered 200 with a body
	"stream-left-open",        // every request answered on an event stream held open after the response
	"malformed-200",           // a body that is no JSON answered 200
	"session-id-space",        // session ids with a space in them
	"no-session-404",          // a request without a session id answered 404
	"unknown-session-400",     // an unknown session id answered 400
	"delete-ignored",          // DELETE answered 200, the session kept
	"any-version-header",      // any MCP-Protocol-Version served
	"get-json",                // GET answered 200 with JSON
	"method-not-found-200",    // (modern) an unknown method answered 200
	"no-header-check",         // (modern) Mcp-* headers that do not match the body served
	"version-header-optional", // (modern, HTTP) a request without MCP-Protocol-Version served as the body's era
	"no-param-header-check",   // (modern) Mcp-Param-NAME headers that do not match a tool's x-mcp-header arguments served
	"mint-session",            // (modern) a session id minted
	"origin-prefix",           // an Origin served when it begins as one of this machine's does (http://localhost.mcpv-check.invalid)
	"delete-origin-unchecked", // DELETE and GET served whatever their Origin
	"delete-again-200",        // (initialize era) DELETE of a session ended answered 200
	"param-header-optional",   // (modern) a tools/call without the Mcp-Param-NAME header of an argument it gives served
	"capability-error-200",    // (modern, HTTP) -32021 answered with HTTP 200, not 400
	"listen-unasked",          // (modern) a notifications/resources/updated on every subscriptions/listen stream, which asked for no resource
	"log-level-ignored",       // (initialize era) logging/setLevel taken and its level not kept: with notify-first, debug messages go on
	"unrelated-on-stream",     // (HTTP) ping (initialize era), server/discover and the lists answered on an event stream that carries a notifications/resources/updated first, which no request of the client's asked for
	// mcpv check, round two: first contact, one defect one failure, the misses
	"pretty-json",              // (stdio) every message written over several lines, indented
	"spaced-json",              // (stdio) every message on one line, spaced as Python's json.dumps spaces it: no fault, the same messages
	"string-ids",               // every integer id answered as a string ("1" for 1)
	"null-id-errors",           // every error to a request sent with a null id
	"duplicate-responses",      // (stdio) every response sent twice
	"ping-unanswered",          // ping never answered
	"ping-wrong-id",            // ping answered under an id no request had
	"call-other-id",            // every tools/call answered under the id of the first request (answered long before)
	"shared-session-id",        // (HTTP) every session given the same session id, the one state
	"ping-not-found",           // ping answered -32601, as a method the server does not have
	"invalid-params-32601",     // prompts/get, resources/read, tools/call without their name or uri answered -32601
	"integer-cursor",           // nextCursor an integer, not a string
	"result-and-error",         // every result response carries an error too
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
	"task-required-served",     // a tool whose execution.taskSupport is "required" served when called without a task
	"crossed-streams",          // (HTTP) pings with string ids of one session that wait at once are answered on each other's streams
	"bad-log-level",            // a log message of level "loud", which no revision has, after every answer
	"input-required-elsewhere", // (modern) completion/complete answered input_required
	"input-required-empty",     // (modern) prompts/get answered input_required with neither inputRequests nor requestState
	"input-asks-elicitation",   // (modern) prompts/get answered input_required asking for elicitation of any client
	"removed-methods-served",   // (modern) ping, logging/setLevel, resources/subscribe and unsubscribe served (no defect: the era lets a server keep them)
	"removed-methods-200",      // (modern, HTTP) ping, logging/setLevel, resources/subscribe and unsubscribe answered -32601 with HTTP 200; other unknown methods 404
	"client-info-required",     // (modern) a request without _meta clientInfo refused -32602
	"null-cursor",              // the last page of every list with "nextCursor": null
	"request-id-reuse",         // (initialize era) a ping request of the server's after every answer, always with id "srv-ping"
	"null-id-request",          // (initialize era) a ping request of the server's with a null id after every answer
	"json-array-answer",        // (HTTP) every JSON answer wrapped in a JSON array
	"string-error-code",        // every error's code written as a string ("-32601")
	"array-params",             // a log message whose params are an array (by position, as JSON-RPC 2.0 allows and MCP's schema does not) after every answer
	"request-id-float",         // (initialize era) a ping request of the server's under a fractional id (1.5, 2.5, ...) after every answer
	"stray-cancel",             // a notifications/cancelled naming the request just answered, the client's, after every answer
	"log-secret",               // (initialize era) a log message holding the value of the environment variable MCPV_TEST_SECRET after every answer
	"progress-token-bool",      // a progress notification whose token is true after every answer
	"notification-with-id",     // a log message sent with an id (as a request) after every answer
	"result-type-unknown",      // (modern) results with resultType "done"
	"tool-title-number",        // every tool listed with a title that is a number
	"task-support-sometimes",   // every tool listed with execution.taskSupport "sometimes", which no revision has
	"content-audience-system",  // every content block of a tool's result annotated for the audience "system", which is no role
	"content-priority-5",       // every content block of a tool's result annotated with priority 5, past the schema's 1
	"resource-size-string",     // every resource listed with a size that is a string ("12")
	"has-more-string",          // completion/complete answered with hasMore "false", a string
	"log-on-listen",            // (modern) a log message on every subscriptions/listen stream
	"get-stream",               // (HTTP) GET opens an event stream, which stays quiet (no defect)
	"get-stream-response",      // (HTTP) the GET stream opened with a JSON-RPC response to no request of its own
	"mrtr",                     // (modern) prompts/get of "ask" asks for elicitation (the client's capability declared) with a request state, and keeps every rule of answering it (no defect)
	"mrtr-missing-error",       // with mrtr: a retry without its input answered with an error, not asked again
	"mrtr-extra-error",         // with mrtr: an input response of a key never asked refused
	"mrtr-invalid-accepted",    // with mrtr: an input response that is no result taken
	"mrtr-tamper-accepted",     // with mrtr: a request state the server never gave taken
	"discover-any-version",     // (modern) server/discover answered whatever version it is stamped with; other requests held to theirs (no defect)
	"json-log-stdout",          // (stdio) a JSON log line that is no JSON-RPC message ({"level":30,...}) after every answer
	"bom",                      // (stdio) a byte order mark before every message
	"text-answers",             // (stdio) every request answered with a line of plain text, no JSON-RPC
	"null-result",              // logging/setLevel answered with a result of null, which JSON-RPC 2.0 lets be and MCP's schema does not
	// what the server asks of its client (spec_edges.go's asks)
	"asks",                  // (initialize era) before every tools/call and prompts/get is answered, of a client that declared each: a form elicitation, a URL elicitation and its completion, a sampling request, roots/list (no defect)
	"asks-nested",           // with asks: the form's property an object of its own
	"asks-no-message",       // with asks: the form without a message
	"asks-no-id",            // with asks: the URL elicitation without elicitationId
	"asks-bad-url",          // with asks: the URL elicitation's url "https://exa mple.com/%zz"
	"asks-js-url",           // with asks: the URL elicitation's url "javascript:alert(1)"
	"asks-url-always",       // with asks: the URL elicitation of a client that declared elicitation of form mode alone too
	"asks-complete-unknown", // with asks: the completion names an elicitationId never sent
	"asks-sampling-tools",   // with asks: the sampling request offers tools, to a client that did not declare sampling.tools
	"asks-sampling-context", // with asks: the sampling request's includeContext "thisServer", to a client that did not declare sampling.context
	"asks-sampling-mixed",   // with asks: the sampling request's user message holds a tool result and a text
	"asks-loop",             // with asks: 2,000 elicitations after every answer, not one
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

// slowTool is the tool a spec server runs for a while when it lists it:
// a progress notification every slowStep (when asked for), slowSteps of
// them, then its result; a notifications/cancelled for it stops it.
const (
	slowTool  = "slow"
	slowSteps = 10
	slowStep  = 20 * time.Millisecond
)

// specState is what a spec server keeps of one client: a stdio process's
// whole life, an HTTP session's.
type specState struct {
	mu       sync.Mutex               // guards the fields below
	version  string                   // negotiated in the initialize era
	running  map[string]chan struct{} // slow calls, by id; closed to cancel
	requests int                      // requests answered so far
	first    json.RawMessage          // the id of the first (call-other-id)
	asked    map[string]int           // unstable-cursor: how often each cursor was asked for
	stopped  bool                     // a die-* fault fired: serve no more
	logLevel string                   // the level logging/setLevel asked for; "" none
	// initialized says an initialize request has come (mute-early).
	initialized bool
	tasks       map[string]*specTask // by id (spec_tasks.go)
	waits       map[string]chan msg  // the client's answers awaited, by the id of the server's request
	caps        json.RawMessage      // the client capabilities its initialize declared
}

func newSpecState() *specState {
	return &specState{running: map[string]chan struct{}{}, asked: map[string]int{}}
}

func (st *specState) stop() {
	st.mu.Lock()
	st.stopped = true
	st.mu.Unlock()
}

// Stopped reports whether a die-* fault ended the server.
func (st *specState) Stopped() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.stopped
}

// specOut is where a spec server's messages for one client go: send
// writes one line; async runs work that may outlive the message being
// answered (a slow call): on a goroutine over stdio, at once over HTTP.
type specOut struct {
	send  func(line string)
	async func(func())
	// bulk, where set, runs a function that writes many lines to the
	// client's stream at once, buffered (a flood).
	bulk func(func(io.Writer))
	// http is set over HTTP, where notifications and cancellation are
	// the transport's.
	http bool
	// edged: the edges that shape every message are applied already.
	edged bool
	// done is closed when the client goes (stdin's end, an HTTP
	// request's): an answer that waits gives up then.
	done <-chan struct{}
}

// specMessage handles one message from the client: raw is the line as it
// came (for a batch, or input that is no request).
func (s *Spec) specMessage(st *specState, raw []byte, m msg, out specOut) {
	if st.Stopped() {
		return
	}
	out = s.edged(s.shaped(out))
	trimmed := bytes.TrimSpace(raw)
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		s.batch(st, trimmed, out)
	case m.invalid != nil:
		s.badInput(st, m.invalid, out)
	case m.Method != "" && m.ID != nil && string(m.ID) != "null":
		s.request(st, m, out)
	case m.Method != "" && m.ID == nil:
		s.notification(st, m, out)
	case m.Method == "" && (m.Result != nil || m.Error != nil):
		st.route(m) // a response to a request the server sent
	default:
		s.badInput(st, &specError{Code: codeInvalidRequest, Message: "not a JSON-RPC request"}, out)
	}
}

// badInput answers input that is no request, as JSON-RPC 2.0 has it.
func (s *Spec) badInput(st *specState, e *specError, out specOut) {
	switch {
	case s.has("die-on-bad-input"):
		st.stop()
		return
	case s.has("ignore-invalid") && e.Code == codeInvalidRequest:
		return
	case s.has("parse-error-code") && e.Code == codeParseError:
		e = &specError{Code: codeInvalidRequest, Message: e.Message}
	}
	out.send(s.errorLine(json.RawMessage("null"), e.Code, e.Message))
}

// batch answers a batch: each of its requests, in an array, when the
// version negotiated is 2025-03-26 (the only one with batches).
func (s *Spec) batch(st *specState, raw []byte, out specOut) {
	st.mu.Lock()
	version := st.version
	st.mu.Unlock()
	var items []json.RawMessage
	switch {
	case s.has("die-on-batch"):
		st.stop()
		return
	case version != "2025-03-26" || s.has("no-batches"), json.Unmarshal(raw, &items) != nil, len(items) == 0:
		out.send(s.errorLine(json.RawMessage("null"), codeInvalidRequest, "batches are not served"))
		return
	}
	var answers []string
	// The batch's answers are edged as one line, the array, not each.
	collect := specOut{send: func(line string) { answers = append(answers, line) }, async: func(f func()) { f() }, edged: true, done: out.done}
	for _, it := range items {
		var m msg
		if json.Unmarshal(it, &m) != nil {
			m = msg{invalid: &specError{Code: codeInvalidRequest, Message: "not a JSON-RPC request"}}
		}
		s.specMessage(st, it, m, collect)
	}
	if s.edge("batch-reversed") {
		slices.Reverse(answers)
	}
	if len(answers) > 0 {
		out.send("[" + strings.Join(answers, ",") + "]")
	}
}

// notification handles a notification.
func (s *Spec) notification(st *specState, m msg, out specOut) {
	if s.has("answer-notifications") {
		out.send(s.errorLine(json.RawMessage("null"), codeMethodNotFound, "unknown notification "+m.Method))
	}
	switch m.Method {
	case "notifications/initialized":
		if s.has("answer-initialized") {
			out.send(`{"jsonrpc":"2.0","id":null,"result":{}}`)
		}
		if s.has("list-changed-undeclared") {
			out.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
		}
		if s.has("ask-flood") {
			for range 10000 {
				out.send(`{"jsonrpc":"2.0","id":"` + srvID("srv-flood") + `","method":"elicitation/create","params":` + elicitation + `}`)
			}
			out.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"asked them all"}}`)
		}
	case "notifications/cancelled":
		if s.has("die-on-cancel") {
			st.stop()
			return
		}
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		p.RequestID = member(m.Params, "requestId")
		st.mu.Lock()
		if ch, ok := st.running[string(p.RequestID)]; ok {
			close(ch)
			delete(st.running, string(p.RequestID))
		}
		st.mu.Unlock()
	}
}

// request answers a request, through its faults.
func (s *Spec) request(st *specState, m msg, out specOut) {
	st.mu.Lock()
	st.requests++
	n := st.requests
	early := st.version == "" && !st.initialized
	st.initialized = st.initialized || m.Method == "initialize"
	if n == 1 {
		st.first = m.ID
	}
	first := st.first
	st.mu.Unlock()
	switch {
	case s.has("hang") && m.Method != "initialize" && m.Method != "server/discover",
		slices.Contains(s.Mute, m.Method) || slices.Contains(s.Mute, m.Method+" "+nameParam(m.Params)),
		s.has("mute-early") && early && m.Method != "initialize":
		return
	case s.has("ping-unanswered") && m.Method == "ping":
		return
	case s.has("ping-wrong-id") && m.Method == "ping":
		out.send(`{"jsonrpc":"2.0","id":"` + srvID("not-the-ping") + `","result":{}}`)
		return
	case s.has("call-other-id") && m.Method == "tools/call" && n > 1:
		out.send(`{"jsonrpc":"2.0","id":` + string(first) + `,"result":{"content":[{"type":"text","text":"answered under another id"}]}}`)
		return
	case s.has("die-midway") && n >= 8:
		st.stop()
		return
	case s.has("flood") && n == 2:
		for i := range 100000 {
			out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood %d"}}`, i))
		}
	case s.has("answer-flood") && n == 2:
		for i := range 100000 {
			out.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"mcpv-flood-%d","result":{}}`, i))
		}
	case s.has("huge-answer") && m.Method == "tools/list":
		out.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"big","description":"%s","inputSchema":{"type":"object"}}]}}`, m.ID, strings.Repeat("x", 17<<20)))
		return
	case s.has("escapes") && m.Method == "prompts/get":
		out.send(s.errorLine(m.ID, -32603, "boom \u001b[2J\u001b]0;pwned\u0007 token=s3cr3t-Secret-Value"))
		return
	}
	id := s.replyID(m.ID)
	modern := s.Era == "modern"
	if modern && m.Method != "initialize" {
		if e := s.checkMeta(m.Params); e != nil && !(e.Code == -32022 && m.Method == "server/discover" && s.has("discover-any-version")) {
			out.send(s.errorLineData(id, e.Code, e.Message, e.data))
			return
		}
	}
	if s.lat != nil && m.Method == "tools/call" && !(s.Tasks != nil && (member(m.Params, "task") != nil || nameParam(m.Params) == "job")) {
		s.lat.run(out, func() { s.respond(st, m, id, out) })
		return
	}
	s.respond(st, m, id, out)
}

// respond answers a request whose faults let it be answered.
func (s *Spec) respond(st *specState, m msg, id json.RawMessage, out specOut) {
	modern := s.Era == "modern"
	if s.named != nil && s.namedRequest(st, m, id, out) {
		return
	}
	switch {
	case m.Method == "tools/call" && s.taskCall(st, m, id, out),
		strings.HasPrefix(m.Method, "tasks/") && s.taskMethod(st, m, id, out):
		if !modern && s.edge("server-pings") {
			out.send(serverPing()) // while the task runs: a request of no task's
		}
		return
	case m.Method == "tools/call" && nameParam(m.Params) == slowTool && s.tool(slowTool) != nil:
		s.slowCall(st, m, id, out)
		return
	case m.Method == "subscriptions/listen" && modern:
		if e := s.listenRefused(m.Params); e != nil {
			out.send(s.errorLineData(id, e.Code, e.Message, e.data))
			return
		}
		s.listen(m, id, out)
		return
	}
	res, e := s.answer(st, m)
	s.before(st, m, out)
	st.mu.Lock()
	caps := st.caps
	st.mu.Unlock()
	s.asks(m, caps, out) // while it answers: over HTTP, on the request's stream before its response
	if e != nil {
		out.send(s.errorLineData(id, e.Code, e.Message, e.data))
	} else {
		out.send(s.resultLine(id, m.Method, res))
	}
	st.mu.Lock()
	if m.Method == "initialize" && e == nil {
		st.version, _ = stringMember(res, "protocolVersion")
		st.caps = member(m.Params, "capabilities")
	}
	st.mu.Unlock()
	s.after(st, m, out)
}

// shaped is out through the faults that shape what is written over
// stdio: messages over several lines, responses twice, a byte order mark
// before each, plain text instead.
func (s *Spec) shaped(out specOut) specOut {
	if out.http || !s.has("pretty-json") && !s.has("spaced-json") && !s.has("duplicate-responses") && !s.has("bom") && !s.has("text-answers") {
		return out
	}
	send := out.send
	out.send = func(line string) {
		switch {
		case s.has("text-answers"):
			line = "OK: " + strings.ReplaceAll(line, `"`, "")
		case s.has("bom"):
			line = "\uFEFF" + line
		case s.has("pretty-json"):
			var b bytes.Buffer
			if json.Indent(&b, []byte(line), "", "  ") == nil {
				line = b.String()
			}
		case s.has("spaced-json"): // json.Indent's lines, each but the first after a space
			var b bytes.Buffer
			if json.Indent(&b, []byte(line), "", "") == nil {
				line = strings.ReplaceAll(b.String(), "\n", " ")
			}
		}
		send(line)
		if s.has("duplicate-responses") && member(json.RawMessage(line), "method") == nil && member(json.RawMessage(line), "id") != nil {
			send(line)
		}
	}
	return out
}

// after sends what some faults (and the server-pings edge) send after
// an answer, each to the requests it is for, in this order; a log
// message of level info only while logging/setLevel asked for none above
// it (the fault is another).
func (s *Spec) after(st *specState, m msg, out specOut) {
	st.mu.Lock()
	quiet := slices.Index(logLevels, st.logLevel) > slices.Index(logLevels, "info")
	st.mu.Unlock()
	handshake := m.Method == "initialize" || m.Method == "server/discover"
	initEra := s.Era != "modern" && m.Method != "initialize"
	line := func(text string) func() string { return func() string { return text } }
	log := line(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"answered"}}`)
	for _, f := range []struct {
		name string
		when bool
		line func() string
	}{
		{"early-request", m.Method == "initialize", line(`{"jsonrpc":"2.0","id":"srv-early","method":"roots/list"}`)},
		{"log-undeclared", true, log},
		{"stray-progress", true, line(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nobody-asked","progress":1}}`)},
		{"server-request", m.Method != "initialize", func() string { return `{"jsonrpc":"2.0","id":"` + srvID("srv-ask") + `","method":"roots/list"}` }},
		{"stray-cancel", m.ID != nil && !handshake, line(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(m.ID) + `,"reason":"done"}}`)},
		{"progress-token-bool", !handshake, line(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":true,"progress":1}}`)},
		{"notification-with-id", !handshake, func() string {
			return `{"jsonrpc":"2.0","id":"` + srvID("srv-note") + `","method":"notifications/message","params":{"level":"info","data":"answered"}}`
		}},
		{"server-pings", initEra, serverPing},
		{"request-id-float", initEra, func() string {
			return `{"jsonrpc":"2.0","id":` + strings.TrimPrefix(srvID(""), "-") + `.5,"method":"ping"}`
		}},
		{"log-secret", initEra, func() string {
			return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":` + mustString("key="+os.Getenv("MCPV_TEST_SECRET")) + `}}`
		}},
		{"request-id-reuse", initEra, line(`{"jsonrpc":"2.0","id":"srv-ping","method":"ping"}`)},
		{"null-id-request", initEra, line(`{"jsonrpc":"2.0","id":null,"method":"ping"}`)},
		{"json-log-stdout", !out.http, line(`{"level":30,"msg":"answered"}`)},
		{"array-params", true, line(`{"jsonrpc":"2.0","method":"notifications/message","params":["info","answered"]}`)},
		{"bad-log-level", true, line(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":"answered"}}`)},
		{"undeclared-sampling", initEra, func() string {
			return `{"jsonrpc":"2.0","id":"` + srvID("srv-sample") + `","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}`
		}},
	} {
		if f.when && (s.has(f.name) || s.edge(f.name)) {
			if l := f.line(); !quiet || !strings.Contains(l, `"level":"info"`) {
				out.send(l)
			}
		}
	}
}

// srvRequests counts the requests the fake servers of a process send, for
// ids that are never used twice.
var srvRequests atomic.Int64

// srvID is a server request's id, new each time.
func srvID(prefix string) string { return fmt.Sprintf("%s-%d", prefix, srvRequests.Add(1)) }

// answer is the result or error of a request, its faults applied.
func (s *Spec) answer(st *specState, m msg) (json.RawMessage, *specError) {
	method, params := m.Method, m.Params
	if method == "prompts/list" && s.has("killed-on-prompts-list") {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill()
		}
	}
	if s.Era == "modern" {
		switch {
		case method == "completion/complete" && s.has("input-required-elsewhere"):
			return json.RawMessage(`{"resultType":"input_required","requestState":"s1"}`), nil
		case s.has("removed-methods-served") && slices.Contains(removedMethods, method):
			return json.RawMessage(`{}`), nil
		}
	}
	switch method {
	case "initialize":
		if s.Era == "modern" {
			return nil, notFound(method)
		}
		return s.initializeFaulty(params)
	case "ping":
		if s.Era == "modern" {
			return nil, notFound(method) // 2026-07-28 has no ping
		}
		if s.has("ping-nonempty") {
			return json.RawMessage(`{"pong":true}`), nil
		}
	case "prompts/get", "resources/read", "tools/call":
		key := map[string]string{"prompts/get": "name", "resources/read": "uri", "tools/call": "name"}[method]
		if _, ok := stringMember(params, key); !ok && s.has("lenient-params") {
			return json.RawMessage(`{"contents":[],"messages":[],"content":[]}`), nil
		}
		// A tool that requires a task, called without one: -32601
		// (2025-11-25 basic/utilities/tasks#tool-level-negotiation).
		if method == "tools/call" && member(params, "task") == nil && !s.has("task-required-served") &&
			s.toolTaskSupport(nameParam(params)) == "required" {
			return nil, &specError{Code: codeMethodNotFound, Message: "tools/call: the tool requires a task"}
		}
	}
	if _, ok := lists[method]; ok {
		params = s.cursorFaults(st, method, params)
	}
	if method == "prompts/get" && s.Era == "modern" && s.has("mrtr") && nameParam(params) == "ask" {
		return s.askPrompt(params)
	}
	res, e := s.handle(method, params)
	if e == nil && method == "prompts/get" && s.Era == "modern" && s.missingArgs(params) == "" {
		// A prompt got as it should be: asking for input instead.
		switch {
		case s.has("input-required-empty"):
			return json.RawMessage(`{"resultType":"input_required"}`), nil
		case s.has("input-asks-elicitation"):
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{"e1":{"method":"elicitation/create","params":{"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}`), nil
		}
	}
	if method == "logging/setLevel" && e == nil && !s.has("log-level-ignored") {
		st.mu.Lock()
		st.logLevel, _ = stringMember(params, "level")
		st.mu.Unlock()
	}
	return s.answerFaults(method, params, res, e)
}

// answerFaults is the answer to method made (res, e), through the faults
// that change an answer once it is made.
func (s *Spec) answerFaults(method string, params, res json.RawMessage, e *specError) (json.RawMessage, *specError) {
	if e == nil {
		res = s.memberFaults(method, res)
	}
	switch {
	case e == nil && method == "prompts/get":
		if missing := s.missingArgs(params); missing != "" && !s.has("lenient-prompt-args") {
			return nil, &specError{Code: codeInvalidParams, Message: "prompts/get: missing required argument " + missing}
		}
	case e == nil && method == "tools/call":
		// Arguments the tool's inputSchema refuses: a tool execution
		// error, which a model can correct itself by (2025-11-25
		// server/tools#error-handling).
		switch bad := s.invalidArgs(params); {
		case bad == "" || s.has("no-input-validation"):
		case s.has("input-errors-32602"):
			return nil, &specError{Code: codeInvalidParams, Message: "tools/call: " + bad}
		case s.edge("input-error-bare"):
			return json.RawMessage(`{"content":[],"isError":true}`), nil
		default:
			return mustJSON(map[string]any{"content": []any{map[string]string{"type": "text", "text": "invalid arguments: " + bad}}, "isError": true}), nil
		}
	case e != nil && e.Code == codeMethodNotFound && s.has("unknown-method-internal") && !gatedOrKnown(method):
		return nil, &specError{Code: -32603, Message: "internal error"}
	case e != nil && e.Code == codeResourceNotFound && method == "resources/read":
		switch {
		case s.has("unknown-resource-empty"):
			return json.RawMessage(`{"contents":[]}`), nil
		case s.Era == "modern" && !s.has("old-not-found-code"):
			e.Code = codeInvalidParams
		}
	case e != nil && method == "prompts/get" && s.has("unknown-prompt-result"):
		return json.RawMessage(`{"messages":[]}`), nil
	case e != nil && method == "tools/call" && s.has("unknown-tool-result"):
		return json.RawMessage(`{"content":[{"type":"text","text":"no such tool"}],"isError":true}`), nil
	case e != nil && method == "tools/call" && s.has("unknown-tool-32601"):
		return nil, &specError{Code: codeMethodNotFound, Message: "Unknown tool: " + nameParam(params)}
	case e == nil && method == "completion/complete" && s.has("has-more-string"):
		return json.RawMessage(`{"completion":{"values":[],"hasMore":"false"}}`), nil
	case method == "logging/setLevel" && e == nil:
		if lvl, _ := stringMember(params, "level"); !slices.Contains(logLevels, lvl) && !s.has("lenient-log-level") {
			return nil, &specError{Code: codeInvalidParams, Message: "logging/setLevel: unknown level"}
		}
		if s.has("null-result") {
			return json.RawMessage(`null`), nil
		}
	}
	return res, e
}

// memberFaults are a result through the faults that give every item of
// one of its arrays a member of the wrong shape.
func (s *Spec) memberFaults(method string, res json.RawMessage) json.RawMessage {
	for _, f := range []struct{ fault, method, key, member, value string }{
		{"tool-title-number", "tools/list", "tools", "title", `5`},
		{"task-support-sometimes", "tools/list", "tools", "execution", `{"taskSupport":"sometimes"}`},
		{"content-audience-system", "tools/call", "content", "annotations", `{"audience":["system"]}`},
		{"content-priority-5", "tools/call", "content", "annotations", `{"priority":5}`},
		{"resource-size-string", "resources/list", "resources", "size", `"12"`},
	} {
		if f.method != method || !s.has(f.fault) {
			continue
		}
		var r map[string]json.RawMessage
		var items []map[string]json.RawMessage
		if json.Unmarshal(res, &r) != nil || json.Unmarshal(r[f.key], &items) != nil {
			continue
		}
		for _, it := range items {
			it[f.member] = json.RawMessage(f.value)
		}
		r[f.key] = mustJSON(items)
		res = mustJSON(r)
	}
	return res
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// gatedOrKnown reports whether method is one the spec server serves.
func gatedOrKnown(method string) bool {
	_, gated := gates[method]
	return gated || slices.Contains([]string{"initialize", "ping", "server/discover", "logging/setLevel", "completion/complete", "subscriptions/listen", "resources/subscribe", "resources/unsubscribe"}, method)
}

// initializeFaulty is initialize's answer through the version faults.
func (s *Spec) initializeFaulty(params json.RawMessage) (json.RawMessage, *specError) {
	res, e := initialize(s, params)
	if e != nil {
		return nil, e
	}
	offered, _ := stringMember(params, "protocolVersion")
	answered := ""
	switch i := slices.Index(knownVersions, offered); {
	case s.has("version-cycle") && i >= 0:
		answered = knownVersions[min(i+1, len(knownVersions)-1)]
	case s.has("echo-any-version") && i < 0:
		answered = offered
	case s.has("old-fallback") && i < 0:
		answered = knownVersions[len(knownVersions)-1]
	}
	r, ok := object(res)
	if !ok {
		return nil, &specError{Code: -32603, Message: "initialize: the spec's answer is no object"}
	}
	if answered != "" {
		r["protocolVersion"], _ = json.Marshal(answered)
	}
	if s.has("init-no-server-info") {
		delete(r, "serverInfo")
	}
	return mustJSON(orderedInit(r)), nil
}

// orderedInit keeps initialize's members in the order the spec server
// writes them.
func orderedInit(r map[string]json.RawMessage) any {
	return struct {
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo,omitempty"`
		Instructions    json.RawMessage `json:"instructions,omitempty"`
	}{r["protocolVersion"], r["capabilities"], r["serverInfo"], r["instructions"]}
}

// cursorFaults are a list request's params through the cursor faults.
func (s *Spec) cursorFaults(st *specState, method string, params json.RawMessage) json.RawMessage {
	cursor, hasCursor := stringMember(params, "cursor")
	if hasCursor && s.has("unstable-cursor") {
		st.mu.Lock()
		st.asked[method+cursor]++
		n := st.asked[method+cursor]
		st.mu.Unlock()
		if start, err := strconv.Atoi(cursor); err == nil {
			params = mustJSON(map[string]string{"cursor": strconv.Itoa(start + n%2)})
		}
	}
	if hasCursor && s.has("lenient-cursor") {
		if _, err := strconv.Atoi(cursor); err != nil && cursor != repeatedCursor {
			params = nil
		}
	}
	return params
}

// missingArgs names a required argument of the prompt params name that
// params do not give, or "".
func (s *Spec) missingArgs(params json.RawMessage) string {
	given, _ := object(member(params, "arguments")) // arguments that are no object give none
	for _, pr := range s.Prompts {
		var d struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name     string          `json:"name"`
				Required json.RawMessage `json:"required"`
			} `json:"arguments"`
		}
		if json.Unmarshal(pr, &d) != nil || d.Name != nameParam(params) {
			continue
		}
		for _, a := range d.Arguments {
			// Anything but false taken as required, as a lenient server
			// reads its own "required": "true".
			required := a.Required != nil && string(a.Required) != "false" && string(a.Required) != "null"
			if _, ok := given[a.Name]; required && !ok {
				return a.Name
			}
		}
	}
	return ""
}

// checkMeta checks a modern request's _meta
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta).
func (s *Spec) checkMeta(params json.RawMessage) *specError {
	if s.has("lenient-meta") {
		return nil
	}
	meta := member(params, "_meta")
	version, ok := stringMember(meta, "io.modelcontextprotocol/protocolVersion")
	if !ok || member(meta, "io.modelcontextprotocol/clientCapabilities") == nil {
		return &specError{Code: codeInvalidParams, Message: "missing required _meta fields"}
	}
	if s.has("client-info-required") && member(meta, "io.modelcontextprotocol/clientInfo") == nil {
		return &specError{Code: codeInvalidParams, Message: "missing clientInfo"}
	}
	if version != specModernVersion && !s.has("any-modern-version") {
		return &specError{Code: -32022, Message: "Unsupported protocol version",
			data: mustJSON(map[string]any{"supported": []string{specModernVersion}, "requested": version})}
	}
	return nil
}

// resultLine is a result response, stamped for the era and through the
// faults that shape every answer.
func (s *Spec) resultLine(id json.RawMessage, method string, res json.RawMessage) string {
	var b bytes.Buffer
	json.Compact(&b, res)
	body := b.String()
	if len(s.Edges) > 0 {
		var r map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &r) == nil {
			s.edgeResult(method, r)
			body = string(mustJSON(r))
		}
	}
	if s.Era == "modern" {
		body = s.stampResult(method, body)
	}
	if s.has("bad-utf8") && strings.HasPrefix(body, "{") {
		body = `{"x":"` + "\xff" + `"` + map[bool]string{true: "", false: ","}[body == "{}"] + body[1:]
	}
	if s.has("no-jsonrpc-version") {
		return fmt.Sprintf(`{"id":%s,"result":%s}`, id, body)
	}
	if s.has("result-and-error") {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s,"error":{"code":-32603,"message":"and an error"}}`, id, body)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, body)
}

// stampResult adds the modern era's members to a result: resultType,
// caching hints where they are due, the server's info in _meta.
func (s *Spec) stampResult(method, body string) string {
	var r map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &r) != nil {
		return body
	}
	if !s.has("no-result-type") && r["resultType"] == nil {
		r["resultType"] = json.RawMessage(`"complete"`)
	}
	if s.has("result-type-unknown") && string(r["resultType"]) == `"complete"` {
		r["resultType"] = json.RawMessage(`"done"`)
	}
	if slices.Contains([]string{"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"}, method) && !s.has("no-cache-hints") {
		// A spec's own hints (ttlMs, cacheScope) stand; the rest are due.
		if r["ttlMs"] == nil {
			r["ttlMs"] = json.RawMessage(`0`)
		}
		if s.has("ttl-string") {
			r["ttlMs"] = json.RawMessage(`"60000"`)
		}
		if s.has("scope-per-page") && r["nextCursor"] == nil {
			r["cacheScope"] = json.RawMessage(`"private"`)
		} else if r["cacheScope"] == nil {
			r["cacheScope"] = json.RawMessage(`"public"`)
		}
	}
	if method == "server/discover" {
		if s.has("discover-no-capabilities") {
			delete(r, "capabilities")
		}
		if s.has("discover-no-versions") {
			delete(r, "supportedVersions")
		}
		if s.has("discover-no-server-info") {
			delete(r, "_meta")
		}
	}
	return string(mustJSON(r))
}

func (s *Spec) errorLine(id json.RawMessage, code int, message string) string {
	return s.errorLineData(id, code, message, nil)
}

func (s *Spec) errorLineData(id json.RawMessage, code int, message string, data json.RawMessage) string {
	text := mustString(message)
	codeText := strconv.Itoa(code)
	if s.has("string-error-code") {
		codeText = `"` + codeText + `"`
	} else if s.edge("error-code-fraction") {
		codeText += ".0"
	}
	e := fmt.Sprintf(`{"code":%s,"message":%s}`, codeText, text)
	if data = s.edgeError(data); data != nil {
		e = fmt.Sprintf(`{"code":%s,"message":%s,"data":%s}`, codeText, text, data)
	}
	if s.has("no-jsonrpc-version") {
		return fmt.Sprintf(`{"id":%s,"error":%s}`, id, e)
	}
	if s.has("null-id-errors") {
		id = json.RawMessage("null")
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":%s}`, id, e)
}

// replyID is the id a response carries, through the id faults.
func (s *Spec) replyID(id json.RawMessage) json.RawMessage {
	switch {
	case len(id) > 0 && id[0] == '"' && s.has("mangle-string-id"):
		return json.RawMessage(`"` + strings.Trim(string(id), `"`) + `-x"`)
	case len(id) > 0 && id[0] != '"' && s.has("mangle-number-id") && (string(id) == "0" || len(id) >= 10):
		return json.RawMessage(`"` + string(id) + `"`)
	case len(id) > 0 && id[0] != '"' && s.has("string-ids"):
		return json.RawMessage(`"` + string(id) + `"`)
	}
	return id
}

// tool is the first tool the spec lists of that name, nil when none.
// invalidArgs says how a tools/call's arguments break its tool's
// inputSchema (internal/jsonschema, as mcpv's own check of a call); ""
// when they do not, or the tool has no schema it can compile.
func (s *Spec) invalidArgs(params json.RawMessage) string {
	schema, err := jsonschema.Compile(member(s.tool(nameParam(params)), "inputSchema"))
	if err != nil {
		return ""
	}
	args := member(params, "arguments")
	if args == nil {
		args = json.RawMessage(`{}`)
	}
	if err := schema.Validate(args); err != nil {
		return err.Error()
	}
	return ""
}

func (s *Spec) tool(name string) json.RawMessage {
	for _, t := range s.Tools {
		if n, _ := stringMember(t, "name"); n == name {
			return t
		}
	}
	return nil
}

// slowCall runs the slow tool: progress when asked for, then its result,
// unless it is cancelled first.
func (s *Spec) slowCall(st *specState, m msg, id json.RawMessage, out specOut) {
	token := member(member(m.Params, "_meta"), "progressToken")
	cancel := make(chan struct{})
	st.mu.Lock()
	st.running[string(m.ID)] = cancel
	st.mu.Unlock()
	out.async(func() {
		defer func() {
			st.mu.Lock()
			delete(st.running, string(m.ID))
			st.mu.Unlock()
		}()
		for i := 1; i <= slowSteps; i++ {
			if token != nil {
				n := i
				if s.has("progress-decreasing") {
					n = slowSteps - i
				}
				out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,%s}}`, token, s.progressStep(n)))
			}
			select {
			case <-cancel:
				if s.has("answer-cancelled") {
					out.send(s.errorLine(id, -32800, "Request cancelled"))
				}
				switch {
				case s.has("ignore-cancel"):
					out.send(s.resultLine(id, "tools/call", json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)))
				case s.edge("cancel-crossing"):
					// The rest of the call, and its result, as they come
					// from a call that ended as its cancellation came.
					for n := i + 1; n <= slowSteps && token != nil; n++ {
						out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,%s}}`, token, s.progressStep(n)))
					}
					out.send(s.resultLine(id, "tools/call", json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)))
				}
				return
			case <-time.After(slowStep):
			}
			if token == nil && i >= 3 {
				break
			}
		}
		out.send(s.resultLine(id, "tools/call", json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)))
	})
}

// listen opens a subscription: its acknowledgement first, then nothing
// until the client cancels it or goes.
func (s *Spec) listen(m msg, id json.RawMessage, out specOut) {
	meta := fmt.Sprintf(`{"io.modelcontextprotocol/subscriptionId":%s}`, m.ID)
	filter := member(m.Params, "notifications")
	if filter == nil {
		filter = json.RawMessage(`{}`)
	}
	if s.has("listen-no-ack") {
		out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":%s}}`, meta))
	}
	out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":%s,"notifications":%s}}`, meta, filter))
	if s.edge("listen-notifies") {
		out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":%s}}`, meta))
	}
	if s.has("log-on-listen") {
		out.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"listening"}}`)
	}
	if s.has("listen-unasked") {
		out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":%s,"uri":"mem://a"}}`, meta))
	}
}

// object is raw's members; false when raw is no JSON object (absent,
// null, malformed or another value).
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// member is a JSON object's member, raw; nil when absent.
func member(raw json.RawMessage, key string) json.RawMessage {
	m, _ := object(raw)
	return m[key]
}

// stringMember is a string member's value.
func stringMember(raw json.RawMessage, key string) (string, bool) {
	var s string
	if v := member(raw, key); v == nil || json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// nameParam is params.name.
func nameParam(params json.RawMessage) string {
	n, _ := stringMember(params, "name")
	return n
}

// askPrompt is prompts/get of "ask" with the mrtr behaviour: the first
// ask answered input_required (an elicitation, a request state), a retry
// with the state and the elicitation's answer completed, one without its
// answer asked again, one with a state never given or an answer that is
// no result refused; an answer to a key never asked is ignored.
func (s *Spec) askPrompt(params json.RawMessage) (json.RawMessage, *specError) {
	const state = "mac:7f3a"
	ask := json.RawMessage(`{"resultType":"input_required","inputRequests":{"who":{"method":"elicitation/create","params":{"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"` + state + `"}`)
	if s.has("mrtr-nested") {
		ask = json.RawMessage(strings.Replace(string(ask), `{"name":{"type":"string"}}`, nestedProperty, 1))
	}
	got, hasState := stringMember(params, "requestState")
	answers := member(params, "inputResponses")
	done := json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"asked"}}]}`)
	if member(member(member(params, "_meta"), "io.modelcontextprotocol/clientCapabilities"), "elicitation") == nil {
		return done, nil // a client that cannot answer is not asked
	}
	if !hasState {
		return ask, nil
	}
	if got != state && !s.has("mrtr-tamper-accepted") {
		return nil, &specError{Code: codeInvalidParams, Message: "requestState does not verify"}
	}
	m, _ := object(answers) // none, or no object: no answer given, asked again
	if len(m) > 1 && s.has("mrtr-extra-error") {
		return nil, &specError{Code: codeInvalidParams, Message: "unexpected input response"}
	}
	who, ok := m["who"]
	switch {
	case !ok && s.has("mrtr-missing-error"):
		return nil, &specError{Code: codeInvalidParams, Message: "missing input response"}
	case !ok:
		return ask, nil
	case member(who, "action") == nil && !s.has("mrtr-invalid-accepted"):
		return nil, &specError{Code: codeInvalidParams, Message: "the input response is no elicitation result"}
	}
	return done, nil
}
