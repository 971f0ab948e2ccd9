package check

// Tool calls, only of the tools the user names (--call), and cancellation
// and progress. Each named tool is called once to its end, with a
// progress token, on a connection of its own, and what came back is
// shared by the checks of its result and of its progress; the first is
// called once more and cancelled when it shows it is running. Without a
// tool, cancellation is tried on what every server answers.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/toolargs"
	"github.com/mcpv/mcpv/mcp"
)

// callChecks are the checks of tool calls, progress and cancellation.
func callChecks() []*Check {
	return []*Check{
		// These judge a tool's result, and a call without the task a
		// tool requires.
		callCheck("tools.result", func(t *T) {
			for _, rec := range t.judged(t.r.callable(t)) {
				if p := resultProblem(rec.result); p != "" {
					t.FailExchange(rec.sent, clipped(rec.result), "%s", p)
				}
			}
		}),
		// This check calls each tool named with --call that requires a
		// task without one: the server must refuse it with -32601. (No other
		// tool is called: a server that runs the tool anyway would run it for
		// real.)
		{ID: taskRequiredID, needs: needs{capability: "tools", era: "legacy"}, run: func(t *T) {
			tasksVersion(t)
			checked := 0
			for i, call := range t.r.opts.Calls {
				if !taskRequired(t.r.toolDef(t.ctx, call.Tool)) {
					continue
				}
				checked++
				params, _ := t.r.callParams(t, i, json.RawMessage(fmt.Sprintf(`"mcpv-check-progress-task-required-%d"`, i)))
				m, _ := t.ask(t.fresh(connOptions{}), "tools/call "+clip(string(params), 200)+", without a task", "tools/call", params)
				switch {
				case m.Error == nil:
					t.FailGot(clipped(m.Result), "the tool %q requires a task, but a call without one was served", call.Tool)
				case m.Error.Code == mcp.CodeInvalidRequest:
					// The revision says both: -32601 at the tool's level, and
					// that a receiver requiring tasks for the request type may
					// answer -32600.
					t.UnsureGot(errText(m.Error), "the call of %q without a task was refused with -32600, which the revision's error handling lets a receiver that requires tasks for tools/call send; its rule for a tool that requires a task is -32601", call.Tool)
				case m.Error.Code != mcp.CodeMethodNotFound:
					t.FailGot(errText(m.Error), "the call of %q without a task was refused with %d, not -32601", call.Tool, m.Error.Code)
				}
			}
			if checked > 0 {
				return
			}
			tools, _ := t.r.facts.items(t.ctx, "tools/list")
			required := toolNames(tools, taskRequired)
			t.skipIf(len(required) == 0, "no tool the server lists requires a task")
			t.Skip("no tool named with --call requires a task; the server lists %d that do (%s): name one with --call to check it (mcpv check calls no tool of its own accord)", len(required), clip(strings.Join(required, ", "), 120))
		}},
		callCheck("tools.structured-result", func(t *T) {
			for _, rec := range t.judgedWhere("no tool called has an outputSchema", func(rec *callRecord) bool { return member(rec.tool, "outputSchema") != nil }) {
				for _, f := range surface.CheckResult(t.ctx, rec.tool, rec.result) {
					if f.Severity == surface.SeverityError {
						t.FailExchange(rec.sent, clipped(rec.result), "%s", f.Message)
					}
					t.Note("%s", f.Message)
				}
			}
		}),
		callCheck("tools.embedded-resources", func(t *T) {
			embeds := func(rec *callRecord) bool {
				var content []map[string]json.RawMessage
				json.Unmarshal(member(rec.result, "content"), &content) // content of another shape is tools.result's
				return slices.ContainsFunc(content, func(c map[string]json.RawMessage) bool { return string(c["type"]) == `"resource"` })
			}
			for _, rec := range t.judgedWhere("no tool called returned an embedded resource", embeds) {
				if !t.r.facts.declares("resources") {
					t.FailExchange(rec.sent, clipped(rec.result), "the result of %q embeds a resource, and the server does not declare the resources capability", t.r.opts.Calls[rec.i].Tool)
				}
			}
		}),
		callCheck("tools.name-case", func(t *T) {
			tools, err := t.r.facts.items(t.ctx, "tools/list")
			listed := toolNames(tools, nil)
			for _, i := range t.r.callable(t) {
				tool := t.r.opts.Calls[i].Tool
				if t.calledTool(tool); err != nil { // blocked by a listing that broke before the tool
					t.Skip("the tools are not known whole (%s): a name in another case may be listed beyond", oneLine(err.Error()))
				}
				other := strings.Map(func(r rune) rune { // each letter's case swapped
					if unicode.IsUpper(r) {
						return unicode.ToLower(r)
					}
					return unicode.ToUpper(r)
				}, tool)
				if other == tool || slices.Contains(listed, other) {
					continue
				}
				params, _ := t.r.callParams(t, i, json.RawMessage(`"mcpv-check-progress-name-case"`))
				params, _ = withMember(params, "name", rawjson.Marshal(other))
				t.Sent("tools/call " + clip(string(params), 200))
				c := t.fresh(connOptions{})
				if m, _ := t.request(c, "tools/call", params); m.Error != nil {
					t.Got(errText(m.Error))
				} else if t.Got(clipped(m.Result)); string(member(m.Result, "isError")) != "true" {
					// A server that serves a tool of any name says nothing of case.
					if u, _ := t.request(c, "tools/call", json.RawMessage(`{"name":"`+noSuchTool+`","arguments":{}}`)); u.Error == nil && string(member(u.Result, "isError")) != "true" {
						t.Block("reading.unknown-tool", "a tool the server does not list was served too: what a name's case changes cannot be told")
					}
					t.Fail("the tool %q, called as %q, was served: its name was not taken as case-sensitive", tool, other)
				}
				return
			}
			t.Skip("no tool named with --call has a name whose letters' case can be swapped into a name not listed")
		}),
		callCheck("tools.structured-text", func(t *T) {
			for _, rec := range t.judgedWhere("no tool called returned structured content", func(rec *callRecord) bool { return member(rec.result, "structuredContent") != nil }) {
				if !textHolds(t, rec.result, member(rec.result, "structuredContent")) {
					t.FailExchange(rec.sent, clipped(rec.result), "no text block holds the structured content's JSON")
				}
			}
		}),
		// These judge progress and cancellation around a call.
		callCheck("utilities.progress", func(t *T) {
			for _, rec := range t.judgedWhere("no tool named with --call sent a progress notification", progressed) {
				progressOf(t, rec)
			}
		}),
		callCheck("utilities.cancel-call", func(t *T) { cancelCall(t, false) }),
		{ID: "modern.cancel-call", needs: needs{era: "modern", call: true, capability: "tools"}, run: func(t *T) {
			switch {
			case t.r.facts.era != "modern":
				t.Skip("the server's first era is the initialize era, whose cancellation asks only that no response follow (utilities.cancel-call)")
			case t.r.facts.transport == "http":
				cancelClosing(t)
				return
			}
			cancelCall(t, true)
		}},
		// This check calls again each named tool whose call showed progress,
		// closes the connection of its stream at its first progress
		// notification, and resumes the stream as the transport has a client do:
		// the call's response comes there all the same, since 2025-11-25 has a
		// disconnection be no cancellation.
		{ID: "http.disconnect", needs: needs{era: "legacy", transport: "http", call: true, capability: "tools"}, run: func(t *T) {
			var skips []string
			shown := t.judgedWhere("no tool named with --call sent a progress notification, which shows the call running when its connection closes", progressed)
			for _, rec := range shown {
				c := t.fresh(connOptions{era: "legacy"})
				tool, id := t.r.opts.Calls[rec.i].Tool, json.RawMessage(fmt.Sprintf(`"mcpv-check-drop-%d"`, rec.i))
				params, _ := t.r.callParams(t, rec.i, json.RawMessage(fmt.Sprintf(`"mcpv-check-progress-drop-%d"`, rec.i)))
				msg, _ := mcp.EncodeRequest(id, "tools/call", c.stamp(params))
				t.Sent("tools/call " + clip(string(params), 200) + ", its connection closed at its first progress notification and its stream resumed with GET and Last-Event-ID")
				// A server that resumes no stream may answer the GET with a stream
				// of its own that never ends: the resumed call is given twice its
				// own time, and 2 s.
				wait := 2*rec.took + 2*time.Second
				ctx, cancel := context.WithTimeout(t.ctx, wait)
				x, err := c.post(ctx, httpReq{body: msg, drop: func(s seen) bool { return s.msg.Method == "notifications/progress" }}, id)
				late := ctx.Err() != nil
				cancel()
				switch {
				case x == nil || t.ctx.Err() != nil:
					t.failErr("the call of "+tool, err) // inconclusive: a slow call is no violation
				case late && x.response == nil:
					skips = append(skips, fmt.Sprintf("%s: its resumed stream brought no response in %s, twice the call's own time and 2 s: the server may have answered the GET with another stream", tool, wait.Round(time.Millisecond)))
				case x.resumed == 0 && x.response != nil:
					skips = append(skips, tool+": its response came before its connection closed")
				case x.resumed == 0:
					skips = append(skips, fmt.Sprintf("%s: its stream was not resumed (%v), so whether the call ran on does not show", tool, cmp.Or[error](x.readErr, errors.New("it ended"))))
				case slices.ContainsFunc(x.msgs, func(s seen) bool { return s.msg.IsResponse() && x.response == nil }):
					skips = append(skips, tool+": its resumed stream carried another request's response (http.resume)")
				case x.response == nil && x.unretried == 0:
					// Each resumed connection closed asking for a retry: a server
					// that keeps no stream to resume (replaying is a MAY) looks so.
					skips = append(skips, fmt.Sprintf("%s: each resumed connection closed with a retry field and the response never came (%v), so whether the call ran on does not show", tool, x.readErr))
				case x.response == nil:
					t.FailGot(fmt.Sprintf("%s: %v", x, x.readErr), "the call of %s, whose connection the client closed while it ran, never answered on its resumed stream, which the server ended with no retry field: the server took the disconnection for a cancellation", tool)
				case x.response.Error != nil:
					t.FailGot(x.String(), "the call of %s, whose connection the client closed while it ran, answered with an error on its resumed stream, where it answers a result", tool)
				}
			}
			skipOrNote(t, skips, len(shown))
		}},
		{ID: "utilities.cancel-race", run: func(t *T) {
			c := t.conn()
			t.skipIf(c.http != nil && c.era == "modern", "in the 2026-07-28 era over HTTP a request is cancelled by closing its stream")
			method := t.r.probeMethod(c.era)
			if t.r.facts.declares("tools") {
				method = "tools/list"
			}
			id := json.RawMessage(`"mcpv-check-cancelled"`)
			msg, _ := mcp.EncodeRequest(id, method, c.stamp(nil))
			t.Sent(fmt.Sprintf("%s, and at once notifications/cancelled for it; then another request", method))
			ch := c.expect(id, method)
			defer c.unexpect(id)
			_, err := c.send(t.ctx, msg)
			t.must(method, err)
			t.must("notifications/cancelled", c.notify(t.ctx, "notifications/cancelled", json.RawMessage(fmt.Sprintf(`{"requestId":%s,"reason":"mcpv check"}`, id))))
			barrier(t, c)
			select {
			case <-ch:
				t.Note("the request was answered (it had ended before the cancellation came)")
			default:
				t.Note("the request was not answered")
			}
		}},
		inGroup("rpc", "utilities.cancel-unknown", needs{}, func(t *T) {
			c := t.conn()
			t.skipIf(c.http != nil && c.era == "modern", "the 2026-07-28 era has no notifications/cancelled over HTTP")
			got := sendSeen(t, c, `notifications/cancelled for requestId "mcpv-check-never-sent", then one without requestId; then a request`, "notifications/cancelled", func() error {
				for _, p := range []string{`{"requestId":"mcpv-check-never-sent"}`, `{"reason":7}`} {
					if err := c.notify(t.ctx, "notifications/cancelled", json.RawMessage(p)); err != nil {
						return err
					}
				}
				return nil
			})
			if _, ok := firstSeen(t, got, func(s seen) bool { return s.bad == "" && s.msg.IsResponse() && s.method == "" && !s.dup }); ok {
				t.Fail("the server answered an invalid cancellation")
			}
		}),
		{ID: "utilities.unknown-progress", run: func(t *T) {
			// A call that gives no token is sent no progress: each named
			// tool whose call showed progress is called once without one.
			// Nor is one that has answered (the watch: s.spent).
			for i := range t.r.opts.Calls {
				if rec := t.r.callOnce(t, i); rec.unjudged == nil && len(rec.progress) > 0 {
					params, _ := t.r.callParams(t, i, nil)
					t.ask(t.fresh(connOptions{}), "tools/call "+clip(string(params), 200)+", with no progress token", "tools/call", params)
				}
			}
		}, watch: func(w *watchCtx, s seen) string {
			if !s.msg.IsNotification() || s.msg.Method != "notifications/progress" {
				return ""
			}
			tok := member(s.msg.Params, "progressToken")
			if s.spent != "" { // a token given, of a request no longer active
				return fmt.Sprintf("a progress notification for the token %s of %s, which had completed: its response came before it", clip(string(tok), 60), s.spent)
			}
			k := idKey(tok)
			n, mcpv := strings.CutPrefix(k, "s:mcpv-")                                           // the tokens the main session's client gives its requests ("mcpv-N")
			if w.tokens[k] || s.via == "session" && mcpv && digits(n) || !stringOrInteger(tok) { // a token of no kind: utilities.progress-token's
				return ""
			}
			return "a progress notification for a token no request carried"
		}},
		exercised("utilities.progress-token", needs{}, spotSaid(func(_ *watchCtx, s seen) bool {
			return s.msg.Method == "notifications/progress" && !stringOrInteger(member(s.msg.Params, "progressToken"))
		}, func(s seen) string {
			return fmt.Sprintf("a progress notification whose token %s is neither a string nor an integer", clip(string(member(s.msg.Params, "progressToken")), 60))
		})),
		exercised("utilities.cancel-own", needs{}, spot("a notifications/cancelled naming no request the server sent (in 2026-07-28, no subscriptions/listen of the client's)", func(_ *watchCtx, s seen) bool { return s.strayCancel })),
		// A server's sampling or elicitation made a task of a client that runs
		// them so: its calls cancelled once it has, it gives that up too.
		{ID: "utilities.cancel-task", needs: needs{era: "legacy"}, run: func(t *T) {
			exerciseAsks(t)
			t.skipIf(!t.r.sampled.Load() && !t.r.formed.Load(), "the server asked for no sampling and no form elicitation, which a client may run as tasks")
			askOn(t, answeringTasks, "tasks")
		}, watch: spot("a notifications/cancelled naming a request of the server's that the client runs as a task, which tasks/cancel alone cancels", func(_ *watchCtx, s seen) bool { return s.taskCancel })},
		exercised("utilities.log-secrets", needs{}, func(w *watchCtx, s seen) string {
			if s.msg.Method != "notifications/message" {
				return ""
			}
			for _, secret := range w.secrets {
				if len(secret) >= 8 && strings.Contains(string(s.msg.Params), secret) {
					return "a log message holds a secret the client gave (a header, a token, a secret-named variable), masked here"
				}
			}
			return ""
		}),
	}
}

