package check

// Tasks of the 2026-07-28 era, an extension (io.modelcontextprotocol/tasks),
// where the server declares it: the server decides which calls become
// tasks, for a client that declares the extension on the request. Without
// a tool to call, what needs no task is asked: the methods and the
// subscription refused to a client that does not declare the extension, a
// task that does not exist, a routing header that does not match. With
// one (--call), it is called from a client that declares the extension;
// a task it makes is polled to its end, its input answered with
// tasks/update; a second one is cancelled.

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/mcp"
)

// declaringTasks are the client capabilities of a connection that answers
// input (answering) and declares the tasks extension.
var declaringTasks = strings.TrimSuffix(answering, "}") + `,"extensions":{"` + mcp.TasksExtension + `":{}}}`

func extTaskChecks() []*Check {
	ext := func(id string, n needs, run func(t *T)) *Check {
		return modernCheck(id, n, func(t *T) { // skipped unless the server declares the extension
			t.skipIf(t.r.facts.era == "modern" && !t.r.facts.declares("tasks"), "the server does not declare the tasks extension (%s)", mcp.TasksExtension)
			if t.r.facts.era != "modern" {
				// The main session is of the initialize era, whose core tasks
				// capability declares no extension: what the server declares in the
				// 2026-07-28 era is what server/discover answers there.
				m, _ := t.request(t.connWith(connOptions{era: "modern"}), "server/discover", nil)
				t.skipIf(m.Error != nil || member(member(member(m.Result, "capabilities"), "extensions"), mcp.TasksExtension) == nil, "the server does not declare the tasks extension (%s) in the 2026-07-28 era", mcp.TasksExtension)
			}
			run(t)
		})
	}
	return []*Check{
		ext("tasks.ext-gated", needs{}, func(t *T) {
			c := t.connWith(connOptions{era: "modern"})
			for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
				params := mcp.TaskParams(noTask)
				if method == "tasks/update" {
					params, _ = withMember(params, "inputResponses", json.RawMessage(`{}`))
				}
				m, _ := t.ask(c, method+" "+string(params)+", from a client that does not declare the extension", method, params)
				wantCode(t, m.Result, m.Error, mcp.CodeMissingRequiredClientCapabilities,
					method+" was served to a client that does not declare the extension",
					method+" was refused with %d, not -32021, to a client that does not declare the extension")
			}
		}),
		ext("tasks.ext-listen-gated", needs{}, func(t *T) {
			c := t.fresh(connOptions{era: "modern"})
			params := json.RawMessage(`{"notifications":{"taskIds":["` + noTask + `"]}}`)
			t.Sent("subscriptions/listen " + string(params) + ", from a client that does not declare the extension")
			first, _, ok := listenOpen(t, c, params)
			t.Got(first.raw)
			switch {
			case !ok:
				t.Fail("the subscription's stream ended with neither an answer nor an acknowledgement")
			case first.msg.Error == nil:
				t.Fail("the subscription was taken (%s), not refused", first.msg.Method)
			case first.msg.Error.Code != mcp.CodeMissingRequiredClientCapabilities:
				t.Fail("the subscription was refused with %d, not -32021", first.msg.Error.Code)
			}
		}),
		ext("tasks.ext-unknown-task", needs{}, func(t *T) {
			wantError(t, t.askIn(connOptions{era: "modern", capabilities: declaringTasks}, "tasks/get", mcp.TaskParams(noTask)), nil, mcp.CodeInvalidParams)
		}),
		ext("tasks.ext-header-name", needs{transport: "http"}, func(t *T) {
			c := t.connWith(connOptions{era: "modern", capabilities: declaringTasks})
			id := json.RawMessage(`"mcpv-check-task-name"`)
			body, _ := mcp.EncodeRequest(id, "tasks/get", c.stamp(mcp.TaskParams(noTask)))
			mismatch(t, t.httpSendQuiet(c, httpReq{body: body, header: http.Header{"Mcp-Name": {"mcpv-check-other"}}}, id,
				fmt.Sprintf("POST tasks/get of %q with Mcp-Name: mcpv-check-other", noTask)))
		}),
		ext("tasks.ext-undeclared", needs{call: true}, func(t *T) {
			for _, i := range t.r.callable(t) {
				rec := t.r.callOnce(t, i)
				if rt, _ := str(member(rec.result, "resultType")); rt == "task" {
					t.FailExchange(rec.sent+", from a client that does not declare the extension", clipped(rec.result), "the call was answered with a task")
				}
			}
		}),
		ext("tasks.ext-create", needs{call: true}, func(t *T) {
			run := t.r.tasks.get(t, "modern", func() *taskRun { return modernTask(t) })
			t.Sent(run.sent)
			res := run.created.Result
			rt, _ := str(member(res, "resultType"))
			switch {
			case run.created.Error != nil:
				t.Skip("%s", run.declined)
			case rt == "task" && run.id == "", rt != "task" && run.id != "":
				t.FailGot(clipped(res), "a result of resultType %q with taskId %q: a CreateTaskResult is of resultType \"task\" and carries its task", rt, run.id)
			case rt != "task":
				t.Skip("%s", run.declined)
			}
			for _, k := range []string{"status", "createdAt", "lastUpdatedAt"} {
				if _, ok := str(member(res, k)); !ok {
					t.FailGot(clipped(res), "the task has no %s", k)
				}
			}
			switch _, held := number(member(res, "ttlMs")); held {
			case "", "null":
			case "nothing":
				t.FailGot(clipped(res), "the task has no ttlMs (a number, or null for unlimited)")
			default:
				t.FailGot(clipped(res), "the task's ttlMs held %s, not a number (or null for unlimited)", held)
			}
		}),
		ext("tasks.ext-durable", needs{call: true}, func(t *T) {
			run := theExtTask(t)
			t.skipIf(len(run.gets) == 0, "the task was never got")
			if m := run.gets[0]; m.Error != nil && m.Error.Code == mcp.CodeInvalidParams {
				t.FailExchange(run.sent+", then at once tasks/get "+run.id, errText(m.Error), "the task just made was not found")
			}
		}),
		ext("tasks.ext-get", needs{call: true}, func(t *T) { judgeGets(t, theExtTask(t), detailedProblem) }),
		ext("tasks.ext-update", needs{call: true}, func(t *T) {
			run := theExtTask(t)
			t.skipIf(len(run.updates) == 0, "the task asked for no input")
			for _, m := range run.updates {
				t.Sent("tasks/update " + run.id)
				judgeAck(t, m, "the answers to the task's own input requests were refused")
			}
		}),
		// This check holds the keys of the task's input requests: a key answered,
		// then asked again after the task moved on, is a key reused. (Until the
		// task moves on, the same key may be shown again: the acknowledgement of
		// an answer is eventually consistent.) A key the check did not answer
		// may be asked again.
		ext("tasks.ext-input-keys", needs{call: true}, func(t *T) {
			run := theExtTask(t)
			t.skipIf(len(run.answered) == 0, "the task asked for no input the check answers")
			done, given := map[string]bool{}, map[string]bool{} // given: answered; done: answered, and the task has moved on since
			status := ""
			for j, m := range run.gets {
				for _, a := range run.answered {
					if a.at == j {
						for _, k := range a.keys {
							given[k] = true
						}
					}
				}
				if status = str1(member(m.Result, "status")); status != mcp.TaskInputRequired {
					maps.Copy(done, given)
				} else {
					for k := range inputRequests(m.Result) {
						if done[k] {
							t.FailExchange("tasks/update answering "+k+", then tasks/get "+run.id, clipped(m.Result), "the key %q, answered in an earlier round, is asked again", k)
						}
					}
				}
			}
			t.Note("last status %s", status)
		}),
		ext("tasks.ext-cancel", needs{call: true}, func(t *T) {
			theExtTask(t)
			i := taskTool(t)
			c := t.fresh(connOptions{era: "modern", capabilities: declaringTasks})
			params, _ := t.r.callParams(t, i, json.RawMessage(`"mcpv-check-progress-cancel-task"`))
			m, _ := t.request(c, "tools/call", params)
			id := str1(member(m.Result, "taskId"))
			t.skipIf(m.Error != nil || id == "", "the second call made no task")
			cm, _ := t.ask(c, "tools/call, then at once tasks/cancel "+id, "tasks/cancel", mcp.TaskParams(id))
			judgeAck(t, cm, "cancelling a task just made was refused")
		}),
	}
}

