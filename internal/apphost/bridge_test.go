package apphost

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

func testBridge(relayed *[]string) *Bridge {
	tools := map[string]json.RawMessage{
		"show":    json.RawMessage(`{"name":"show","_meta":{"ui":{"resourceUri":"ui://w"}}}`),
		"record":  json.RawMessage(`{"name":"record","annotations":{"readOnlyHint":true},"_meta":{"ui":{"visibility":["app"]}}}`),
		"admin":   json.RawMessage(`{"name":"admin","_meta":{"ui":{"visibility":["model"]}}}`),
		"delete":  json.RawMessage(`{"name":"delete"}`),
		"guarded": json.RawMessage(`{"name":"guarded","annotations":{"readOnlyHint":true}}`),
	}
	return &Bridge{
		Tools: tools,
		Relay: func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
			*relayed = append(*relayed, method+" "+string(params))
			if strings.Contains(string(params), "missing") {
				return nil, &mcp.CallError{Method: method, Err: &mcp.RPCError{Code: -32002, Message: "Resource not found"}}
			}
			return json.RawMessage(`{"ok":true}`), nil
		},
		AllowTool:     func(name string, _ json.RawMessage) bool { return name != "guarded" },
		AllowResource: func(uri string) bool { return !strings.HasPrefix(uri, "file:") },
		ReadOnly: func(def json.RawMessage) bool {
			return strings.Contains(string(def), `"readOnlyHint":true`)
		},
		Record: func(map[string]any) {},
	}
}

// The app calls only what it may: a tool the server lists, whose
// visibility includes "app", that the guard allows, and, when it changes
// things, only with the user's consent; nothing refused reaches the
// server.
func TestBridgeToolCalls(t *testing.T) {
	var relayed []string
	b := testBridge(&relayed)
	asked := 0
	answer := false
	b.Confirm = func(_ context.Context, q string) (bool, error) {
		asked++
		if !strings.Contains(q, "call show with {}") && !strings.Contains(q, `call delete with {"id":7}`) {
			t.Errorf("question %q", q)
		}
		return answer, nil
	}
	tests := []struct {
		params, err string
		relayed     bool
	}{
		{`{"name":"record","arguments":{"a":1}}`, "", true},
		{`{"name":"show"}`, "", false}, // asks: no readOnlyHint, and the answer is no
		{`{"name":"admin"}`, `not callable by apps: its visibility does not include "app"`, false},
		{`{"name":"guarded"}`, "the guard does not allow it", false},
		{`{"name":"nothing"}`, `the server lists no tool "nothing"`, false},
		{`{"name":"delete","arguments":{"id":7}}`, `the user did not let the app call tool "delete"`, false},
		{`{}`, "tools/call wants a name", false},
	}
	for _, tt := range tests {
		relayed = nil
		_, rerr := b.Request(t.Context(), "tools/call", json.RawMessage(tt.params))
		switch {
		case tt.err == "" && tt.relayed && (rerr != nil || len(relayed) != 1):
			t.Errorf("%s: %v, relayed %v", tt.params, rerr, relayed)
		case tt.err != "" && (rerr == nil || !strings.Contains(rerr.Message, tt.err) || len(relayed) != 0):
			t.Errorf("%s: %v, want %q; relayed %v", tt.params, rerr, tt.err, relayed)
		}
	}
	answer = true
	relayed = nil
	if _, rerr := b.Request(t.Context(), "tools/call", json.RawMessage(`{"name":"delete","arguments":{"id":7}}`)); rerr != nil || len(relayed) != 1 ||
		relayed[0] != `tools/call {"arguments":{"id":7},"name":"delete"}` {
		t.Errorf("agreed: %v, relayed %v", rerr, relayed)
	}
	b.Confirm = nil
	if _, rerr := b.Request(t.Context(), "tools/call", json.RawMessage(`{"name":"delete"}`)); rerr == nil || !strings.Contains(rerr.Message, "no one can be asked") {
		t.Errorf("no one to ask: %v", rerr)
	}
	b.Yes = true
	relayed = nil
	if _, rerr := b.Request(t.Context(), "tools/call", json.RawMessage(`{"name":"delete"}`)); rerr != nil || len(relayed) != 1 {
		t.Errorf("--yes: %v", rerr)
	}
	res, _ := b.Request(t.Context(), "tools/list", nil)
	for _, hidden := range []string{"admin", "guarded"} {
		if strings.Contains(string(res), `"name":"`+hidden+`"`) {
			t.Errorf("tools/list gives the app %s: %s", hidden, res)
		}
	}
}

func TestBridgeOtherRequests(t *testing.T) {
	var relayed []string
	b := testBridge(&relayed)
	if _, rerr := b.Request(t.Context(), "resources/read", json.RawMessage(`{"uri":"file:///etc/passwd"}`)); rerr == nil || len(relayed) != 0 {
		t.Errorf("a guarded resource: %v, relayed %v", rerr, relayed)
	}
	if _, rerr := b.Request(t.Context(), "resources/read", json.RawMessage(`{"uri":"ui://missing"}`)); rerr == nil || rerr.Code != -32002 {
		t.Errorf("the server's error is the app's: %v", rerr)
	}
	if _, rerr := b.Request(t.Context(), "ui/open-link", json.RawMessage(`{"url":"https://example.com"}`)); rerr == nil || !strings.Contains(rerr.Message, "--allow-links") {
		t.Errorf("a link, not allowed: %v", rerr)
	}
	var opened []string
	b.OpenLink = func(u string) error { opened = append(opened, u); return nil }
	for _, bad := range []string{"javascript:alert(1)", "file:///etc/passwd", "http://", "data:text/html,x"} {
		if _, rerr := b.Request(t.Context(), "ui/open-link", json.RawMessage(`{"url":"`+bad+`"}`)); rerr == nil {
			t.Errorf("%s was opened", bad)
		}
	}
	if _, rerr := b.Request(t.Context(), "ui/open-link", json.RawMessage(`{"url":"https://example.com/a?b"}`)); rerr != nil || len(opened) != 1 {
		t.Errorf("an https link: %v %v", rerr, opened)
	}
	b.OpenLink = func(string) error { return errors.New("no browser") }
	if _, rerr := b.Request(t.Context(), "ui/open-link", json.RawMessage(`{"url":"https://example.com"}`)); rerr == nil {
		t.Errorf("a link that could not be opened")
	}
	if _, rerr := b.Request(t.Context(), "sampling/createMessage", json.RawMessage(`{}`)); rerr == nil || rerr.Code != mcp.CodeMethodNotFound {
		t.Errorf("an unknown method: %v", rerr)
	}
	if res, rerr := b.Request(t.Context(), "ui/message", json.RawMessage(`{"role":"user"}`)); rerr != nil || string(res) != "{}" {
		t.Errorf("ui/message: %s %v", res, rerr)
	}
}
