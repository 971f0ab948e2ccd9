package mcptest

// A spec server's conversation with one client, on any transport: what
// it does with requests (answered in spec_results.go), notifications,
// batches and input that is no request, a slow tool that reports
// progress and stops when cancelled, subscriptions/listen, and what the
// faults (Faults) send around an answer. Without faults the
// server keeps every requirement mcpv check checks.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// slowTool is the tool a spec server runs for a while when it lists it:
// a progress notification every slowStep (when asked for), slowSteps of
// them, then its result; a notifications/cancelled for it stops it.
const (
	slowTool  = "slow"
	slowSteps = 10
	slowStep  = 20 * time.Millisecond
	timedPing = 1500 * time.Millisecond // how often the timed-pings edge and timed-ping-reuse ping
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
	settled     bool                 // a modern request other than server/discover was served (version-first-only)
	onListen    chan string          // call-on-listen: the slow calls' messages, for a subscription's stream
	called      bool                 // a tools/call came (tools-after-call)
}

func newSpecState() *specState {
	return &specState{running: map[string]chan struct{}{}, asked: map[string]int{}, tasks: map[string]*specTask{}, waits: map[string]chan msg{}, onListen: make(chan string, 64)}
}

func (st *specState) stop() { withLock(&st.mu, func() { st.stopped = true }) }

// Stopped reports whether a die-* fault ended the server.
func (st *specState) Stopped() bool { return locked(&st.mu, func() bool { return st.stopped }) }

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
	out = s.shaped(out)
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
		if !st.route(m) && s.edge("stray-response-answered") { // a response to a request the server sent, or none
			out.send(s.errorLine(m.ID, codeMethodNotFound, "Unknown method: undefined"))
		}
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
	version := locked(&st.mu, func() string { return st.version })
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
		if !out.http && (s.edge("timed-pings") || s.has("timed-ping-reuse")) {
			out.async(func() { // pings on a timer, as a server that watches its client's health does
				for ok := true; ok; ok = wait(timedPing, out.done) {
					out.send(`{"jsonrpc":"2.0","id":` + pick(s.has("timed-ping-reuse"), `"srv-ping"`, `"`+srvID("srv-timed-ping")+`"`) + `,"method":"ping"}`)
				}
			})
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
		st.cancel(string(member(m.Params, "requestId")))
	}
}

