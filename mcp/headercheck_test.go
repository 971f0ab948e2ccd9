package mcp

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestCheckStandardHeaders: Mcp-Method, and Mcp-Name for what names a
// tool, prompt or resource, must say what the body does: present, exact
// (values are case-sensitive), decoded from base64 when they are so
// written, and holding nothing but visible ASCII, space and tab when they
// are not; anything else is -32020.
func TestCheckStandardHeaders(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"héllo","arguments":{}}}`
	read := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a b"}}`
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		msg    string
		header map[string]string
		err    string
	}{
		{list, map[string]string{"Mcp-Method": "tools/list"}, ""},
		{list, map[string]string{}, "Mcp-Method header is missing"},
		{list, map[string]string{"Mcp-Method": "prompts/list"}, `Mcp-Method "prompts/list" does not match`},
		{list, map[string]string{"Mcp-Method": "TOOLS/LIST"}, "does not match"},
		{call, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": headerValue("héllo")}, ""},
		{call, map[string]string{"Mcp-Method": "tools/call"}, "Mcp-Name header is missing"},
		{call, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "hello"}, "does not match the request's name"},
		{call, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "=?base64?aMOpbGxv?="}, ""},
		{call, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "=?base64?aMOpbGxv=?="}, "not a valid value"},
		{read, map[string]string{"Mcp-Method": "resources/read", "Mcp-Name": "file:///a b"}, ""},
		// What only Base64 may carry, sent as it is: refused, though it says what the body does.
		{call, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "héllo"}, "not a valid value"},
	} {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		rerr := CheckStandardHeaders(h, []byte(tc.msg))
		switch {
		case tc.err == "" && rerr != nil:
			t.Errorf("%s %v: %v, want none", tc.msg, tc.header, rerr)
		case tc.err != "" && (rerr == nil || rerr.Code != CodeHeaderMismatch || !strings.Contains(rerr.Message, tc.err)):
			t.Errorf("%s %v: %v, want -32020 %q", tc.msg, tc.header, rerr, tc.err)
		}
	}
}

// TestCheckParamHeaders: each annotated argument present must come with
// its Mcp-Param header saying its value (base64 when so written, checked
// strictly; integers as numbers; what only Base64 may carry refused as it
// is); an absent or null one with none.
func TestCheckParamHeaders(t *testing.T) {
	headers, err := ParamHeaders(json.RawMessage(`{"properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"on":{"type":"boolean","x-mcp-header":"On"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   string
		header map[string]string
		err    string
	}{
		{`{"region":"eu","n":42,"on":true}`, map[string]string{"Mcp-Param-Region": "eu", "Mcp-Param-N": "42", "Mcp-Param-On": "true"}, ""},
		{`{"region":"eu","n":42}`, map[string]string{"Mcp-Param-Region": "=?base64?ZXU=?=", "Mcp-Param-N": "42.0"}, ""},
		{`{"region":null}`, map[string]string{}, ""},
		{`{"region":"eu"}`, map[string]string{}, "Mcp-Param-Region is missing"},
		{`{"region":"eu"}`, map[string]string{"Mcp-Param-Region": "us"}, "does not match"},
		{`{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?="}, "not a valid value"},
		{`{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVs!G8=?="}, "not a valid value"},
		{`{}`, map[string]string{"Mcp-Param-N": "1"}, "which the request does not have"},
		{`{"on":false}`, map[string]string{"Mcp-Param-On": "False"}, "does not match"},
		{`{"region":"zoë"}`, map[string]string{"Mcp-Param-Region": "zoë"}, "not a valid value"},
		{`{"region":"zoë"}`, map[string]string{"Mcp-Param-Region": headerValue("zoë")}, ""},
		{`{"region":"a\tb"}`, map[string]string{"Mcp-Param-Region": "a\tb"}, ""},
	} {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		rerr := CheckParamHeaders(h, headers, []byte(`{"params":{"name":"t","arguments":`+tc.args+`}}`))
		switch {
		case tc.err == "" && rerr != nil:
			t.Errorf("%s %v: %v, want none", tc.args, tc.header, rerr)
		case tc.err != "" && (rerr == nil || rerr.Code != CodeHeaderMismatch || !strings.Contains(rerr.Message, tc.err)):
			t.Errorf("%s %v: %v, want -32020 %q", tc.args, tc.header, rerr, tc.err)
		}
	}
}
