package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }

func TestDecodeMessages(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []message
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			[]message{{ID: rawJSON("1"), Method: "ping"}}},
		{"request with string id and params kept raw", `{"jsonrpc":"2.0","id":"abc","method":"sampling/createMessage","params":{"a" : [1, 2.50]}}`,
			[]message{{ID: rawJSON(`"abc"`), Method: "sampling/createMessage", Params: rawJSON(`{"a" : [1, 2.50]}`)}}},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
			[]message{{Method: "notifications/progress", Params: rawJSON(`{}`)}}},
		{"null id is a notification", `{"jsonrpc":"2.0","id":null,"method":"notifications/message"}`,
			[]message{{Method: "notifications/message"}}},
		{"response, members in any order", `{"result":{"x" : 1},"id":7,"jsonrpc":"2.0"}`,
			[]message{{ID: rawJSON("7"), Result: rawJSON(`{"x" : 1}`)}}},
		{"null result", `{"jsonrpc":"2.0","id":3,"result":null}`,
			[]message{{ID: rawJSON("3"), Result: rawJSON("null")}}},
		{"error response", `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope","data":{"d": 1}}}`,
			[]message{{ID: rawJSON("2"), Error: &RPCError{Code: -32601, Message: "nope", Data: rawJSON(`{"d": 1}`)}}}},
		{"error with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
			[]message{{Error: &RPCError{Code: -32700, Message: "Parse error"}}}},
		{"error without id", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`,
			[]message{{Error: &RPCError{Code: -32600, Message: "Invalid Request"}}}},
		{"unknown members ignored", `{"jsonrpc":"2.0","id":1,"result":{},"extra":[1]}`,
			[]message{{ID: rawJSON("1"), Result: rawJSON("{}")}}},
		{"batch", "\n [ {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} ,\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"},{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"ping\"}]",
			[]message{{ID: rawJSON("1"), Result: rawJSON("{}")}, {Method: "n"}, {ID: rawJSON(`"s"`), Method: "ping"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := appendMessages(nil, []byte(tt.in))
			if err != nil {
				t.Fatalf("decodeMessages(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(message{})); diff != "" {
				t.Errorf("decodeMessages(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestDecodeMessagesKinds(t *testing.T) {
	tests := []struct {
		in                    string
		request, notification bool
	}{
		{`{"id":1,"method":"ping"}`, true, false},
		{`{"id":"x","method":"ping","params":{}}`, true, false},
		{`{"method":"notifications/initialized"}`, false, true},
		{`{"id":null,"method":"notifications/initialized"}`, false, true},
		{`{"id":1,"result":{}}`, false, false},
		{`{"id":1,"error":{"code":1,"message":"m"}}`, false, false},
	}
	for _, tt := range tests {
		msgs, err := appendMessages(nil, []byte(tt.in))
		if err != nil || len(msgs) != 1 {
			t.Fatalf("decodeMessages(%q) = %v, %v", tt.in, msgs, err)
		}
		if got := msgs[0].isRequest(); got != tt.request {
			t.Errorf("decodeMessages(%q).isRequest() = %v, want %v", tt.in, got, tt.request)
		}
		if got := msgs[0].isNotification(); got != tt.notification {
			t.Errorf("decodeMessages(%q).isNotification() = %v, want %v", tt.in, got, tt.notification)
		}
	}
}

func TestDecodeMessagesRejects(t *testing.T) {
	for _, in := range []string{
		``,
		`hello`,
		`{"jsonrpc":"2.0","id":1`,
		`[]`,
		` [ ] `,
		`[1]`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}, "x"]`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}, {"id":2}]`,
		`[[{"jsonrpc":"2.0","method":"n"}]]`,
		`{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"method":5}`,
		`{"jsonrpc":"2.0","id":1,"error":"boom"}`,
		`null`,
		`"a string"`,
		`{"jsonrpc":"2.0","method":"n"} {"jsonrpc":"2.0","method":"n"}`,
	} {
		if msgs, err := appendMessages(nil, []byte(in)); err == nil {
			t.Errorf("decodeMessages(%q) = %+v, want an error", in, msgs)
		}
	}
}

// An "error": null member (as JSON-RPC 1.0 peers send next to a result) means
// no error, as "id": null means no id; it must not become a server error with
// code 0 and an empty message.
func TestDecodeMessageNullError(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"result":{"ok":true},"error":null}`
	got, err := appendMessages(nil, []byte(in))
	if err != nil {
		t.Fatalf("decodeMessages(%q): %v", in, err)
	}
	want := []message{{ID: rawJSON("1"), Result: rawJSON(`{"ok":true}`)}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(message{})); diff != "" {
		t.Errorf("decodeMessages(%q) (-want +got):\n%s", in, diff)
	}
}

func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		got  func() ([]byte, error)
		want string
	}{
		{"request without params", func() ([]byte, error) { return encodeRequest(intID(4), "tools/list", nil) },
			`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`},
		{"request params compacted onto one line", func() ([]byte, error) {
			return encodeRequest(intID(5), "tools/call", rawJSON("{\n  \"name\" : \"a b\",\n  \"n\": 1.50\n}"))
		}, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a b","n":1.50}}`},
		{"notification", func() ([]byte, error) { return encodeRequest(nil, "notifications/initialized", nil) },
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"result echoes a string id", func() ([]byte, error) { return joinedResponse(rawJSON(`"a\u0062c"`), rawJSON(`{}`), nil) },
			`{"jsonrpc":"2.0","id":"a\u0062c","result":{}}`},
		{"error", func() ([]byte, error) { return joinedResponse(rawJSON("7"), nil, MethodNotFound("x/y")) },
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found: x/y"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.got()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("encoded (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := encodeRequest(intID(1), "m", rawJSON(`{"broken"`)); err == nil {
		t.Error("encodeRequest with invalid params: no error")
	}
}

// joinedResponse is a response as responseParts writes it, in one piece.
func joinedResponse(id, result json.RawMessage, rerr *RPCError) ([]byte, error) {
	p, err := responseParts(id, result, rerr)
	return bytes.Join(p, nil), err
}

// An error's code is an integer however JSON writes it (-32601.0 is the
// schema's integer too); a code that is no integer, or a message that is
// no string, is refused in words, without Go's type names.
func TestDecodeErrorCode(t *testing.T) {
	for in, want := range map[string]int{`-32601`: -32601, `-32601.0`: -32601, `-3.2601e4`: -32601, `-32601.000`: -32601, `42`: 42} {
		msgs, err := appendMessages(nil, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":`+in+`,"message":"m"}}`))
		if err != nil || len(msgs) != 1 || msgs[0].Error.Code != want || msgs[0].Error.Message != "m" {
			t.Errorf("code %s: %+v, %v; want %d", in, msgs, err, want)
		}
	}
	for in, want := range map[string]string{
		`{"code":-32601.5,"message":"m"}`: "its code -32601.5 is not an integer",
		`{"code":"-32601","message":"m"}`: `its code "-32601" is not a number`,
		`{"code":1e300,"message":"m"}`:    "its code 1e300 is not an integer",
		`{"code":-32601,"message":7}`:     "its message 7 is not a string",
		`{"code":-32601,"message":["a"]}`: `its message ["a"] is not a string`,
	} {
		_, err := appendMessages(nil, []byte(`{"jsonrpc":"2.0","id":1,"error":`+in+`}`))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "type int") {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}
