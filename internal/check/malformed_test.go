package check

import (
	"strings"
	"testing"
)

// A member of an answer that does not decode is the check's finding, not
// a member left out: a list or completions served though undeclared,
// whose items are no array, fail rather than pass as empty.
func TestMalformedAnswerIsAFinding(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		id     string
		change map[string]string
	}{
		{"lifecycle.undeclared-prompts", map[string]string{"capabilities": `{"tools":{},"resources":{"subscribe":true},"logging":{},"completions":{}}`,
			"serveUndeclared": `["prompts/list"]`, "answers": `{"prompts/list":{"prompts":"none"}}`}},
		{"lifecycle.undeclared-completions", map[string]string{"capabilities": `{"tools":{},"prompts":{},"resources":{"subscribe":true},"logging":{}}`,
			"serveUndeclared": `["completion/complete"]`, "answers": `{"completion/complete":{"completion":{"values":{"a":1}}}}`}},
	} {
		t.Run(c.id, func(t *testing.T) {
			t.Parallel()
			r := runChecks(t, fake{transport: "stdio", change: c.change}, c.id)[c.id]
			if r.Status != Failed || !strings.Contains(r.Message, "of the wrong shape") {
				t.Errorf("%s", describeResult(r))
			}
		})
	}
}
