package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// JSON-RPC 2.0 messages as mcpv sees them (https://modelcontextprotocol.io/specification/2025-11-25/basic#messages).
// Every payload (params,
// result, error data, ids) stays raw JSON: ids are echoed byte for byte and
// results reach stdout as the server wrote them.

// JSON-RPC and MCP error codes used by the client.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// message is one decoded JSON-RPC message. Which fields are set tells its kind:
// a request has ID and Method, a notification Method only, a response ID and
// Result or Error (a parse-error response may have no ID).
type message struct {
	ID     json.RawMessage // nil when absent
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *RPCError
	local  error  // a transport failure that belongs to this request (*RequestError)
	notes  uint64 // for a response: how many notifications the reader had queued before it
}

func (m *message) isRequest() bool      { return m.Method != "" && m.ID != nil }
func (m *message) isNotification() bool { return m.Method != "" && m.ID == nil }

// decodeMessages decodes one wire unit: a JSON object, or a JSON array of
// objects (a batch, which 2025-03-26 peers may send). Values are sub-slices of data.
func decodeMessages(data []byte) ([]message, error) {
	i := rawjson.SkipSpace(data, 0)
	if i < len(data) && data[i] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return nil, errors.New("empty batch")
		}
		msgs := make([]message, 0, len(items))
		for _, item := range items {
			m, err := decodeMessage(item)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
	m, err := decodeMessage(data)
	if err != nil {
		return nil, err
	}
	return []message{m}, nil
}

func decodeMessage(data []byte) (message, error) {
	var m message
	var hasResult bool
	var bad error // the first member that does not decode; the walk goes on to find the id
	err := rawjson.ForEachMember(data, func(key string, v []byte) error {
		switch key {
		case "id":
			if string(v) != "null" {
				m.ID = v
			}
		case "method":
			if err := json.Unmarshal(v, &m.Method); err != nil && bad == nil {
				bad = fmt.Errorf("method is not a string")
			}
		case "params":
			m.Params = v
		case "result":
			m.Result = v
			hasResult = true
		case "error":
			if string(v) == "null" {
				return nil
			}
			m.Error = new(RPCError)
			if err := json.Unmarshal(v, m.Error); err != nil && bad == nil {
				bad = fmt.Errorf("its error is not a JSON-RPC error object (%v)", err)
			}
		}
		return nil
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return m, err
	}
	if m.Method == "" && !hasResult && m.Error == nil {
		return m, errors.New("neither a request, a notification nor a response")
	}
	return m, nil
}

// maxDepth is how deeply a message may nest (encoding/json's limit). No real
// message comes near it; a deeper one is an error, never a hang.
const maxDepth = 10000

// answerIn reads what it can of a message that did not decode: the id it
// carries, when that is a readable number or string at the top level, and
// whether it looks like a response (a result or error member, no method).
// It never fails: data may be anything.
func answerIn(data []byte) (id json.RawMessage, response bool) {
	defer func() {
		if recover() != nil {
			id, response = nil, false // too broken to walk
		}
	}()
	method := false
	rawjson.ForEachValidMember(data, func(key string, v []byte) error {
		switch key {
		case "id":
			if len(v) > 0 && (v[0] == '"' || v[0] == '-' || v[0] >= '0' && v[0] <= '9') && json.Valid(v) {
				id = v
			}
		case "result", "error":
			response = true
		case "method":
			method = true
		}
		return nil
	})
	return id, response && !method
}

// idKey turns a raw id into the key of the pending-call map. mcpv sends integer
// ids, so a response id that is not the same integer text matches nothing.
func idKey(id json.RawMessage) string { return string(id) }

func intID(n int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(n, 10)) }

// wireRequest and wireResponse encode outgoing messages. json.Marshal compacts
// RawMessage fields, so no newline from user-supplied JSON reaches a stdio line.
type wireRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

func encodeRequest(id json.RawMessage, method string, params json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(wireRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	return b, nil
}

func encodeResponse(id json.RawMessage, result json.RawMessage, rerr *RPCError) ([]byte, error) {
	return json.Marshal(wireResponse{JSONRPC: "2.0", ID: id, Result: result, Error: rerr})
}
