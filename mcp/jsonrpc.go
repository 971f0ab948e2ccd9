package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
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
	// related, for a server request, is the id of mcpv's request on
	// whose answer it came (relatedReader); nil when unknown.
	related json.RawMessage
}

func (m *message) isRequest() bool      { return m.Method != "" && m.ID != nil }
func (m *message) isNotification() bool { return m.Method != "" && m.ID == nil }

// appendMessages decodes one wire unit, appending to dst, which the
// session's reader reuses from one wire unit to the next: a JSON object,
// or a JSON array of objects (a batch, which 2025-03-26 peers may send).
// Values are sub-slices of data. On an error dst comes back as it was
// given. The data is read once to check it, then its members are taken
// where they lie.
func appendMessages(dst []message, data []byte) ([]message, error) {
	if i := rawjson.SkipSpace(data, 0); i < len(data) && data[i] == '[' {
		return appendBatch(dst, data)
	}
	m, err := decodeMessage(data)
	if err != nil {
		return dst, err
	}
	return append(dst, m), nil
}

// appendBatch decodes a batch. Its elements are found by the pass that
// checks the whole array, and each is then walked without a second check.
func appendBatch(dst []message, data []byte) ([]message, error) {
	var buf [16][]byte
	items, ok := rawjson.Elements(buf[:0], data)
	if !ok {
		var v []json.RawMessage
		return dst, json.Unmarshal(data, &v) // says what is wrong, and where
	}
	if len(items) == 0 {
		return dst, errors.New("empty batch")
	}
	given := dst
	var fields [8]rawjson.Field
	for _, item := range items {
		var m message
		var err error
		if rawjson.IsObject(item) {
			m, err = messageOf(rawjson.ValidFields(fields[:0], item))
		} else {
			_, err = decodeMessage(item) // the error a lone message would get
		}
		if err != nil {
			clear(dst[len(given):]) // keep no message alive
			return given, err
		}
		dst = append(dst, m)
	}
	return dst, nil
}

// decodeMessage decodes one JSON-RPC message, checking that data is one
// valid JSON object as it goes.
func decodeMessage(data []byte) (message, error) {
	var buf [8]rawjson.Field // a message has four or five members
	fields, err := rawjson.Fields(buf[:0], data)
	if err != nil {
		return message{}, err
	}
	return messageOf(fields)
}