// modernTask makes the run's task of the extension and follows it to its
// end, answering its input with tasks/update.
func modernTask(t *T) *taskRun {
	i := taskTool(t)
	c := t.fresh(connOptions{era: "modern", capabilities: declaringTasks})
	params, _ := t.r.callParams(t, i, json.RawMessage(`"mcpv-check-progress-task"`))
	run := &taskRun{sent: "tools/call " + clip(string(params), 200) + ", from a client that declares the extension"}
	run.created, _ = t.request(c, "tools/call", params)
	rt, _ := str(member(run.created.Result, "resultType"))
	run.id, _ = str(member(run.created.Result, "taskId"))
	switch {
	case run.created.Error != nil:
		run.declined = "the call was refused: " + errText(run.created.Error)
		return run
	case rt != "task" && run.id == "":
		run.declined = "the server answered the call without a task, as it may"
		return run
	case run.id == "":
		run.nameless = "the answer names no task"
		return run
	}
	run.task = run.created.Result
	answered := map[string]json.RawMessage{}
	for round := 0; round < 20; round++ {
		if pollTask(t, c, run) != mcp.TaskInputRequired {
			return run
		}
		last := run.gets[len(run.gets)-1].Result
		ans := answers(last)
		maps.DeleteFunc(ans, func(k string, _ json.RawMessage) bool { _, done := answered[k]; return done }) // answered already: the server has yet to take it
		if len(ans) == 0 {
			settle(t, pollWait(last))
			continue
		}
		b, _ := json.Marshal(ans)
		p, _ := withMember(mcp.TaskParams(run.id), "inputResponses", b)
		run.answered = append(run.answered, answeredKeys{at: len(run.gets), keys: slices.Sorted(maps.Keys(ans))})
		m, _ := t.request(c, "tasks/update", p)
		run.updates = append(run.updates, m)
		maps.Copy(answered, ans)
	}
	return run
}

