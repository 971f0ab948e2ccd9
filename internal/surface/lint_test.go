package surface

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func lint(t *testing.T, spec string) []Finding {
	t.Helper()
	c := serve(t, parseSpec(t, spec))
	findings, err := NewLister(c).Lint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return findings
}

func TestLintGoodServersAreClean(t *testing.T) {
	for _, name := range []string{"good-v1.json", "good-v2-breaking.json"} {
		t.Run(name, func(t *testing.T) {
			findings, err := NewLister(serve(t, loadSpec(t, name))).Lint(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(findings) != 0 {
				t.Errorf("findings: %v", findings)
			}
		})
	}
}

// badFindings are the faults planted in testdata/bad.json, one per rule
// that needs only listing. The output-schema message goes on with the
// validator's words, which are not pinned here.
var badFindings = []Finding{
	{Object: "capabilities", Rule: RuleCapabilities, Severity: SeverityError, Message: `prompts/list answers, but the "prompts" capability is not declared`},
	{Object: "server", Rule: RulePagination, Severity: SeverityError, Message: `resources/list: page 2 repeats nextCursor "again", so the list never ends`},
	{Object: "server", Rule: RuleList, Severity: SeverityError, Message: `resources/templates/list: page 1: "resourceTemplates" is not an array`},
	{Object: `tool "search files"`, Rule: RuleToolName, Severity: SeverityError, Message: `name has characters other than A-Z a-z 0-9 _ - .: ' '`},
	{Object: `tool "shape"`, Rule: RuleInputSchema, Severity: SeverityError, Message: `inputSchema has type "array"; it must be "object"`},
	{Object: `tool "measure"`, Rule: RuleOutputSchema, Severity: SeverityError, Message: "outputSchema is not a valid schema: "},
	{Object: `tool "undocumented"`, Rule: RuleDescription, Severity: SeverityWarning, Message: "has no description"},
}

// checkBadFindings compares findings with badFindings, taking a message
// that ends in ": " as the start of the message.
func checkBadFindings(t *testing.T, findings []Finding) {
	t.Helper()
	got := append([]Finding(nil), findings...)
	for i := range got {
		if i < len(badFindings) && strings.HasSuffix(badFindings[i].Message, ": ") && strings.HasPrefix(got[i].Message, badFindings[i].Message) {
			got[i].Message = badFindings[i].Message
		}
	}
	if diff := cmp.Diff(badFindings, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func TestLintBadServer(t *testing.T) {
	c := serve(t, loadSpec(t, "bad.json"))
	findings, err := NewLister(c).Lint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	checkBadFindings(t, findings)
	// measure's outputSchema: the validator names where the schema breaks.
	if m := findings[5].Message; !strings.Contains(m, "/properties/n/type") {
		t.Errorf("output-schema finding %q does not say where", m)
	}
}

func TestLintToolNames(t *testing.T) {
	long := strings.Repeat("x", 129)
	findings := lint(t, `{"tools":[
		{"name":"ok_Name-1.2","description":"d","inputSchema":{"type":"object"}},
		{"name":"","description":"d","inputSchema":{"type":"object"}},
		{"description":"d","inputSchema":{"type":"object"}},
		{"name":"`+long+`","description":"d","inputSchema":{"type":"object"}},
		{"name":"`+strings.Repeat("y", 128)+`","description":"d","inputSchema":{"type":"object"}},
		{"name":"a/b,c/é","description":"d","inputSchema":{"type":"object"}},
		{"name":"twice","description":"d","inputSchema":{"type":"object"}},
		{"name":"twice","description":"d","inputSchema":{"type":"object"}},
		"not a tool"]}`)
	want := []Finding{
		{Object: `tool ""`, Rule: RuleToolName, Severity: SeverityError, Message: "name is empty"},
		{Object: "tool #3", Rule: RuleToolName, Severity: SeverityError, Message: "has no name"},
		{Object: `tool "` + long + `"`, Rule: RuleToolName, Severity: SeverityError, Message: "name is 129 characters long, more than 128"},
		{Object: `tool "a/b,c/é"`, Rule: RuleToolName, Severity: SeverityError, Message: `name has characters other than A-Z a-z 0-9 _ - .: '/' ',' 'é'`},
		{Object: `tool "twice"`, Rule: RuleToolName, Severity: SeverityError, Message: "name is listed 2 times"},
		{Object: "tool #9", Rule: RuleList, Severity: SeverityError, Message: "is not a JSON object"},
	}
	if diff := cmp.Diff(want, findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// deepSchema is an object schema with n object schemas nested under "a".
func deepSchema(n int) string {
	s := `{"type":"object"}`
	for range n {
		s = `{"type":"object","properties":{"a":` + s + `}}`
	}
	return s
}

func TestLintSchemas(t *testing.T) {
	tool := func(name, rest string) string {
		return `{"name":"` + name + `","description":"d"` + rest + `}`
	}
	spec := `{"tools":[` + strings.Join([]string{
		tool("no-input", ``),
		tool("null-input", `,"inputSchema":null`),
		tool("string-input", `,"inputSchema":"object"`),
		tool("untyped-input", `,"inputSchema":{"properties":{}}`),
		tool("invalid-input", `,"inputSchema":{"type":"object","required":"x"}`),
		tool("deep-input", `,"inputSchema":`+deepSchema(100)),
		tool("dialect-input", `,"inputSchema":{"$schema":"https://example.com/my-dialect","type":"object"}`),
		tool("draft-07", `,"inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"number","exclusiveMinimum":true,"description":"d"}}}`),
		tool("array-output", `,"inputSchema":{"type":"object"},"outputSchema":{"type":"array"}`),
		tool("untyped-output", `,"inputSchema":{"type":"object"},"outputSchema":{}`),
		tool("null-output", `,"inputSchema":{"type":"object"},"outputSchema":null`),
		tool("args", `,"inputSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"description":" "},"c":{"description":"C."},"d":{"$ref":"#/$defs/d"}},"$defs":{"d":{"description":"D."}}}`),
	}, ",") + `]}`
	want := []Finding{
		{Object: `tool "no-input"`, Rule: RuleInputSchema, Severity: SeverityError, Message: "has no inputSchema"},
		{Object: `tool "null-input"`, Rule: RuleInputSchema, Severity: SeverityError, Message: "inputSchema is null"},
		{Object: `tool "string-input"`, Rule: RuleInputSchema, Severity: SeverityError, Message: "inputSchema is not a JSON object"},
		{Object: `tool "untyped-input"`, Rule: RuleInputSchema, Severity: SeverityError, Message: `inputSchema has no "type"; it must be "object"`},
		{Object: `tool "invalid-input"`, Rule: RuleInputSchema, Severity: SeverityError, Message: "inputSchema is not a valid schema: "},
		{Object: `tool "deep-input"`, Rule: RuleInputSchema, Severity: SeverityWarning, Message: "inputSchema is not checked: "},
		{Object: `tool "deep-input"`, Rule: RuleDescription, Severity: SeverityWarning, Message: `argument "a" has no description`},
		{Object: `tool "dialect-input"`, Rule: RuleInputSchema, Severity: SeverityWarning, Message: `inputSchema is not checked: mcpv does not know its dialect "https://example.com/my-dialect"`},
		{Object: `tool "draft-07"`, Rule: RuleInputSchema, Severity: SeverityError, Message: "inputSchema is not a valid schema: "},
		{Object: `tool "array-output"`, Rule: RuleOutputSchema, Severity: SeverityError, Message: `outputSchema has type "array"; in protocol 2025-11-25 its root must be "object"`},
		{Object: `tool "untyped-output"`, Rule: RuleOutputSchema, Severity: SeverityError, Message: `outputSchema has no type; in protocol 2025-11-25 its root must be "object"`},
		{Object: `tool "null-output"`, Rule: RuleOutputSchema, Severity: SeverityError, Message: "outputSchema is null"},
		{Object: `tool "args"`, Rule: RuleDescription, Severity: SeverityWarning, Message: `argument "b" has no description`},
		{Object: `tool "args"`, Rule: RuleDescription, Severity: SeverityWarning, Message: `argument "a" has no description`},
	}
	got := lint(t, spec)
	for i := range got {
		if i < len(want) && strings.HasSuffix(want[i].Message, ": ") && strings.HasPrefix(got[i].Message, want[i].Message) {
			got[i].Message = want[i].Message
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func TestLintOutputSchemaInTheModernEra(t *testing.T) {
	// 2026-07-28 takes any schema as an outputSchema.
	findings := lint(t, `{"era":"modern","tools":[
		{"name":"list-users","description":"d","inputSchema":{"type":"object"},"outputSchema":{"type":"array","items":{"type":"string"}}}]}`)
	if len(findings) != 0 {
		t.Errorf("findings: %v", findings)
	}
}

func TestLintPromptsAndTemplates(t *testing.T) {
	findings := lint(t, `{
		"prompts":[
			{"name":"ok","description":"d","arguments":[{"name":"a","description":"A."}]},
			{"name":"bare","arguments":[{"name":"x"},{"description":"no name"}]},
			{"description":"d"},
			{"name":"dup","description":"d"},{"name":"dup","description":"d"},
			{"name":"bad-args","description":"d","arguments":{"x":{}}},
			7],
		"resourceTemplates":[
			{"name":"ok","uriTemplate":"file:///{p}"},
			{"name":"no-uri"},
			{"uriTemplate":"x:///{y}"},
			[]]}`)
	want := []Finding{
		{Object: `prompt "bare"`, Rule: RuleDescription, Severity: SeverityWarning, Message: "has no description"},
		{Object: `prompt "bare"`, Rule: RuleDescription, Severity: SeverityWarning, Message: `argument "x" has no description`},
		{Object: `prompt "bare"`, Rule: RuleList, Severity: SeverityError, Message: "argument #2 has no name"},
		{Object: "prompt #3", Rule: RuleList, Severity: SeverityError, Message: "has no name"},
		{Object: `prompt "dup"`, Rule: RuleList, Severity: SeverityError, Message: "name is listed 2 times"},
		{Object: `prompt "bad-args"`, Rule: RuleList, Severity: SeverityError, Message: "arguments is not an array"},
		{Object: "prompt #7", Rule: RuleList, Severity: SeverityError, Message: "is not a JSON object"},
		{Object: "resource template #2", Rule: RuleList, Severity: SeverityError, Message: "has no uriTemplate"},
		{Object: `resource template "x:///{y}"`, Rule: RuleList, Severity: SeverityError, Message: "has no name"},
		{Object: "resource template #4", Rule: RuleList, Severity: SeverityError, Message: "is not a JSON object"},
	}
	if diff := cmp.Diff(want, findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func TestLintLists(t *testing.T) {
	tests := []struct {
		name, spec string
		want       []Finding
	}{
		{"declared but not found",
			`{"capabilities":{"tools":{},"resources":{}},"methodNotFound":["tools/list","resources/templates/list"]}`,
			[]Finding{
				{Object: "capabilities", Rule: RuleCapabilities, Severity: SeverityWarning, Message: `"tools" is declared, but tools/list answers method not found (taken as an empty list)`},
				{Object: "capabilities", Rule: RuleCapabilities, Severity: SeverityWarning, Message: `"resources" is declared, but resources/templates/list answers method not found (taken as an empty list)`},
			}},
		{"served but not declared",
			`{"capabilities":{},"serveUndeclared":["tools/list","resources/list","resources/templates/list"]}`,
			[]Finding{
				{Object: "capabilities", Rule: RuleCapabilities, Severity: SeverityError, Message: `tools/list answers, but the "tools" capability is not declared`},
				{Object: "capabilities", Rule: RuleCapabilities, Severity: SeverityError, Message: `resources/list answers, but the "resources" capability is not declared`},
				{Object: "capabilities", Rule: RuleCapabilities, Severity: SeverityError, Message: `resources/templates/list answers, but the "resources" capability is not declared`},
			}},
		{"listChanged and subscribe are not checked",
			`{"capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true}}}`,
			nil},
		{"a cursor that never ends",
			`{"capabilities":{"tools":{}},"endlessCursor":["tools/list"]}`,
			[]Finding{{Object: "server", Rule: RulePagination, Severity: SeverityError, Message: "tools/list: pages 1 to 1000 bring nothing new, though each has a new nextCursor, so the list never ends"}}},
		{"a page without its list",
			`{"capabilities":{"prompts":{}},"answers":{"prompts/list":{"prompts":null}}}`,
			[]Finding{{Object: "server", Rule: RuleList, Severity: SeverityError, Message: `prompts/list: page 1: "prompts" is null, not an array`}}},
		{"a list answered with an error",
			`{"capabilities":{"resources":{}},"errors":{"resources/list":{"code":-32603,"message":"connect ECONNREFUSED"}}}`,
			[]Finding{{Object: "server", Rule: RuleListRefused, Severity: SeverityError, Message: "resources/list: server error -32603: connect ECONNREFUSED"}}},
		{"a cursor that is no string",
			`{"capabilities":{"prompts":{}},"answers":{"prompts/list":{"prompts":[],"nextCursor":2}}}`,
			[]Finding{{Object: "server", Rule: RuleList, Severity: SeverityError, Message: `prompts/list: page 1: nextCursor is not a string`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, lint(t, tt.spec)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLintPagesAndRules(t *testing.T) {
	// Tools over several pages are all checked.
	findings := lint(t, `{"pageSize":1,"tools":[
		{"name":"a","description":"d","inputSchema":{"type":"object"}},
		{"name":"b","inputSchema":{"type":"object"}},
		{"name":"c d","description":"d","inputSchema":{"type":"object"}}]}`)
	want := []Finding{
		{Object: `tool "b"`, Rule: RuleDescription, Severity: SeverityWarning, Message: "has no description"},
		{Object: `tool "c d"`, Rule: RuleToolName, Severity: SeverityError, Message: `name has characters other than A-Z a-z 0-9 _ - .: ' '`},
	}
	if diff := cmp.Diff(want, findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func TestLintWhenTheServerIsGone(t *testing.T) {
	c := serve(t, loadSpec(t, "good-v1.json"))
	c.Close(context.Background())
	if _, err := NewLister(c).Lint(t.Context()); err == nil {
		t.Fatal("Lint on a closed session: no error")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := NewLister(serve(t, loadSpec(t, "good-v1.json"))).Lint(ctx); err == nil {
		t.Fatal("Lint with a cancelled context: no error")
	}
}

func TestFindingString(t *testing.T) {
	f := Finding{Object: `tool "a b"`, Rule: RuleToolName, Severity: SeverityError, Message: "name has characters other than A-Z a-z 0-9 _ - .: ' '"}
	if got, want := f.String(), `error: tool "a b": name has characters other than A-Z a-z 0-9 _ - .: ' ' [tool-name]`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
