package mcptest

// Tasks in a spec server (Spec.Tasks), in either era, each over any
// transport:
//
//   - the initialize era has 2025-11-25's tasks: a tools/call with
//     params.task of a tool whose execution.taskSupport is "optional" or
//     "required" (and tasks.requests.tools.call declared) answers a
//     CreateTaskResult; tasks/get polls the task (each poll moves it one
//     step along), tasks/result blocks until it ends (asking the client's
//     input with elicitation/create when its tool is in Ask, the request
//     tied to the task by its related-task _meta) and answers the call's
//     result, tasks/list lists the tasks, tasks/cancel cancels one not yet
//     ended; over stdio each change of status is announced with
//     notifications/tasks/status;
//   - the modern era has the io.modelcontextprotocol/tasks extension: a
//     tools/call of such a tool from a client that declares the extension
//     on its request answers a CreateTaskResult (resultType "task"),
//     tasks/get answers the task with what its status carries (the input
//     requests, the result, the error), tasks/update takes the answers to
//     the input requests, tasks/cancel cancels; a client that does not
//     declare the extension is refused them (-32021), and a tool that
//     requires a task with it.
//
// A task's tool's result is its canned result (CallResults); a tool in
// Fail ends its task failed with a JSON-RPC error, and so does a call the
// server answers with one when it is made without a task (arguments
// refused with input-errors-32602: the error its tasks/result answers
// too, as 2025-11-25 asks); a result with isError
// fails the task in the initialize era (2025-11-25 says so) and completes
// it in the modern era (the extension says so). The task faults break one
// requirement each.

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TaskSpec is how a spec server runs tasks.
type TaskSpec struct {
	// Steps is how many polls (tasks/get) a task stays working before it
	// asks for input or ends; default 1.
	Steps int `json:"steps,omitempty"`
	// Ask names the tools whose task asks the client for input before it
	// ends, Rounds times (default 1).
	Ask    []string `json:"ask,omitempty"`
	Rounds int      `json:"rounds,omitempty"`
	// Fail names the tools whose task fails with a JSON-RPC error.
	Fail []string `json:"fail,omitempty"`
	// PollMs is the poll interval suggested; 0 suggests none.
	PollMs int `json:"pollMs,omitempty"`
	// Statuses, when set, is every task's course instead (the initialize
	// era's): each poll moves it one status along, the last one kept:
	// working, input_required (until tasks/result has asked the client),
	// completed, failed (the call's result "the job broke", isError),
	// cancelled (by the server), or expire, which drops the task. Task
	// ids are task-1, task-2, ... for the client, and a call with a
	// progress token hears progress 1 of 2 when its task starts and 2
	// when it ends.
	Statuses []string `json:"statuses,omitempty"`
	// TTL, when set, is the ttl granted whatever the call asked.
	TTL *int64 `json:"ttl,omitempty"`
}

// taskStatuses are what Statuses may name.
var taskStatuses = []string{"working", "input_required", "completed", "failed", "cancelled", "expire"}

func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// related is the _meta that ties a message to task id.
func related(id string) string {
	return `{"io.modelcontextprotocol/related-task":{"taskId":` + mustString(id) + `}}`
}