// callCheck is a check of the calls of the tools named with --call.
func callCheck(id string, run func(*T)) *Check {
	return needs{call: true, capability: "tools"}.check(id, run)
}

// callRecord is one call of a tool the user named, to its end.
type callRecord struct {
	i        int             // the tool's place among those named
	unjudged *Outcome        // why its result cannot be judged (judged), or nil
	tool     json.RawMessage // its definition, as listed
	sent     string          // the request, for a failure's line
	token    json.RawMessage // the progress token it carried
	result   json.RawMessage
	progress []seen        // its progress notifications, before the response
	late     []seen        // those after it
	news     []seen        // over HTTP, a list's or a resource's news on its stream (modern.stream-related)
	needed   mcp.Message   // the answer of a call refused -32021 (modern.capability-status)
	neededX  *exchange     // and its exchange over HTTP
	refused  *mcp.RPCError // the call's error, when it was refused
	took     time.Duration // from its request to its response
}

// callOnce calls the i-th tool the user named, once per run, and fails
// t when the call cannot be made.
func (r *runner) callOnce(t *T, i int) *callRecord {
	return r.calls.get(t, i, func() *callRecord { return r.call(t, i) })
}

// judged are the calls of the named tools given (indexes of Calls) that
// a check can judge, each called once a run. A tool whose call cannot be
// judged (refused; -32021, a client capability the check's connections do
// not declare; no answer in its time; a task, to a client that asked for
// none) is said for that tool, in a note, and its trouble stays its own:
// the other tools are judged; a check they pass is inconclusive for one
// without an answer in its time. With no tool left, the check ends as
// the first of them did, saying each.
func (t *T) judged(tools []int) []*callRecord {
	var out []*callRecord
	var first *Outcome
	var why []string
	for _, i := range tools {
		rec := t.r.callOnce(t, i)
		u := rec.unjudged
		if rt, _ := str(member(rec.result, "resultType")); rt == "task" {
			u = &Outcome{Status: Blocked, BlockedBy: "tasks.ext-undeclared", Sent: rec.sent, Message: fmt.Sprintf("the call of %s was answered with a task, to a client that does not declare the tasks extension", t.r.opts.Calls[i].Tool)}
		}
		switch {
		case u == nil:
			out = append(out, rec)
			continue
		case first == nil:
			first = u
		}
		if u.Status == Inconclusive && t.later == nil {
			t.later = u // a check that passes cannot tell of this tool
		}
		why = append(why, u.Message)
	}
	if first != nil && len(out) == 0 {
		t.Sent(first.Sent)
		t.Got(first.Received)
		t.out.BlockedBy = first.BlockedBy
		t.end(first.Status, "%s", strings.Join(why, "; "))
	}
	for _, w := range why {
		t.Note("not judged: %s", w)
	}
	return out
}

