package commands

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
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