func stamp() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// TaskFaults are what Spec.Faults may name of tasks.
var TaskFaults = []string{
	// the initialize era (2025-11-25)
	"task-unknown-internal",   // a taskId never given answered -32603, not -32602
	"task-flat",               // a CreateTaskResult with the task's members at its top, no "task" object
	"task-terminal-moves",     // a completed task is working again at the second tasks/get once it ended
	"task-bad-timestamps",     // createdAt "yesterday"
	"task-no-ttl",             // tasks/get answered without ttl
	"task-result-early",       // tasks/result of a task not ended answered at once, with nothing
	"task-result-working",     // tasks/result of a task working when asked answered at once, with nothing (one waiting for input blocks)
	"task-result-no-meta",     // tasks/result answered without the related-task _meta
	"task-get-related",        // tasks/get answered with the related-task _meta, which its taskId makes redundant
	"task-unlisted",           // tasks/list lists no task
	"task-id-reuse",           // every task of a session given the id task-1
	"task-id-counter",         // a session's tasks numbered task-1, task-2, ..., ids any client guesses
	"task-list-newest",        // tasks/list lists one task alone
	"task-list-endless",       // tasks/list lists no task, and always a next page
	"task-cancel-no-status",   // tasks/cancel answered with the task still working
	"task-cancel-terminal-ok", // tasks/cancel of an ended task answered with the task, not -32602
	"task-cancel-overrun",     // a task cancelled while it works is cancelled at the first tasks/get since, and completed at the next: its job ran on and ended it
	"task-list-live-only",     // tasks/list lists the tasks not yet ended alone: one that ended drops from it while tasks/get still answers it
	"task-input-unrelated",    // the input a task asks for asked without the related-task _meta
	"task-undeclared-created", // a call with params.task answered with a CreateTaskResult though tasks.requests.tools.call is not declared
	"task-error-as-result",    // tasks/result of a task whose call, made without one, is answered with a JSON-RPC error answers a result with isError instead
	// the modern era (the extension)
	"ext-ungated",          // tasks/get, update and cancel served to a client that does not declare the extension
	"ext-listen-ungated",   // subscriptions/listen for taskIds acknowledged to a client that does not declare the extension
	"ext-unknown-internal", // tasks/get of a taskId never given answered -32603, not -32602
	"ext-task-undeclared",  // a CreateTaskResult to a client that does not declare the extension
	"ext-result-type",      // a CreateTaskResult of resultType "complete"
	"ext-no-task-id",       // a CreateTaskResult of resultType "task" without its taskId
	"ext-not-durable",      // the first tasks/get of each task answered -32602
	"ext-get-no-result",    // a completed task answered without its result
	"ext-update-ack",       // tasks/update answered with the task, not an empty result
	"ext-key-reuse",        // every round of input asked under the same key
	"ext-cancel-ack",       // tasks/cancel answered with the task, not an empty result
}

// specTask is one task a spec server runs.
type specTask struct {
	id, tool, status string
	created, updated string
	ttl              *int64
	polls            int             // tasks/get so far
	ended            int             // tasks/get since it ended
	rounds           int             // input rounds asked
	key              string          // modern: the key of the input asked, "" none
	answers          json.RawMessage // the last input given
	gotten           bool            // tasks/get has answered it once (ext-not-durable)
	message          string          // its statusMessage, "" none
	step             int             // its place in Statuses; -1 before the first poll
	gone             bool            // expired (Statuses)
	overrun          bool            // cancelled, its job runs on to end it (task-cancel-overrun)
	token            json.RawMessage // the call's progress token (Statuses)
	err              *specError      // the JSON-RPC error its call ends with, nil when none
}

// toolTaskSupport is a listed tool's execution.taskSupport, "" when none.
func (s *Spec) toolTaskSupport(name string) string {
	ts, _ := stringMember(member(s.tool(name), "execution"), "taskSupport")
	return ts
}

// declaresExtension reports whether a modern request's _meta declares
// the tasks extension among the client's capabilities.
func declaresExtension(params json.RawMessage) bool {
	caps := member(member(params, "_meta"), "io.modelcontextprotocol/clientCapabilities")
	return member(member(caps, "extensions"), "io.modelcontextprotocol/tasks") != nil
}

// missingExtension is the -32021 error to id for a client that does not
// declare the tasks extension.
func (s *Spec) missingExtension(id json.RawMessage) string {
	return s.errorLine(id, -32021, "Missing required client capability",
		json.RawMessage(`{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`))
}

