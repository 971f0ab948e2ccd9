"""The kit's table: every server of kit P, its planted defect, and what the self-test must see.

build_kit.py turns this into kit.jsonl and README.md; selftest.py uses `expect` (the names of
its own checks that must fail for that server, and only those).
"""

E25, E26 = "2025-11-25", "2026-07-28"
S, H = "stdio", "http"

# (name, era, transport, level, page, rule, defect, expect, calls, extra-args)
DEFECTS = [
    # ---------------------------------------------------------------- 2025-11-25, stdio
    ("stdout-banner", E25, S, "MUST", "2025-11-25/basic/transports#stdio",
     "The server **MUST NOT** write anything to its `stdout` that is not a valid MCP message.",
     "prints a plain-text startup banner line on stdout before any JSON-RPC message",
     ["wire.json"], None, ""),
    ("non-utf8", E25, S, "MUST", "2025-11-25/basic/transports",
     "JSON-RPC messages **MUST** be UTF-8 encoded.",
     "writes its stdout in Latin-1, so non-ASCII text (the \u00b0 in the weather tool description, echoed "
     "unicode) is not UTF-8 (and characters outside Latin-1 become '?')",
     ["wire.utf8", "tools.call-echo"], None, ""),
    ("version-echo", E25, S, "MUST", "2025-11-25/basic/lifecycle#version-negotiation",
     "Otherwise, the server **MUST** respond with another protocol version it supports.",
     "answers initialize with whatever protocolVersion the client asked for, even an unknown one such as "
     "\"2099-01-01\"",
     ["init.version-fallback"], None, ""),
    ("init-no-serverinfo", E25, S, "MUST", "2025-11-25/basic/lifecycle#initialization",
     "The server **MUST** respond with its own capabilities and information:",
     "the InitializeResult has no serverInfo",
     ["init.result"], None, ""),
    ("notification-response", E25, S, "MUST", "2025-11-25/basic/index#notifications",
     "The receiver **MUST NOT** send a response.",
     "answers client notifications it does not know (e.g. notifications/foo) with a JSON-RPC error "
     "response (id null, -32601)",
     ["notify.no-response"], None, ""),
    ("id-stringified", E25, S, "MUST", "2025-11-25/basic/index#result-responses",
     "Result responses **MUST** include the same ID as the request they correspond to.",
     "echoes integer request ids back as strings (request id 3 is answered with id \"3\")",
     ["jsonrpc.id-match"], None, ""),
    ("cancel-late-crash", E25, S, "MUST", "2025-11-25/basic/utilities/cancellation#timing-considerations",
     "Both parties **MUST** handle these race conditions gracefully:",
     "the process exits when a notifications/cancelled names a request that has already completed "
     "(or is unknown)",
     ["cancel.survives-late"], None, ""),
    ("progress-repeat", E25, S, "MUST", "2025-11-25/basic/utilities/progress#progress-flow",
     "The `progress` value **MUST** increase with each notification, even if the total is unknown.",
     "the slow tool sends progress 0 twice before 1, 2, ... (the value does not increase)",
     ["progress.monotonic"], ["echo text=hi", "slow ms=400"], ""),
    ("progress-after-done", E25, S, "MUST", "2025-11-25/basic/utilities/progress#implementation-notes",
     "Progress notifications **MUST** stop after completion",
     "the slow tool sends one more notifications/progress for its token after the response",
     ["progress.after-response"], ["echo text=hi", "slow ms=400"], ""),
    ("tool-output-missing-structured", E25, S, "MUST", "2025-11-25/server/tools#output-schema",
     "Servers **MUST** provide structured results that conform to this schema.",
     "weather declares an outputSchema but returns only unstructured text, no structuredContent",
     ["tools.structured"], ["echo text=hi", "weather city=Paris"], ""),
    ("input-schema-required-string", E25, S, "MUST", "2025-11-25/basic/index#schema-validation",
     "Schemas **MUST** be valid according to their declared or default dialect",
     "echo's inputSchema has \"required\": \"text\" (a string where JSON Schema requires an array)",
     ["tools.schema-valid"], None, ""),
    ("elicit-undeclared", E25, S, "MUST", "2025-11-25/client/elicitation#capabilities",
     "Servers **MUST NOT** send elicitation requests with modes that are not supported by the client.",
     "the ask tool sends elicitation/create even to a client that declared no elicitation capability",
     ["elicit.capability"], ["echo text=hi", "ask question=Ready?"], ""),
    ("elicit-url-mode", E25, S, "MUST", "2025-11-25/client/elicitation#capabilities",
     "Servers **MUST NOT** send elicitation requests with modes that are not supported by the client.",
     "the ask tool sends a URL-mode elicitation to a client that declared only form mode (elicitation: {})",
     ["elicit.modes"], ["echo text=hi", "ask question=Ready?"], ""),
    ("sampling-tools-undeclared", E25, S, "MUST", "2025-11-25/client/sampling#tools-in-sampling",
     "Servers **MUST NOT** send tool-enabled sampling requests to Clients that have not declared support for "
     "tool use via the `sampling.tools` capability.",
     "the summarize tool sends sampling/createMessage with a tools array to a client whose sampling "
     "capability has no tools",
     ["sampling.tools"], ["echo text=hi", "summarize text=hello"], ""),
    ("roots-undeclared", E25, S, "MUST", "2025-11-25/basic/lifecycle#operation",
     "Only use capabilities that were successfully negotiated",
     "the list_roots tool sends roots/list to a client that did not declare the roots capability",
     ["roots.capability"], ["echo text=hi", "list_roots"], ""),
    ("ping-id-reuse", E25, S, "MUST", "2025-11-25/basic/index#requests",
     "The request ID **MUST NOT** have been previously used by the requestor within the same session.",
     "pings the client every second after initialization, always with the same request id \"srv-ping\"",
     ["server-requests.unique-ids"], None, ""),
    ("setlevel-invalid-accepted", E25, S, "SHOULD", "2025-11-25/server/utilities/logging#error-handling",
     "Servers **SHOULD** return standard JSON-RPC errors for common failure cases: - Invalid log level: "
     "`-32602` (Invalid params)",
     "logging/setLevel with an unknown level (\"verbose\") succeeds instead of failing with -32602",
     ["logging.setlevel-invalid"], None, ""),
    ("cancel-still-responds", E25, S, "SHOULD", "2025-11-25/basic/utilities/cancellation#behavior-requirements",
     "Receivers of cancellation notifications **SHOULD**: - Stop processing the cancelled request - Free "
     "associated resources - Not send a response for the cancelled request",
     "ignores notifications/cancelled: the cancelled request runs on and its response is still sent",
     ["cancel.no-response"], ["echo text=hi", "slow ms=3000"], ""),
    ("tool-name-space", E25, S, "SHOULD", "2025-11-25/server/tools#tool-names",
     "Tool names **SHOULD NOT** contain spaces, commas, or other special characters.",
     "exposes a tool named \"Word Count\" (with a space)",
     ["tools.names"], None, ""),
    ("list-changed-undeclared", E25, S, "MUST", "2025-11-25/basic/lifecycle#operation",
     "Only use capabilities that were successfully negotiated",
     "sends notifications/tools/list_changed after initialization although it declared tools.listChanged "
     "false",
     ["caps.list-changed"], None, ""),
    ("cap-no-prompts", E25, S, "MUST", "2025-11-25/server/prompts#capabilities",
     "Servers that support prompts **MUST** declare the `prompts` capability during initialization:",
     "serves prompts/list and prompts/get but its capabilities have no prompts entry",
     ["caps.prompts-declared"], None, ""),
    ("cursor-invalid-ok", E25, S, "SHOULD", "2025-11-25/server/utilities/pagination#error-handling",
     "Invalid cursors **SHOULD** result in an error with code -32602 (Invalid params).",
     "treats an invalid cursor as the start of the list and returns the first page",
     ["pagination.invalid-cursor"], None, ""),
    ("resource-blob-raw", E25, S, "MUST", "2025-11-25/server/resources#security-considerations",
     "Binary data **MUST** be properly encoded",
     "resources/read of mem://logo.png returns the raw PNG bytes as Latin-1 text in blob instead of base64",
     ["resources.read"], None, ""),
    ("task-not-working", E25, S, "MUST", "2025-11-25/basic/utilities/tasks#task-status-lifecycle",
     "Tasks **MUST** begin in the `working` status when created.",
     "the CreateTaskResult for a task-augmented tools/call reports status \"pending\"",
     ["tasks.create"], ["echo text=hi", "longjob ms=1500"], ""),
    ("task-result-no-related", E25, S, "MUST", "2025-11-25/basic/utilities/tasks#related-task-metadata",
     "The `tasks/result` operation **MUST** include this metadata in its response, as the result structure "
     "itself does not contain the task ID.",
     "tasks/result returns the tool result without _meta io.modelcontextprotocol/related-task",
     ["tasks.result-meta"], ["echo text=hi", "longjob ms=1500"], ""),
    ("ping-before-init-error", E25, S, "MUST", "2025-11-25/basic/utilities/ping#behavior-requirements",
     "The receiver **MUST** respond promptly with an empty response:",
     "a ping sent before initialize is answered with an error (\"Server not initialized\")",
     ["ping.before-init"], None, ""),
    ("resource-uri-space", E25, S, "MUST", "2025-11-25/server/resources#custom-uri-schemes",
     "Custom URI schemes **MUST** be in accordance with RFC3986, taking the above guidance in to account.",
     "lists (and serves) a resource whose URI contains a raw space: mem://notes/meeting notes.txt",
     ["resources.uris"], None, ""),
    ("error-with-result", E25, S, "MUST", "2025-11-25/basic/index#messages",
     "All messages between MCP clients and servers **MUST** follow the JSON-RPC 2.0 specification.",
     "every error response also carries \"result\": null (JSON-RPC allows only one of result and error)",
     ["jsonrpc.error-shape"], None, ""),
    ("task-ttl-missing", E25, S, "MUST", "2025-11-25/basic/utilities/tasks#ttl-and-resource-management",
     "Receivers **MUST** include the actual `ttl` duration (or `null` for unlimited) in `tasks/get` responses.",
     "tasks/get responses have no ttl member",
     ["tasks.get"], ["echo text=hi", "longjob ms=1500"], ""),
    ("sampling-includecontext", E25, S, "SHOULD", "2025-11-25/client/sampling#capabilities",
     "Servers **SHOULD** avoid using these values (e.g. can just omit `includeContext` since it defaults to "
     "`\"none\"`), and **SHOULD NOT** use them unless the client declares `sampling.context` capability.",
     "the summarize tool's sampling/createMessage asks for includeContext \"allServers\" from a client that "
     "did not declare sampling.context",
     ["sampling.includecontext"], ["echo text=hi", "summarize text=hello"], ""),

    ("cap-no-completions", E25, S, "MUST", "2025-11-25/server/utilities/completion#capabilities",
     "Servers that support completions **MUST** declare the `completions` capability:",
     "answers completion/complete (prompt and template arguments) but its capabilities have no completions "
     "entry",
     ["caps.completions-declared"], None, ""),

    # ---------------------------------------------------------------- 2025-11-25, http
    ("origin-unchecked", E25, H, "MUST", "2025-11-25/basic/transports#security-warning",
     "If the `Origin` header is present and invalid, servers **MUST** respond with HTTP 403 Forbidden.",
     "does not validate Origin: a POST with Origin: http://evil.example is served normally",
     ["http.origin"], None, ""),
    ("origin-400", E25, H, "MUST", "2025-11-25/basic/transports#security-warning",
     "If the `Origin` header is present and invalid, servers **MUST** respond with HTTP 403 Forbidden.",
     "rejects a foreign Origin with 400 Bad Request instead of 403 Forbidden",
     ["http.origin"], None, ""),
    ("pv-header-ignored", E25, H, "MUST", "2025-11-25/basic/transports#protocol-version-header",
     "If the server receives a request with an invalid or unsupported `MCP-Protocol-Version`, it **MUST** "
     "respond with `400 Bad Request`.",
     "accepts any MCP-Protocol-Version header value (e.g. 1999-01-01) instead of answering 400",
     ["http.pv-header"], None, ""),
    ("notification-204", E25, H, "MUST", "2025-11-25/basic/transports#sending-messages-to-the-server",
     "If the server accepts the input, the server **MUST** return HTTP status code 202 Accepted with no body.",
     "acknowledges POSTed notifications with 204 No Content instead of 202 Accepted",
     ["http.notification-202"], None, ""),
    ("json-content-type-missing", E25, H, "MUST", "2025-11-25/basic/transports#sending-messages-to-the-server",
     "If the input is a JSON-RPC _request_, the server **MUST** either return `Content-Type: "
     "text/event-stream`, to initiate an SSE stream, or `Content-Type: application/json`, to return one JSON "
     "object.",
     "answers requests with a single JSON object but no Content-Type header at all",
     ["http.content-type"], None, ""),
    ("get-404", E25, H, "MUST", "2025-11-25/basic/transports#listening-for-messages-from-the-server",
     "The server **MUST** either return `Content-Type: text/event-stream` in response to this HTTP GET, or "
     "else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at "
     "this endpoint.",
     "answers GET on the MCP endpoint with 404 Not Found",
     ["http.get"], None, ""),
    ("session-id-space", E25, H, "MUST", "2025-11-25/basic/transports#session-management",
     "The session ID **MUST** only contain visible ASCII characters (ranging from 0x21 to 0x7E).",
     "mints session ids like \"session 3f9a2c...\" that contain a space (0x20)",
     ["http.session-id-chars"], None, ""),
    ("session-deleted-alive", E25, H, "MUST", "2025-11-25/basic/transports#session-management",
     "The server **MAY** terminate the session at any time, after which it **MUST** respond to requests "
     "containing that session ID with HTTP 404 Not Found.",
     "answers DELETE with 200 but keeps serving the session, so later requests with that id succeed",
     ["http.session-deleted"], None, ""),
    ("session-deleted-400", E25, H, "MUST", "2025-11-25/basic/transports#session-management",
     "The server **MAY** terminate the session at any time, after which it **MUST** respond to requests "
     "containing that session ID with HTTP 404 Not Found.",
     "answers requests carrying a terminated (or unknown) session id with 400 instead of 404",
     ["http.session-deleted", "http.session-unknown"], None, ""),
    ("session-missing-404", E25, H, "SHOULD", "2025-11-25/basic/transports#session-management",
     "Servers that require a session ID **SHOULD** respond to requests without an `MCP-Session-Id` header "
     "(other than initialization) with HTTP 400 Bad Request.",
     "answers requests that lack the Mcp-Session-Id header with 404 instead of 400",
     ["http.session-missing"], None, ""),
    ("sse-event-id-reuse", E25, H, "MUST", "2025-11-25/basic/transports#resumability-and-redelivery",
     "If present, the ID **MUST** be globally unique across all streams within that session\u2014or all "
     "streams with that specific client, if session management is not in use.",
     "answers every request with SSE and numbers the event ids of each stream from 1 again",
     ["sse.event-ids-unique"], None, ""),
    ("sse-no-priming", E25, H, "SHOULD", "2025-11-25/basic/transports#sending-messages-to-the-server",
     "The server **SHOULD** immediately send an SSE event consisting of an event ID and an empty `data` field "
     "in order to prime the client to reconnect (using that event ID as `Last-Event-ID`).",
     "answers every request with an SSE stream that starts straight with the JSON-RPC messages, without a "
     "priming event",
     ["sse.priming"], None, ""),
    ("sse-close-no-retry", E25, H, "SHOULD", "2025-11-25/basic/transports#sending-messages-to-the-server",
     "If the server does close the _connection_ prior to terminating the _SSE stream_, it **SHOULD** send an "
     "SSE event with a standard `retry` field before closing the connection.",
     "closes every POST SSE connection right after the priming event (to be resumed with Last-Event-ID) "
     "without ever sending a retry field",
     ["sse.retry-before-close"], None, ""),
    ("get-response-on-standalone", E25, H, "MUST",
     "2025-11-25/basic/transports#listening-for-messages-from-the-server",
     "The server **MUST NOT** send a JSON-RPC _response_ on the stream **unless** resuming a stream "
     "associated with a previous client request.",
     "while a standalone GET stream is open, delivers the responses to POSTed requests on that GET stream "
     "(the POST's SSE stream ends without the response)",
     ["sse.no-response-on-get"], None, ""),
    ("broadcast", E25, H, "MUST", "2025-11-25/basic/transports#multiple-connections",
     "The server **MUST** send each of its JSON-RPC messages on only one of the connected streams; that is, "
     "it **MUST NOT** broadcast the same message across multiple streams.",
     "copies request-scoped notifications (progress, log messages) onto every open GET stream as well as the "
     "request's own stream, and resource updates onto every GET stream",
     ["sse.no-broadcast"], ["echo text=hi", "slow ms=400"], ""),
    ("tool-output-schema-type", E25, H, "MUST", "2025-11-25/server/tools#output-schema",
     "Servers **MUST** provide structured results that conform to this schema.",
     "weather's structuredContent gives temperature as a string (\"21.3 \u00b0C\") where its outputSchema "
     "says number",
     ["tools.structured"], ["echo text=hi", "weather city=Paris"], ""),
    ("tool-exec-error-protocol", E25, H, "SHOULD", "2025-11-25/schema#calltoolresult",
     "Any errors that originate from the tool SHOULD be reported inside the result object, with `isError` set "
     "to true, _not_ as an MCP protocol-level error response.",
     "weather reports an unknown city as JSON-RPC error -32603 instead of a result with isError true",
     ["tools.exec-error"], ["echo text=hi", "weather city=Atlantis"], ""),
    ("ping-unsupported", E25, H, "MUST", "2025-11-25/basic/utilities/ping#behavior-requirements",
     "The receiver **MUST** respond promptly with an empty response:",
     "answers ping with -32601 Method not found",
     ["ping.result"], None, ""),
    ("error-id-null", E25, H, "MUST", "2025-11-25/basic/index#error-responses",
     "Error responses **MUST** include the same ID as the request they correspond to (except in error cases "
     "where the ID could not be read due a malformed request).",
     "every JSON-RPC error response carries \"id\": null although the request id was readable",
     ["jsonrpc.error-id"], None, ""),
    ("task-result-nonblocking", E25, H, "MUST", "2025-11-25/basic/utilities/tasks#result-retrieval",
     "When a receiver receives a `tasks/result` request for a task in any other non-terminal status "
     "(`working` or `input_required`), it **MUST** block the response until the task reaches a terminal "
     "status.",
     "tasks/result on a task that is still working fails at once with -32602 \"not completed yet\"",
     ["tasks.result"], ["echo text=hi", "longjob ms=1500"], ""),
    ("task-cancel-not-sticky", E25, H, "MUST", "2025-11-25/basic/utilities/tasks#task-cancellation",
     "Once a task is cancelled, it **MUST** remain in `cancelled` status even if execution continues to "
     "completion or fails.",
     "tasks/cancel reports cancelled, but the job keeps running and later turns the task to completed",
     ["tasks.cancel-sticky"], ["echo text=hi", "longjob ms=2500"], ""),
    ("task-list-incomplete", E25, H, "MUST", "2025-11-25/basic/utilities/tasks#task-listing",
     "If a task is retrievable via `tasks/get` for a requestor, it **MUST** be retrievable via `tasks/list` "
     "for that requestor.",
     "tasks/list only shows tasks that are still working; finished tasks vanish from it while tasks/get "
     "still returns them",
     ["tasks.list"], ["echo text=hi", "longjob ms=1500"], ""),
    ("task-required-runs", E25, H, "MUST", "2025-11-25/basic/utilities/tasks#tool-level-negotiation",
     "Servers **MUST** return a `-32601` (Method not found) error if a client does not attempt to do so.",
     "reindex declares execution.taskSupport \"required\" but runs normally when called without a task",
     ["tasks.required"], ["echo text=hi", "reindex"], ""),
    ("elicit-password", E25, H, "MUST", "2025-11-25/client/elicitation#user-interaction-model",
     "Servers **MUST NOT** use form mode elicitation to request sensitive information such as passwords, API "
     "keys, access tokens, or payment credentials",
     "the ask tool's form elicitation also asks for the user's account password",
     ["elicit.sensitive"], ["echo text=hi", "ask question=Ready?"], ""),
    ("sampling-undeclared", E25, H, "MUST", "2025-11-25/basic/lifecycle#operation",
     "Only use capabilities that were successfully negotiated",
     "the summarize tool sends sampling/createMessage to a client that did not declare sampling",
     ["sampling.capability"], ["echo text=hi", "summarize text=hello"], ""),
    ("completion-too-many", E25, H, "MUST", "2025-11-25/schema#completeresult",
     "An array of completion values. Must not exceed 100 items.",
     "completion/complete for the code_review prompt's language argument returns 150 values",
     ["completion.values"], None, ""),
    ("task-cancel-terminal", E25, H, "MUST", "2025-11-25/basic/utilities/tasks#task-cancellation",
     "Receivers **MUST** reject cancellation requests for tasks already in a terminal status (`completed`, "
     "`failed`, or `cancelled`) with error code `-32602` (Invalid params).",
     "tasks/cancel on a completed task succeeds and returns the task unchanged",
     ["tasks.cancel-terminal"], ["echo text=hi", "longjob ms=1500"], ""),
    ("prompt-image-datauri", E25, H, "MUST", "2025-11-25/server/prompts#image-content",
     "The image data **MUST** be base64-encoded and include a valid MIME type.",
     "the picture prompt's image content carries a data: URI (\"data:image/png;base64,...\") instead of bare "
     "base64",
     ["prompts.content"], None, ""),
    ("prompt-missing-arg-ok", E25, H, "SHOULD", "2025-11-25/server/prompts#error-handling",
     "Servers **SHOULD** return standard JSON-RPC errors for common failure cases: - Invalid prompt name: "
     "`-32602` (Invalid params) - Missing required arguments: `-32602` (Invalid params)",
     "prompts/get greet without its required name argument succeeds (\"Please greet None warmly.\")",
     ["prompts.errors-missing-arg"], None, ""),
    ("no-input-validation", E25, H, "MUST", "2025-11-25/server/tools#security-considerations",
     "Servers **MUST**: - Validate all tool inputs",
     "echo called without its required text argument returns a successful result \"None\"",
     ["tools.invalid-args"], ["echo text=hi", "echo"], ""),
    ("version-old", E25, H, "MUST", "2025-11-25/basic/lifecycle#version-negotiation",
     "If the server supports the requested protocol version, it **MUST** respond with the same version.",
     "answers an initialize for 2025-11-25 (which it supports) with protocolVersion 2025-06-18",
     ["init.version-same"], None, ""),
    ("error-code-string", E25, H, "MUST", "2025-11-25/basic/index#error-responses",
     "Error codes **MUST** be integers.",
     "reports an unknown tool with the error code as a string (\"-32602\")",
     ["jsonrpc.error-shape"], None, ""),
    ("task-id-int", E25, H, "MUST", "2025-11-25/basic/utilities/tasks#task-id-requirements",
     "Task IDs **MUST** be a string value.",
     "task ids are JSON integers (e.g. 4821)",
     ["tasks.create"], ["echo text=hi", "longjob ms=1500"], ""),

    # ---------------------------------------------------------------- 2026-07-28, stdio
    ("stdout-pretty", E26, S, "MUST", "2026-07-28/basic/transports/stdio",
     "Messages are delimited by newlines, and **MUST NOT** contain embedded newlines.",
     "pretty-prints every JSON-RPC message over several lines",
     ["wire.single-line"], None, ""),
    ("stdout-debug-print", E26, S, "MUST", "2026-07-28/basic/transports/stdio",
     "The server **MUST NOT** write anything to its `stdout` that is not a valid MCP message.",
     "prints a \"[debug] tools/call <name>\" text line to stdout for every tools/call",
     ["wire.json"], None, ""),
    ("server-request-stdout", E26, S, "MUST", "2026-07-28/basic/transports/stdio#receiving-messages",
     "The server **MUST NOT** write JSON-RPC _requests_ to `stdout`.",
     "the ask tool sends an old-style elicitation/create JSON-RPC request to a client that declared "
     "elicitation, instead of returning an InputRequiredResult",
     ["no-server-requests", "mrtr.elicit"], ["echo text=hi", "ask question=Ready?"], ""),
    ("cancel-still-responds-26", E26, S, "MUST", "2026-07-28/basic/transports/stdio#cancellation",
     "Servers **SHOULD** stop work on a cancelled request as soon as practical and **MUST NOT** send any "
     "further messages for it.",
     "ignores notifications/cancelled: keeps sending progress for the cancelled request and finally its "
     "response",
     ["cancel.no-response", "cancel.no-more-messages"], ["echo text=hi", "slow ms=3000"], ""),
    ("listen-cancel-ignored", E26, S, "MUST", "2026-07-28/basic/transports/stdio#cancellation",
     "Servers **SHOULD** stop work on a cancelled request as soon as practical and **MUST NOT** send any "
     "further messages for it.",
     "keeps sending notifications/resources/updated for a subscriptions/listen request after the client "
     "cancelled it",
     ["listen.cancel"], None, ""),
    ("no-exit-eof", E26, S, "SHOULD", "2026-07-28/basic/transports/stdio#shutdown",
     "Servers **SHOULD** exit promptly when their standard input is closed or reads return end-of-file.",
     "keeps running after its stdin reaches end-of-file",
     ["stdio.eof-exit"], None, ""),
    ("resulttype-missing", E26, S, "MUST", "2026-07-28/basic/index#result-responses",
     "The `result` **MUST** include a `resultType` field to indicate the type of the result.",
     "tools/call results have no resultType",
     ["results.resultType"], None, ""),
    ("discover-missing", E26, S, "MUST", "2026-07-28/server/discover",
     "`server/discover` lets a client query a server's supported protocol versions, capabilities, and "
     "identity before sending any other requests. Servers **MUST** implement it.",
     "answers server/discover with -32601 Method not found",
     ["discover.result"], None, ""),
    ("meta-missing-accepted", E26, S, "MUST", "2026-07-28/basic/index#meta",
     "A request missing any required field is malformed; the server **MUST** reject it with JSON-RPC error "
     "code `-32602` (Invalid params).",
     "serves requests that carry no _meta, or lack io.modelcontextprotocol/protocolVersion or "
     "io.modelcontextprotocol/clientCapabilities",
     ["meta.required", "meta.required-caps"], None, ""),
    ("unsupported-version-code", E26, S, "MUST", "2026-07-28/basic/versioning#protocol-version-negotiation",
     "If the server does not implement the requested version (whether the version is unknown to the server, "
     "or is a known version the server has chosen not to support), it **MUST** respond with an "
     "`UnsupportedProtocolVersionError` listing the versions it does support:",
     "rejects unknown protocol versions with the pre-renumbering code -32004 instead of -32022",
     ["version.unsupported", "errors.legacy-range"], None, ""),
    ("stateful-caps", E26, S, "MUST", "2026-07-28/basic/index#statelessness",
     "Servers **MUST NOT** rely on prior requests over the same connection to establish context (e.g., "
     "capabilities, protocol version, client identity).",
     "remembers the client capabilities declared on earlier requests of the stdio connection and applies "
     "them to later requests that do not declare them (ask then returns an elicitation input request to a "
     "request without elicitation)",
     ["mrtr.stateless"], None, ""),
    ("missing-cap-wrong-code", E26, S, "MUST", "2026-07-28/basic/index#meta",
     "If processing a request requires a capability the client did not include in "
     "`io.modelcontextprotocol/clientCapabilities`, the server **MUST** return a "
     "`MissingRequiredClientCapabilityError` (`-32021`) whose `data.requiredCapabilities` lists the missing "
     "capabilities.",
     "reports a missing client capability (ask without elicitation) with the draft code -32003 instead of "
     "-32021",
     ["mrtr.missing-cap", "errors.legacy-range"], ["echo text=hi", "ask question=Ready?"], ""),
    ("inputrequests-undeclared", E26, S, "MUST", "2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow",
     "Servers **MUST NOT** send an `inputRequests` that the client has not declared support for in its "
     "capabilities.",
     "ask, summarize and list_roots return elicitation, sampling or roots input requests to clients that "
     "declared none of these capabilities",
     ["mrtr.undeclared", "mrtr.missing-cap", "mrtr.stateless"], ["echo text=hi", "ask question=Ready?"], ""),
    ("input-required-empty", E26, S, "MUST", "2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow",
     "Servers **MUST** include at least one of `inputRequests` or `requestState` in every "
     "`InputRequiredResult` response.",
     "ask's InputRequiredResult carries its elicitation under a misspelled key \"inputRequest\" and has no "
     "requestState, so it has neither inputRequests nor requestState",
     ["mrtr.elicit", "mrtr.retry"], ["echo text=hi", "ask question=Ready?"], ""),
    ("input-required-on-completion", E26, S, "MUST", "2026-07-28/basic/patterns/mrtr#supported-requests",
     "Servers **MUST NOT** send `InputRequiredResult` responses on any other client requests.",
     "completion/complete answers with an InputRequiredResult (requestState only)",
     ["mrtr.only-allowed", "completion.values"], None, ""),
    ("progress-wrong-token", E26, S, "MUST", "2026-07-28/basic/patterns/progress#behavior-requirements",
     "Progress notifications **MUST** only reference tokens that: - Were provided in an active request - Are "
     "associated with an in-progress operation",
     "notifications/progress carry the JSON-RPC request id instead of the client's progressToken",
     ["progress.token"], ["echo text=hi", "slow ms=400"], ""),
    ("log-without-level", E26, S, "MUST", "2026-07-28/server/utilities/logging#per-request-log-level",
     "The server **MUST NOT** emit `notifications/message` for a request that does not include this field.",
     "emits notifications/message for tools/call requests that carry no io.modelcontextprotocol/logLevel",
     ["logging.no-unrequested"], None, ""),
    ("resource-notfound-32002", E26, S, "MUST", "2026-07-28/server/resources#error-handling",
     "If the requested resource does not exist, servers **MUST** return a JSON-RPC error with code `-32602` "
     "(Invalid Params).",
     "answers resources/read of an unknown URI with the legacy code -32002",
     ["resources.notfound", "errors.reserved-range"], None, ""),
    ("tools-list-side-effect", E26, S, "MUST", "2026-07-28/server/tools#capabilities",
     "This set **MAY** be empty and **MAY** change over time (see List Changed Notification), but **MUST NOT** "
     "vary per-connection or as a side effect of other requests on the connection.",
     "once echo has been called on a stdio connection, tools/list on that connection also lists an "
     "echo_history tool",
     ["tools.list-stable"], None, ""),
    ("cancel-echo", E26, S, "MUST", "2026-07-28/basic/patterns/cancellation",
     "Servers **MUST NOT** send `notifications/cancelled` for any other purpose.",
     "acknowledges each client notifications/cancelled by sending a notifications/cancelled back for the "
     "same requestId",
     ["server-cancelled"], ["echo text=hi", "slow ms=3000"], ""),
    ("initialize-error-no-versions", E26, S, "SHOULD",
     "2026-07-28/basic/versioning#backward-compatibility-with-initialization-based-versions",
     "A server that supports only modern versions **SHOULD** name the protocol versions it supports in any "
     "error it returns to an `initialize` request, on any transport:",
     "answers a legacy initialize request with a bare \"Method not found\" that names no protocol version",
     ["initialize.refusal"], None, ""),
    ("error-code-reserved", E26, S, "MUST", "2026-07-28/basic/index#error-codes",
     "Implementations **MUST NOT** emit any code from this sub-range that is not defined by this "
     "specification and **MUST** use defined codes only with their specified meanings.",
     "reports an unknown tool with the undefined code -32040 (inside the range reserved for the MCP "
     "specification)",
     ["errors.reserved-range"], None, ""),
    ("tools-order-random", E26, S, "SHOULD", "2026-07-28/server/tools#capabilities",
     "Servers **SHOULD** return tools in a deterministic order (i.e., the same ordering across requests when "
     "the underlying set of tools has not changed).",
     "returns tools/list in a random order on every request",
     ["tools.order-stable"], None, ""),
    ("listen-no-ack", E26, S, "MUST", "2026-07-28/basic/patterns/subscriptions#acknowledgment",
     "The server **MUST** send `notifications/subscriptions/acknowledged` as the first message carrying the "
     "subscription's ID in `_meta` under `io.modelcontextprotocol/subscriptionId`, and **MUST NOT** send any "
     "notification on the subscription before it.",
     "never sends notifications/subscriptions/acknowledged; resource updates start straight away",
     ["listen.ack"], None, ""),
    ("loglevel-invalid-accepted", E26, S, "SHOULD", "2026-07-28/server/utilities/logging#error-handling",
     "If the `io.modelcontextprotocol/logLevel` value carried in a request's `_meta` is not a recognized log "
     "level, the server **SHOULD** reject that request with a standard JSON-RPC error:",
     "accepts requests whose io.modelcontextprotocol/logLevel is not a log level (\"verbose\")",
     ["logging.loglevel-invalid"], None, ""),
    ("tool-structured-no-text", E26, S, "SHOULD", "2026-07-28/server/tools#structured-content",
     "For backwards compatibility, a tool that returns structured content SHOULD also return the serialized "
     "JSON in a TextContent block.",
     "weather's text content is a one-line note, not the serialized structuredContent",
     ["tools.structured-text"], ["echo text=hi", "weather city=Paris"], ""),
    ("ttl-missing-tools-list", E26, S, "MUST", "2026-07-28/server/utilities/caching#cacheable-results",
     "Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the "
     "following operations:",
     "tools/list results carry neither ttlMs nor cacheScope",
     ["cache.fields"], None, ""),

    ("prompt-image-datauri", E26, S, "MUST", "2026-07-28/server/prompts#image-content",
     "The image data **MUST** be base64-encoded and include a valid MIME type.",
     "the picture prompt's image content carries a data: URI (\"data:image/png;base64,...\") instead of bare "
     "base64",
     ["prompts.content"], None, ""),
    ("completion-unknown-ok", E26, S, "SHOULD", "2026-07-28/server/utilities/completion#error-handling",
     "Servers **SHOULD** return standard JSON-RPC errors for common failure cases: - Method not found: "
     "`-32601` (Capability not supported) - Invalid prompt name: `-32602` (Invalid params)",
     "completion/complete for a prompt that does not exist succeeds with an empty list of values instead of "
     "failing with -32602",
     ["completion.errors"], None, ""),

    # ---------------------------------------------------------------- 2026-07-28, http
    ("origin-unchecked", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#security--endpoint",
     "If the `Origin` header is present and invalid, servers **MUST** respond with HTTP 403 Forbidden.",
     "does not validate Origin: a POST with Origin: http://evil.example is served normally",
     ["http.origin"], None, ""),
    ("header-pv-mismatch", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#protocol-version-header",
     "If the values do not match, the server **MUST** reject the request with `400 Bad Request` and a "
     "`HeaderMismatch` JSON-RPC error (see Server Validation).",
     "does not compare the MCP-Protocol-Version header with _meta io.modelcontextprotocol/protocolVersion; "
     "mismatching requests are served",
     ["http.headers-pv-mismatch"], None, ""),
    ("header-method-mismatch", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#server-validation",
     "Servers that process the request body **MUST** reject requests where the values specified in the "
     "headers do not match the corresponding values in the request body.",
     "never checks Mcp-Method or Mcp-Name: missing or mismatching values are accepted",
     ["http.headers-method-mismatch", "http.headers-name-mismatch"], None, ""),
    ("header-name-base64", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#value-encoding",
     "In particular, servers **MUST** decode an encoded `Mcp-Name` or `Mcp-Param-{Name}` value before "
     "comparing it to the corresponding request body value during Server Validation.",
     "compares the raw Mcp-Name header with the body, so a correctly Base64-encoded name (the prompt "
     "\"r\u00e9sum\u00e9\", or any encoded name) is rejected with HeaderMismatch",
     ["http.headers-name-base64"], None, ""),
    ("header-mismatch-code", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#server-validation",
     "When rejecting a request due to header validation failure, servers **MUST** return HTTP status `400 Bad "
     "Request` and **MUST** include a JSON-RPC error response using the following error code:",
     "rejects header validation failures with the pre-renumbering code -32001 instead of -32020 "
     "(HeaderMismatch)",
     ["http.headers-code"], None, ""),
    ("pv-header-missing-ok", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#protocol-version-header",
     "A server that does not support such clients **MUST** reject a request without the header per Server "
     "Validation.",
     "serves POSTs that carry no MCP-Protocol-Version header (it supports no pre-2025-06-18 client)",
     ["http.headers-pv-missing"], None, ""),
    ("unsupported-version-200", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#protocol-version-header",
     "If the server does not implement the requested protocol version (whether the version is unknown to the "
     "server, or is a known version the server has chosen not to support), it **MUST** respond with `400 Bad "
     "Request` and an `UnsupportedProtocolVersionError` listing its supported versions.",
     "sends the UnsupportedProtocolVersionError for an unknown version with HTTP 200",
     ["http.status-400"], None, ""),
    ("method-not-found-200", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#protocol-version-header",
     "If the server does not implement the requested RPC method, it **MUST** respond with `404 Not Found` and "
     "a JSON-RPC error with code `-32601` (`Method not found`).",
     "answers unknown methods with -32601 but HTTP 200",
     ["http.method-404"], None, ""),
    ("meta-missing-http-200", E26, H, "MUST", "2026-07-28/basic/index#meta",
     "A request missing any required field is malformed; the server **MUST** reject it with JSON-RPC error "
     "code `-32602` (Invalid params). On HTTP, the response status **MUST** be `400 Bad Request`.",
     "rejects requests lacking the required _meta fields with -32602 but HTTP 200",
     ["http.status-400"], None, ""),
    ("missing-cap-200", E26, H, "MUST", "2026-07-28/basic/index#meta",
     "If processing a request requires a capability the client did not include in "
     "`io.modelcontextprotocol/clientCapabilities`, the server **MUST** return a "
     "`MissingRequiredClientCapabilityError` (`-32021`) whose `data.requiredCapabilities` lists the missing "
     "capabilities. On HTTP, the response status **MUST** be `400 Bad Request`.",
     "sends MissingRequiredClientCapabilityError (ask without elicitation) with HTTP 200",
     ["http.status-400"], ["echo text=hi", "ask question=Ready?"], ""),
    ("mcp-param-unvalidated", E26, H, "MUST",
     "2026-07-28/basic/transports/streamable-http#server-behavior-for-custom-headers",
     "Servers **MUST** reject requests with a `400 Bad Request` HTTP status and JSON-RPC error code `-32020` "
     "(`HeaderMismatch`) if any validation fails.",
     "never checks the Mcp-Param-Region header of region_echo (x-mcp-header \"Region\"): missing or "
     "different values are accepted",
     ["http.param-mismatch", "http.param-missing"], ["echo text=hi", "region_echo region=eu-west1 text=hi"], ""),
    ("x-mcp-header-number", E26, H, "MUST", "2026-07-28/server/tools#x-mcp-header",
     "**MUST** only be applied to parameters with primitive types (integer, string, boolean). Parameters with "
     "type `number` are not permitted.",
     "region_echo marks a number-typed priority parameter with x-mcp-header \"Priority\"",
     ["tools.x-mcp-header"], None, ""),
    ("sse-unrelated-notification", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#receiving-messages",
     "These notifications **MUST** relate to the originating client request.",
     "pushes notifications/resources/updated for mem://ticker onto whatever request SSE streams are open "
     "(e.g. during a slow tools/call)",
     ["sse.related-only"], ["echo text=hi", "slow ms=2500"], ""),
    ("server-request-sse", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#receiving-messages",
     "The server **MUST NOT** send independent JSON-RPC _requests_ on this stream.",
     "the ask tool sends an elicitation/create JSON-RPC request on the POST's SSE stream (2025 style) instead "
     "of returning an InputRequiredResult",
     ["no-server-requests", "mrtr.elicit"], ["echo text=hi", "ask question=Ready?"], ""),
    ("notification-200-26", E26, H, "MUST", "2026-07-28/basic/transports/streamable-http#sending-messages",
     "If the server accepts it, the server **MUST** return HTTP status code `202 Accepted` with no body.",
     "answers POSTed notifications with 200 and a \"{}\" body",
     ["http.notification-202"], None, ""),
    ("get-sse-26", E26, H, "SHOULD", "2026-07-28/basic/transports/streamable-http#earlier-streamable-http-revisions",
     "A server that supports only this revision and receives such traffic from an older client **SHOULD** "
     "respond as follows: - HTTP GET or DELETE to the MCP endpoint: respond with `405 Method Not Allowed`.",
     "answers GET on the MCP endpoint with a 200 text/event-stream (the removed standalone stream)",
     ["http.get-405"], None, ""),
    ("session-minted-26", E26, H, "SHOULD", "2026-07-28/basic/transports/streamable-http#earlier-streamable-http-revisions",
     "An `Mcp-Session-Id` header on a request: ignore it, and do not mint or echo session IDs.",
     "sets a fresh Mcp-Session-Id header on every response",
     ["http.no-session"], None, ""),
    ("sse-no-xaccel", E26, H, "SHOULD", "2026-07-28/basic/transports/streamable-http#receiving-messages",
     "When initiating an SSE stream, servers **SHOULD** include the `X-Accel-Buffering: no` header in the HTTP "
     "response.",
     "SSE responses lack the X-Accel-Buffering: no header",
     ["sse.xaccel"], None, ""),
    ("ttl-negative", E26, H, "MUST", "2026-07-28/server/utilities/caching#time-to-live-ttl-field",
     "Servers **MUST** provide a `ttlMs` value that is `>= 0`.",
     "resources/read results carry ttlMs -1 (meant as \"do not cache\")",
     ["cache.fields"], None, ""),
    ("cachescope-pages", E26, H, "MUST", "2026-07-28/server/utilities/caching#interaction-with-pagination",
     "Servers **MUST** apply the same `cacheScope` to all response pages for a given list request.",
     "paginates tools/list by 3 and marks the first page \"public\" and the later pages \"private\"",
     ["cache.pages-scope"], None, ""),
    ("templates-no-cache", E26, H, "MUST", "2026-07-28/server/utilities/caching#cacheable-results",
     "Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the "
     "following operations:",
     "resources/templates/list results carry neither ttlMs nor cacheScope",
     ["cache.fields"], None, ""),
    ("cachescope-invalid", E26, H, "MUST", "2026-07-28/server/utilities/caching#cacheable-model",
     "The Cache Scope Field,`cacheScope`, indicates the intended scope of the cached response, either "
     "`\"public\"` or `\"private\"`.",
     "tools/list results carry cacheScope \"shared\"",
     ["cache.fields"], None, ""),
    ("no-serverinfo-meta", E26, H, "SHOULD", "2026-07-28/basic/index#meta",
     "Servers **SHOULD** include the following `io.modelcontextprotocol/*` field in every result's `_meta`, "
     "unless specifically configured not to do so, to identify themselves without relying on any prior "
     "connection state:",
     "no result (server/discover included) carries _meta io.modelcontextprotocol/serverInfo",
     ["serverinfo.meta", "discover.serverinfo"], None, ""),
    ("resource-empty-contents", E26, H, "MUST", "2026-07-28/server/resources#error-handling",
     "Servers **MUST NOT** return an empty `contents` array for a non-existent resource.",
     "resources/read of an unknown URI succeeds with contents []",
     ["resources.notfound"], None, ""),
    ("listen-subid-generated", E26, H, "MUST", "2026-07-28/basic/index#meta",
     "On notifications delivered via a `subscriptions/listen` stream, the server **MUST** include "
     "`io.modelcontextprotocol/subscriptionId` in `_meta` so the client can correlate the notification with "
     "the originating subscription request.",
     "tags the acknowledgment and updates of a subscriptions/listen stream with a server-made id "
     "(\"sub_...\") instead of the listen request's JSON-RPC id",
     ["listen.subid"], None, ""),
    ("listen-unrequested", E26, H, "MUST", "2026-07-28/basic/patterns/subscriptions#opening-a-stream",
     "The server **MUST NOT** send notification types the client has not explicitly requested.",
     "sends mem://ticker resource updates on every subscriptions/listen stream whatever its filter",
     ["listen.filter"], None, ""),
    ("mrtr-state-unsigned", E26, H, "MUST", "2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow",
     "If `requestState` influences authorization, resource access, or business logic, servers **MUST** "
     "protect its integrity (e.g. HMAC or AEAD) and **MUST** reject state that fails verification.",
     "ask's requestState is unsigned base64 JSON whose question the server trusts on retry; a tampered "
     "state is accepted",
     ["mrtr.state-integrity"], ["echo text=hi", "ask question=Ready?"], ""),
    ("mrtr-url-mode", E26, H, "MUST", "2026-07-28/client/elicitation#capabilities",
     "Servers **MUST NOT** send elicitation requests with modes that are not supported by the client.",
     "ask's input request is a URL-mode elicitation even when the client declared only form mode",
     ["mrtr.modes"], ["echo text=hi", "ask question=Ready?"], ""),
    ("sampling-tools-undeclared-26", E26, H, "MUST", "2026-07-28/client/sampling#tools-in-sampling",
     "Servers **MUST NOT** send tool-enabled sampling requests to Clients that have not declared support for "
     "tool use via the `sampling.tools` capability.",
     "summarize's sampling/createMessage input request includes tools though the client's sampling "
     "capability has no tools",
     ["mrtr.sampling-tools"], ["echo text=hi", "summarize text=hello"], ""),
    ("unsupported-version-accepted", E26, H, "MUST", "2026-07-28/basic/versioning#protocol-version-negotiation",
     "If the server does not implement the requested version (whether the version is unknown to the server, "
     "or is a known version the server has chosen not to support), it **MUST** respond with an "
     "`UnsupportedProtocolVersionError` listing the versions it does support:",
     "serves requests whose protocol version (header and _meta) is unknown, e.g. 1999-01-01",
     ["version.unsupported"], None, ""),
    ("log-no-capability", E26, H, "MUST", "2026-07-28/server/utilities/logging#capabilities",
     "Servers that emit log message notifications **MUST** declare the `logging` capability:",
     "sends notifications/message when a request asks for them via logLevel, but server/discover declares "
     "no logging capability",
     ["caps.logging-declared"], None, ""),
    ("cursor-invalid-ok", E26, H, "SHOULD", "2026-07-28/server/utilities/pagination#error-handling",
     "Invalid cursors **SHOULD** result in an error with code -32602 (Invalid params).",
     "treats an invalid cursor as the start of the list and returns the first page",
     ["pagination.invalid-cursor"], None, ""),
    ("elicit-password", E26, H, "MUST", "2026-07-28/client/elicitation#user-interaction-model",
     "Servers **MUST NOT** use form mode elicitation to request sensitive information such as passwords, API "
     "keys, access tokens, or payment credentials",
     "the ask tool's form elicitation input request also asks for the user's API key",
     ["elicit.sensitive"], ["echo text=hi", "ask question=Ready?"], ""),
    ("error-no-message", E26, H, "MUST", "2026-07-28/basic/index#error-responses",
     "Error responses **MUST** include an `error` field with a `code` and `message`.",
     "the error for an unknown tool has a code but no message",
     ["jsonrpc.error-shape"], None, ""),
]

