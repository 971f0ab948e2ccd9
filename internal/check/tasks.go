package check

// Tasks of 2025-11-25, where the server declares them: what a client does
// with any server's tasks, held to the revision's rules. A task is made
// only of a tool named with --call (mcpv check calls no tool of its own
// accord), once a run, on a connection that can answer the input a task
// asks for: the call made as a task, the task found on tasks/list, polled
// with tasks/get to its end or its question, its result taken with
// tasks/result (answering what it asks meanwhile), then cancelled once
// ended; a second task, made beside it, is cancelled while it runs and
// asked of again until its work would have ended, a third's result asked
// at once. Each check judges one rule of what came back. Without a tool
// to call, only what needs no task is asked: a task that does not exist.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/jsonschema"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/mcp"
)

func taskChecks() []*Check {
	legacy := func(id, capability string, run func(t *T)) *Check {
		return needs{era: "legacy", capability: cmp.Or(capability, "tasks")}.check(id, func(t *T) { tasksVersion(t); run(t) })
	}
	return []*Check{
		legacy("tasks.unknown-task", "", func(t *T) {
			c := t.connWith(connOptions{era: "legacy"})
			methods := []string{"tasks/get", "tasks/result"}
			if t.r.facts.declares("tasks.cancel") {
				methods = append(methods, "tasks/cancel")
			}
			for _, method := range methods {
				params := mcp.TaskParams(noTask)
				m, _ := t.ask(c, method+" "+string(params), method, params)
				t.notServed(method, m.Error)
				wantCode(t, m.Result, m.Error, mcp.CodeInvalidParams,
					method+" of a task that does not exist was answered with a result",
					method+" of a task that does not exist was answered %d, not -32602")
			}
		}),
		legacy("tasks.create", "tasks.requests.tools.call", func(t *T) {
			run := t.r.tasks.get(t, "legacy", func() *taskRun { return legacyTask(t) })
			t.Sent(run.sent)
			switch {
			case run.created.Error != nil:
				t.Got(errText(run.created.Error))
				t.Skip("%s: a server need not accept it", run.declined)
			case run.declined != "":
				t.UnsureGot(clipped(run.created.Result), "%s: a server that accepts the task answers a CreateTaskResult; this one may not have accepted it", run.declined)
			}
			t.Got(clipped(run.created.Result))
			if p := schemaOf("2025-11-25").validate("CreateTaskResult", run.created.Result); p != "" {
				t.Fail("the answer breaks CreateTaskResult: %s", p)
			}
		}),
		legacy("tasks.status-paths", "tasks.requests.tools.call", func(t *T) {
			run := theTask(t)
			var seen []string // its statuses
			for _, tk := range run.seen() {
				seen = append(seen, str1(member(tk, "status")))
			}
			t.failGotIf(seen[0] != mcp.TaskWorking, clipped(run.task), "the task was created %q, not working", seen[0])
			for i := 1; i < len(seen); i++ {
				t.failGotIf(!validStep(seen[i-1], seen[i]), strings.Join(seen, " → "), "the task moved from %s to %s", seen[i-1], seen[i])
			}
			t.Note("statuses: %s", strings.Join(seen, " → "))
		}),
		legacy("tasks.timestamps", "tasks.requests.tools.call", func(t *T) {
			run := theTask(t)
			tasks := run.seen()
			for _, n := range run.notes {
				tasks = append(tasks, n.msg.Params)
			}
			for _, tk := range tasks {
				for _, k := range []string{"createdAt", "lastUpdatedAt"} {
					if v, ok := str(member(tk, k)); !ok || !iso8601.Get().MatchString(v) {
						t.FailGot(clipped(tk), "%s %s is no ISO 8601 timestamp", k, clip(string(member(tk, k)), 60))
					}
				}
			}
		}),
		legacy("tasks.ttl", "tasks.requests.tools.call", func(t *T) {
			judgeGets(t, theTask(t), func(res json.RawMessage) string {
				switch _, held := number(member(res, "ttl")); held {
				case "", "null":
				case "nothing":
					return "tasks/get answered no ttl (a number, or null for unlimited)"
				default:
					return "tasks/get answered a ttl that held " + held + ", not a number (or null for unlimited)"
				}
				return ""
			})
		}),
		legacy("tasks.result", "tasks.requests.tools.call", func(t *T) {
			run := theTask(t)
			m := run.result
			t.Sent(fmt.Sprintf("tasks/result of task %s, %s", run.id, map[bool]string{true: "before it ended", false: "once it ended"}[run.pending]))
			if after := str1(member(run.after[0].Result, "status")); run.pending && run.after[0].Error == nil && !terminal(after) {
				t.FailGot(fmt.Sprintf("%s; then tasks/get: %s", answerOf(m), after), "tasks/result was answered while the task was still %s", after)
			}
			if p := resultProblem(m.Result); m.Error == nil && p != "" {
				t.FailGot(clipped(m.Result), "the answer is no result of tools/call: %s", p)
			}
		}),
		legacy("tasks.result-meta", "tasks.requests.tools.call", func(t *T) {
			run := theTask(t)
			t.skipIf(run.result.Error != nil, "tasks/result was answered with an error, which has no _meta")
			if str1(member(member(member(run.result.Result, "_meta"), mcp.RelatedTaskKey), "taskId")) != run.id {
				t.FailExchange("tasks/result "+run.id, clipped(run.result.Result), "the answer's _meta names no %s with taskId %q", mcp.RelatedTaskKey, run.id)
			}
		}),
		// This check makes a task of the call tools.validate-inputs made, with
		// arguments the tool's inputSchema refuses, where that call made without
		// a task was refused with a JSON-RPC error: once the task ends,
		// tasks/result answers that same error. A server may refuse the call made
		// as a task at once instead, and make no task.
		legacy("tasks.result-error", "tasks.requests.tools.call", func(t *T) {
			theTask(t) // the first task tells whether tasks can be made at all
			i := taskTool(t)
			tool := t.r.opts.Calls[i].Tool
			t.skipIf(taskSupport(t.calledTool(tool)) != "optional", "%q requires a task: its call made without one is refused for that, whatever its arguments", tool)
			b := t.r.invalid.get(t, i, func() *badCall { return t.r.callInvalid(t, i) })
			switch {
			case b == nil:
				t.Skip("the inputSchema of %q requires and types nothing: no call of it is sure to be refused", tool)
			case b.err == nil:
				t.Skip("the call of %q with %s, made without a task, was answered with a result, not a JSON-RPC error", tool, b.broken)
			}
			params, _ := withMember(b.params, "task", json.RawMessage(`{"ttl":60000}`))
			params, _ = withMember(params, "_meta", json.RawMessage(`{"progressToken":"mcpv-check-progress-error-task"}`))
			t.Sent("tools/call " + clip(string(params), 200) + " (a task), polled to its end, then tasks/result")
			c := t.fresh(connOptions{era: "legacy", capabilities: answering})
			made, _ := t.request(c, "tools/call", params)
			run := &taskRun{id: str1(member(member(made.Result, "task"), "taskId"))}
			switch {
			case made.Error != nil:
				t.Got(errText(made.Error))
				t.Skip("the call made as a task was refused at once, as it was without one (%s): no task to judge", errText(b.err))
			case run.id == "":
				t.Skip("the call made as a task made none")
			}
			if status := pollTask(t, c, run); !terminal(status) && status != mcp.TaskInputRequired {
				t.Inconclusive("the task had not ended after %d polls (its status %q)", len(run.gets), status)
			}
			m, _ := t.request(c, "tasks/result", mcp.TaskParams(run.id))
			switch {
			case m.Error == nil:
				t.FailGot(clipped(m.Result), "tasks/result answered a result, where the call made without a task was refused with %s", errText(b.err))
			case m.Error.Code != b.err.Code:
				t.FailGot(errText(m.Error), "tasks/result answered %d, where the call made without a task was refused with %s", m.Error.Code, errText(b.err))
			}
			t.Got(errText(m.Error))
		}),
		legacy("tasks.result-blocks", "tasks.requests.tools.call", func(t *T) { // asked at once, tasks/result waits for the task's end (2025-11-25 tasks#result-retrieval)
			theTask(t) // the first task tells whether tasks can be made at all
			c := t.fresh(connOptions{era: "legacy", capabilities: answering})
			made, _ := t.request(c, "tools/call", taskCallParams(t, taskTool(t), `"mcpv-check-progress-result-task"`))
			id := str1(member(member(made.Result, "task"), "taskId"))
			t.skipIf(made.Error != nil || id == "", "the second call made as a task made none")
			m, _ := t.ask(c, "tools/call as a task, then at once tasks/result "+id+", then tasks/get", "tasks/result", mcp.TaskParams(id))
			got, _ := t.request(c, "tasks/get", mcp.TaskParams(id))
			if after := str1(member(got.Result, "status")); got.Error == nil && !terminal(after) {
				t.FailGot(fmt.Sprintf("%s; then tasks/get: %s", answerOf(&m), after), "tasks/result was answered while the task was still %s", after)
			}
		}),
		// This check holds tasks/get's and tasks/cancel's answers and the
		// task's status notifications to no related-task _meta: each names its
		// task already.
		legacy("tasks.no-related-meta", "tasks.requests.tools.call", func(t *T) {
			run := theTask(t)
			msgs := slices.Concat(run.gets, run.after)
			if run.ended != nil {
				msgs = append(msgs, *run.ended)
			}
			for _, n := range run.notes {
				msgs = append(msgs, n.msg)
			}
			for _, m := range msgs {
				what, body := "a tasks/get or tasks/cancel answer", m.Result
				if m.Method != "" {
					what, body = m.Method, m.Params
				}
				t.failGotIf(member(member(body, "_meta"), mcp.RelatedTaskKey) != nil, clipped(body), "%s carries %s in its _meta, though it names the task already", what, mcp.RelatedTaskKey)
			}
		}),
		legacy("tasks.input-status", "tasks.requests.tools.call", func(t *T) {
			run := theTask(t)
			said := slices.ContainsFunc(run.gets, func(m mcp.Message) bool { return str1(member(m.Result, "status")) == "input_required" })
			if len(run.asks) > 0 && !said {
				t.FailGot(run.asks[0].raw, "the task asked the client for input, and tasks/get never said input_required (%d polls)", len(run.gets))
			}
			if last := run.after[len(run.after)-1]; run.result.Error == nil && len(run.asks) > 0 && str1(member(last.Result, "status")) == "input_required" {
				t.FailGot(clipped(last.Result), "once its input was given and tasks/result answered, the task was still input_required")
			}
		}),
		{ID: "tasks.progress-ends", needs: needs{era: "legacy", transport: "stdio", capability: "tasks.requests.tools.call"}, run: func(t *T) { // over HTTP, a task's progress and tasks/get's answers come on streams whose order a client cannot know
			tasksVersion(t)
			if run := theTask(t); len(run.late) > 0 {
				t.FailGot(run.late[0].raw, "a progress notification of the task's call came after tasks/get had answered twice that the task ended")
			}
		}},
		legacy("tasks.id-param", "tasks.requests.tools.call", func(t *T) {
			run := theTask(t)
			t.Sent("tasks/get of task " + run.id + " whose _meta names the task " + noTask)
			t.must("tasks/get", run.metaErr)
			switch m := run.metaGet; {
			case m.Error != nil:
				t.FailGot(errText(m.Error), "refused: the task was looked up by the _meta, not by params.taskId")
			case str1(member(m.Result, "taskId")) != run.id:
				t.FailGot(clipped(m.Result), "answered about another task than params.taskId names")
			}
		}),
		// This check walks tasks/list for the run's task while it runs and
		// once it has ended, tasks/get still answering it; and, where the
		// server declares tasks.cancel, for the run's cancelled task once
		// tasks/get answered it cancelled (cancelRun). A task that has ended
		// is still the requestor's to retrieve, and so to list.
		legacy("tasks.listed", "tasks.list", func(t *T) {
			run := theTask(t)
			t.skipIf(!run.listAsked, "the server declares no tasks.list")
			if !run.listed {
				t.Sent("tasks/list, every page, while task " + run.id + " ran")
				t.Fail("the task %s, which tasks/get answers, is not on tasks/list", run.id)
			}
			walks := []endWalk{run.endList}
			if t.r.facts.declares("tasks.cancel") {
				walks = append(walks, cancelledTask(t).endList)
			}
			for _, w := range walks {
				t.Sent(fmt.Sprintf("tasks/list, every page, once task %s had ended (%s) and tasks/get still answered it", w.id, w.status))
				if w.id != "" && !w.listed && !w.walked {
					t.Inconclusive("tasks/list went on past 20 pages without the task %s: whether it lists it is not known", w.id)
				}
				t.failGotIf(w.id != "" && !w.listed, "tasks/get: "+w.got+"; tasks/list (its last page): "+w.page, "the task %s, which tasks/get answers %s, is not on tasks/list: a task that has ended stays listed while it can be retrieved", w.id, w.status)
			}
		}),
		{ID: "tasks.list-anonymous", needs: needs{era: "legacy", transport: "http", capability: "tasks.list"}, run: func(t *T) {
			switch known := requestorKnown(t); {
			case known != "":
				t.Note("%s", known)
			case t.connWith(connOptions{era: "legacy"}).sessionID() != "":
				t.Note("the server gives each client a session, which can tell its requestors apart")
			default:
				t.Fail("the server declares tasks.list, yet asks no authorization and gives no session: it cannot tell one requestor from another, and its list shows any client every task")
			}
		}},
		legacy("tasks.input-related", "tasks.requests.tools.call", func(t *T) {
			run := theTask(t)
			t.skipIf(len(run.asks) == 0, "the task asked the client nothing")
			for _, s := range run.asks {
				t.failGotIf(str1(member(member(member(s.msg.Params, "_meta"), mcp.RelatedTaskKey), "taskId")) != run.id, s.raw, "%s, which the task made while it ran, names no task in its _meta %s", s.msg.Method, mcp.RelatedTaskKey)
			}
		}),
		// This check makes a second task, cancels it at once, and asks
		// tasks/get of it then and again at its poll interval until its work
		// would have ended (watchCancelled): a task's work may run on after
		// the cancellation, and its end must not move the task.
		legacy("tasks.cancel", "tasks.cancel", func(t *T) {
			run := cancelledTask(t)
			if t.Sent(cmp.Or(run.sent, "tools/call as a task, then at once tasks/cancel")); run.err != nil {
				t.failErr(run.doing, run.err)
			}
			t.skipIf(run.none != "", "%s", run.none)
			cm, got := run.cancel, run.got
			after := str1(member(got.Result, "status"))
			switch {
			case cm.Error != nil && cm.Error.Code == mcp.CodeInvalidParams && terminal(after) && after != mcp.TaskCancelled:
				t.Skip("the task ended (%s) before the cancellation came", after)
			case cm.Error != nil:
				t.FailGot(errText(cm.Error), "cancelling a task that runs was refused")
			case str1(member(cm.Result, "status")) != mcp.TaskCancelled:
				t.FailGot(clipped(cm.Result), "tasks/cancel was answered with the task %q, not cancelled", str1(member(cm.Result, "status")))
			case got.Error != nil:
				t.Note("tasks/get of the task once cancelled was answered %s", errText(got.Error))
				return
			case after != mcp.TaskCancelled:
				t.FailGot(clipped(got.Result), "once cancelled the task is %q", after)
			}
			gets, at, why := watchCancelled(t, run)
			t.Sent(run.sent + fmt.Sprintf(" at once and at its poll interval until %s after the cancellation (%s)", at[len(at)-1].Round(time.Millisecond), why))
			for i, g := range gets {
				if g.Error != nil { // gone (its ttl, say): no status to hold
					t.Note("tasks/get of the cancelled task was answered %s %s after the cancellation", errText(g.Error), at[i].Round(time.Millisecond))
					return
				}
				if status := str1(member(g.Result, "status")); status != mcp.TaskCancelled {
					t.FailGot(clipped(g.Result), "the task, cancelled, was %q %s after the cancellation: a cancelled task stays cancelled, even when its work runs on to its end", status, at[i].Round(time.Millisecond))
				}
			}
			t.Note("tasks/get still answered the task cancelled %s after the cancellation (asked again %d times at its poll interval): %s", at[len(at)-1].Round(time.Millisecond), len(gets), why)
		}),
		legacy("tasks.cancel-ended", "tasks.cancel", func(t *T) {
			run := theTask(t)
			t.skipIf(run.ended == nil, "the server declares no tasks.cancel")
			status := str1(member(run.after[len(run.after)-1].Result, "status"))
			t.skipIf(!terminal(status), "the task had not ended (%s) when it was cancelled", status)
			t.Sent(fmt.Sprintf("tasks/cancel of task %s, %s", run.id, status))
			wantCode(t, run.ended.Result, run.ended.Error, mcp.CodeInvalidParams,
				fmt.Sprintf("cancelling a task that had ended (%s) was answered with a result", status),
				"cancelling a task that had ended was refused with %d, not -32602")
		}),
		// This check calls the first tool named with --call as a task of a
		// server that does not declare tasks for tools/call: it must be served as
		// a call.
		{ID: "tasks.not-declared", needs: needs{era: "legacy", call: true, capability: "tools"}, run: func(t *T) {
			tasksVersion(t)
			t.skipIf(t.r.facts.declares("tasks.requests.tools.call"), "the server declares tasks for tools/call")
			i := t.r.callable(t)[0]
			c := t.fresh(connOptions{era: "legacy"})
			params := taskCallParams(t, i, `"mcpv-check-progress-not-declared"`)
			m, _ := t.ask(c, "tools/call "+clip(string(params), 200)+" (made as a task)", "tools/call", params)
			if m.Error != nil {
				t.UnsureGot(errText(m.Error), "the call made as a task was refused; a server that does not declare tasks processes it as a call, ignoring the task (if it refuses the call itself, that is no sign)")
			}
			t.failGotIf(member(m.Result, "task") != nil, clipped(m.Result), "the server made a task, though it declares no tasks for tools/call")
		}},
		// This check makes two tasks on one session: their ids differ, and
		// tasks/list, where declared, lists both.
		legacy("tasks.unique-ids", "tasks.requests.tools.call", func(t *T) {
			p := twoTasks(t)
			t.failIf(p.ids[0] == p.ids[1], "both tasks have the id %q", clip(p.ids[0], 80))
			for n, id := range p.ids {
				if t.r.facts.declares("tasks.list") && !p.listed[n] {
					t.Sent(fmt.Sprintf("two tools/call made as tasks (%s, %s), then tasks/list, every page", p.ids[0], p.ids[1]))
					if !p.ended[n] {
						t.Inconclusive("tasks/list went on past 20 pages without the task %s: whether it lists it is not known", id)
					}
					t.Fail("the task %s, which the session made, is not on tasks/list", id)
				}
			}
		}),
		// This check holds the ids of twoTasks' tasks, where the run gives the
		// server no authorization context to bind its tasks to, to ids no one
		// guesses: an id of fewer than 56 bits by its length and its kinds of
		// characters (OWASP asks 64 of a session id; two random 64-bit numbers
		// written in decimal both have fewer than 17 digits, 56 bits, about once
		// in three million pairs), or two that differ in fewer than 32 bits'
		// worth (a counter, a clock). UUIDs, ULIDs and 16 random bytes in hexadecimal or base64 hold
		// over 120.
		legacy("tasks.id-entropy", "tasks.requests.tools.call", func(t *T) {
			if known := requestorKnown(t); known != "" {
				t.Note("%s: the server may bind its tasks to it", known)
				return
			}
			p := twoTasks(t)
			a, b := p.ids[0], p.ids[1]
			t.blockIf(a == b, "tasks.unique-ids", "both tasks have the id %q", clip(a, 80))
			if p.apart != "" { // guessed, its ids serve no one else
				t.Note("tasks/get of task %s, answered on its session, was refused from another (%s): the server binds its tasks to the session that made them", clip(a, 80), p.apart)
				return
			}
			pre, suf := 0, 0 // what both ids begin and end with
			for pre < min(len(a), len(b)) && a[pre] == b[pre] {
				pre++
			}
			for suf < min(len(a), len(b))-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
				suf++
			}
			const unbound = "the run gives the server no authorization context to bind its tasks to, and "
			switch da, db := a[pre:len(a)-suf], b[pre:len(b)-suf]; {
			case idBits(a, b) < 56:
				t.Fail(unbound+"their ids hold at most %.0f bits by their length and characters: any client can guess another's", idBits(a, b))
			case idBits(da, db) < 32:
				t.Fail(unbound+"their ids differ only in %q and %q (at most %.0f bits): any client can guess another's from its own", clip(da, 40), clip(db, 40), idBits(da, db))
			case timeUUID(a) && timeUUID(b):
				t.Fail(unbound + "their ids are UUIDs of version 1, 2 or 6, made of a clock and the machine's node, not of chance: any client can guess another's from its own")
			}
		}),
		// This check calls as a task the first tool named with --call that
		// does not run as one (execution.taskSupport absent or "forbidden"): a
		// server that takes tasks for tools/call refuses it with -32601. (A
		// server that serves it anyway runs the tool named, once more.)
		legacy("tasks.forbidden-tool", "tasks.requests.tools.call", func(t *T) {
			for _, i := range t.r.callable(t) {
				tool := t.r.opts.Calls[i].Tool
				if s := taskSupport(t.calledTool(tool)); s != "" && s != "forbidden" {
					continue
				}
				params := taskCallParams(t, i, `"mcpv-check-progress-forbidden-task"`)
				m, _ := t.ask(t.fresh(connOptions{era: "legacy"}), "tools/call "+clip(string(params), 200)+" (made as a task)", "tools/call", params)
				switch {
				case m.Error == nil:
					t.FailGot(clipped(m.Result), "the tool %q does not run as a task, and its call made as a task was served", tool)
				case m.Error.Code != mcp.CodeMethodNotFound:
					t.FailGot(errText(m.Error), "the call of %q made as a task was refused with %d, not -32601", tool, m.Error.Code)
				}
				t.Got(errText(m.Error))
				return
			}
			t.Skip("no tool named with --call forbids tasks (execution.taskSupport absent or \"forbidden\")")
		}),
		{ID: "tasks.get-polled", needs: needs{era: "legacy", transport: "http", capability: "tasks.requests.tools.call"},
			run: func(t *T) { tasksVersion(t); theTask(t) }, // the run's task, polled with tasks/get
			watch: spot("tasks/get answered with an event stream, though a client that polls asks for none", func(_ *watchCtx, s seen) bool {
				return s.era != "modern" && s.via == "event stream" && s.method == "tasks/get" && s.msg.IsResponse()
			})},
	}
}

