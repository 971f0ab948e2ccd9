package serve

import (
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// TestEnvelope: what serve reads of a message, in one walk: a request
// has a method and an id that is not null; a response has an id and no
// method member at all, whatever a result holds.
func TestEnvelope(t *testing.T) {
	for _, tt := range []struct {
		msg               string
		request, response bool
		id                string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, true, false, `1`},
		{`{"jsonrpc":"2.0","id":null,"method":"tools/call"}`, false, false, `null`},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, false, false, ``},
		{`{"jsonrpc":"2.0","id":"a","result":{"method":"not mine","id":9}}`, false, true, `"a"`},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}`, false, true, `2`},
		{`{"jsonrpc":"2.0","id":3,"method":null}`, false, false, `3`},
	} {
		e, err := readEnvelope([]byte(tt.msg))
		if err != nil {
			t.Fatalf("%s: %v", tt.msg, err)
		}
		id, resp := responseID([]byte(tt.msg))
		if e.request() != tt.request || resp != tt.response || string(e.id) != tt.id || string(id) != tt.id {
			t.Errorf("%s: request %v, response %v, id %s; want %v, %v, %s", tt.msg, e.request(), resp, e.id, tt.request, tt.response, tt.id)
		}
	}
	// What a client may send that is no JSON at all is read without a
	// panic (it is the session's to refuse).
	for _, junk := range []string{`{"a"`, `{`, `{"id":1 "method":"x"}`, `{"id":`, `{"method":"x","params":{"_meta":{"a":1}"b":2}}`, `{"params":{"_meta":`} {
		e, _ := readEnvelope([]byte(junk))
		hasModernMeta(e.params)
	}
	if head, ok := headOf([][]byte{[]byte(`{"jsonrpc":"2.0","id":7,"result":`), []byte(`{"big":true}`), []byte(`}`)}); !ok || string(head) != `{"jsonrpc":"2.0","id":7,"result":null}` {
		t.Errorf("the head of an answer in parts: %s %v", head, ok)
	}
	if _, ok := headOf([][]byte{[]byte(`{"jsonrpc":"2.0",`), []byte(`"method":"x"}`)}); ok {
		t.Errorf("parts that are no answer's framing taken for one")
	}
}

// TestReadIncoming: a POSTed body that is no JSON is a parse error, and
// one that is JSON but no JSON-RPC message an invalid request, among them
// a request whose error member is no error object, which the session
// would drop unanswered; a request, a notification and a response are
// read.
func TestReadIncoming(t *testing.T) {
	for body, code := range map[string]int{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`:           0,
		`{"jsonrpc":"2.0","method":"notifications/cancelled"}`:     0,
		`{"jsonrpc":"2.0","id":"q","result":{}}`:                   0,
		`{"jsonrpc":"2.0","id":1,"method":`:                        mcp.CodeParseError,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`:         mcp.CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":1}`:                                 mcp.CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":{},"method":"tools/list"}`:          mcp.CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":false,"result":{}}`:                 mcp.CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":1,"method":["tools/list"]}`:         mcp.CodeInvalidRequest,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","error":7}`: mcp.CodeInvalidRequest,
	} {
		_, err := readIncoming([]byte(body))
		got := 0
		if err != nil {
			got = err.Code
		}
		if got != code {
			t.Errorf("%s: %d %v, want %d", body, got, err, code)
		}
	}
}
