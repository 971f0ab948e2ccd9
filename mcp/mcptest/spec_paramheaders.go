package mcptest

import (
	"encoding/json"
	"slices"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// paramHeaderTools are the tools the x-mcp-header faults and edge add to
// a spec's list, after its own: each fault's breaks one constraint the
// 2026-07-28 transport sets on the annotation (streamable-http, "Schema
// Extension"), and the edge's keeps them all.
func paramHeaderTools(s *Spec) []json.RawMessage {
	var out []json.RawMessage
	add := func(name, properties string) {
		if slices.ContainsFunc(s.Tools, func(t json.RawMessage) bool { return rawjson.Key(t, "name") == name }) {
			return // a spec read again: its tools are there
		}
		out = append(out, json.RawMessage(`{"name":"`+name+`","description":"Mirrors an argument in a header.","inputSchema":{"type":"object","properties":`+properties+`}}`))
	}
	for _, f := range []struct{ fault, tool, properties string }{
		{"param-header-empty", "header-empty", `{"value":{"type":"string","x-mcp-header":""}}`},
		{"param-header-token", "header-token", `{"value":{"type":"string","x-mcp-header":"My Region"}}`},
		{"param-header-control", "header-control", `{"value":{"type":"string","x-mcp-header":"Region\r\nX-Injected: 1"}}`},
		{"param-header-duplicate", "header-duplicate", `{"first":{"type":"string","x-mcp-header":"MyField"},"second":{"type":"string","x-mcp-header":"myfield"}}`},
		{"param-header-number", "header-number", `{"score":{"type":"number","x-mcp-header":"Score"}}`},
		{"param-header-items", "header-items", `{"tags":{"type":"array","items":{"type":"string","x-mcp-header":"Tag"}}}`},
		{"param-header-secret", "header-secret", `{"apiKey":{"type":"string","x-mcp-header":"Api-Key"}}`},
	} {
		if s.has(f.fault) {
			add(f.tool, f.properties)
		}
	}
	if s.edge("param-headers") {
		add("header-kept", `{"region":{"type":"string","x-mcp-header":"Region"},`+
			`"where":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},`+
			`"count":{"type":["integer","null"],"x-mcp-header":"Count"},"dry":{"type":"boolean","x-mcp-header":"Dry-Run"},`+
			`"dry_run":{"type":"boolean","x-mcp-header":"Dry_Run"},"x-mcp-header":{"type":"number","default":{"x-mcp-header":""}}}`)
	}
	return out
}
