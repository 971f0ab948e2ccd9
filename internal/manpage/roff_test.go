package manpage

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, escape, text string }{
		{"--jq", `\-\-jq`, `\-\-jq`},
		{`C:\mcpv`, `C:\emcpv`, `C:\emcpv`},
		{".mcp.json is read", `.mcp.json is read`, `\&.mcp.json is read`},
		{"'mcpv trust' first", `'mcpv trust' first`, `\&'mcpv trust' first`},
		{"see ./.mcp.json", `see ./.mcp.json`, `see ./.mcp.json`},
		{"colour → café", `colour \[u2192] caf\[u00E9]`, `colour \[u2192] caf\[u00E9]`},
		{"a\tb\nc\x1bd", `a b cd`, `a b cd`},
		{`\fB not a font`, `\efB not a font`, `\efB not a font`},
	} {
		if got := escape(tc.in); got != tc.escape {
			t.Errorf("escape(%q) = %q, want %q", tc.in, got, tc.escape)
		}
		if got := text(tc.in); got != tc.text {
			t.Errorf("text(%q) = %q, want %q", tc.in, got, tc.text)
		}
	}
	if got, want := quoted(`say "hi" -x`), `"say \(dqhi\(dq \-x"`; got != want {
		t.Errorf("quoted: %s, want %s", got, want)
	}
}

func TestBreakable(t *testing.T) {
	if got, want := breakable(`prints {"a","b"}, then stops`), `prints {"a",\:"b"}, then stops`; got != want {
		t.Errorf("breakable: %s, want %s", got, want)
	}
}

func TestBlocks(t *testing.T) {
	got := blocks("First paragraph,\nwrapped.\n\nExamples:\n\n    $ a -b\n      continued\n\nA list follows:\n    x   one\n    y   two\nAfter.")
	want := []block{
		{text: "First paragraph, wrapped."},
		{text: "Examples:"},
		{literal: []string{"$ a -b", "  continued"}},
		{text: "A list follows:"},
		{literal: []string{"x   one", "y   two"}},
		{text: "After."},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(block{})); d != "" {
		t.Errorf("blocks (-want +got):\n%s", d)
	}
}

func TestDefinitions(t *testing.T) {
	got := definitions([]string{"0    success", "1    the tool failed,", "     or -e said false", "124  timeout"})
	want := []Entry{{"0", "success"}, {"1", "the tool failed, or -e said false"}, {"124", "timeout"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("definitions (-want +got):\n%s", d)
	}
}

func TestUsageLine(t *testing.T) {
	for in, want := range map[string]string{
		"mcpv [flags] <command> [args] -- SERVER-COMMAND [ARGS...]": `\fBmcpv\fR [\fIflags\fR] \fIcommand\fR [\fIargs\fR] \fB\-\-\fR \fISERVER\-COMMAND\fR [\fIARGS\fR...]`,
		"mcpv [flags] --url URL <command>":                          `\fBmcpv\fR [\fIflags\fR] \fB\-\-url\fR \fIURL\fR \fIcommand\fR`,
		"mcpv help <command>      (the same as --help)":             `\fBmcpv\fR \fBhelp\fR \fIcommand\fR (the same as \-\-help)`,
	} {
		if got := usageLine(in); got != want {
			t.Errorf("usageLine(%q)\n got %s\nwant %s", in, got, want)
		}
	}
}