// taskCall answers a tools/call that makes a task, or one a task is
// required for; false leaves the call to be answered as any other.
func (s *Spec) taskCall(st *specState, m msg, id json.RawMessage, out specOut) bool {
	if s.Tasks == nil {
		return false
	}
	tool := param(m.Params, "name")
	support := s.toolTaskSupport(tool)
	if s.Era == "modern" {
		declared := declaresExtension(m.Params)
		switch {
		case !declared && s.has("ext-task-undeclared"):
		case !declared && support == "required":
			out.send(s.missingExtension(id))
			return true
		case !declared, support != "optional" && support != "required":
			return false
		}
		t := s.newTask(st, tool, nil)
		res := s.taskFields(t) // a map of its own, which the result's members join
		res["resultType"] = json.RawMessage(pick(s.has("ext-result-type"), `"complete"`, `"task"`))
		if s.has("ext-no-task-id") {
			delete(res, "taskId")
		}
		out.send(s.resultLine(id, "tools/call", mustJSON(res)))
		return true
	}
	task := member(m.Params, "task")
	if task == nil {
		return false
	}
	undeclared := s.declared("tasks", "requests", "tools", "call") == nil
	if undeclared && !s.has("task-undeclared-created") {
		return false // not declared: the call is processed normally, its task ignored
	}
	if support != "optional" && support != "required" && !undeclared && !s.has("task-forbidden-served") {
		out.send(s.errorLine(id, codeMethodNotFound, "tools/call: the tool does not run as a task"))
		return true
	}
	ttl := s.Tasks.TTL // granted whatever was asked, or what was
	if n, err := strconv.ParseInt(string(member(task, "ttl")), 10, 64); err == nil && ttl == nil {
		ttl = &n
	}
	t := s.newTask(st, tool, ttl) // no one else knows it until the answer is sent
	_, t.err = s.answerFaults("tools/call", m.Params, json.RawMessage(`{}`), nil)
	if tok := member(member(m.Params, "_meta"), "progressToken"); len(s.Tasks.Statuses) > 0 && tok != nil && string(tok) != "null" {
		t.token = tok
	}
	fields := mustJSON(s.taskFields(t))
	body := pick(s.has("task-flat"), fields, mustJSON(map[string]json.RawMessage{"task": fields}))
	out.send(s.resultLine(id, "tools/call", body))
	s.progress(t, 1, "job started", out)
	if len(s.Tasks.Statuses) > 0 && s.Tasks.Statuses[0] == "expire" {
		withLock(&st.mu, func() { t.gone = true })
	}
	return true
}

func (s *Spec) newTask(st *specState, tool string, ttl *int64) *specTask {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := stamp()
	if ttl == nil {
		ttl = new(int64(60000))
	}
	id := "task-" + rand.Text() // 128 bits, none to guess: the fake asks no authorization to bind its tasks to
	if len(s.Tasks.Statuses) > 0 || s.has("task-id-counter") {
		id = fmt.Sprintf("task-%d", len(st.tasks)+1)
	}
	if s.has("task-id-reuse") {
		id = "task-1"
	}
	t := &specTask{id: id, tool: tool, status: "working", created: now, updated: now, ttl: ttl, step: -1}
	st.tasks[t.id] = t
	return t
}

// taskFields are a task's members as the era names them; the caller holds
// st.mu or the task is new.
func (s *Spec) taskFields(t *specTask) map[string]json.RawMessage {
	status := t.status
	switch {
	case s.has("task-asks-working") && status == "input_required":
		status = "working"
	case s.has("task-input-stays") && t.answers != nil:
		status = "input_required"
	}
	f := map[string]json.RawMessage{"taskId": mustJSON(t.id), "status": mustJSON(status),
		"createdAt": mustJSON(t.created), "lastUpdatedAt": mustJSON(t.updated)}
	if s.has("task-bad-timestamps") {
		f["createdAt"] = json.RawMessage(`"yesterday"`)
	}
	ttl, poll := "ttl", "pollInterval"
	if s.Era == "modern" {
		ttl, poll = "ttlMs", "pollIntervalMs"
	}
	f[ttl] = mustJSON(t.ttl)
	if t.message != "" {
		f["statusMessage"] = mustJSON(t.message)
	}
	if s.Tasks.PollMs > 0 {
		f[poll] = mustJSON(s.Tasks.PollMs)
	}
	return f
}

// advance moves a task one step along, as a poll does; st.mu is held. It
// reports whether the status changed.
func (s *Spec) advance(t *specTask) bool {
	before := t.status
	switch {
	case terminal(t.status):
		switch t.ended++; {
		case s.has("task-terminal-moves") && t.status == "completed" && t.ended > 1:
			t.status = "working"
		case t.overrun && t.ended > 1:
			t.status, t.message, t.overrun = "completed", "", false
		}
	case t.status == "input_required":
		switch {
		case t.answers == nil:
		case len(s.Tasks.Statuses) > 0 && t.step+1 < len(s.Tasks.Statuses):
			s.step(t)
		case len(s.Tasks.Statuses) > 0:
			t.status = "completed"
		default:
			t.status, t.key = "working", ""
		}
	case len(s.Tasks.Statuses) > 0:
		s.step(t)
	default:
		t.polls++
		switch {
		case t.polls < max(s.Tasks.Steps, 1):
		case t.err != nil:
			t.status, t.message = "failed", t.err.Message
		case slices.Contains(s.Tasks.Ask, t.tool) && t.rounds < max(s.Tasks.Rounds, 1):
			t.rounds++
			t.status, t.answers = "input_required", nil
			t.key = fmt.Sprintf("ask-%d", pick(s.has("ext-key-reuse"), 1, t.rounds))
		case slices.Contains(s.Tasks.Fail, t.tool):
			t.status = "failed"
		case s.Era != "modern" && string(member(s.CallResults[t.tool], "isError")) == "true":
			t.status = "failed"
		default:
			t.status = "completed"
		}
	}
	if t.status != before {
		t.updated = stamp()
		return true
	}
	return false
}