// judgedWhere are the calls judged (judged, of the tools a check may
// call) for which applies holds; t is skipped, saying none, without one.
func (t *T) judgedWhere(none string, applies func(rec *callRecord) bool) []*callRecord {
	out := slices.DeleteFunc(t.judged(t.r.callable(t)), func(rec *callRecord) bool { return !applies(rec) }) // judged's own slice
	t.skipIf(len(out) == 0, "%s", none)
	return out
}

// toolDef finds the named tool among those listed.
func (r *runner) toolDef(ctx context.Context, name string) json.RawMessage {
	tools, _ := r.facts.items(ctx, "tools/list")
	for _, tl := range tools {
		if n, _ := str(member(tl, "name")); n == name {
			return tl
		}
	}
	return nil
}

// calledTool is the listed definition of a tool named with --call; nil
// when the server lists no such tool. A tool not among those listed
// before the listing broke may be beyond it: the check is blocked by
// lists.shape, which reports the listing, rather than fail or skip for
// a tool it cannot see.
func (t *T) calledTool(name string) json.RawMessage {
	def := t.r.toolDef(t.ctx, name)
	if def == nil {
		if _, err := t.r.facts.items(t.ctx, "tools/list"); err != nil {
			t.Block("lists.shape", "the tool %q (--call) is not among the tools listed before the listing broke: %s", name, oneLine(err.Error()))
		}
	}
	return def
}

