package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// prepare reads params once, yet writes what stamping them and then adding
// a progress token did: the modern _meta first, the token after it; a token
// params carry is kept (null counts as none, and stays); a broken params is
// an error only where a token must be added. What it adds is written into
// the message as it is encoded, as the params stamped first would be.
func TestPrepare(t *testing.T) {
	modern := &Client{modernCaps: json.RawMessage(`{}`), opts: ClientOptions{Info: Implementation{Name: "mcpv", Version: "1"}}}
	modern.e.Store(&era{modern: true, version: "2026-07-28"})
	stampText := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpv","version":"1"}`
	stamp := func(s string) string { return strings.ReplaceAll(s, "STAMP", stampText) }
	tests := []struct {
		name                string
		c                   *Client
		method, params      string
		want, token, errHas string
	}{
		{"no params", &Client{}, "tools/call", ``, `{"_meta":{"progressToken":"mcpv-1"}}`, `"mcpv-1"`, ""},
		{"null params", &Client{}, "tools/call", `null`, `{"_meta":{"progressToken":"mcpv-1"}}`, `"mcpv-1"`, ""},
		{"a token of its own", &Client{}, "tools/call", `{"name":"t","_meta":{"progressToken":7}}`, `{"name":"t","_meta":{"progressToken":7}}`, `7`, ""},
		{"a null token", &Client{}, "tools/call", `{"_meta":{"progressToken":null}}`, `{"_meta":{"progressToken":null}}`, `"mcpv-1"`, ""},
		{"other _meta kept", &Client{}, "prompts/get", `{"name":"p", "_meta" : {"k":[1, 2]} }`, `{"name":"p","_meta":{"k":[1, 2],"progressToken":"mcpv-1"}}`, `"mcpv-1"`, ""},
		{"no progress", &Client{}, "tools/list", `{"cursor":"c"}`, `{"cursor":"c"}`, ``, ""},
		{"broken params", &Client{}, "tools/call", `{"name":`, ``, ``, "params: invalid JSON"},
		{"a _meta that is no object", &Client{}, "tools/call", `{"_meta":[1]}`, ``, ``, "params._meta is not an object"},
		{"not an object", &Client{}, "tools/call", `[1]`, ``, ``, "params: not a JSON object"},
		{"modern, no params", modern, "tools/call", ``, stamp(`{"_meta":{STAMP,"progressToken":"mcpv-1"}}`), `"mcpv-1"`, ""},
		{"modern, a token of its own", modern, "tools/call", `{"_meta":{"progressToken":"x"}}`, stamp(`{"_meta":{"progressToken":"x",STAMP}}`), `"x"`, ""},
		{"modern, no progress", modern, "tools/list", `{"cursor":"c"}`, stamp(`{"cursor":"c","_meta":{STAMP}}`), ``, ""},
		{"modern, broken params, no progress", modern, "tools/list", `{"cursor"`, `{"cursor"`, ``, ""},
		{"modern, broken params", modern, "tools/call", `{"cursor"`, ``, ``, "params: invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.lastToken.Store(0)
			meta, token, err := tt.c.prepare(tt.method, json.RawMessage(tt.params))
			params := stamped(json.RawMessage(tt.params), meta)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("error %v, want one saying %q", err, tt.errHas)
				}
				return
			}
			if err != nil || string(params) != tt.want || string(token) != tt.token {
				t.Errorf("prepare = %s, %s, %v; want %s, %s", params, token, err, tt.want, tt.token)
			}
			// The message is written with the _meta added as it is, in one
			// pass: the same bytes as the params stamped first.
			msg, err := encodeRequest(json.RawMessage("1"), tt.method, json.RawMessage(tt.params), meta...)
			want, wantErr := encodeRequest(json.RawMessage("1"), tt.method, params)
			if string(msg) != string(want) || (err == nil) != (wantErr == nil) {
				t.Errorf("message %s, %v; want %s, %v", msg, err, want, wantErr)
			}
		})
	}
}
