package commands

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp/mcptest/pipeclient"
)

// The go-sdk demo server is the real peer of these tests: the test binary
// serves it over stdio when MCPV_DEMO is set (to 1, or to options: see
// pipeclient.DemoEnv), in the test process where it can.
const demoEnv = pipeclient.DemoEnv

func demo() []string {
	return []string{"--env", demoEnv + "=1", "--", os.Args[0]}
}

// demoWith is demo varied by options: "ttl=DURATION", "private",
// "versions=V,V...", separated by ";".
func demoWith(options string) []string {
	return []string{"--env", demoEnv + "=" + options, "--", os.Args[0]}
}

// demoLegacy is demo in the initialize era: the go-sdk server speaks both
// eras, and by default mcpv takes the modern one.
func demoLegacy() []string {
	return append([]string{"--protocol-era", "legacy"}, demo()...)
}

type demoCase struct {
	name     string
	args     []string
	stdin    string
	wantCode int
	wantOut  string
}

// demoCases exercise every command against the go-sdk demo server; they run
// over stdio here and over each HTTP set-up in http_test.go.
var demoCases = []demoCase{
	{"info", []string{"info", "-c", "-q", "[.protocolVersion, .serverInfo.name]"}, "", 0, `["2025-11-25","mcpv-demo"]`},
	{"ping", []string{"ping"}, "", 0, `{}`},
	{"list-tools", []string{"list-tools", "-q", "[.tools[].name]"}, "", 0, `["add","ask","big","echo","fail","log","roots","sample","slow"]`},
	{"call echo", []string{"call", "echo", "message=hi there"}, "", 0,
		`{"content":[{"type":"text","text":"hi there"}],"structuredContent":{"message":"hi there"}}`},
	{"call add typed", []string{"call", "add", "a:=2", "b:=0.5", "-q", ".structuredContent.sum"}, "", 0, `2.5`},
	{"call args from stdin", []string{"call", "add", "--args", "-", "b:=1", "-q", ".structuredContent.sum"}, `{"a": 41, "b": 100}`, 0, `42`},
	{"call isError", []string{"call", "fail", "reason=testing", "-q", "[.isError, .content[0].text]"}, "", 1, `[true,"failed: testing"]`},
	{"call unknown tool", []string{"call", "nope"}, "", 3, ``},
	{"call bad arguments caught before sending", []string{"call", "add", "a=two", "b:=1"}, "", 2, ``},
	{"call arguments the schema forbids", []string{"call", "add", "a:=1", "b:=2", "c:=3"}, "", 2, ``},
	{"call bad arguments sent anyway", []string{"call", "add", "--no-coerce", "--no-validate", "a=two", "b=1", "-q", ".isError"}, "", 1, `true`},
	{"call typed arguments", []string{"call", "add", "a=2", "b=0.5", "-q", ".structuredContent.sum"}, "", 0, `2.5`},
	{"list-resources", []string{"list-resources", "-q", "[.resources[].uri]"}, "", 0, `["demo://clock","demo://logo.png","demo://readme"]`},
	{"list-resource-templates", []string{"list-resource-templates", "-q", "[.resourceTemplates[].uriTemplate]"}, "", 0, `["demo://notes/{id}"]`},
	{"read", []string{"read", "demo://notes/42", "-q", ".contents[0].text"}, "", 0, `"note 42"`},
	{"read unknown", []string{"read", "demo://nothing"}, "", 3, ``},
	{"list-prompts", []string{"list-prompts", "-q", "[.prompts[].name]"}, "", 0, `["greet","review"]`},
	{"get-prompt", []string{"get-prompt", "greet", "name=Ada", "-r", "-q", ".messages[0].content.text"}, "", 0, `Say hello to Ada.`},
	{"get-prompt missing argument", []string{"get-prompt", "greet"}, "", 2, ``},
	{"get-prompt unknown argument", []string{"get-prompt", "greet", "name=Ada", "mood=happy"}, "", 2, ``},
	{"get-prompt missing argument sent anyway", []string{"get-prompt", "greet", "--no-validate"}, "", 3, ``},
	{"request", []string{"request", "completion/complete", `{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"language","value":"ja"}}`, "-q", ".completion.values"}, "", 0, `["java","javascript"]`},
	{"request unknown method", []string{"request", "nope/nothing"}, "", 3, ``},
	{"request notification", []string{"request", "notifications/roots/list_changed"}, "", 0, ``},
	{"jq runtime error", []string{"call", "echo", "message=x", "-q", ".content[0].text.a"}, "", 6, ``},
	{"jq outputs before a runtime error", []string{"call", "echo", "message=x", "-q", `.content[0].text, error("stop")`}, "", 6, `"x"`},
	{"exit status false", []string{"call", "echo", "message=x", "-e", "-q", ".isError"}, "", 1, `null`},
}