// callParams are the params of a call of the i-th named tool, with a
// progress token, which the watches learn as one the run gave.
func (r *runner) callParams(t *T, i int, token json.RawMessage) (json.RawMessage, json.RawMessage) {
	call := r.opts.Calls[i]
	def := t.calledTool(call.Tool)
	t.failIf(def == nil, "the server lists no tool %q (--call)", call.Tool)
	args, err := toolargs.Build(t.ctx, call.Words, nil, toolargs.Options{Schema: member(def, "inputSchema"), ReadFile: r.opts.ReadFile})
	t.failIf(err != nil, "--call %s: %v", call.Tool, err)
	p := map[string]any{"name": call.Tool, "arguments": args}
	if token != nil {
		p["_meta"] = map[string]any{"progressToken": token}
		r.watches.token(token)
	}
	return rawjson.Marshal(p), def
}

// callable are the indexes of the tools named with --call that a check
// may call: those that do not require a task, which mcpv check does not
// create (tools.task-required calls those without one, to see them
// refused). The check is skipped when there is none.
func (r *runner) callable(t *T) []int {
	out := r.untasked(t)
	if len(out) == 0 && len(r.opts.Calls) > 0 {
		t.Skip("the tool %q requires a task (execution.taskSupport \"required\"): the tasks checks call it as a task, and %s without one, to see it refused", r.opts.Calls[0].Tool, taskRequiredID)
	}
	return out
}

