package table

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/safetext"
)

var update = flag.Bool("update", false, "rewrite the golden tables in testdata")

// go generate ./... refreshes the golden tables (testdata).
//
//go:generate go test -run ^TestGolden -update .

// tools is a tools/list result with what servers send: titles in both
// places, required and optional arguments, a description over several
// lines, wide characters, and escapes a terminal would obey.
const tools = `{"tools":[
 {"name":"echo","title":"Echo Tool","description":"Echoes back the input string","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}},
 {"name":"get-sum","description":"Returns the sum of two numbers.\nBoth are required; the sum may be fractional.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"round":{"type":"boolean"}},"required":["a","b"]}},
 {"name":"search","annotations":{"title":"Search the web"},"description":"Search for pages that match a query, in the order a search engine ranks them, with their titles and snippets","inputSchema":{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"},"site":{"type":"string"},"language":{"type":"string"}},"required":["query"]}},
 {"name":"翻訳","description":"日本語のテキストを英語に翻訳します。長い説明が続きます。","inputSchema":{"type":"object","properties":{"テキスト":{"type":"string"}},"required":["テキスト"]}},
 {"name":"evil\u001b[2J","description":"clears \u001b]0;pwned\u0007 the screen \u202ereversed","inputSchema":{"type":"object"}},
 {"name":"no-schema","inputSchema":"not an object"}
]}`

const prompts = `{"prompts":[{"name":"greet","description":"Ask for a greeting.","arguments":[{"name":"name","description":"who to greet","required":true}]},{"name":"review","title":"Code review","arguments":[{"name":"code","required":true},{"name":"language"}]}],"nextCursor":"c2"}`

const resources = `{"resources":[{"uri":"demo://clock","name":"clock","title":"Clock","description":"The current time; subscribe to hear it change every 200ms.","mimeType":"text/plain"},{"uri":"file:///home/ada/project/README.md","name":"README.md","mimeType":"text/markdown"}]}`

const templates = `{"resourceTemplates":[{"uriTemplate":"demo://notes/{id}","name":"note","title":"Note by id","description":"A note; reading demo://notes/ID returns \"note ID\".","mimeType":"text/plain"}]}`

const info = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":false},"resources":{"subscribe":true,"listChanged":true},"logging":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}},"completions":{}},"serverInfo":{"name":"mcp-servers/everything","title":"Everything Reference Server","version":"2.0.0"},"instructions":"# Everything Server\n\nAudience: these instructions are written for an LLM integrating with the server."}`

// The tables of every list and of info, as a terminal of 80 columns, of
// 50, and a pipe (no width) show them, pinned as golden files.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table *Table
	}{
		{"tools", Tools([]byte(tools))},
		{"prompts", Prompts([]byte(prompts))},
		{"resources", Resources([]byte(resources))},
		{"templates", ResourceTemplates([]byte(templates))},
		{"info", Info([]byte(info))},
		{"one-tool", Tools([]byte(`{"name":"echo","description":"Echo the message back.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}`))},
		{"empty", Tools([]byte(`{"tools":[]}`))},
	} {
		for _, width := range []int{80, 50, 0} {
			var b strings.Builder
			if err := tc.table.Write(&b, width); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tc.name+"-"+map[int]string{80: "80", 50: "50", 0: "pipe"}[width]+".txt"), b.String())
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go generate ./internal/table writes it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("internal/table/%s is stale; go generate ./internal/table rewrites it if the change is intended (-golden +got):\n%s", filepath.ToSlash(path), d)
	}
}

// Every line fits the terminal, counted in the columns each character
// takes there, while the names and what may be cut at its narrowest fit;
// no name is ever cut.
func TestFitsTheWidth(t *testing.T) {
	for width := 13 + 2 + minCut + 2 + minCut; width <= 120; width++ {
		var b strings.Builder
		Tools([]byte(tools)).Write(&b, width)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 7 {
			t.Fatalf("width %d: %d lines, want a header and 6 rows:\n%s", width, len(lines), b.String())
		}
		for i, l := range lines {
			if safetext.Width(l) > width {
				t.Errorf("width %d: line %d takes %d columns: %q", width, i, safetext.Width(l), l)
			}
			if i == 0 {
				continue
			}
			if name := []string{"echo", "get-sum", "search", "翻訳", `evil\x1b[2J`, "no-schema"}[i-1]; l != name && !strings.HasPrefix(l, name+" ") {
				t.Errorf("width %d: line %d does not begin with its whole name: %q", width, i, l)
			}
		}
	}
	var b strings.Builder
	Tools([]byte(tools)).Write(&b, 0)
	if strings.Contains(b.String(), "…") {
		t.Errorf("with no width a cell was cut:\n%s", b.String())
	}
}

// What a server sends cannot reach the terminal as a control: escapes,
// bidirectional overrides and line breaks are shown escaped or as spaces.
func TestServerStringsMadeSafe(t *testing.T) {
	var b strings.Builder
	Tools([]byte(tools)).Write(&b, 0)
	out := b.String()
	for _, bad := range []string{"\x1b", "\a", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("the table holds %q:\n%s", bad, out)
		}
	}
	for _, shown := range []string{`evil\x1b[2J`, `clears \x1b]0;pwned\x07 the screen \u202ereversed`, "Returns the sum of two numbers. Both are required"} {
		if !strings.Contains(out, shown) {
			t.Errorf("the table does not show %q:\n%s", shown, out)
		}
	}
}
