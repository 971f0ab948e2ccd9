package check

// A connection that declares client capabilities answers the server's
// requests as a client that has them does: an elicitation declined, a
// fixed sampled message (however many tokens it allows), no roots, ping;
// anything else is not found. Never a person: nothing is asked of one.

import (
	"context"
	"encoding/json"
	"fmt"

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
	reply := map[string]any{"jsonrpc": "2.0", "id": s.msg.ID, "result": res}
	if res == nil {
		reply = map[string]any{"jsonrpc": "2.0", "id": s.msg.ID, "error": mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: "mcpv check does not answer " + s.msg.Method}}
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