// untasked are the indexes of the named tools that do not require a task
// (callable's, without its skip).
func (r *runner) untasked(t *T) []int {
	var out []int
	for i, call := range r.opts.Calls {
		if !taskRequired(r.toolDef(t.ctx, call.Tool)) {
			out = append(out, i)
		}
	}
	return out
}

// taskRequiredID is the check that calls a tool that requires a task
// without one.
const taskRequiredID = "tools.task-required"

// taskRequired says whether a tool's definition requires a task
// (2025-11-25: execution.taskSupport "required").
func taskRequired(def json.RawMessage) bool { return taskSupport(def) == "required" }

// taskSupport is a tool definition's execution.taskSupport (2025-11-25):
// "required", "optional", "forbidden", or "" when it says nothing.
func taskSupport(def json.RawMessage) string {
	return str1(member(member(def, "execution"), "taskSupport"))
}

// call calls the i-th named tool on a connection of its own and waits
// for its end; t ends when it cannot be called (inconclusive when it
// outran the check's time: a slow tool is no violation).
func (r *runner) call(t *T, i int) *callRecord {
	token := json.RawMessage(fmt.Sprintf(`"mcpv-check-progress-%d"`, i))
	params, def := r.callParams(t, i, token)
	// Kept to the run's end (closeAll), not its check's: progress after
	// the call's response is watched however late in the run it comes.
	c, err := t.dial(connOptions{})
	t.must("opening a connection of the check's own", err)
	rec := &callRecord{i: i, tool: def, token: token, sent: "tools/call " + clip(string(params), 200)}
	tool := r.opts.Calls[i].Tool
	id := c.newID()
	mark, start := c.mark(), time.Now()
	m, x, err := c.requestID(t.ctx, id, "tools/call", c.stamp(params))
	rec.took = time.Since(start)
	var oot *outOfTime
	switch {
	case err != nil && t.ctx.Err() == nil && errors.As(err, &oot):
		// The call's own time ran out, not the check's (answered).
		rec.unjudged = &Outcome{Status: Inconclusive, Message: fmt.Sprintf("the call of %s: no answer: %s; a slow tool is no violation (give it more time with %s)", tool, oot, oot.Flag())}
	case err != nil:
		t.Sent(rec.sent)
		t.failErr("the call of "+tool, err)
	case m.Error != nil && m.Error.Code == mcp.CodeMissingRequiredClientCapabilities:
		// A call the server serves only to a client with a capability
		// (the tasks extension), which the check's connection does not
		// declare: refused as the era has it.
		rec.unjudged = &Outcome{Status: Skipped, Received: errText(m.Error), Message: fmt.Sprintf("the call of %s needs a client capability the check's connections do not declare (-32021); the tasks checks call it as a client that declares the tasks extension", tool)}
		rec.needed, rec.neededX = m, x
	case m.Error != nil:
		// Its code is judged where every error's is (jsonrpc, modern).
		rec.refused = m.Error
		rec.unjudged = &Outcome{Status: Skipped, Received: errText(m.Error), Message: fmt.Sprintf("the call of %s was refused: %s", tool, errText(m.Error))}
	}
	if rec.unjudged != nil {
		rec.unjudged.Sent = rec.sent
		return rec
	}
	rec.result = m.Result
	if c.stdio != nil {
		barrier(t, c)
	}
	after := false
	for _, s := range c.since(mark) {
		if s.msg.IsResponse() && s.msg.ID != nil && idKey(s.msg.ID) == idKey(id) {
			after = true
			continue
		}
		if news(s) && c.http != nil && !after {
			rec.news = append(rec.news, s)
		}
		if s.msg.IsNotification() && s.msg.Method == "notifications/progress" && idKey(member(s.msg.Params, "progressToken")) == idKey(token) {
			if after {
				rec.late = append(rec.late, s)
			} else {
				rec.progress = append(rec.progress, s)
			}
		}
	}
	return rec
}

