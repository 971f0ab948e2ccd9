package check

// A connection that declares client capabilities answers the server's
// requests as a client that has them does: an elicitation declined, a
// fixed sampled message (however many tokens it allows), no roots, ping;
// anything else is not found. Never a person: nothing is asked of one. A
// connection that declares tasks for a request runs one the server makes
// as a task (2025-11-25 basic/utilities/tasks) as such a client does.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// clientAnswer is the result a client that can answer gives a server's
// request of method, or nil when it has none (-32601).
func clientAnswer(method string) json.RawMessage {
	return map[string]json.RawMessage{
		"elicitation/create":     json.RawMessage(`{"action":"decline"}`),
		"sampling/createMessage": json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"mcpv check"},"model":"mcpv-check","stopReason":"endTurn"}`),
		"roots/list":             json.RawMessage(`{"roots":[]}`),
		"ping":                   json.RawMessage(`{}`),
	}[method]
}

// maxAnswers bounds the server's requests a connection holds to answer.
const maxAnswers = 64

// answerer answers the server's requests in turn, off the reader: a
// server that asks and does not read its input holds the answer, never
// what the connection reads. Each answer is written within a check's
// time; the answerer stops when the connection closes or the run ends.
func (c *conn) answerer() {
	for {
		select {
		case s := <-c.answers:
			ctx, cancel := context.WithTimeout(c.ctx, c.r.opts.CheckTimeout)
			c.answer(ctx, s)
			cancel()
		case <-c.ctx.Done():
			return
		}
	}
}

// answer answers the server's request s, best-effort: the check that
// waits on what follows says when it does not come. The answer goes back
// as the server's transport has it: a line on stdin, or a POST of its
// own.
func (c *conn) answer(ctx context.Context, s seen) {
	res := clientAnswer(s.msg.Method)
	if s.msg.Method == "elicitation/create" && c.elicit != nil {
		res = c.elicit(s.msg.Params)
	}
	rerr := &mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: "mcpv check does not answer " + s.msg.Method}
	switch {
	case res != nil && c.runsAsTask(s.msg):
		withLock(&c.mu, func() { res = c.tasks.make(s.msg, res) })
	case slices.Contains([]string{"tasks/get", "tasks/result", "tasks/cancel"}, s.msg.Method) && member(c.capabilities(), "tasks") != nil:
		withLock(&c.mu, func() { res, rerr = c.tasks.asked(s.msg) })
	}
	reply := map[string]any{"jsonrpc": "2.0", "id": s.msg.ID, "result": res}
	if res == nil {
		reply = map[string]any{"jsonrpc": "2.0", "id": s.msg.ID, "error": rerr}
	}
	msg, _ := json.Marshal(reply)
	withLock(&c.mu, func() { delete(c.tokens, idKey(s.msg.ID)) }) // from now the server may have its answer: its progressToken may be free again
	if c.http != nil {
		c.post(ctx, httpReq{body: msg}, nil)
		return
	}
	c.write(ctx, msg)
}

// hand gives the answerer the server's request s, maxAnswered a
// connection at most and maxAnswers waiting: past either bound it is left
// unanswered, and counted for the report (exerciseAsks).
func (c *conn) hand(s seen) {
	if c.handed.Add(1) <= maxAnswered {
		select {
		case c.answers <- s:
			return
		default: // the server asks faster than it takes answers
		}
	}
	c.r.unanswered.Add(1)
	withLock(&c.mu, func() { delete(c.tokens, idKey(s.msg.ID)) }) // left unanswered, it may be given up on without a word: no longer counted active
}

// elicitation notes the elicitationId of a URL elicitation of the
// server's, and says how a completion names none noted; mu is held.
func (c *conn) elicitation(m mcp.Message) string {
	switch {
	case m.IsRequest() && m.Method == "elicitation/create" && elicitMode(m.Params) == "url":
		if id, ok := str(member(m.Params, "elicitationId")); ok {
			c.elicited.add(id)
		}
	case m.IsNotification() && m.Method == "notifications/elicitation/complete":
		id, ok := str(member(m.Params, "elicitationId"))
		switch {
		case !ok:
			return "notifications/elicitation/complete without elicitationId (a string)"
		case !c.elicited.has(id):
			return fmt.Sprintf("notifications/elicitation/complete names elicitationId %q, which no URL elicitation of the connection established", clip(id, 60))
		}
	}
	return ""
}

// runsAsTask: m is a request the server makes as a task (params.task)
// that the connection declared tasks for (tasks.requests.sampling.
// createMessage for sampling/createMessage); one it did not declare them
// for is processed as any request is.
func (c *conn) runsAsTask(m mcp.Message) bool {
	kind, name, _ := strings.Cut(m.Method, "/")
	return m.IsRequest() && member(m.Params, "task") != nil && member(member(member(member(c.capabilities(), "tasks"), "requests"), kind), name) != nil
}

// clientTasks are the tasks a connection runs for the server, by id: each
// is working when made, completed once polled or its result asked for,
// and cancelled by tasks/cancel while it works.
type clientTasks map[string]*clientTask

type clientTask struct {
	status, created string
	ttl, result     json.RawMessage
}

// make runs the server's request m, whose answer is result, as a task:
// its CreateTaskResult.
func (ts *clientTasks) make(m mcp.Message, result json.RawMessage) json.RawMessage {
	if *ts == nil {
		*ts = clientTasks{}
	}
	id := fmt.Sprintf("mcpv-check-task-%d", len(*ts)+1)
	ttl := member(member(m.Params, "task"), "ttl")
	if _, err := json.Number(ttl).Int64(); err != nil {
		ttl = json.RawMessage("null")
	}
	(*ts)[id] = &clientTask{status: "working", created: time.Now().UTC().Format(time.RFC3339Nano), ttl: ttl, result: result}
	return json.RawMessage(`{"task":` + ts.state(id) + `}`)
}

// state is task id's Task.
func (ts clientTasks) state(id string) string {
	t := ts[id]
	b, _ := json.Marshal(map[string]any{"taskId": id, "status": t.status, "createdAt": t.created, "lastUpdatedAt": time.Now().UTC().Format(time.RFC3339Nano), "ttl": t.ttl, "pollInterval": 100})
	return string(b)
}

// asked answers the server's tasks/get, tasks/result or tasks/cancel of
// a task run for it.
func (ts clientTasks) asked(m mcp.Message) (json.RawMessage, *mcp.RPCError) {
	id, _ := str(member(m.Params, "taskId"))
	t := ts[id]
	switch {
	case t == nil:
		return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("no task %q", clip(id, 60))}
	case m.Method == "tasks/cancel" && t.status == "working":
		t.status = "cancelled"
	case m.Method == "tasks/cancel", m.Method == "tasks/result" && t.status == "cancelled":
		return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "task " + id + " is " + t.status}
	case t.status == "working":
		t.status = "completed"
	}
	if m.Method != "tasks/result" {
		return json.RawMessage(ts.state(id)), nil
	}
	var res map[string]any
	json.Unmarshal(t.result, &res) // the answer clientAnswer or elicit made: an object
	res["_meta"] = map[string]any{"io.modelcontextprotocol/related-task": map[string]string{"taskId": id}}
	b, _ := json.Marshal(res)
	return b, nil
}
