package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// referenceDecode is how messages were decoded before decodeMessages read
// each once: json.Valid, then a walk of the members; a batch through
// []json.RawMessage. decodeMessages must agree with it on every input.
func referenceDecode(data []byte) ([]message, error) {
	if i := rawjson.SkipSpace(data, 0); i < len(data) && data[i] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return nil, errors.New("empty batch")
		}
		var msgs []message
		for _, item := range items {
			m, err := referenceMessage(item)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
	m, err := referenceMessage(data)
	if err != nil {
		return nil, err
	}
	return []message{m}, nil
}

func referenceMessage(data []byte) (message, error) {
	var m message
	var hasResult bool
	var bad error
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

// FuzzDecodeMessages holds decodeMessages to the reference: the same
// messages, or the same error.
func FuzzDecodeMessages(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":[1,2]}}`, `{"jsonrpc":"2.0","method":"n","params":{}}`,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"m"}]`, `[]`, `[1]`, `[[{}]]`,
		`{"id":1,"id":null,"result":1}`, `{"method":"a","method":null}`, `{"method":5,"id":"x"}`,
		`{"error":{"code":1,"message":"m"},"error":null,"id":2}`, `{"\u0069d":3,"result":0}`, `{"id":1,"result":1,}`,
		`[{"result":{}},{}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := referenceDecode(data)
		got, err := appendMessages(nil, data)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("decodeMessages(%q) error %v, want %v", data, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeMessages(%q) = %+v, want %+v", data, got, want)
		}
	})
}

// FuzzEncodeRequest holds encodeRequest to json.Marshal: the same bytes, or
// an error where it fails.
func FuzzEncodeRequest(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "{\n \"a\" : [1, 2]\n}", `{"h":"<b>&"}`, "\"\u2028\"", `{"broken"`, ``, `null`, `"x"`} {
		f.Add("tools/call", []byte(s), int64(1))
	}
	f.Add("a\"b", []byte(`{}`), int64(0))
	f.Add("é<", []byte(`[]`), int64(-5))
	f.Fuzz(func(t *testing.T, method string, params []byte, n int64) {
		id := json.RawMessage(strconv.FormatInt(n, 10))
		if n == 0 {
			id = nil
		}
		want, wantErr := json.Marshal(wireRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
		got, err := encodeRequest(id, method, params)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("encodeRequest(%q, %q, %q) error %v, json.Marshal's %v", id, method, params, err, wantErr)
		}
		if string(got) != string(want) {
			t.Fatalf("encodeRequest(%q, %q, %q) = %q, json.Marshal writes %q", id, method, params, got, want)
		}
	})
}

// FuzzResponseParts holds responseParts, joined, to json.Marshal likewise.
func FuzzResponseParts(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "{\n \"a\" : [1, 2]\n}", `{"h":"<b>&"}`, "\"\u2028\"", `{"broken"`, ``, `null`, `"x"`} {
		f.Add([]byte(`7`), []byte(s))
		f.Add([]byte(`"a\u0062c"`), []byte(s))
	}
	f.Add([]byte(``), []byte(`{}`))
	f.Add([]byte(` 1`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, id, result []byte) {
		want, wantErr := json.Marshal(wireResponse{JSONRPC: "2.0", ID: id, Result: result})
		got, err := joinedResponse(id, result, nil)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("responseParts(%q, %q) error %v, json.Marshal's %v", id, result, err, wantErr)
		}
		if string(got) != string(want) {
			t.Fatalf("responseParts(%q, %q) = %q, json.Marshal writes %q", id, result, got, want)
		}
	})
}

func TestOurID(t *testing.T) {
	for in, want := range map[string]int64{
		"1": 1, "42": 42, "9223372036854775807": 9223372036854775807,
		"0": -1, "01": -1, "-1": -1, "1.0": -1, `"1"`: -1, "9223372036854775808": -1, "99999999999999999999": -1, "": -1, "1e3": -1,
	} {
		n, ok := ourID(json.RawMessage(in))
		if ok != (want >= 0) || ok && n != want {
			t.Errorf("ourID(%q) = %d, %v; want %d", in, n, ok, want)
		}
	}
}