// cancel stops the slow call under id, if it runs.
func (st *specState) cancel(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if ch, ok := st.running[id]; ok {
		close(ch)
		delete(st.running, id)
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
	first, legacy := st.first, st.version != ""
	st.mu.Unlock()
	if s.Era == "modern" && legacy && s.edge("dual-era") {
		served := *s // the client opened the initialize era: served as of it
		served.Era = ""
		s = &served
	}
	switch {
	case s.has("hang") && m.Method != "initialize" && m.Method != "server/discover",
		slices.Contains(s.Mute, m.Method) || slices.Contains(s.Mute, m.Method+" "+param(m.Params, "name")),
		s.has("mute-early") && early && m.Method != "initialize",
		s.has("ping-unanswered") && m.Method == "ping":
		return
	case s.has("ping-early-error") && early && m.Method == "ping":
		out.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32600,"message":"Server not initialized"}}`)
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
		floodLogs(100000, nil, out)
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
	if s.Era == "modern" && m.Method != "initialize" {
		e := s.checkMeta(m.Params)
		settled := locked(&st.mu, func() bool { // version-first-only: a request other than server/discover was served
			was := st.settled
			st.settled = was || e == nil && m.Method != "server/discover"
			return was
		})
		if e != nil && !(e.Code == -32022 && (m.Method == "server/discover" && s.has("discover-any-version") || settled && s.has("version-first-only"))) {
			out.send(s.errorLine(id, e.Code, e.Message, e.Data))
			return
		}
	}
	if s.lat != nil && m.Method == "tools/call" && !(s.Tasks != nil && (member(m.Params, "task") != nil || param(m.Params, "name") == "job")) {
		s.lat.run(out, func() { s.respond(st, m, id, out) })
		return
	}
	s.respond(st, m, id, out)
}

// respond answers a request whose faults let it be answered.
func (s *Spec) respond(st *specState, m msg, id json.RawMessage, out specOut) {
	modern := s.Era == "modern"
	if m.Method == "tools/call" {
		withLock(&st.mu, func() { st.called = true })
	}
	switch {
	case s.named != nil && s.namedRequest(st, m, id, out):
		return
	case m.Method == "tools/call" && s.taskCall(st, m, id, out),
		strings.HasPrefix(m.Method, "tasks/") && s.taskMethod(st, m, id, out):
		if !modern && s.edge("server-pings") {
			out.send(serverPing()) // while the task runs: a request of no task's
		}
		return
	case m.Method == "tools/call" && !modern && (s.edge("form-checked") || s.has("form-unchecked")) && member(locked(&st.mu, func() json.RawMessage { return st.caps }), "elicitation") != nil:
		s.formCall(st, id, out)
		return
	case m.Method == "tools/call" && param(m.Params, "name") == slowTool && s.tool(slowTool) != nil:
		s.slowCall(st, m, id, out)
		return
	case m.Method == "subscriptions/listen" && modern && s.listenRefused(m.Params):
		out.send(s.missingExtension(id))
		return
	case m.Method == "subscriptions/listen" && modern:
		s.listen(st, m, id, out)
		return
	}
	res, e := s.answer(st, m)
	s.before(st, m, out)
	s.asks(m, locked(&st.mu, func() json.RawMessage { return st.caps }), out) // while it answers: over HTTP, on the request's stream before its response
	if e != nil {
		out.send(s.errorLine(id, e.Code, e.Message, e.Data))
	} else {
		out.send(s.resultLine(id, m.Method, res))
	}
	if m.Method == "initialize" && e == nil {
		withLock(&st.mu, func() { st.version, st.caps = param(res, "protocolVersion"), member(m.Params, "capabilities") })
	}
	s.after(st, m, out)
}

// shaped is out through the edges and faults that shape every message
// written: the edges' _meta on each notification, ASCII alone, CR LF line
// ends over stdio (once: a batch's answers are edged as one line, the
// array); then, over stdio, the faults' messages over several lines,
// responses twice, a byte order mark before each, plain text instead.
func (s *Spec) shaped(out specOut) specOut {
	edges := !out.edged && (s.edge("meta") || s.edge("ascii-json") || s.edge("crlf") && !out.http)
	faults := !out.http && (s.has("pretty-json") || s.has("spaced-json") || s.has("duplicate-responses") || s.has("bom") || s.has("text-answers"))
	if !edges && !faults {
		return out
	}
	out.edged = out.edged || edges
	send, http := out.send, out.http
	out.send = func(line string) {
		if edges && s.edge("meta") {
			line = noteWithMeta(line)
		}
		if edges && s.edge("ascii-json") {
			line = asciiJSON(line)
		}
		if edges && s.edge("crlf") && !http {
			line += "\r"
		}
		switch pretty := s.has("pretty-json"); {
		case !faults:
		case s.has("text-answers"):
			line = "OK: " + strings.ReplaceAll(line, `"`, "")
		case s.has("bom"):
			line = "\uFEFF" + line
		case pretty || s.has("spaced-json"): // spaced: json.Indent's lines, each but the first after a space
			var b bytes.Buffer
			if json.Indent(&b, []byte(line), "", pick(pretty, "  ", "")) == nil {
				line = pick(pretty, b.String(), strings.ReplaceAll(b.String(), "\n", " "))
			}
		}
		send(line)
		if faults && s.has("duplicate-responses") && member(json.RawMessage(line), "method") == nil && member(json.RawMessage(line), "id") != nil {
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
	quiet := locked(&st.mu, func() bool { return slices.Index(logLevels, st.logLevel) > slices.Index(logLevels, "info") })
	handshake := m.Method == "initialize" || m.Method == "server/discover"
	initEra := s.Era != "modern" && m.Method != "initialize"
	line := func(text string) func() string { return func() string { return text } }
	for _, f := range []struct {
		name string
		when bool
		line func() string
	}{
		{"early-request", m.Method == "initialize", line(`{"jsonrpc":"2.0","id":"srv-early","method":"roots/list"}`)},
		{"early-request-declared", m.Method == "initialize" && member(member(m.Params, "capabilities"), "roots") != nil, line(`{"jsonrpc":"2.0","id":"srv-early","method":"roots/list"}`)},
		{"log-undeclared", true, line(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"answered"}}`)},
		{"stray-progress", true, line(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nobody-asked","progress":1}}`)},
		{"server-request", m.Method != "initialize", func() string { return `{"jsonrpc":"2.0","id":"` + srvID("srv-ask") + `","method":"roots/list"}` }},
		{"stray-cancel", m.ID != nil && !handshake, line(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(m.ID) + `,"reason":"done"}}`)},
		{"cancel-never-sent", !handshake, line(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcpv-never-sent"}}`)},
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
		{"json-log-stdout", !out.http, line(`{"level":50,"error":"answered"}`)},
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

// formCall answers a call once the client has answered a form of a
// name and an age: an accepted form's values as they came (form-unchecked),
// or, at the form-checked edge, an error result when they do not fit it.
func (s *Spec) formCall(st *specState, id json.RawMessage, out specOut) {
	ask := srvID("srv-form")
	answer := st.await(ask)
	out.send(`{"jsonrpc":"2.0","id":"` + ask + `","method":"elicitation/create","params":{"mode":"form","message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]}}}`)
	out.async(func() {
		select {
		case r := <-answer:
			var form struct {
				Name string
				Age  *int
			}
			content := string(member(r.Result, "content"))
			res := map[string]any{"content": []map[string]string{{"type": "text", "text": "Hello, " + content}}}
			if c := member(r.Result, "content"); c != nil {
				res["structuredContent"] = c // the values, as they came
			}
			if s.edge("form-checked") && string(member(r.Result, "action")) == `"accept"` && (json.Unmarshal([]byte(content), &form) != nil || form.Name == "") {
				res = map[string]any{"content": []map[string]string{{"type": "text", "text": "the answer does not fit the form"}}, "isError": true}
			}
			out.send(s.resultLine(id, "tools/call", mustJSON(res)))
		case <-out.done:
		}
	})
}

// slowCall runs the slow tool: progress when asked for, then its result,
// unless it is cancelled first.
func (s *Spec) slowCall(st *specState, m msg, id json.RawMessage, out specOut) {
	token := member(member(m.Params, "_meta"), "progressToken")
	if token == nil && s.has("progress-unasked") {
		token = json.RawMessage(`"made-up"`)
	}
	if send := out.send; out.http && s.has("call-on-listen") {
		out.send = func(line string) {
			send(line)
			select {
			case st.onListen <- line:
			default:
			}
		}
	}
	progress := func(n int) {
		out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,%s}}`, token, s.progressStep(n)))
	}
	result := func() {
		out.send(s.resultLine(id, "tools/call", json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)))
		if token != nil && s.has("progress-after-result") {
			progress(slowSteps)
		}
	}
	cancel := make(chan struct{})
	withLock(&st.mu, func() { st.running[string(m.ID)] = cancel })
	out.async(func() {
		defer withLock(&st.mu, func() { delete(st.running, string(m.ID)) })
		// Until the client goes, or cancels: a call whose progress token
		// says it will be cancelled (as mcpv check's do) runs on until it
		// is, so however loaded the machine, the cancellation comes while
		// it runs.
		steps := pick(s.has("disconnect-cancels") || bytes.Contains(token, []byte("-cancel-")), 500, slowSteps)
		for i := 1; i <= steps; i++ {
			if token != nil {
				progress(pick(s.has("progress-decreasing"), slowSteps-i, min(i, slowSteps)))
			}
			select {
			case <-cancel:
				for n := i; s.has("cancel-continues") && token != nil && n < 500; n++ { // progress as though never cancelled, until the client goes
					if !wait(slowStep, out.done) {
						return
					}
					progress(min(n+1, slowSteps))
				}
				if s.has("answer-cancelled") {
					out.send(s.errorLine(id, -32800, "Request cancelled"))
				}
				// cancel-crossing: the rest of the call, and its result, as
				// they come from a call that ended as its cancellation came.
				for n := i + 1; n <= slowSteps && token != nil && s.edge("cancel-crossing") && !s.has("ignore-cancel"); n++ {
					progress(n)
				}
				if s.has("ignore-cancel") || s.edge("cancel-crossing") {
					result()
				}
				return
			case <-time.After(slowStep):
			}
			if token == nil && i >= 3 {
				break
			}
		}
		result()
	})
}

// listen opens a subscription: its acknowledgement first, then nothing
// until the client cancels it or goes.
func (s *Spec) listen(st *specState, m msg, id json.RawMessage, out specOut) {
	meta := fmt.Sprintf(`{"io.modelcontextprotocol/subscriptionId":%s}`, m.ID)
	filter := member(m.Params, "notifications")
	if filter == nil {
		filter = json.RawMessage(`{}`)
	}
	if cancel := make(chan struct{}); s.has("listen-cancel-ignored") && !out.http {
		withLock(&st.mu, func() { st.running[string(m.ID)] = cancel })
		out.async(func() {
			select {
			case <-cancel:
			case <-out.done:
			}
			for n := 0; n < 500 && wait(slowStep, out.done); n++ { // news as though never cancelled, until the client goes
				out.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":` + meta + `}}`)
			}
		})
	}
	switch {
	case s.has("listen-news-unacked"):
		var uris []json.RawMessage
		json.Unmarshal(member(filter, "resourceSubscriptions"), &uris)
		if len(uris) > 1 { // the first never changes
			out.send(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":` + meta + `,"uri":` + string(uris[len(uris)-1]) + `}}`)
		}
		return
	case s.has("listen-no-ack"):
		out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":%s}}`, meta))
	case s.has("listen-ack-other-id"):
		meta = `{"io.modelcontextprotocol/subscriptionId":"sub-1"}`
	}
	out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":%s,"notifications":%s}}`, meta, filter))
	last := json.RawMessage(`""`) // the last resource listed, of more than one: every line below is made, sent or not
	if n := len(s.Resources); n > 1 {
		last = member(s.Resources[n-1], "uri")
	}
	for _, f := range []struct {
		on   bool
		line string
	}{
		{s.edge("listen-notifies"), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":` + meta + `}}`},
		{s.has("log-on-listen"), `{"jsonrpc":"2.0","method":"notifications/message","params":{"_meta":` + meta + `,"level":"info","data":"listening"}}`},
		{s.has("listen-no-sub-id"), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`},
		{s.edge("listen-cancelled") && !out.http, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(m.ID) + `,"reason":"shutting down"}}`},
		{s.has("listen-unasked"), `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":` + meta + `,"uri":"mcpv-fake://unasked"}}`},
		{s.has("listen-unasked-listed") && len(s.Resources) > 1, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":` + meta + `,"uri":` + string(last) + `}}`},
	} {
		if f.on {
			out.send(f.line)
		}
	}
	for out.http && s.has("call-on-listen") {
		select {
		case line := <-st.onListen:
			out.send(line)
		case <-out.done:
			return
		}
	}
}
