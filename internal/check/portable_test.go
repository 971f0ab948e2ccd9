package check

import (
	"strings"
	"testing"
)

// portableTool is a tool whose input schema is the one given.
func portableTool(schema string) map[string]string {
	return map[string]string{"tools": `[{"name":"a","description":"A tool.","inputSchema":` + schema + `}]`}
}

const (
	closedSchema = `{"type":"object","properties":{"x":{"type":"string","description":"X."}},"required":["x"],"additionalProperties":false}`
	openSchema   = `{"type":"object","properties":{"x":{"type":"string","description":"X."}},"required":["x"]}`
)

func portableBroken() []brokenCase {
	host := func(id, good, bad string) brokenCase {
		return brokenCase{id: "portable." + id, fake: fake{transport: "stdio", change: portableTool(good), portable: []string{id}}, break_: portableTool(bad)}
	}
	return []brokenCase{
		host("openai", closedSchema, openSchema),
		host("anthropic", closedSchema, strings.Replace(closedSchema, `"type":"string"`, `"type":"string","maxLength":9`, 1)),
		host("gemini", openSchema, closedSchema),
	}
}

func addPortableCases() { brokenCases = append(brokenCases, portableBroken()...) }

// A finding names where the schema breaks the host's rule, and quotes
// the rule; without --portable the checks are skipped, saying how to ask
// for them; a host's rule broken is a warning without --strict.
func TestPortableReport(t *testing.T) {
	t.Parallel()
	r := runChecks(t, fake{transport: "stdio", change: portableTool(openSchema), portable: []string{"openai"}}, "portable")
	if got := r["portable.openai"]; got.Status != Failed || !strings.Contains(got.Message, `tool "a" inputSchema`) || !strings.Contains(got.Message, "additionalProperties: false must always be set in objects") {
		t.Errorf("%s", describeResult(got))
	}
	if got := r["portable.gemini"]; got.Status != Skipped || !strings.Contains(got.Message, "not among") {
		t.Errorf("a host not named: %s", describeResult(got))
	}
	if got := runChecks(t, fake{transport: "stdio"}, "portable.openai")["portable.openai"]; got.Status != Skipped || !strings.Contains(got.Message, "--portable") {
		t.Errorf("no --portable: %s", describeResult(got))
	}
}