// cancelCall calls again each named tool whose call showed progress
// (the only sign a check has that a call is still running) and cancels
// it at its first progress notification: no response should follow;
// with silent (the 2026-07-28 era over stdio), no message for it at all
// once the server has read the cancellation.
func cancelCall(t *T, silent bool) {
	if c := t.r.facts; c.transport == "http" {
		t.skipIf(c.era == "modern", "in the 2026-07-28 era over HTTP a request is cancelled by closing its stream")
		t.Skip("over HTTP the call's answer is its POST's; cancelling it on the wire is checked over stdio")
	}
	shown := t.judgedWhere("no tool named with --call sent a progress notification, which shows the call running while it is cancelled", progressed)
	var skips []string
	for _, rec := range shown {
		k := t.r.cancels.get(t, rec.i, func() *cancelled { return cancelOne(t, rec.i) })
		t.Sent(k.sent)
		switch {
		case k.why != "" && (!silent || k.answer == nil):
		case silent && k.answer != nil && (k.answer.Error != nil || k.shown < k.whole):
			t.FailGot(describe(*k.answer), "the cancelled call was answered, by a server that had read the cancellation: it answered with an error, or stopped after %d of the %d progress notifications its whole call sends", k.shown, k.whole)
		case silent && (k.lateAnswer || k.late > 1):
			// Its response alone, or with one progress notification, may
			// have been on its way, held back through two round trips on
			// a loaded machine: a warning. A second progress notification
			// was sent after the server had read the cancellation.
			what, end := "its response", t.Unsure
			if k.late > 1 {
				what, end = fmt.Sprintf("%d progress notifications", k.late)+map[bool]string{true: " and its response"}[k.lateAnswer], t.Fail
			}
			end("the cancelled call sent %s after the server had answered two requests sent after the cancellation, one after the other", what)
		case silent:
		case k.answer == nil:
		case k.answer.Error != nil:
			t.FailGot(describe(*k.answer), "the cancelled call was answered with an error")
		case k.shown < k.whole:
			t.FailGot(describe(*k.answer), "the cancelled call stopped after %d of the %d progress notifications its whole call sends, and was answered all the same", k.shown, k.whole)
		default:
			t.FailGot(describe(*k.answer), "the cancelled call was answered")
		}
		if k.why != "" {
			skips = append(skips, fmt.Sprintf("%s: %s", t.r.opts.Calls[rec.i].Tool, k.why))
		}
	}
	skipOrNote(t, skips, len(shown))
}

// skipOrNote ends t skipped when each of its n calls could not be judged
// (skips, why), or notes those that could not.
func skipOrNote(t *T, skips []string, n int) {
	switch {
	case len(skips) == n:
		t.Skip("%s", strings.Join(skips, "; "))
	case len(skips) > 0:
		t.Note("%s", strings.Join(skips, "; "))
	}
}

