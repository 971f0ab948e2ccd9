package commands

import (
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/exitcode"
)

// A cost step holds the surface to budgets in tokens: the whole and each
// tool named; what passes says the count, what fails says which budget
// and by how much, a tool budgeted that the server lacks fails too, and a
// budget that cannot be read is refused before any server starts.
func TestTestCostStep(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{
		"pass.yaml": demoServer + "steps:\n  - cost: {max: 100000, tools: {add: 1000}}\n",
		"fail.yaml": demoServer + "steps:\n  - cost: {max: 100, tools: {add: 10, deploy: 50}, tokenizer: cl100k, as: anthropic}\n",
		"bad.yaml":  demoServer + "steps:\n  - cost: {max: lots, tokenizer: claude}\n",
	})
	r := w.mcpv(t, "", "test", "pass.yaml")
	if r.code != 0 || !strings.Contains(r.stdout, "cost") {
		t.Fatalf("within budget: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = w.mcpv(t, "", "test", "fail.yaml")
	for _, want := range []string{"the surface costs ", "over its budget of 100", `tool "add" costs `, "over its budget of 10",
		`tool "deploy" has a budget of 50 tokens and the server lists no such tool`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("over budget: stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != exitcode.ToolError {
		t.Errorf("over budget: exit %d, want 1", r.code)
	}
	r = w.mcpv(t, "", "test", "bad.yaml")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "bad.yaml:5:17: max must be an integer") || !strings.Contains(r.stderr, "unknown tokenizer \"claude\"") {
		t.Errorf("a bad budget: exit %d, stderr %q", r.code, r.stderr)
	}
}
