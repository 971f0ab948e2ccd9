package surface

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpv/mcpv/mcp"
)

func TestCheckResult(t *testing.T) {
	const typed = `{"name":"count","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},"required":["n"]}}`
	fail := func(rule, severity, msg string) []Finding {
		return []Finding{{Object: `tool "count"`, Rule: rule, Severity: severity, Message: msg}}
	}
	tests := []struct {
		name, tool, result string
		want               []Finding
	}{
		{"valid", typed, `{"content":[],"structuredContent":{"n":3,"tags":["a"]}}`, nil},
		{"no outputSchema", `{"name":"count","inputSchema":{"type":"object"}}`, `{"content":[]}`, nil},
		{"isError is exempt", typed, `{"content":[{"type":"text","text":"failed"}],"isError":true}`, nil},
		{"isError false is not", typed, `{"content":[],"isError":false}`,
			fail(RuleStructuredResult, SeverityError, "the result has no structuredContent, though the tool has an outputSchema")},
		{"no structuredContent", typed, `{"content":[{"type":"text","text":"3"}]}`,
			fail(RuleStructuredResult, SeverityError, "the result has no structuredContent, though the tool has an outputSchema")},
		{"wrong type", typed, `{"content":[],"structuredContent":{"n":"three"}}`,
			fail(RuleStructuredResult, SeverityError, `structuredContent at /n breaks "type": `)},
		{"nested", typed, `{"content":[],"structuredContent":{"n":1,"tags":["a",2]}}`,
			fail(RuleStructuredResult, SeverityError, `structuredContent at /tags/1 breaks "type": `)},
		{"missing property", typed, `{"content":[],"structuredContent":{}}`,
			fail(RuleStructuredResult, SeverityError, `structuredContent breaks "required": `)},
		{"null", typed, `{"content":[],"structuredContent":null}`,
			fail(RuleStructuredResult, SeverityError, `structuredContent breaks "type": `)},
		{"result no object", typed, `[]`,
			fail(RuleStructuredResult, SeverityError, "the result is not a JSON object")},
		{"invalid outputSchema", `{"name":"count","outputSchema":{"type":"object","properties":{"n":{"type":"numbr"}}}}`, `{"content":[],"structuredContent":{"n":1}}`,
			fail(RuleOutputSchema, SeverityError, "outputSchema is not a valid schema: ")},
		{"too costly to check", `{"name":"count","outputSchema":` + costlyLoop + `}`, `{"content":[],"structuredContent":"s"}`,
			fail(RuleStructuredResult, SeverityWarning, "structuredContent is not checked: ")},
		{"deep outputSchema", `{"name":"count","outputSchema":` + deepSchema(100) + `}`, `{"content":[],"structuredContent":{}}`,
			fail(RuleOutputSchema, SeverityWarning, "outputSchema is not checked: ")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckResult(t.Context(), json.RawMessage(tt.tool), json.RawMessage(tt.result))
			if len(got) == 1 && len(tt.want) == 1 && strings.HasSuffix(tt.want[0].Message, ": ") && strings.HasPrefix(got[0].Message, tt.want[0].Message) {
				got[0].Message = tt.want[0].Message
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckResult (-want +got):\n%s", diff)
			}
		})
	}
}

// The fixture's canned result for "report" breaks its outputSchema; the
// other tools with one answer in shape.
func TestCheckResultFromServer(t *testing.T) {
	c := serve(t, loadSpec(t, "bad.json"))
	tools, _, err := walk(t.Context(), c, mcp.Tools, 0) // Gather fails on its templates
	if err != nil {
		t.Fatal(err)
	}
	var findings []Finding
	for _, tool := range tools {
		params, _ := json.Marshal(map[string]any{"name": nameOf(tool), "arguments": map[string]any{}})
		res, err := c.Call(t.Context(), "tools/call", params)
		if err != nil {
			t.Fatalf("tools/call %s: %v", nameOf(tool), err)
		}
		if nameOf(tool) != "measure" { // its outputSchema is the lint fault
			findings = append(findings, CheckResult(t.Context(), tool, res)...)
		}
	}
	want := []Finding{{Object: `tool "report"`, Rule: RuleStructuredResult, Severity: SeverityError, Message: `structuredContent at /count breaks "type": `}}
	if len(findings) == 1 && strings.HasPrefix(findings[0].Message, want[0].Message) {
		findings[0].Message = want[0].Message
	}
	if diff := cmp.Diff(want, findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	// and the good server's structured result is in shape.
	good := serve(t, loadSpec(t, "good-v1.json"))
	snap, err := NewLister(good).Gather(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	res, err := good.Call(t.Context(), "tools/call", json.RawMessage(`{"name":"search","arguments":{"q":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if f := CheckResult(t.Context(), snap.Tools[0], res); len(f) != 0 {
		t.Errorf("good search result: %v", f)
	}
}

// costlyLoop loops back on itself through a chain of anyOf without
// moving into the value: checking a string ends with a CostError.
var costlyLoop = func() string {
	data, err := os.ReadFile(filepath.Join("testdata", "costly-loop.json"))
	if err != nil {
		panic(err)
	}
	return string(data)
}()

// A check the step's context ended is not a value that breaks the schema.
func TestCheckResultEnded(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errors.New("the step took longer than 1s"))
	got := CheckResult(ctx, json.RawMessage(`{"name":"count","outputSchema":{"type":"integer"}}`), json.RawMessage(`{"content":[],"structuredContent":"s"}`))
	want := []Finding{{Object: `tool "count"`, Rule: RuleStructuredResult, Severity: SeverityError, Message: "structuredContent is not checked: the step took longer than 1s"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckResult (-want +got):\n%s", diff)
	}
}