// requestorKnown says what the run gives by which the server may tell
// one requestor from another, an authorization context to bind tasks to:
// "" when nothing.
func requestorKnown(t *T) string {
	u, _ := url.Parse(t.r.target.URL)
	switch {
	case t.r.facts.authAsked:
		return "the server asks for authorization, which tells its requestors apart"
	case len(t.r.target.Header) > 0 || u != nil && (u.User != nil || u.RawQuery != ""):
		return "the run sends the user's headers or a URL with credentials in it, by which the server may tell its requestors apart"
	}
	return ""
}

// tasksVersion skips t unless the protocol version has tasks.
func tasksVersion(t *T) {
	if v := t.r.facts.version; v != "2025-11-25" {
		t.Skip("tasks are 2025-11-25's; the protocol version is %s", v)
	}
}

// noTask is the task that the checks ask about when they need one that does not exist.
const noTask = "mcpv-check-no-such-task"

// taskRun is a task made of a tool named with --call and followed to its
// end, once a run: each answer, as it came.
type taskRun struct {
	sent string // the call, for a failure's line
	// declined says why the server made no task, as it may: the call
	// made as a task was refused, or answered without one; nameless, why
	// the answer is a task that cannot be followed (it names none).
	declined, nameless string
	created            mcp.Message     // the call's answer
	task               json.RawMessage // the task as created (the modern era's result)
	id                 string
	gets               []mcp.Message // each tasks/get, in order
	// listed: the task was on tasks/list while it ran (legacy, where
	// declared); endList, the walk once it had ended.
	listed, listAsked bool
	endList           endWalk
	// took is how long the task's work took: from the call to tasks/result's answer (legacy).
	took time.Duration
	// result is tasks/result's answer, asked when the task had not yet
	// ended (pending) or had; after are two tasks/get once it was
	// answered (a terminal status must hold).
	result   *mcp.Message
	after    []mcp.Message
	pending  bool
	metaGet  mcp.Message    // tasks/get once it ended, its _meta naming another task (related-task)
	metaErr  error          // why metaGet has no answer: tasks.id-param's alone, not the run's
	late     []seen         // progress of the call's token after two tasks/get answered the task ended
	asks     []seen         // the input the server asked for while the task ran
	notes    []seen         // notifications/tasks/status of the task
	ended    *mcp.Message   // tasks/cancel of the task once it ended
	updates  []mcp.Message  // modern: each tasks/update
	answered []answeredKeys // modern: each tasks/update's keys
}

