package check

import (
	"encoding/json"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// A -32042 error's data as a hostile server may write it: only a list of
// URL elicitations, each with its elicitationId, keeps the rule.
func TestURLRequiredData(t *testing.T) {
	for data, want := range map[string]bool{
		`{"elicitations":[{"mode":"url","elicitationId":"e1","url":"https://example.com","message":"m"}]}`:    true,
		`{"elicitations":[{"mode":"url","elicitationId":"e1"},{"mode":"url","elicitationId":"e2"}],"more":1}`: true,
		``:                        false,
		`null`:                    false,
		`"elicitations"`:          false,
		`[]`:                      false,
		`{"elicitations":[]}`:     false,
		`{"elicitations":null}`:   false,
		`{"elicitations":[null]}`: false,
		`{"elicitations":{"mode":"url","elicitationId":"e1"}}`:                         false,
		`{"elicitations":[{"mode":"url","elicitationId":7}]}`:                          false,
		`{"elicitations":[{"mode":"URL","elicitationId":"e1"}]}`:                       false,
		`{"elicitations":[{"mode":"url","elicitationId":"e1"},{"mode":"form"}]}`:       false,
		`{"elicitations":[{"mode":"form","elicitationId":"e1","requestedSchema":{}}]}`: false,
	} {
		if got := urlRequired(json.RawMessage(data)); got != want {
			t.Errorf("%s: %v, want %v", data, got, want)
		}
	}
}

// Which _meta keys the two watches of key and value flag, of a result of
// each era.
func TestMetaWatches(t *testing.T) {
	reverse, trace := map[string]*Check{}, map[string]*Check{}
	for _, c := range Catalogue() {
		switch c.ID {
		case "jsonrpc.meta-reverse-dns":
			reverse[c.ID] = c
		case "modern.trace-context":
			trace[c.ID] = c
		}
	}
	if len(reverse) != 1 || len(trace) != 1 {
		t.Fatal("the catalogue lacks jsonrpc.meta-reverse-dns or modern.trace-context")
	}
	judge := func(c *Check, era, meta string) bool {
		s := seen{era: era, msg: mcp.Message{ID: json.RawMessage(`1`), Result: json.RawMessage(`{"_meta":` + meta + `}`)}}
		return c.watch(nil, s) != ""
	}
	for meta, want := range map[string]bool{
		`{"com.example/k":1}`:                       false,
		`{"io.modelcontextprotocol/serverInfo":{}}`: false,
		`{"a.b-c/d_e":1}`:                           false,
		`{"note":1,"example/x":1}`:                  false,
		`{"io.example.com/k":1}`:                    false, // io first: taken as reversed
		`{"example.com/k":1}`:                       true,
		`{"tools.example.dev/k":1}`:                 true,
		`{"com.example/a","b":1}`:                   false, // no JSON: nothing to judge
	} {
		if got := judge(reverse["jsonrpc.meta-reverse-dns"], "legacy", meta); got != want {
			t.Errorf("reverse DNS, %s: %v, want %v", meta, got, want)
		}
	}
	good := `"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"`
	for _, c := range []struct {
		era, meta string
		want      bool
	}{
		{"modern", `{"traceparent":` + good + `}`, false},
		{"modern", `{"traceparent":"00-0AF7651916CD43DD8448EB211C80319C-00F067AA0BA902B7-01"}`, true},
		{"modern", `{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01\n"}`, true},
		{"modern", `{"traceparent":7}`, true},
		{"modern", `{"traceparent":null}`, true},
		{"modern", `{"tracestate":"anything"}`, false},
		{"legacy", `{"traceparent":"not one"}`, false}, // 2025-11-25 has no such rule
	} {
		if got := judge(trace["modern.trace-context"], c.era, c.meta); got != c.want {
			t.Errorf("traceparent, %s %s: %v, want %v", c.era, c.meta, got, c.want)
		}
	}
}