# (era, transport, extra args, description)
CONTROLS = [
    (E25, S, "", "plain correct server"),
    (E25, S, "--slow 1.0", "answers every request after ~1 s; the slow tool sends notifications/progress"),
    (E25, S, "--page-size 2 --extra-tools 30 --unicode --big",
     "many pages (2 items per page, 37 tools), non-ASCII names and contents, large results"),
    (E25, S, "--minimal", "optional features absent: tools only (no prompts, resources, logging, completions, "
                          "tasks); a tool needing arguments"),
    (E25, S, "--server-pings", "pings the client every 1.5 s with fresh request ids (legal, SHOULD-encouraged)"),
    (E25, H, "", "plain correct server: JSON answers when possible, SSE when notifications come first"),
    (E25, H, "--sse always", "answers every POST with an SSE stream (priming event with id, then the response)"),
    (E25, H, "--close-after-prime",
     "closes every POST SSE connection after a priming event with an id and retry: 300, and delivers the "
     "response when the client resumes with GET and Last-Event-ID"),
    (E25, H, "--stateless", "no session ids; GET and DELETE answered 405"),
    (E25, H, "--slow 1.0 --page-size 3 --unicode", "slow (~1 s) answers, paginated lists, unicode"),
    (E26, S, "", "plain correct server"),
    (E26, S, "--dual-era", "also serves a legacy initialize handshake (dual-era); modern requests stateless"),
    (E26, S, "--slow 1.0 --page-size 2 --empty-cursor",
     "slow (~1 s) answers; paginated lists whose first nextCursor is the empty string (a valid cursor)"),
    (E26, S, "--minimal --unicode --big", "tools only, unicode, large results"),
    (E26, H, "", "plain correct server"),
    (E26, H, "--sse always --keepalive 1",
     "answers every POST with SSE; listen streams send a keep-alive comment every second"),
    (E26, H, "--page-size 2 --extra-tools 25 --unicode --big",
     "many pages, a non-ASCII prompt name (Base64 Mcp-Name), unicode contents, large results"),
    (E26, H, "--slow 1.0", "answers every request after ~1 s; progress notifications on SSE"),
]


