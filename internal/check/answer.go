package check

// A connection that declares client capabilities answers the server's
// requests as a client that has them does: an elicitation declined, a
// fixed sampled message, no roots, ping; anything else is not found. The
// answer goes back as the server's transport has it: a line on stdin, or
// a POST of its own.

import (
	"encoding/json"

	"github.com/mcpv/mcpv/mcp"
)

// clientAnswer is the result a client that can answer gives a server's
// request of method, or nil when it has none (-32601).
func clientAnswer(method string) json.RawMessage {
	switch method {
	case "elicitation/create":
		return json.RawMessage(`{"action":"decline"}`)
	case "sampling/createMessage":
		return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"mcpv check"},"model":"mcpv-check","stopReason":"endTurn"}`)
	case "roots/list":
		return json.RawMessage(`{"roots":[]}`)
	case "ping":
		return json.RawMessage(`{}`)
	}
	return nil
}

// answer answers the server's request s, best-effort: the check that
// waits on what follows says when it does not come. It runs on the
// connection's reader (stdio) or the goroutine reading an answer (HTTP),
// and writes with the run's context.
func (c *conn) answer(s seen) {
	var msg []byte
	if res := clientAnswer(s.msg.Method); res != nil {
		msg, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.msg.ID, "result": res})
	} else {
		msg, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.msg.ID, "error": mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: "mcpv check does not answer " + s.msg.Method}})
	}
	if c.http != nil {
		c.post(c.r.ctx, httpReq{body: msg}, nil)
		return
	}
	c.stdio.Write(c.r.ctx, msg)
}