// step moves t to the next of Statuses, the last one kept.
func (s *Spec) step(t *specTask) {
	t.step = min(t.step+1, len(s.Tasks.Statuses)-1)
	switch next := s.Tasks.Statuses[t.step]; next {
	case "expire":
		t.gone = true
	case "failed":
		t.status, t.message = next, "the job broke"
	case "cancelled":
		t.status, t.message = next, "cancelled by the server"
	default:
		t.status = next
	}
}

// progress sends a progress notification for t, if its call asked for
// them.
func (s *Spec) progress(t *specTask, n int, message string, out specOut) {
	if t.token != nil {
		out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":2,"message":%q,"_meta":%s}}`,
			t.token, n, message, related(t.id)))
	}
}

// callResult is the result a task of tool ends with, given the input
// answers (nil when it asked none).
func (s *Spec) callResult(tool string, answers json.RawMessage) json.RawMessage {
	res, e := s.handle("tools/call", mustJSON(map[string]string{"name": tool}))
	if e != nil {
		return mustJSON(map[string]any{"content": []any{map[string]any{"type": "text", "text": e.Message}}, "isError": true})
	}
	if answers == nil {
		return res
	}
	var content []json.RawMessage
	r, ok := object(res)
	if !ok || r["content"] != nil && json.Unmarshal(r["content"], &content) != nil {
		return res // a result with no content list to say the answers in
	}
	r["content"] = mustJSON(append(content, mustJSON(map[string]string{"type": "text", "text": "input: " + string(answers)})))
	return mustJSON(r)
}

// taskError is the JSON-RPC error a failed task ended with.
var taskError = &specError{Code: -32603, Message: "the job broke"}

// elicitation is what a task asks of the client: its name (a client
// that accepts as it is gives the default).
const elicitation = `{"mode":"form","message":"Who asks?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"mcpv"}}}}`

// taskMethod answers a tasks/ request; false leaves it to the others
// (not found).
func (s *Spec) taskMethod(st *specState, m msg, id json.RawMessage, out specOut) bool {
	if s.Tasks == nil {
		return false
	}
	if s.Era == "modern" {
		return s.extMethod(st, m, id, out)
	}
	switch sub, _ := strings.CutPrefix(m.Method, "tasks/"); {
	case (sub == "list" || sub == "cancel") && s.declared("tasks", sub) == nil:
		return false // not declared: not found
	case m.Method == "tasks/list":
		s.taskList(st, id, out)
		return true
	case !slices.Contains([]string{"tasks/get", "tasks/cancel", "tasks/result"}, m.Method):
		return false
	}
	st.mu.Lock()
	t := st.tasks[param(m.Params, "taskId")]
	if related := member(member(m.Params, "_meta"), "io.modelcontextprotocol/related-task"); related != nil && s.has("task-id-from-meta") {
		t = st.tasks[param(related, "taskId")]
	}
	if t == nil {
		st.mu.Unlock()
		s.noTask(m, id, "task-unknown-internal", out)
		return true
	}
	changed := !t.gone && m.Method == "tasks/get" && s.advance(t) // a poll moves the task along, and may end it
	if t.gone {
		st.mu.Unlock()
		out.send(s.errorLine(id, codeInvalidParams, "Task not found or expired: "+t.id))
		return true
	}
	switch m.Method {
	case "tasks/get":
		f, note := s.taskFields(t), s.taskFields(t)
		if s.has("task-no-ttl") {
			delete(f, "ttl")
		}
		if s.has("task-get-related") {
			f["_meta"] = json.RawMessage(related(t.id))
		}
		st.mu.Unlock()
		if changed {
			s.statusNote(t, note, out)
		} else if terminal(t.status) && s.has("task-progress-late") {
			s.progress(t, 2, "job still reporting", out)
		}
		out.send(s.resultLine(id, m.Method, mustJSON(f)))
	case "tasks/cancel":
		switch {
		case terminal(t.status) && !s.has("task-cancel-terminal-ok"):
			st.mu.Unlock()
			out.send(s.errorLine(id, codeInvalidParams, "Cannot cancel task: already in terminal status '"+t.status+"'"))
			return true
		case !terminal(t.status) && !s.has("task-cancel-no-status"):
			t.status, t.updated, t.message = "cancelled", stamp(), "cancelled by the client"
			t.overrun = s.has("task-cancel-overrun")
			s.statusNote(t, s.taskFields(t), out)
		}
		f := s.taskFields(t)
		st.mu.Unlock()
		out.send(s.resultLine(id, m.Method, mustJSON(f)))
	case "tasks/result":
		st.mu.Unlock()
		out.async(func() { s.taskResult(st, t, id, out) })
	}
	return true
}