// answeredKeys are the keys of the input one tasks/update answered, sent
// once the task's first at gets had come.
type answeredKeys struct {
	at   int
	keys []string
}

// taskTool is the index of the tool named with --call a task is made of:
// the first whose execution.taskSupport is "optional" or "required" (else,
// in the modern era, whose tools say nothing of tasks, the first named); t
// is skipped without one.
func taskTool(t *T) int {
	runsAsTask := func(def json.RawMessage) bool { return taskSupport(def) == "optional" || taskRequired(def) }
	for i, call := range t.r.opts.Calls {
		if runsAsTask(t.calledTool(call.Tool)) {
			return i
		}
	}
	if len(t.r.opts.Calls) > 0 && t.r.facts.era == "modern" {
		return 0 // the era's tools say nothing of tasks: the server decides
	}
	tools, _ := t.r.facts.items(t.ctx, "tools/list")
	if listed := toolNames(tools, runsAsTask); len(listed) > 0 {
		t.Skip("a task is made by calling a tool: name one with --call (mcpv check calls no tool of its own accord); the server lists %d that run as tasks (%s)", len(listed), clip(strings.Join(listed, ", "), 120))
	}
	t.Skip("a task is made by calling a tool: name one with --call (mcpv check calls no tool of its own accord)")
	return 0
}