def entries():
    """Yields manifest rows (dicts) in id order, with the self-test's expectations under '_expect'."""
    out = []
    n = 0
    for (name, era, tr, level, page, rule, defect, expect, calls, extra) in DEFECTS:
        n += 1
        out.append({"id": "P%02d" % n if n < 100 else "P%d" % n, "control": False, "era": era, "transport": tr,
                    "start": start_cmd(era, tr, "--defect " + name + ((" " + extra) if extra else "")),
                    "path": "/mcp" if tr == H else None,
                    "call": calls or ["echo text=hi"], "level": level, "page": page, "rule": rule,
                    "defect": defect, "_name": name, "_expect": expect})
    for (era, tr, extra, desc) in CONTROLS:
        n += 1
        out.append({"id": "P%02d" % n if n < 100 else "P%d" % n, "control": True, "era": era, "transport": tr,
                    "start": start_cmd(era, tr, extra), "path": "/mcp" if tr == H else None,
                    "call": control_calls(era, tr, extra),
                    "level": None, "page": None, "rule": None, "defect": None,
                    "_name": "control", "_expect": [], "_desc": desc})
    return out


def control_calls(era, tr, extra):
    """Controls are exercised on the same paths as the defects."""
    calls = ["echo text=hi", "weather city=Paris", "weather city=Atlantis", "slow ms=1500"]
    if "--minimal" not in extra:
        calls += ["ask question=Ready?", "summarize text=hello", "list_roots"]
        if era == E25:
            calls += ["longjob ms=500"]
    if era == E26 and tr == H:
        calls += ["region_echo region=eu-west1 text=hi"]
    return calls


def start_cmd(era, tr, extra):
    cmd = "python3 srv.py --era %s --transport %s" % (era, tr)
    if tr == H:
        cmd += " --port @PORT@"
    if extra:
        cmd += " " + extra
    return cmd
