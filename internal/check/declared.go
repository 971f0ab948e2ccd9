package check

// Every method of a declared capability is served: a server that declares
// a capability offers the methods the schema gives it, and answers each
// with something other than "method not found" (-32601), if only an
// error about the params. Each is asked about what does not exist (a
// tool, a prompt, a resource, a task), or about what it lists, so that
// nothing changes on the server.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/mcp"
)

// capabilityMethods are the methods each server capability declares, as
// the schema has them, with params that change nothing (the era's own
// where they differ).
var capabilityMethods = []struct {
	capability, method, params, era string
}{
	{"tools", "tools/call", `{"name":"` + noSuchTool + `","arguments":{}}`, ""},
	{"prompts", "prompts/get", `{"name":"mcpv-check-no-such-prompt"}`, ""},
	{"resources", "resources/read", `{"uri":"mcpv-check://no-such-resource/7"}`, ""},
	{"resources.subscribe", "resources/subscribe", "", "legacy"},
	{"resources.subscribe", "resources/unsubscribe", "", "legacy"},
	{"logging", "logging/setLevel", `{"level":"error"}`, "legacy"},
	{"completions", "completion/complete", `{"ref":{"type":"ref/prompt","name":"mcpv-check-no-such-prompt"},"argument":{"name":"a","value":""}}`, ""},
	{"tasks", "tasks/get", `{"taskId":"mcpv-check-no-such-task"}`, ""},
	// The tasks extension of 2026-07-28 has no tasks/result and no
	// tasks/list, and tasks/update besides.
	{"tasks", "tasks/result", `{"taskId":"mcpv-check-no-such-task"}`, "legacy"},
	{"tasks.list", "tasks/list", "", "legacy"},
	{"tasks", "tasks/update", `{"taskId":"mcpv-check-no-such-task","inputResponses":{}}`, "modern"},
	{"tasks.cancel", "tasks/cancel", `{"taskId":"mcpv-check-no-such-task"}`, ""},
}

// declaredMethods asks each method of each capability the server
// declares, on the check's connection in the main session's era, and
// fails on one answered -32601.
func declaredMethods(t *T) {
	c := t.conn()
	asked := 0
	for _, m := range capabilityMethods {
		if !t.r.facts.declares(m.capability) || m.era != "" && m.era != c.era {
			continue
		}
		params := json.RawMessage(m.params)
		if m.method == "resources/subscribe" || m.method == "resources/unsubscribe" {
			// the first resource the server lists, or one that does not exist
			uri := "mcpv-check://no-such-resource/7"
			for _, it := range t.listed("resources/list") {
				if u, ok := str(member(it, "uri")); ok {
					uri = u
					break
				}
			}
			params, _ = json.Marshal(map[string]string{"uri": uri})
		}
		asked++
		if r, _ := t.request(c, m.method, params); r.Error != nil && r.Error.Code == mcp.CodeMethodNotFound && !namesTheUnknown(r.Error) {
			t.FailExchange(fmt.Sprintf("%s %s", m.method, params), errText(r.Error), "the server declares %s, but answers %s -32601 (Method not found)", m.capability, m.method)
		}
	}
	t.skipIf(asked == 0, "the server declares no capability with methods of its own beyond the lists")
	t.Note("%d methods asked", asked)
}

// notServed blocks t when e answers method -32601 though the server
// declares the capability the method belongs to: lifecycle.declared-
// methods names that defect, and what t wanted of the method it cannot
// judge.
func (t *T) notServed(method string, e *mcp.RPCError) {
	if e == nil || e.Code != mcp.CodeMethodNotFound || namesTheUnknown(e) || t.check.ID == "lifecycle.declared-methods" {
		return
	}
	for _, m := range capabilityMethods {
		t.blockIf(m.method == method && t.r.facts.declares(m.capability) && !t.answersWellFormed(m.method, m.params), "lifecycle.declared-methods", "%s is answered -32601, though the server declares %s", method, m.capability)
	}
}

// answersWellFormed asks method as lifecycle.declared-methods does, with
// params it takes: an answer but -32601 shows the method served, so that
// the -32601 the check got answered what its own request got wrong (rmcp's
// servers answer params they cannot read so).
func (t *T) answersWellFormed(method, params string) bool {
	if params == "" {
		return false
	}
	r, _ := t.request(t.conn(), method, json.RawMessage(params))
	return r.Error == nil || r.Error.Code != mcp.CodeMethodNotFound || namesTheUnknown(r.Error)
}

// namesTheUnknown reports a -32601 whose message names the tool, prompt,
// resource or task mcpv check asked about, all of whose names begin
// mcpv-check ("Unknown tool: mcpv-check-no-such-tool"): the method is
// served, and the server says "method not found" of the name it did not
// find, which is no sign of a method it lacks.
func namesTheUnknown(e *mcp.RPCError) bool {
	return strings.Contains(e.Message, "mcpv-check")
}