// legacyTask makes the run's task (2025-11-25) and follows it to its end.
func legacyTask(t *T) *taskRun {
	i := taskTool(t)
	c := t.fresh(connOptions{era: "legacy", capabilities: answering})
	params := taskCallParams(t, i, `"mcpv-check-progress-task"`)
	run := &taskRun{sent: "tools/call " + clip(string(params), 200) + " (a task)"}
	mark, start := c.mark(), time.Now()
	run.created, _ = t.request(c, "tools/call", params)
	switch m := run.created; {
	case m.Error != nil:
		run.declined = "the call made as a task was refused: " + errText(m.Error)
		return run
	case member(m.Result, "task") == nil && member(m.Result, "content") != nil:
		run.declined = "the call made as a task was answered with the call's result, not a task"
		return run
	}
	run.task = member(run.created.Result, "task")
	run.id, _ = str(member(run.task, "taskId"))
	if run.id == "" {
		run.nameless = "the answer names no task"
		return run
	}
	if t.r.facts.declares("tasks.list") {
		run.listAsked = true
		run.listed, _, _ = onTaskList(t, c, run.id)
	}
	runs := func(id string) bool { return Selected(checkByID(id), t.r.opts.Only, t.r.opts.Skip) }
	if t.r.facts.declares("tasks.cancel") && (runs("tasks.cancel") || runs("tasks.listed") && t.r.facts.declares("tasks.list")) { // a check judges a cancelled task: made while this one runs
		t.r.cancelled.get(t, struct{}{}, func() *cancelRun { return makeCancelled(t) })
	}
	status := pollTask(t, c, run)
	run.pending = !terminal(status)
	// Once the polls run out, tasks/get is still asked while tasks/result
	// waits, until the task says what it waits for.
	res, err, got := mcp.Message{}, error(nil), make(chan struct{})
	go func() { res, _, err = c.request(t.ctx, "tasks/result", mcp.TaskParams(run.id)); close(got) }() // a task's result waiter
	for polling := status == "working"; ; {
		select {
		case <-got:
		case <-time.After(pollWait(nil)):
			if polling {
				m, _ := t.request(c, "tasks/get", mcp.TaskParams(run.id))
				run.gets, polling = append(run.gets, m), str1(member(m.Result, "status")) == "working"
			}
			continue
		}
		break
	}
	run.took = time.Since(start)
	t.must("tasks/result", err)
	run.result = &res
	for range 2 {
		after, _ := t.request(c, "tasks/get", mcp.TaskParams(run.id))
		run.after = append(run.after, after)
	}
	if run.listAsked {
		run.endList = walkEnded(t, c, run.id, run.after[len(run.after)-1])
	}
	params, _ = withMember(mcp.TaskParams(run.id), "_meta", json.RawMessage(`{"`+mcp.RelatedTaskKey+`":{"taskId":"`+noTask+`"}}`))
	run.metaGet, _, run.metaErr = c.request(t.ctx, "tasks/get", params)
	if t.r.facts.declares("tasks.cancel") {
		m, _ := t.request(c, "tasks/cancel", mcp.TaskParams(run.id))
		run.ended = &m
	}
	ends := 0 // the tasks/get answers that the task has ended
	for _, s := range c.since(mark) {
		switch {
		case s.msg.IsResponse() && s.method == "tasks/get" && terminal(str1(member(s.msg.Result, "status"))):
			ends++
		case s.msg.Method == "notifications/progress" && string(member(s.msg.Params, "progressToken")) == `"mcpv-check-progress-task"` && ends >= 2:
			run.late = append(run.late, s)
		case s.msg.IsRequest() && (s.msg.Method == "elicitation/create" || s.msg.Method == "sampling/createMessage"):
			// The input a task asks for; a ping or the roots asked meanwhile belong to no task.
			run.asks = append(run.asks, s)
		case s.msg.Method == "notifications/tasks/status" && str1(member(s.msg.Params, "taskId")) == run.id:
			run.notes = append(run.notes, s)
		}
	}
	return run
}

