package mcptest

import (
	"strings"
	"testing"
)

// The vocabulary writes its rows into the named spec in its own order,
// whatever the order given: what a fake declares, lists and answers to a
// call is the same both ways, and where two rows answer a call, the
// first row of the table's does.
func TestVocabularyOrder(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"no-tools", "list-changed", `"capabilities":{}`},
		{"no-task-cancel", "tasks=working", `"tasks":{"list":{},"requests":{"tools":{"call":{}}}}`},
		{"task-support=required", "tasks=completed", `"execution":{"taskSupport":"required"}`},
		{"updates=2", "no-tools", `"capabilities":{}`},
		{"typed=7", "tool-error", `"isError":true`},
		{"tool-error", "env-forms", `"structuredContent":{"env":{}}`},
		{"bad-answer=error", "rpc-error", `"error":{"code":-32602,"message":"Unknown tool: nope"}`},
		{"schema=deep:1", "typed=1", `{"name":"typed"`},
	} {
		var got [2]string
		for i, behaviours := range []string{tc.a + "," + tc.b, tc.b + "," + tc.a} {
			c := open(t, behaviours)
			got[i] = c.call(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`) +
				c.call(2, "tools/list", `{}`) + c.call(3, "tools/call", `{"name":"typed","arguments":{"n":1}}`)
		}
		if got[0] != got[1] {
			t.Errorf("%s,%s and %s,%s differ:\n%s\n%s", tc.a, tc.b, tc.b, tc.a, got[0], got[1])
		}
		if !strings.Contains(got[0], tc.want) {
			t.Errorf("%s,%s: no %s in\n%s", tc.a, tc.b, tc.want, got[0])
		}
	}
}

// A behaviour the vocabulary cannot read is refused, naming it, before
// any server runs.
func TestVocabularyRefuses(t *testing.T) {
	for bad, want := range map[string]string{
		"bogus":             `unknown fake behaviour "bogus"`,
		"hang,nope=1":       `unknown fake behaviour "nope"`,
		"interleave=0":      `interleave=0: "0": want N or N:tail`,
		"big=lots":          `big=lots: strconv.Atoi`,
		"updates=-1":        `updates=-1: "-1": want a count`,
		"tasks=working/":    `tasks=working/: unknown task status ""`,
		"schema=deep":       `schema=deep: want deep:N`,
		"app=nothing":       `app=nothing: want one of`,
		"slow-start=soon":   `slow-start=soon: "soon": want milliseconds`,
		"delay=-1s":         `delay=-1s: "-1s": want a duration`,
		"tail=10/400ms":     `unknown fake behaviour "tail"`,
		"app=valid,hang":    `hang does not apply to a spec server`,
		"app=valid,typed=1": `typed does not apply to a spec server`,
	} {
		if _, err := parseConfig(bad, nil, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", bad, err, want)
		}
	}
}