// cancelClosing cancels a call of each named tool whose call showed
// progress as 2026-07-28 over HTTP does, by closing its stream at its
// first progress notification, while a subscription's stream is open:
// the one stream left for the server to send more of the call on, which
// it MUST NOT (nor is a request's progress ever a subscription's news).
// What the call had sent by then may have been on its way.
func cancelClosing(t *T) {
	shown := t.judgedWhere("no tool named with --call sent a progress notification, which shows the call running while it is cancelled", progressed)
	c := t.fresh(connOptions{era: "modern"})
	params, _ := json.Marshal(map[string]any{"notifications": listenFilter(t)})
	body, _ := mcp.EncodeRequest(json.RawMessage(`"mcpv-check-listen-cancel"`), "subscriptions/listen", c.stamp(params))
	ctx, stop := context.WithCancel(t.ctx)
	defer stop()
	var mu sync.Mutex // guards heard
	var heard []seen
	// acked takes the first message, and the stream's end.
	acked := make(chan bool, 2)
	go func() { // cancelled call's subscription: ends when stop cancels ctx, or the stream does
		c.post(ctx, httpReq{body: body, events: func(s seen) bool {
			mu.Lock()
			defer mu.Unlock()
			if heard = append(heard, s); len(heard) == 1 {
				acked <- s.msg.Method == "notifications/subscriptions/acknowledged"
			}
			return len(heard) < maxLog // a flood is read no further
		}}, nil)
		acked <- false // the stream ended, or was never one: nothing more comes
	}()
	select {
	case ok := <-acked:
		t.skipIf(!ok, "the subscription was not acknowledged (modern.listen says how)")
	case <-t.ctx.Done():
		t.failErr("waiting for the subscription's first message", context.Cause(t.ctx))
	}
	var why []string
	at, closed := map[string]float64{}, map[string]bool{} // by progress token, the progress at which its call's stream was closed; the ids of those calls
	progress := func(s seen) (float64, string, bool) {
		p, err := strconv.ParseFloat(string(member(s.msg.Params, "progress")), 64)
		return p, idKey(member(s.msg.Params, "progressToken")), s.msg.Method == "notifications/progress" && err == nil
	}
	for _, rec := range shown {
		token, id := json.RawMessage(fmt.Sprintf(`"mcpv-check-progress-close-%d"`, rec.i)), json.RawMessage(fmt.Sprintf(`"mcpv-check-close-%d"`, rec.i))
		params, _ := t.r.callParams(t, rec.i, token)
		msg, _ := mcp.EncodeRequest(id, "tools/call", c.stamp(params))
		t.Sent("tools/call " + clip(string(params), 200) + ", its stream closed at its first progress notification, while a subscriptions/listen stream was open")
		x := t.post(c, httpReq{body: msg, events: func(s seen) bool {
			if p, tok, ok := progress(s); ok && tok == idKey(token) {
				at[tok], closed[idKey(id)] = p, true
				return false
			}
			return true
		}}, id, "the call of "+t.r.opts.Calls[rec.i].Tool)
		if x.response != nil {
			why = append(why, t.r.opts.Calls[rec.i].Tool+": the call ended before a progress notification showed it running")
			continue
		}
		barrier(t, c)
		settle(t, 2*rec.took) // the call, had it run on, would have ended
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	for _, s := range heard {
		p, tok, ok := progress(s)
		if was, of := at[tok]; ok && of && p > was || s.msg.IsResponse() && closed[idKey(s.msg.ID)] {
			t.FailGot(s.raw, "the subscription's stream carried a message of a call after the client had closed the call's stream, which cancels it")
		}
	}
	skipOrNote(t, why, len(shown))
}

// cancelled is what a call cancelled at its first progress notification
// did (cancelOne).
type cancelled struct {
	sent, why          string       // why: the check cannot tell whether the response obeyed the cancellation ("" when it can)
	answer             *mcp.Message // the call's response, when one came
	shown, whole, late int          // its progress notifications before the response; those of its whole call; those after it had answered two requests sent after the cancellation
	lateAnswer         bool         // the response came after those answers
}

// cancelOne calls the i-th named tool and cancels it at its first
// progress notification, and says what followed. A result may have
// crossed the cancellation (the server sent it before it read the
// cancellation): not when the call sent fewer progress notifications
// than its call to its end did (the cancellation stopped it, and it
// answered all the same), nor when it came after the answer to a
// request sent after the cancellation.
func cancelOne(t *T, i int) *cancelled {
	r := t.r
	k := &cancelled{whole: len(r.callOnce(t, i).progress)}
	c := t.fresh(connOptions{})
	token := json.RawMessage(fmt.Sprintf(`"mcpv-check-progress-cancel-%d"`, i))
	params, _ := r.callParams(t, i, token)
	id := json.RawMessage(fmt.Sprintf(`"mcpv-check-cancel-%d"`, i))
	msg, _ := mcp.EncodeRequest(id, "tools/call", c.stamp(params))
	k.sent = "tools/call " + clip(string(params), 200) + ", cancelled at its first progress notification"
	ch := c.expect(id, "tools/call")
	defer c.unexpect(id)
	mark := c.mark()
	t.must("tools/call", c.write(t.ctx, msg))
	progress := func(s seen) bool {
		return s.msg.Method == "notifications/progress" && idKey(member(s.msg.Params, "progressToken")) == idKey(token)
	}
	for progressed := false; !progressed; progressed = slices.ContainsFunc(c.since(mark), progress) {
		select {
		case <-ch:
			k.why = "the call ended before a progress notification showed it running"
			return k
		case <-t.ctx.Done():
			k.why = "the call sent no progress notification before the check's time ran out"
			return k
		case <-time.After(20 * time.Millisecond):
		}
	}
	// answered reports the call's response among the messages up to n.
	answered := func(n int) bool {
		return slices.ContainsFunc(c.since(mark), func(s seen) bool { return s.n <= n && s.msg.IsResponse() && idKey(s.msg.ID) == idKey(id) })
	}
	hook := func(h func(answered func() bool)) { // a test's
		if h != nil {
			h(func() bool { return answered(math.MaxInt) })
		}
	}
	hook(r.opts.beforeCancel)
	sent := c.mark() // what the server sent before the cancellation went
	t.must("notifications/cancelled", c.notify(t.ctx, "notifications/cancelled", json.RawMessage(fmt.Sprintf(`{"requestId":%s,"reason":"mcpv check"}`, id))))
	hook(r.opts.afterCancel)
	barrier(t, c)
	read := c.mark() // the server had read the cancellation when it answered the barrier
	barrier(t, c)
	settled := c.mark() // and had answered a request sent after that answer: what comes later crossed nothing
	if answered(sent) {
		// It came with the progress, or in the moment between: the call
		// was over before it was cancelled (a loaded machine holds the
		// check back while a quick call runs to its end).
		k.why = "the call ended before its cancellation was sent"
		return k
	}
	select {
	case a := <-ch:
		k.answer = &a.m
		k.lateAnswer = !answered(settled)
		for _, s := range c.since(mark) {
			if s.msg.IsResponse() && idKey(s.msg.ID) == idKey(id) {
				break
			}
			if progress(s) {
				k.shown++
			}
		}
		if answered(read) && k.shown >= k.whole && a.m.Error == nil {
			// Its result came, the call run to its end, before the answer
			// to a request sent after the cancellation: it may have been
			// on its way when the cancellation was (a quick call, a
			// loaded machine).
			k.why = "the call's result may have crossed its cancellation: it ran to its end, and came before the server answered the request sent after it"
		}
	case <-time.After(cmp.Or(r.opts.cancelledWait, 2*time.Second)):
	case <-t.ctx.Done():
	}
	for _, s := range c.since(settled) {
		if progress(s) {
			k.late++
		}
	}
	return k
}

// resultProblem says how a tools/call result breaks CallToolResult.
func resultProblem(res json.RawMessage) string {
	var r struct {
		Content *[]json.RawMessage `json:"content"`
		IsError json.RawMessage    `json:"isError"`
	}
	if json.Unmarshal(res, &r) != nil {
		return "the result is not a JSON object"
	}
	if r.Content == nil {
		return "the result has no content array"
	}
	for i, c := range *r.Content {
		if p := contentBlockProblem(c); p != "" {
			return fmt.Sprintf("content[%d] %s", i, p)
		}
	}
	if r.IsError != nil && string(r.IsError) != "true" && string(r.IsError) != "false" {
		return "isError is not a boolean"
	}
	return ""
}

// textHolds reports whether a text block of the result holds JSON equal
// to v.
func textHolds(t *T, res, v json.RawMessage) bool {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	t.decode(res, &r, "the tools/call result")
	var want any
	t.decode(v, &want, "the structured content")
	for _, c := range r.Content {
		var got any
		if c.Type == "text" && json.Unmarshal([]byte(c.Text), &got) == nil && fmt.Sprint(got) == fmt.Sprint(want) {
			return true
		}
	}
	return false
}

// progressed reports whether a call sent progress notifications: progress
// is judged on every tool that shows it, not only the first named.
func progressed(rec *callRecord) bool { return len(rec.progress) > 0 }

// progressOf judges the progress notifications of one call: each for the
// call's token, with a progress that increases, none after its response.
func progressOf(t *T, rec *callRecord) {
	t.Sent(rec.sent)
	last := -1.0
	for _, p := range rec.progress {
		tok := member(p.msg.Params, "progressToken")
		progress, held := number(member(p.msg.Params, "progress"))
		t.Got(p.raw)
		switch {
		case idKey(tok) != idKey(rec.token):
			t.Fail("a progress notification for token %s, not the call's %s", clip(string(tok), 60), rec.token)
		case held != "":
			t.Fail("a progress notification whose progress held %s, not a number", held)
		case progress <= last:
			t.Fail("progress went from %v to %v: it must increase", last, progress)
		}
		last = progress
	}
	if len(rec.late) > 0 {
		t.FailGot(rec.late[0].raw, "progress came for the call after its response")
	}
}