// taskCallParams are the params of a call of the i-th tool named with
// --call made as a task of 2025-11-25, with the progress token given.
func taskCallParams(t *T, i int, token string) json.RawMessage {
	params, _ := t.r.callParams(t, i, json.RawMessage(token))
	params, _ = withMember(params, "task", json.RawMessage(`{"ttl":60000}`))
	return params
}

// withMember is a params object with key set to value.
func withMember(params json.RawMessage, key string, value json.RawMessage) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &m); err != nil {
			return params, err
		}
	}
	m[key] = value
	return json.Marshal(m)
}

// str1 is a JSON string's value, "" for anything else.
func str1(raw json.RawMessage) string {
	s, _ := str(raw)
	return s
}

// pollTask asks tasks/get of run's task at its poll interval (bounded)
// until it ends or asks for input, and returns the last status.
func pollTask(t *T, c *conn, run *taskRun) string {
	status := ""
	for range maxPolls {
		m, _ := t.request(c, "tasks/get", mcp.TaskParams(run.id))
		run.gets = append(run.gets, m)
		if m.Error != nil {
			return ""
		}
		status = str1(member(m.Result, "status"))
		if terminal(status) || status == mcp.TaskInputRequired || status == "" {
			return status
		}
		settle(t, pollWait(m.Result))
	}
	return status
}

