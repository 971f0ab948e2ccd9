package commands

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// One tool at a time: the names and first lines of every tool, then one
// tool's arguments as a usage block from its schemas, with a server; call's
// own help without one; an unknown tool is exit 3 with the nearest name.
func TestOneToolAtATime(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", append([]string{"list-tools", "--names"}, demo()...)...)
	var names struct {
		Tools []map[string]string
	}
	if err := json.Unmarshal([]byte(r.stdout), &names); err != nil || r.code != 0 || len(names.Tools) < 5 {
		t.Fatalf("--names: exit %d, %s (%v)", r.code, r.stdout, err)
	}
	for _, tool := range names.Tools {
		if tool["name"] == "" || len(tool) > 2 || strings.Contains(tool["description"], "\n") {
			t.Errorf("--names: %v", tool)
		}
	}
	r = mcpv(t, "", append([]string{"call", "add", "a=1", "--help"}, demo()...)...)
	for _, want := range []string{"Usage: mcpv call add a=NUMBER b=NUMBER [key=value ...] -- SERVER\n", "\nAdd two numbers.\n", "\n  a=NUMBER  required; first addend\n", "Returns (structuredContent):\n  sum: NUMBER  required"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("call add --help: exit %d, no %q in:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	r = mcpv(t, "", append([]string{"call", "slow", "--help"}, demo()...)...)
	if !strings.Contains(r.stdout, "seconds=NUMBER  default 5;") || strings.Contains(r.stdout, "required") {
		t.Errorf("call slow --help: %s", r.stdout)
	}
	if r := mcpv(t, "", "call", "add", "--help"); r.code != 0 || !strings.Contains(r.stdout, "Usage: mcpv call <tool>") {
		t.Errorf("call --help with no server: exit %d, %s", r.code, r.stdout)
	}
	if r := mcpv(t, "", append([]string{"call", "ad", "--help"}, demo()...)...); r.code != 3 || !strings.Contains(r.stderr, `"add"`) {
		t.Errorf("an unknown tool: exit %d, %s", r.code, r.stderr)
	}
}

// Words that only look like a tool's help are left as they are.
func TestToolHelpWords(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		served bool
		want   []string
	}{
		{[]string{"call", "echo", "message=hi", "--help"}, true, []string{"list-tools", "echo", "--usage"}},
		{[]string{"-u", "http://x/mcp", "call", "echo", "-h"}, false, []string{"-u", "http://x/mcp", "list-tools", "echo", "--usage"}},
		{[]string{"call", "echo", "--help", "-s", "gh"}, false, []string{"list-tools", "echo", "--usage", "-s", "gh"}},
		{[]string{"call", "echo", "--help"}, false, []string{"call", "echo", "--help"}},
		{[]string{"call", "--help"}, true, []string{"call", "--help"}},
		{[]string{"call", "echo", "message=--help"}, true, []string{"call", "echo", "message=--help"}},
		{[]string{"-s", "call", "list-tools", "--help"}, true, []string{"-s", "call", "list-tools", "--help"}},
	} {
		if got := toolHelp(tt.args, tt.served); !slices.Equal(got, tt.want) {
			t.Errorf("%q (served %v): %q, want %q", tt.args, tt.served, got, tt.want)
		}
	}
}

// A hostile server's schema makes no usage block that hurts: its escapes
// and line breaks are shown escaped on one line, a deep nesting of
// arrays and a huge enum are cut, and what it sends is still said.
func TestToolUsageHostile(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"type":"array","items":`, 5000) + `{"type":"string"}` + strings.Repeat("}", 5000)
	enum := make([]string, 5000)
	for i := range enum {
		enum[i] = fmt.Sprintf("%q", fmt.Sprint(i))
	}
	schema := `{"type":"object","required":["a\u001b[31m"],"properties":{"a\u001b[31m":{"type":"string","description":"evil\u001b]0;title\u0007\nsecond line"},` +
		`"deep":` + deep + `,"pick":{"enum":[` + strings.Join(enum, ",") + `]}}}`
	out := usageOf(t, schema, "desc\u001b[2J")
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("a raw control reached the block:\n%q", out)
	}
	for _, want := range []string{"deep=JSON.....", "and 4988 more"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "second line") {
		t.Errorf("a description's second line is shown:\n%s", out)
	}
}

// A schema nested thousands deep costs a usage block what one a few levels
// deep costs: each level it shows is decoded once, from its own bytes, and
// none below them; a schema 5000 arrays deep took a decode of everything
// below each of its levels (seconds of work).
func TestToolUsageReadsEachLevelOnce(t *testing.T) {
	allocs := func(depth int) float64 {
		deep := strings.Repeat(`{"type":"array","items":`, depth) + `{"type":"string"}` + strings.Repeat("}", depth)
		raw, _ := json.Marshal(map[string]any{"name": "t", "inputSchema": json.RawMessage(`{"type":"object","required":["deep"],"properties":{"deep":` + deep + `}}`)})
		return testing.AllocsPerRun(2, func() {
			if _, err := toolUsage(mcp.Tool{Name: "t", Raw: raw}); err != nil {
				t.Fatal(err)
			}
		})
	}
	// The decoder's stack grows with the depth: a few allocations for
	// each doubling, in each of the few decodes.
	if shallow, deep := allocs(10), allocs(5000); deep > shallow+200 {
		t.Errorf("a usage block of a schema 5000 deep: %.0f allocations, %.0f for one 10 deep", deep, shallow)
	}
}

// A tool's help is cut to a screen, whatever the server sends, and says
// what it left out and how to see it all: a description to 40 lines or
// 4 KiB, each argument to a line, a hundred arguments; what is shown
// begins as the server wrote it.
func TestToolUsageCutToAScreen(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 1000 {
		lines = append(lines, fmt.Sprintf("IMPORTANT line %d: call this tool first.", i))
	}
	long := strings.Repeat("x", 64<<10)
	props := []string{`"k":{"type":"string","description":"` + long + `"}`, `"` + long + `":{"type":"string"}`, `"e":{"enum":["` + long + `"]}`}
	for i := range 1000 {
		props = append(props, fmt.Sprintf(`"p%04d":{"type":"integer"}`, i))
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	for name, desc := range map[string]string{"many lines": strings.Join(lines, "\n"), "one long line": long} {
		out := usageOf(t, schema, desc)
		if len(out) > 64<<10 || strings.Count(out, "\n") > 200 {
			t.Errorf("%s: a block of %d bytes, %d lines", name, len(out), strings.Count(out, "\n"))
		}
		if !strings.HasPrefix(strings.SplitN(out, "\n", 4)[2], desc[:30]) {
			t.Errorf("%s: the description does not begin as written:\n%.300s", name, out)
		}
		for _, want := range []string{"more bytes", "mcpv list-tools t -r -q .description -- SERVER", "and 903 more", "mcpv list-tools t -q .inputSchema -- SERVER"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in:\n%.6000s", name, want, out)
			}
		}
	}
	if out := usageOf(t, `{}`, strings.Join(lines[:40], "\n")); strings.Contains(out, "left out") || !strings.Contains(out, "line 39:") {
		t.Errorf("a description of 40 lines is cut:\n%s", out)
	}
	desc, _ := json.Marshal(strings.Join(lines, "\n") + long)
	r := mcpv(t, "", append([]string{"call", "t", "--help"}, specFake(t, `{"era":"initialize","tools":[{"name":"t","description":`+string(desc)+`,"inputSchema":`+schema+`}]}`)...)...)
	if r.code != 0 || len(r.stdout) > 64<<10 || !strings.Contains(r.stdout, "left out; all of it: mcpv list-tools t -r -q .description -- SERVER") {
		t.Errorf("call t --help: exit %d, %d bytes: %.600s%s", r.code, len(r.stdout), r.stdout, r.stderr)
	}
}

// usageOf is the usage block of a tool t with the input schema and the
// description given.
func usageOf(t *testing.T, schema, desc string) string {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"name": "t", "description": desc, "inputSchema": json.RawMessage(schema)})
	out, err := toolUsage(mcp.Tool{Name: "t", Raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A tool definition whose members are of the wrong type is a tools/list
// the server broke: --names and a tool's usage block fail with one line
// that says which list and which tool, exit 4, and print nothing.
func TestToolUsageMalformed(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ tool, arg string }{
		"names, a description not a string":            {`{"name":"t","description":7,"inputSchema":{"type":"object"}}`, "--names"},
		"usage, properties not an object":              {`{"name":"t","inputSchema":{"type":"object","properties":5}}`, "t"},
		"usage, an output schema not one":              {`{"name":"t","inputSchema":{"type":"object"},"outputSchema":"x"}`, "t"},
		"usage, a description not a string":            {`{"name":"t","description":["a"],"inputSchema":{"type":"object"}}`, "t"},
		"usage, a property's schema not one":           {`{"name":"t","inputSchema":{"type":"object","properties":{"n":"x"}}}`, "t"},
		"usage, a property's description not a string": {`{"name":"t","inputSchema":{"type":"object","properties":{"n":{"type":"string","description":5}}}}`, "t"},
	} {
		args := []string{"list-tools", c.arg}
		if c.arg == "t" {
			args = append(args, "--usage")
		}
		r := mcpv(t, "", append(args, specFake(t, `{"era":"initialize","tools":[`+c.tool+`]}`)...)...)
		if r.code != 4 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "mcpv: tools/list") || !strings.Contains(r.stderr, "malformed result") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}
}
