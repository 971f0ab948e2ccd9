package serve

import (
	"encoding/json"
	"errors"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// envelope is what serve reads of a JSON-RPC message it passes on, in one
// walk of its top level (a result is skipped over, never decoded). The
// message may be any bytes a client sent: the walk never fails on them.
type envelope struct {
	method    string          // decoded; "" when missing or not a string
	hasMethod bool            // a method member is there, whatever it holds
	id        json.RawMessage // as written, null included; nil when missing
	params    json.RawMessage
}

func readEnvelope(msg []byte) (envelope, error) {
	var e envelope
	var buf [8]rawjson.Field
	fields := rawjson.ScanFields(buf[:0], msg)
	if len(fields) == 0 && !rawjson.IsObject(msg) {
		return e, errors.New("not a JSON object")
	}
	for _, f := range fields {
		switch {
		case f.KeyIs("method"):
			e.hasMethod = true
			rawjson.DecodeLoose(f.Value, &e.method) // a method of another type is "" here: the session that reads the message whole refuses it
		case f.KeyIs("id"):
			e.id = f.Value
		case f.KeyIs("params"):
			e.params = f.Value
		}
	}
	return e, nil
}

// request reports whether the message is a request: a method and an id
// that is not null.
func (e envelope) request() bool {
	return e.method != "" && e.id != nil && string(e.id) != "null"
}

// headOf is the first of an answer's parts (as mcp.Session frames a large
// result) closed with a null result: a small message naming the request
// it answers. ok is false for other parts.
func headOf(parts [][]byte) (head []byte, ok bool) {
	if len(parts) < 3 || len(parts) > 4 || string(parts[len(parts)-1]) != "}" {
		return nil, false
	}
	return append(append([]byte(nil), parts[0]...), "null}"...), true
}