// noTask answers a request for a task that does not exist: -32602, or
// -32603 with the fault given.
func (s *Spec) noTask(m msg, id json.RawMessage, fault string, out specOut) {
	code := pick(s.has(fault), -32603, codeInvalidParams)
	out.send(s.errorLine(id, code, "Task not found: "+param(m.Params, "taskId")))
}

// statusNote announces a task's new status, its fields as taken under
// st.mu, over stdio (over HTTP it would make a tasks/get's answer a
// stream, which the transport asks a server not to do).
func (s *Spec) statusNote(t *specTask, fields map[string]json.RawMessage, out specOut) {
	if status := string(fields["status"]); status == `"completed"` || status == `"failed"` {
		s.progress(t, 2, "job "+strings.Trim(status, `"`), out)
	}
	if !out.http {
		out.send(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":` + string(mustJSON(fields)) + `}`)
	}
}

// taskList lists every task, in one page.
func (s *Spec) taskList(st *specState, id json.RawMessage, out specOut) {
	st.mu.Lock()
	list := []json.RawMessage{}
	for _, t := range st.tasks {
		if !s.has("task-unlisted") && !t.gone && !(s.has("task-list-live-only") && terminal(t.status)) {
			list = append(list, mustJSON(s.taskFields(t)))
		}
	}
	if s.has("task-list-newest") && len(list) > 1 {
		slices.SortFunc(list, func(a, b json.RawMessage) int { return strings.Compare(string(b), string(a)) })
		list = list[:1]
	}
	st.mu.Unlock()
	if s.has("task-list-endless") {
		out.send(s.resultLine(id, "tasks/list", json.RawMessage(`{"tasks":[],"nextCursor":"more"}`)))
		return
	}
	out.send(s.resultLine(id, "tasks/list", mustJSON(map[string]any{"tasks": list})))
}

// taskResult answers tasks/result once the task has ended, moving it
// along meanwhile and asking the client's input when it needs it; it
// gives up when the client goes (stdio's end, an HTTP request's).
func (s *Spec) taskResult(st *specState, t *specTask, id json.RawMessage, out specOut) {
	for n := 0; ; n++ {
		st.mu.Lock()
		status, real, answers := t.status, t.status, t.answers
		if s.has("task-result-early") && !terminal(real) || s.has("task-result-working") && n == 0 && real == "working" {
			status = "completed"
		}
		switch {
		case t.gone:
			st.mu.Unlock()
			out.send(s.errorLine(id, codeInvalidParams, "Task not found or expired: "+t.id))
			return
		case terminal(status):
			st.mu.Unlock()
			switch {
			case status == "failed" && len(s.Tasks.Statuses) > 0:
				out.send(s.resultLine(id, "tasks/result", json.RawMessage(`{"content":[{"type":"text","text":"the job broke"}],"isError":true,"_meta":`+related(t.id)+`}`)))
			case status == "failed" && slices.Contains(s.Tasks.Fail, t.tool):
				out.send(s.errorLine(id, taskError.Code, taskError.Message))
			case status == "failed" && t.err != nil && s.has("task-error-as-result"):
				out.send(s.resultLine(id, "tasks/result", mustJSON(map[string]any{"content": []any{map[string]string{"type": "text", "text": t.err.Message}}, "isError": true, "_meta": json.RawMessage(related(t.id))})))
			case status == "failed" && t.err != nil:
				out.send(s.errorLine(id, t.err.Code, t.err.Message))
			case status == "cancelled":
				out.send(s.errorLine(id, -32603, "the task was cancelled"))
			default:
				res := s.callResult(t.tool, answers)
				if status != real {
					res = json.RawMessage(`{"content":[]}`)
				}
				if r, ok := object(res); ok && !s.has("task-result-no-meta") {
					r["_meta"] = json.RawMessage(related(t.id))
					res = mustJSON(r)
				}
				out.send(s.resultLine(id, "tasks/result", res))
			}
			return
		case status == "input_required" && t.answers == nil:
			st.mu.Unlock()
			meta := pick(s.has("task-input-unrelated"), "", `,"_meta":`+related(t.id))
			ask := srvID("srv-task")
			answer := st.await(ask)
			out.send(`{"jsonrpc":"2.0","id":"` + ask + `","method":"elicitation/create","params":` + elicitation[:len(elicitation)-1] + meta + `}}`)
			select {
			case r := <-answer:
				if r.Result == nil {
					r.Result = json.RawMessage(`{"error":true}`)
				}
				withLock(&st.mu, func() { t.answers = r.Result })
			case <-time.After(time.Minute):
				return
			case <-out.done:
				return
			}
			continue
		}
		changed := s.advance(t)
		note := s.taskFields(t)
		st.mu.Unlock()
		if changed {
			s.statusNote(t, note, out)
		}
		if !wait(10*time.Millisecond, out.done) {
			return
		}
	}
}

// await registers a wait for the client's answer to the server's request
// id.
func (st *specState) await(id string) chan msg {
	ch := make(chan msg, 1)
	withLock(&st.mu, func() { st.waits[`"`+id+`"`] = ch })
	return ch
}

// route hands the client's answer to the request of the server's that
// waits for it.
func (st *specState) route(m msg) bool {
	st.mu.Lock()
	ch := st.waits[string(m.ID)]
	delete(st.waits, string(m.ID))
	st.mu.Unlock()
	if ch != nil {
		ch <- m
	}
	return ch != nil
}

// extMethod answers the extension's methods in the modern era.
func (s *Spec) extMethod(st *specState, m msg, id json.RawMessage, out specOut) bool {
	if !slices.Contains([]string{"tasks/get", "tasks/update", "tasks/cancel"}, m.Method) {
		return false // tasks/result and tasks/list are the initialize era's
	}
	if !declaresExtension(m.Params) && !s.has("ext-ungated") {
		out.send(s.missingExtension(id))
		return true
	}
	st.mu.Lock()
	t := st.tasks[param(m.Params, "taskId")]
	if t == nil || m.Method == "tasks/get" && !t.gotten && s.has("ext-not-durable") {
		if t != nil {
			t.gotten = true
		}
		st.mu.Unlock()
		s.noTask(m, id, "ext-unknown-internal", out)
		return true
	}
	t.gotten = true
	res := json.RawMessage(`{}`)
	switch m.Method {
	case "tasks/get":
		s.advance(t)
		f := s.taskFields(t)
		switch t.status {
		case "input_required":
			f["inputRequests"] = json.RawMessage(`{"` + t.key + `":{"method":"elicitation/create","params":` + elicitation + `}}`)
		case "completed":
			if !s.has("ext-get-no-result") {
				f["result"] = s.callResult(t.tool, t.answers)
			}
		case "failed":
			f["error"] = mustJSON(map[string]any{"code": taskError.Code, "message": taskError.Message})
		}
		res = mustJSON(f)
	case "tasks/update":
		answers, _ := object(member(m.Params, "inputResponses")) // none, or no object: nothing answered, the task still asks
		if a, ok := answers[t.key]; ok && t.status == "input_required" {
			t.answers = a
		}
	case "tasks/cancel":
		if !terminal(t.status) {
			t.status, t.updated = "cancelled", stamp()
		}
	}
	if m.Method == "tasks/update" && s.has("ext-update-ack") || m.Method == "tasks/cancel" && s.has("ext-cancel-ack") {
		res = mustJSON(s.taskFields(t))
	}
	st.mu.Unlock()
	out.send(s.resultLine(id, m.Method, res))
	return true
}

// listenRefused says whether subscriptions/listen is refused
// (missingExtension): it asks for tasks' notifications of a client that
// does not declare the extension.
func (s *Spec) listenRefused(params json.RawMessage) bool {
	return s.Tasks != nil && member(member(params, "notifications"), "taskIds") != nil && !declaresExtension(params) && !s.has("ext-listen-ungated")
}