// maxPolls bounds the polls of a task: one still working then may be
// waiting for input it never said it needs, which tasks/result brings.
const maxPolls = 30

// pollWait is how long to wait before the next poll: the task's poll
// interval, within bounds that keep the check's time.
func pollWait(task json.RawMessage) time.Duration {
	ms := 100.0
	for _, k := range []string{"pollInterval", "pollIntervalMs"} {
		if v, held := number(member(task, k)); held == "" {
			ms = v
		}
	}
	ms = min(max(ms, 20), 1000) // bounded first: more milliseconds than a Duration holds wrap
	return time.Duration(ms * float64(time.Millisecond))
}

func terminal(status string) bool {
	return status == mcp.TaskCompleted || status == mcp.TaskFailed || status == mcp.TaskCancelled
}

// onTaskList walks tasks/list (at most 20 pages) for the task id; ended
// says the walk reached the list's end (or an error); last is the last
// page's answer.
func onTaskList(t *T, c *conn, id string) (listed, ended bool, last string) {
	var params json.RawMessage
	for range 20 {
		m, _ := t.request(c, "tasks/list", params)
		if last = answerOf(&m); m.Error != nil {
			return false, true, last
		}
		var r struct {
			Tasks []struct {
				TaskID string `json:"taskId"`
			} `json:"tasks"`
			Next *string `json:"nextCursor"`
		}
		t.decode(m.Result, &r, "tasks/list's result")
		for _, tk := range r.Tasks {
			if tk.TaskID == id {
				return true, false, last
			}
		}
		if r.Next == nil {
			return false, true, last
		}
		params, _ = json.Marshal(map[string]string{"cursor": *r.Next})
	}
	return false, false, last
}

