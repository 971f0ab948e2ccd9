package cost

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpv/mcpv/internal/surface"
)

const weather = `{"name":"get_weather","title":"Weather","description":"Get the weather for a city.",
	"inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"The city <name>"}},"required":["city"]},
	"annotations":{"readOnlyHint":true},"_meta":{"x":1}}`

func TestToolText(t *testing.T) {
	o200k, _ := Get("o200k")
	for _, c := range []struct{ as, want string }{
		{"openai", `{"type":"function","function":{"name":"get_weather","description":"Get the weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string","description":"The city <name>"}},"required":["city"]}}}`},
		{"anthropic", `{"name":"get_weather","description":"Get the weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string","description":"The city <name>"}},"required":["city"]}}`},
		{"mcp", `{"name":"get_weather","title":"Weather","description":"Get the weather for a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"The city <name>"}},"required":["city"]},"annotations":{"readOnlyHint":true},"_meta":{"x":1}}`},
	} {
		ct := &Counter{Encoding: o200k, As: c.as}
		got, err := ct.Text(Tool, json.RawMessage(weather))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, string(got)); diff != "" {
			t.Errorf("--as %s (-want +got):\n%s", c.as, diff)
		}
	}
}

func TestToolWithoutDescriptionOrSchema(t *testing.T) {
	o200k, _ := Get("o200k")
	ct := &Counter{Encoding: o200k, As: "openai"}
	got, _ := ct.Text(Tool, json.RawMessage(`{"name":"x\u00e9\"<"}`))
	if want := `{"type":"function","function":{"name":"xé\"<","parameters":{"type":"object"}}}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func surfaceOf(t *testing.T) surface.Server {
	instr := "Use get_weather for the weather."
	return surface.Server{
		Instructions: &instr,
		Snapshot: surface.Snapshot{
			Tools:             []json.RawMessage{json.RawMessage(weather), json.RawMessage(`{"name":"ping","inputSchema":{"type":"object"}}`)},
			Prompts:           []json.RawMessage{json.RawMessage(`{"name":"greet","description":"Say hello","arguments":[{"name":"who","required":true}],"_meta":{"big":"` + strings.Repeat("x ", 100) + `"}}`)},
			ResourceTemplates: []json.RawMessage{json.RawMessage(`{"uriTemplate":"file:///{path}","name":"file","mimeType":"text/plain"}`)},
		},
	}
}

func TestServerItems(t *testing.T) {
	o200k, _ := Get("o200k")
	ct := &Counter{Encoding: o200k, As: "openai"}
	items, err := ct.Server("demo", surfaceOf(t))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, it := range items {
		kinds = append(kinds, it.Kind+" "+it.Name)
		if it.Server != "demo" || it.Tokens <= 0 {
			t.Errorf("%+v", it)
		}
	}
	b, _ := ct.Text(Tool, json.RawMessage(weather))
	if n, _ := o200k.Count(string(b)); n != items[0].Tokens {
		t.Errorf("get_weather: %d tokens, its text has %d", items[0].Tokens, n)
	}
	want := []string{"tool get_weather", "tool ping", "prompt greet", "resource-template file", "instructions instructions"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if d, _ := o200k.Count("Get the weather for a city."); items[0].Description != d {
		t.Errorf("description: %d tokens, want %d", items[0].Description, d)
	}
	// The prompt's _meta is no part of what a host sends in the openai
	// form, but is in the mcp form.
	mcpForm := &Counter{Encoding: o200k, As: "mcp"}
	all, _ := mcpForm.Server("demo", surfaceOf(t))
	if all[2].Tokens < items[2].Tokens+100 {
		t.Errorf("prompt: %d tokens as mcp, %d as openai", all[2].Tokens, items[2].Tokens)
	}
	if all[0].Tokens <= items[0].Tokens {
		t.Errorf("tool: %d tokens as mcp (annotations, _meta), %d as openai", all[0].Tokens, items[0].Tokens)
	}
}

func TestReport(t *testing.T) {
	items := []Item{
		{Server: "a", Kind: Tool, Name: "x", Tokens: 10},
		{Server: "b", Kind: Tool, Name: "y", Tokens: 30},
		{Server: "a", Kind: Instructions, Name: "instructions", Tokens: 5},
	}
	r := NewReport("o200k_base", "openai", items, true)
	if r.Total != 45 {
		t.Errorf("total %d", r.Total)
	}
	if diff := cmp.Diff([]ServerTotal{{"a", 15, 2}, {"b", 30, 1}}, r.Servers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if got := ByCost(items); got[0].Name != "y" || got[1].Name != "x" || got[2].Name != "instructions" {
		t.Errorf("by cost: %+v", got)
	}
	if got, want := r.Summary(), "45 tokens (o200k_base, as openai): 2 tools, 0 prompts, 0 resource templates, instructions on 2 servers"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if b, _ := json.Marshal(NewReport("o200k_base", "openai", nil, false)); string(b) != `{"tokenizer":"o200k_base","as":"openai","total":0,"items":[]}` {
		t.Errorf("empty report: %s", b)
	}
}

func TestByPrefix(t *testing.T) {
	items := []Item{{Kind: Tool, Name: "github__search"}, {Kind: Prompt, Name: "fs__read__all"}, {Kind: Tool, Name: "plain"}, {Kind: Instructions, Name: "instructions"}}
	ByPrefix(items, "__")
	var got []string
	for _, it := range items {
		got = append(got, it.Server)
	}
	if diff := cmp.Diff([]string{"github", "fs", "", ""}, got); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

// A long description is written and counted as a short one is, whether
// its literal is copied as it is or decoded and encoded a run at a time
// (an escape that encoding/json does not write, \u00e9), and counted where
// the counter's buffer holds it.
func TestLongDescriptionWrittenAndCountedWhole(t *testing.T) {
	o200k, _ := Get("o200k")
	text := strings.Repeat("Reads é files\n\"quoted\" \\ <b>\u2028 and 😀, ", 9000) // past quoteRun, runs cut anywhere
	for _, lit := range []string{rawjsonEncode(t, text), strings.ReplaceAll(rawjsonEncode(t, text), "é", `\u00e9`)} {
		raw := json.RawMessage(`{"name":"long","description":` + lit + `}`)
		ct := &Counter{Encoding: o200k, As: "openai"}
		got, err := ct.Text(Tool, raw)
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"type":"function","function":{"name":"long","description":` + rawjsonEncode(t, text) + `,"parameters":{"type":"object"}}}`; string(got) != want {
			t.Errorf("the text differs from encoding/json's, for %.40s...", lit)
		}
		it, err := ct.item(Tool, raw)
		if err != nil {
			t.Fatal(err)
		}
		tokens, _ := o200k.Count(`{"type":"function","function":{"name":"long","description":` + rawjsonEncode(t, text) + `,"parameters":{"type":"object"}}}`)
		description, _ := o200k.Count(text)
		if it.Tokens != tokens || it.Description != description {
			t.Errorf("counted %d and %d tokens, want %d and %d", it.Tokens, it.Description, tokens, description)
		}
	}
}

func rawjsonEncode(t *testing.T, s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