// theExtTask is the run's task of the extension (followTask).
func theExtTask(t *T) *taskRun { return followTask(t, "modern", modernTask, "tasks.ext-create") }

// detailedProblem says how a tasks/get answer breaks the extension, or "".
func detailedProblem(res json.RawMessage) string {
	if rt, _ := str(member(res, "resultType")); rt != "complete" {
		return fmt.Sprintf("its resultType is %q, not \"complete\"", rt)
	}
	switch status := str1(member(res, "status")); status {
	case mcp.TaskInputRequired:
		var asks map[string]json.RawMessage
		if json.Unmarshal(member(res, "inputRequests"), &asks) != nil || len(asks) == 0 {
			return "the task is input_required, with no inputRequests"
		}
	case mcp.TaskCompleted:
		if !isObject(member(res, "result")) {
			return "the task is completed, with no result"
		}
	case mcp.TaskFailed:
		e := member(res, "error")
		code, held := number(member(e, "code"))
		if _, ok := str(member(e, "message")); !ok || held != "" || code != math.Trunc(code) {
			return "the task failed, with no JSON-RPC error (an integer code and a message): it holds " + clip(string(e), 80)
		}
	}
	return ""
}

// taskMembers are the members of a task (the extension's Task): an
// acknowledgement that has any is no empty result. Other members are no
// sign: every result may carry members a revision does not name.
var taskMembers = []string{"taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs", "inputRequests", "result", "error"}

// emptyAck says how an acknowledgement breaks "an empty result" of resultType "complete", or "".
func emptyAck(res json.RawMessage) string {
	var m map[string]json.RawMessage
	if p := malformed(res, &m, "the result"); p != "" {
		return p
	}
	if rt, _ := str(m["resultType"]); rt != "complete" {
		return fmt.Sprintf("its resultType is %q, not \"complete\"", rt)
	}
	if extra := slices.DeleteFunc(slices.Sorted(maps.Keys(m)), func(k string) bool { return !slices.Contains(taskMembers, k) }); len(extra) > 0 {
		return "it is not empty: it has the task's " + strings.Join(extra, ", ")
	}
	return ""
}

// judgeAck fails t when m, a success, is no empty acknowledgement; a
// refusal (what) is unsure: the rule is a success's acknowledgement.
func judgeAck(t *T, m mcp.Message, what string) {
	if m.Error != nil {
		t.UnsureGot(errText(m.Error), "%s, which the extension does not forbid", what)
	}
	if p := emptyAck(m.Result); p != "" {
		t.FailGot(clipped(m.Result), "the acknowledgement %s", p)
	}
}