// endWalk is tasks/list walked for task id once tasks/get answered it
// ended (got, status): listed, or walked to the list's end without it
// (page its last); id is "" when tasks/get answered no end.
type endWalk struct {
	id, status, got, page string
	listed, walked        bool
}

// walkEnded is task id's endWalk, tasks/get having answered got.
func walkEnded(t *T, c *conn, id string, got mcp.Message) (w endWalk) {
	if status := str1(member(got.Result, "status")); got.Error == nil && terminal(status) {
		w = endWalk{id: id, status: status, got: answerOf(&got)}
		w.listed, w.walked, w.page = onTaskList(t, c, id)
	}
	return w
}

// cancelRun is a task made beside the run's (legacyTask), of the same tool,
// so that its work, had it run on, would end about when the run's task's
// does: cancelled at once, asked with tasks/get at once (got), tasks/list
// walked for it where declared. Once a run, on a connection of the run's,
// open until the run ends, for tasks.cancel to ask of it again (a task is
// its session's). err, while doing, kept it from an answer: it ends the
// checks that judge it, not the one that made it.
type cancelRun struct {
	none, sent, id, doing string // none: why no task was made
	conn                  *conn
	cancel, got           mcp.Message
	at                    time.Time // when tasks/cancel was answered
	endList               endWalk
	err                   error
}

// cancelledTask is the run's cancelled task (cancelRun).
func cancelledTask(t *T) *cancelRun {
	theTask(t) // which tells whether tasks can be made at all
	return t.r.cancelled.get(t, struct{}{}, func() *cancelRun { return makeCancelled(t) })
}

func makeCancelled(t *T) *cancelRun {
	c, err := t.dial(connOptions{era: "legacy", capabilities: answering}) // not the check's own: it outlives the check
	run := &cancelRun{conn: c, err: err, doing: "opening a connection of the run's own"}
	ask := func(method string, params json.RawMessage) (m mcp.Message) {
		if run.err == nil {
			m, _, run.err = c.request(t.ctx, method, params)
			run.doing = method
		}
		return m
	}
	made := ask("tools/call", taskCallParams(t, taskTool(t), `"mcpv-check-progress-cancel-task"`))
	if run.id = str1(member(member(made.Result, "task"), "taskId")); run.err != nil || made.Error != nil || run.id == "" {
		run.none = "the second call made as a task made none" // err, where there is one, is said first
		return run
	}
	run.sent = "tools/call as a task, then at once tasks/cancel " + run.id + ", then tasks/get"
	run.cancel, run.at = ask("tasks/cancel", mcp.TaskParams(run.id)), time.Now()
	if run.got = ask("tasks/get", mcp.TaskParams(run.id)); run.err == nil && t.r.facts.declares("tasks.list") {
		run.endList = walkEnded(t, c, run.id, run.got)
	}
	return run
}

// watchCancelled asks tasks/get of run's task, cancelled, at its poll
// interval until its work would have ended had it run on (as long after
// the cancellation as the run's task of the same tool, made at about the
// same time, took, and two poll intervals more; within half of what is
// left of the check's time), or until an answer is no longer the task
// cancelled; at least once. It returns each answer, with its time after
// the cancellation, and why it watched as long as it did.
func watchCancelled(t *T, run *cancelRun) (gets []mcp.Message, at []time.Duration, why string) {
	took := theTask(t).took
	work := took + 2*pollWait(run.got.Result)
	window := min(work, time.Since(run.at)+t.clock.remaining()/2)
	why = fmt.Sprintf("the tool's task took %s uncancelled", took.Round(time.Millisecond))
	if window < work {
		why += fmt.Sprintf("; watched for %s alone, within half of what was left of the check's time", window.Round(time.Millisecond))
	}
	every := max(pollWait(run.got.Result), window/20) // twenty polls at most
	for {
		settle(t, min(every, max(window-time.Since(run.at), 0)))
		m, _ := t.request(run.conn, "tasks/get", mcp.TaskParams(run.id))
		gets, at = append(gets, m), append(at, time.Since(run.at))
		if m.Error != nil || str1(member(m.Result, "status")) != mcp.TaskCancelled || time.Since(run.at) >= window {
			return gets, at, why
		}
	}
}

// theTask is the run's task of 2025-11-25 (followTask).
func theTask(t *T) *taskRun { return followTask(t, "legacy", legacyTask, "tasks.create") }