// messageOf reads a message from the members of its object, in order.
func messageOf(fields []rawjson.Field) (message, error) {
	var m message
	var hasResult bool
	var bad error // the first member that does not decode; the walk goes on to find the id
	for _, f := range fields {
		v := f.Value
		switch {
		case f.KeyIs("id"):
			if string(v) != "null" {
				m.ID = v
			}
		case f.KeyIs("method"):
			if string(v) == "null" {
				continue
			}
			if method, err := rawjson.String(v); err == nil {
				m.Method = method
			} else if bad == nil {
				bad = fmt.Errorf("method is not a string")
			}
		case f.KeyIs("params"):
			m.Params = v
		case f.KeyIs("result"):
			m.Result = v
			hasResult = true
		case f.KeyIs("error"):
			if string(v) == "null" {
				continue
			}
			m.Error = new(RPCError)
			if err := json.Unmarshal(v, m.Error); err != nil && bad == nil {
				bad = fmt.Errorf("its error is not a JSON-RPC error object (%v)", err)
			}
		}
	}
	if bad != nil {
		return m, bad
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
// A whole object with neither an id, a jsonrpc member, a result nor an
// error object (a log line {"error":"started"}) is no response. It never
// fails: data may be anything.
func answerIn(data []byte) (id json.RawMessage, response bool) {
	method, marked := false, false
	defer func() {
		if recover() != nil {
			// Too broken to walk further (cut short, say, by another
			// answer written into it): what came before the break holds.
			response = response && !method
		}
	}()
	rawjson.ForEachValidMember(data, func(key string, v []byte) error {
		marked = marked || key == "id" || key == "jsonrpc"
		switch key {
		case "id":
			if len(v) > 0 && (v[0] == '"' || v[0] == '-' || v[0] >= '0' && v[0] <= '9') && rawjson.Valid(v) {
				id = v
			}
		case "result", "error":
			response = true
			marked = marked || key == "result" || rawjson.IsObject(v)
		case "method":
			method = true
		}
		return nil
	})
	return id, response && !method && (marked || !rawjson.Valid(data))
}

// ourID reads a response's raw id as one of the ids mcpv sends: positive
// integers written as strconv writes them. Any other text (1.0, "1", 01)
// matches none of them.
func ourID(id json.RawMessage) (int64, bool) {
	if len(id) == 0 || len(id) > 19 || id[0] < '1' || id[0] > '9' {
		return 0, false
	}
	var n uint64
	for _, c := range id {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

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

// encodeRequest writes a request (a notification when id is nil) as
// json.Marshal writes a wireRequest, with meta added to params' _meta when
// they take it. Nearly always the method is plain ASCII and the id, params
// and meta are JSON that json.Marshal would leave as they are: then the
// message is built directly, at its size, params copied once, into it.
// Anything else goes through json.Marshal, which compacts and escapes.
func encodeRequest(id json.RawMessage, method string, params json.RawMessage, meta ...metaEntry) ([]byte, error) {
	if !rawjson.Plain(method) || !asMarshaled(id) || !asMarshaled(params) || slices.ContainsFunc(meta, func(e metaEntry) bool { return !asMarshaled(e.value) }) {
		b, err := json.Marshal(wireRequest{JSONRPC: "2.0", ID: bytes.Clone(id), Method: method, Params: stamped(params, meta)})
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", method, err)
		}
		return b, nil
	}
	const head, idMember, methodMember, paramsMember = `{"jsonrpc":"2.0"`, `,"id":`, `,"method":"`, `","params":`
	b := make([]byte, 0, len(head)+len(idMember)+len(id)+len(methodMember)+len(method)+len(paramsMember)+len(params)+metaSize(meta)+2)
	b = append(b, head...)
	if len(id) > 0 {
		b = append(append(b, idMember...), id...)
	}
	b = append(append(b, methodMember...), method...)
	if len(params) == 0 && len(meta) == 0 {
		return append(b, `"}`...), nil
	}
	b = append(b, paramsMember...)
	if len(meta) > 0 {
		if stamped, err := appendWithMeta(b, params, meta); err == nil {
			return append(stamped, '}'), nil
		}
	}
	return append(append(b, params...), '}'), nil
}

// asMarshaled reports whether json.Marshal writes raw (a json.RawMessage
// field with omitempty) as it is: empty, or valid JSON with nothing to
// compact or escape.
func asMarshaled(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return true
	}
	_, marshaled := rawjson.Marshaled(raw)
	return marshaled
}

// message is one outgoing message, in the parts it was built from.
type parts [][]byte

func (p parts) size() int {
	n := 0
	for _, b := range p {
		n += len(b)
	}
	return n
}

// responseParts writes a response as json.Marshal writes a wireResponse.
// A result json.Marshal would leave as it is (nearly every one: what a
// relay passes on from a server) is not copied at all: the response is
// its head, the result itself, and a closing brace, which a PartsWriter
// writes one after the other. Anything else is one part from json.Marshal.
func responseParts(id json.RawMessage, result json.RawMessage, rerr *RPCError) (parts, error) {
	if rerr != nil || len(id) == 0 || len(result) == 0 || !asMarshaled(id) || !asMarshaled(result) {
		b, err := json.Marshal(wireResponse{JSONRPC: "2.0", ID: id, Result: result, Error: rerr})
		return parts{b}, err
	}
	const head, resultMember = `{"jsonrpc":"2.0","id":`, `,"result":`
	h := make([]byte, 0, len(head)+len(id)+len(resultMember))
	h = append(append(append(h, head...), id...), resultMember...)
	return parts{h, result, closingBrace}, nil
}

var closingBrace = []byte{'}'}
