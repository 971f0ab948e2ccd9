package serve

import (
	"encoding/json"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// envelope is what serve reads of a JSON-RPC message it passes on: its
// method, id and params, in one walk of its members (a relayed result
// among them is skipped over, never decoded).
type envelope struct {
	method    string          // decoded; "" when missing or not a string
	hasMethod bool            // a method member is there, whatever it holds
	id        json.RawMessage // as written, null included; nil when missing
	params    json.RawMessage
}

func readEnvelope(msg []byte) (envelope, error) {
	var e envelope
	err := rawjson.ForEachValidMember(msg, func(k string, v []byte) error {
		switch k {
		case "method":
			e.hasMethod = true
			json.Unmarshal(v, &e.method)
		case "id":
			e.id = v
		case "params":
			e.params = v
		}
		return nil
	})
	return e, err
}

// response is the id of a response (a message with an id and no method).
func (e envelope) response() (json.RawMessage, bool) {
	return e.id, e.id != nil && !e.hasMethod
}

// request reports whether the message is a request: a method and an id
// that is not null.
func (e envelope) request() bool {
	return e.method != "" && e.id != nil && string(e.id) != "null"
}

// headOf is the message that the first of an answer's parts (as
// mcp.Session frames a large result: its head up to "result":, the
// result, a closing brace) stands for, with a null result: small, and
// naming the request it answers. ok is false for other parts.
func headOf(parts [][]byte) (head []byte, ok bool) {
	if len(parts) != 3 || string(parts[2]) != "}" {
		return nil, false
	}
	return append(append([]byte(nil), parts[0]...), "null}"...), true
}
