package mock_test

import (
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/mock"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
)

// FuzzParseResponses reads responses files (a mock's script) as a cloned
// repository may hold them: any bytes are read or refused without a
// panic, within memory in proportion to their size (YAML's aliases and
// deep nesting included), and a file read writes back (as mcpv serve
// --record writes one) to a file that reads as the same script.
//
//	go test ./internal/mock -run '^$' -fuzz '^FuzzParseResponses$' -fuzztime 1m
func FuzzParseResponses(f *testing.F) {
	testkit.SeedFuzz(f, []string{
		`server:
  serverInfo: {name: demo, version: 1.0.0}
  instructions: Call add to add.
  capabilities: {tools: {}, logging: {}}
tools:
  - name: add
    arguments: {a: 1}
    jq: '.b > 1'
    times: 1
    steps: [{wait: 1s}, {progress: {progress: 1, total: 2}}, {log: {level: info, data: hi}}, {notify: {method: notifications/tools/list_changed}}]
    result: {content: [{type: text, text: "3"}]}
  - name: book
    steps: [{ask: {method: elicitation/create, params: {message: When?}, timeout: 30}}]
    result-jq: '{content: [{type: text, text: $answers[0].content.date}]}'
  - name: fail
    error: {code: -32000, message: no, data: {why: x}}
resources:
  - uri: demo://readme
    resource: {uri: demo://readme, name: readme}
    result: {contents: [{uri: demo://readme, text: hello}]}
  - template: demo://items/{id}
    jq: '.id == "1"'
    result: {contents: []}
prompts:
  - name: greet
    arguments: {who: Ada}
    result: {messages: []}
completions:
  - ref: {type: ref/prompt, name: greet}
    argument: {name: who}
    result: {completion: {values: [Ada]}}
`,
		`{"tools": [{"name": "a", "result": {"n": 1.50, "big": 123456789012345678901234567890}}]}`,
		"tools:\n  - name: a\n    steps: [{wait: 6m}, {wait: 5m}]\n    result: {}\n",
		"tools:\n  - name: a\n    steps: [{ask: {method: tools/call}}]\n    result: {}\n",
		"tools:\n  - name: a\n    jq: 'def f: f; f'\n    result-jq: '[range(1e9)]'\n",
		"tools:\n  - name: a\n    error: {message: x}\n",
		"resources:\n  - template: 'x://{a}/{b*}{?c,d}'\n    result: {}\n",
		"tools:\n  - name: a\n    steps: [{wait: 1s, log: {level: info}}]\n    result: {}\n",
		"x: &r {content: []}\ntools:\n  - {name: a, result: *r}\n  - {name: b, result: *r}\n",
		"server: {serverInfo: 1, capabilities: []}\n",
		"tools: [{name: a, times: -1, result: {}}]\nunknown: 1\n",
	}, testkit.HostileYAML(), testkit.HostileJSON())
	f.Fuzz(func(t *testing.T, data []byte) {
		var r *mock.Responses
		var err error
		testkit.AllocBounded(t, len(data), 32<<20, 1024, func() { r, err = mock.ParseResponses(data) })
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a mistake of more than one line: %q", err)
			}
			return
		}
		testkit.Rewrites(t, r.Marshal(), func(text []byte) ([]byte, error) {
			back, err := mock.ParseResponses(text)
			if err != nil {
				return nil, err
			}
			return back.Marshal(), nil
		})
		m := mock.New(surface.Snapshot{}, r, mcp.Implementation{Name: "mcpv-mock", Version: "test"})
		m.Close()
	})
}