func TestDemoServer(t *testing.T) {
	t.Parallel()
	for _, tt := range demoCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, tt.stdin, args(tt.args, demoLegacy())...)
			if r.code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", r.code, tt.wantCode, r.stderr)
			}
			if d := cmp.Diff(tt.wantOut, strings.TrimSuffix(r.stdout, "\n")); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
		})
	}
}

func TestDemoSlowCallCancelled(t *testing.T) {
	t.Parallel()
	start := time.Now()
	r := mcpv(t, "", args([]string{"--timeout", "500ms", "call", "slow", "seconds:=3600"}, demo())...)
	if r.code != 124 {
		t.Fatalf("exit code %d, want 124; stderr:\n%s", r.code, r.stderr)
	}
	// The server stops the tool when it gets notifications/cancelled and exits
	// at stdin EOF, so the whole run is far shorter than the tool's hour.
	if took := time.Since(start); took >= 30*time.Minute {
		t.Errorf("took %v", took)
	}
}

// A tool result with isError: true goes to stdout as it is, and one line on
// stderr says why, in the tool's words made safe for a terminal.
func TestToolErrorHasOneLine(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"call", "fail", "reason=disk\nfull \x1b[2J"}, demo())...)
	if r.code != 1 || !strings.Contains(r.stdout, `"isError":true`) {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	if want := `mcpv: the tool reported an error: failed: disk full \x1b[2J` + "\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	r = mcpv(t, "", args([]string{"call", "fail", "--text"}, demo())...)
	if r.code != 1 || r.stdout != "failed: as asked\n" || r.stderr != "mcpv: the tool reported an error: failed: as asked\n" {
		t.Errorf("--text: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A misspelt tool or argument name is caught with the nearest right one,
// before anything is sent; list-tools NAME shows one tool's definition.
func TestMisspelledNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"call", "ecoh", "message=hi"}, 3,
			`mcpv: the server lists no tool "ecoh"; did you mean "echo"? (see mcpv list-tools); nothing sent (--no-validate sends anyway)`},
		{[]string{"call", "zzz"}, 3, `mcpv: the server lists no tool "zzz" (see mcpv list-tools); nothing sent (--no-validate sends anyway)`},
		// Sent anyway, and refused: the listing made to type the
		// arguments names the nearest tool, as a call without arguments
		// gets it.
		{[]string{"call", "ecoh", "--no-validate", "message=hi"}, 3,
			`mcpv: tools/call: server error -32602: unknown tool "ecoh"; the server lists no tool "ecoh"; did you mean "echo"? (see mcpv list-tools)`},
		{[]string{"call", "echo", "mesage=hi"}, 2,
			`mcpv: tool "echo" has no argument "mesage"; did you mean "message"? (it takes: message); nothing sent (--no-validate sends anyway; see mcpv list-tools echo)`},
		{[]string{"call", "echo", "message=hi", "extra=1"}, 2,
			`mcpv: tool "echo" has no argument "extra" (it takes: message); nothing sent (--no-validate sends anyway; see mcpv list-tools echo)`},
		{[]string{"list-tools", "ech"}, 3, `mcpv: the server lists no tool "ech"; did you mean "echo"? (see mcpv list-tools)`},
		{[]string{"list-tools", "echo", "--max-pages", "1"}, 2, `mcpv: --cursor and --max-pages list pages; with a tool name every page is searched (see mcpv list-tools --help)`},
	} {
		r := mcpv(t, "", args(tt.args, demo())...)
		if r.code != tt.code || r.stderr != tt.stderr+"\n" {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tt.args, r.code, r.stderr, tt.code, tt.stderr)
		}
	}
	r := mcpv(t, "", args([]string{"list-tools", "echo", "-c", "-q", "[.name, .inputSchema.required]"}, demo())...)
	if r.code != 0 || r.stdout != `["echo",["message"]]`+"\n" {
		t.Errorf("list-tools echo: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