// followTask is the run's task of the era (key), made once by make; t
// skips when the server made none (a server need not), and is blocked by
// creator, the check of the answer, when the answer is a task that
// cannot be followed.
func followTask(t *T, key string, make func(*T) *taskRun, creator string) *taskRun {
	run := t.r.tasks.get(t, key, func() *taskRun { return make(t) })
	t.Sent(run.sent)
	switch {
	case run.declined != "":
		t.Skip("%s", run.declined)
	case run.nameless != "":
		t.Block(creator, "%s", run.nameless)
	}
	return run
}

// seen is the task as the run saw it, in order: as created, each poll,
// each poll after tasks/result (a poll answered with an error aside).
func (run *taskRun) seen() []json.RawMessage {
	out := []json.RawMessage{run.task}
	for _, g := range slices.Concat(run.gets, run.after) {
		if g.Error == nil {
			out = append(out, g.Result)
		}
	}
	return out
}

// validStep reports whether a task may move from one status to another.
func validStep(from, to string) bool {
	switch {
	case from == to:
		return true
	case terminal(from):
		return false
	case from == mcp.TaskWorking:
		return to == mcp.TaskInputRequired || terminal(to)
	case from == mcp.TaskInputRequired:
		return to == mcp.TaskWorking || terminal(to)
	}
	return true // a status of no name: the schema's to judge
}

// iso8601 is a date and time as ISO 8601 writes them (RFC 3339's profile
// and the offsets it leaves out).
var iso8601 = &lazy.Regexp{Pattern: `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}([.,]\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$`}

// judgeGets fails t on the first answer of run's tasks/get (an error
// aside) in which problem finds one.
func judgeGets(t *T, run *taskRun, problem func(res json.RawMessage) string) {
	for _, m := range run.gets {
		if m.Error != nil {
			continue
		}
		if p := problem(m.Result); p != "" {
			t.FailExchange("tasks/get "+run.id, clipped(m.Result), "%s", p)
		}
	}
}

// answerOf is a response in a line.
func answerOf(m *mcp.Message) string {
	if m.Error != nil {
		return errText(m.Error)
	}
	return clip(string(m.Result), 200)
}

// taskPair is two tasks made one after the other on one session: their
// ids, and where tasks/list is declared whether it listed each (ended:
// its walk reached the list's end); none says why no pair was made.
type taskPair struct {
	tool, none    string
	ids           [2]string
	listed, ended [2]bool
	// apart: over HTTP, tasks/get of the first task was answered on its
	// session and refused on another (what refused it there)
	apart string
}

// twoTasks makes two tasks of the first tool a task is made of, one after
// the other, on a session of their own, once a run (a call has side
// effects), and walks tasks/list for them there; t is skipped when a
// call makes no task.
func twoTasks(t *T) *taskPair {
	theTask(t) // the first task tells whether tasks can be made at all
	p := t.r.pair.get(t, struct{}{}, func() *taskPair {
		i := taskTool(t)
		p := &taskPair{tool: t.r.opts.Calls[i].Tool}
		c := t.fresh(connOptions{era: "legacy", capabilities: answering})
		for n := range p.ids {
			m, _ := t.request(c, "tools/call", taskCallParams(t, i, fmt.Sprintf(`"mcpv-check-progress-task-%d"`, n+1)))
			if p.ids[n] = str1(member(member(m.Result, "task"), "taskId")); m.Error != nil || p.ids[n] == "" {
				p.none = fmt.Sprintf("call %d of %s made as a task made none", n+1, p.tool)
				return p
			}
		}
		for n, id := range p.ids {
			if t.r.facts.declares("tasks.list") {
				p.listed[n], p.ended[n], _ = onTaskList(t, c, id)
			}
		}
		if t.r.facts.transport == "http" {
			// A server that keeps a session's tasks from another session
			// binds them to what it can tell apart.
			own, _ := t.request(c, "tasks/get", mcp.TaskParams(p.ids[0]))
			other, _ := t.request(t.fresh(connOptions{era: "legacy", capabilities: answering}), "tasks/get", mcp.TaskParams(p.ids[0]))
			if own.Error == nil && other.Error != nil {
				p.apart = errText(other.Error)
			}
		}
		return p
	})
	t.skipIf(p.none != "", "%s", p.none)
	t.Sent(fmt.Sprintf("two tools/call of %s made as tasks, on one session", p.tool))
	t.Got(fmt.Sprintf("tasks %q and %q", p.ids[0], p.ids[1]))
	return p
}

// timeUUID reports whether id is a UUID of a version made of a clock and
// a node (1, 6) or a user's id (2), with no random part: RFC 9562.
func timeUUID(id string) bool {
	return jsonschema.IsUUID(id) && strings.ContainsRune("126", rune(id[14]))
}

// idBits is at most how many bits of chance an id as long as the longest
// of ids holds, in the kinds of characters they have: digits, lower-case
// letters, capitals, each other character.
func idBits(ids ...string) float64 {
	n, kinds := 0, map[rune]int{}
	for _, id := range ids {
		n = max(n, len(id))
		for _, c := range id {
			switch {
			case c >= '0' && c <= '9':
				kinds['0'] = 10
			case c >= 'a' && c <= 'z':
				kinds['a'] = 26
			case c >= 'A' && c <= 'Z':
				kinds['A'] = 26
			default:
				kinds[c] = 1
			}
		}
	}
	sum := 0
	for _, k := range kinds {
		sum += k
	}
	return float64(n) * math.Log2(float64(max(sum, 1)))
}
