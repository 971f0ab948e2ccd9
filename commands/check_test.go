package commands

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/testkit"
)

// specFake is a fake spec server's command line, its spec written to a
// file.
func specFake(t *testing.T, spec string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	return fake("spec=" + path)
}

// wantRun holds a run of mcpv to its exit code, every line its stdout
// must have, and what its stderr must have.
func wantRun(t *testing.T, r result, code int, outHas []string, errHas string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
	for _, want := range outHas {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout has no %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, errHas) {
		t.Errorf("stderr has no %q:\n%s", errHas, r.stderr)
	}
}

const checkSpec = `{"tools":[{"name":"echo","description":"Echoes.","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"M."}}}}],
	"prompts":[{"name":"hello","description":"Hello."}],"resources":[{"uri":"mem://a","name":"a"}]}`

func TestCheckCommand(t *testing.T) {
	t.Parallel()
	good := specFake(t, checkSpec)
	broken := specFake(t, strings.Replace(checkSpec, `{"tools"`, `{"faults":["unknown-method-internal","lenient-cursor","ping-nonempty"],"tools"`, 1))
	pretty := specFake(t, strings.Replace(checkSpec, `{"tools"`, `{"faults":["pretty-json"],"tools"`, 1))
	listed := specFake(t, strings.Replace(checkSpec, `"message":{"type":"string"`, `"message":{"type":"array","items":{"type":"string"}`, 1))
	tests := []struct {
		name     string
		args     []string
		server   []string
		wantCode int
		outHas   []string
		errHas   string
	}{
		{"a server that keeps the requirements", []string{"check", "--show", "all", "--only", "jsonrpc,lists"}, good, 0,
			[]string{"mcpv check: ", "JSON-RPC and framing\n", "  ✓ jsonrpc.unknown-method  an unknown method is answered -32601  [SHOULD]", "PASS "}, ""},
		{"a MUST that does not hold: exit 1, what was sent and seen", []string{"check", "--only", "lifecycle.ping"}, broken, 1,
			[]string{"  ✗ lifecycle.ping", `MUST: the result is not empty: it has "pong"`, "sent:     ping", `received: {"pong":true}`, `requires: "The receiver MUST respond promptly with an empty response`, "FAIL 0 passed, 1 failed"},
			"mcpv: a requirement does not hold: lifecycle.ping\n"},
		{"a SHOULD warns, exit 0", []string{"check", "--only", "lists.invalid-cursor,jsonrpc.unknown-method"}, broken, 0, []string{"  ! lists.invalid-cursor", "  ! jsonrpc.unknown-method", "SHOULD: answered with error -32603, not -32601", "2 warned"}, ""},
		{"--strict fails a SHOULD", []string{"check", "--strict", "--only", "lists.invalid-cursor"}, broken, 1, []string{"  ✗ lists.invalid-cursor"}, "lists.invalid-cursor"},
		{"--skip", []string{"check", "--show", "all", "--only", "lifecycle", "--skip", "lifecycle.ping"}, broken, 0, []string{"lifecycle.initialize"}, ""},
		{"json, through --jq", []string{"check", "--only", "lifecycle.ping", "--format", "json", "-q", `.areas[0].checks[0] | [.id, .level, .status, .ref]`}, broken, 1,
			[]string{`["lifecycle.ping","MUST","failed","2025-11-25 basic/utilities/ping#behavior-requirements"]`}, ""},
		{"tap", []string{"check", "--only", "lifecycle.ping", "--format", "tap"}, broken, 1, []string{"TAP version 14\n", "not ok 1 - lifecycle.ping"}, ""},
		{"junit", []string{"check", "--only", "lifecycle.ping", "--format", "junit"}, broken, 1, []string{`<testsuites name="mcpv check"`, `<failure message="MUST: the result is not empty`}, ""},
		{"a tool call skipped without --call", []string{"check", "--show", "all", "--only", "tools.result"}, good, 0, []string{"skipped: needs a tool call: name one with --call"}, ""},
		{"--call", []string{"check", "--show=all", "--only", "tools.result", "--call", "echo message=hi"}, good, 0, []string{"✓ tools.result"}, ""},
		{"--call whose argument holds a comma, which parts no calls", []string{"check", "--show=all", "--only", "tools.result", "--call", `echo message="hi, there"`}, good, 0, []string{"✓ tools.result"}, ""},
		{"--call whose arguments the tool's schema refuses: a usage error, before any check", []string{"check", "--only", "tools.result", "--call", "echo message=[a,b]"}, listed, 2, nil, `mcpv: --call echo: argument message: "[a,b]" is not an array`},
		{"--call of a tool not listed: a usage error, before any check", []string{"check", "--only", "tools.result", "--call", "ecko"}, good, 2, nil, `mcpv: --call ecko: the server lists no such tool; did you mean "echo"?`},
		{"no session: the report says why, in json", []string{"check", "--format", "json", "-q", `[.areas[].checks[] | select(.status != "blocked") | [.id, .status]], ([.areas[].checks[] | select(.status == "blocked") | .blockedBy] | unique)`}, pretty, 1,
			[]string{`[["jsonrpc.framing","failed"]]`, `["jsonrpc.framing"]`}, "a requirement does not hold: jsonrpc.framing"},
		{"no session: the report says why, in junit", []string{"check", "--format", "junit"}, pretty, 1,
			[]string{`<failure message="MUST: a message is written over several lines"`, `<skipped message="blocked: by jsonrpc.framing: the session could not be opened`}, "jsonrpc.framing"},
		{"no session: the report says why, in tap", []string{"check", "--format", "tap"}, pretty, 1,
			[]string{"not ok 3 - jsonrpc.framing", "# SKIP blocked: by jsonrpc.framing"}, "jsonrpc.framing"},
		{"not on a terminal: what did not pass, and the counts", []string{"check", "--only", "lifecycle,lists.invalid-cursor"}, broken, 1,
			[]string{"  ✗ lifecycle.ping", "  ! lists.invalid-cursor", "FAIL ", " passed, 1 failed, 1 warned"}, "lifecycle.ping"},
		{"--only names no check", []string{"check", "--only", "jsonrpc.unknwn-method"}, good, 2, nil, `no check or area "jsonrpc.unknwn-method"; did you mean "jsonrpc.unknown-method"?`},
		{"--jq with the text report", []string{"check", "-q", ".x"}, good, 2, nil, "give --format json"},
		{"--call that does not split", []string{"check", "--call", "'echo"}, good, 2, nil, "--call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantRun(t, mcpv(t, "", args(tt.args, tt.server)...), tt.wantCode, tt.outHas, tt.errHas)
		})
	}
}

// Not on a terminal, the text report lists what did not pass alone:
// no line of a check that passed or was skipped.
func TestCheckProblemsView(t *testing.T) {
	t.Parallel()
	broken := specFake(t, strings.Replace(checkSpec, `{"tools"`, `{"faults":["ping-nonempty"],"tools"`, 1))
	r := mcpv(t, "", args([]string{"check", "--only", "lifecycle,http"}, broken)...)
	if r.code != 1 || strings.Contains(r.stdout, "✓") || strings.Contains(r.stdout, "○") || !strings.Contains(r.stdout, "✗ lifecycle.ping") || !strings.Contains(r.stdout, "skipped (") {
		t.Errorf("exit %d\nstdout: %s", r.code, r.stdout)
	}
	r = mcpv(t, "", args([]string{"check", "--only", "lifecycle,http", "--show", "all"}, broken)...)
	if !strings.Contains(r.stdout, "✓ lifecycle.initialize") || !strings.Contains(r.stdout, "○ http.") {
		t.Errorf("--show all: %s", r.stdout)
	}
}

// --output takes the report of the format asked for, made before the
// server starts; stdout keeps the text report of what did not pass.
func TestCheckOutputFile(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "check.json")
	r := mcpv(t, "", args([]string{"check", "--only", "lifecycle.ping", "--format", "json", "--output", out}, specFake(t, checkSpec))...)
	data, err := os.ReadFile(out)
	if r.code != 0 || err != nil || !json.Valid(data) || strings.Contains(r.stdout, "lifecycle.ping") || !strings.Contains(r.stdout, "PASS 1 passed") {
		t.Fatalf("exit %d, %v\nfile %s\nstdout %s\nstderr %s", r.code, err, data, r.stdout, r.stderr)
	}
	var rep struct {
		Passed bool `json:"passed"`
		Counts struct {
			Areas  int `json:"areas"`
			Passed int `json:"passed"`
		} `json:"counts"`
	}
	if json.Unmarshal(data, &rep) != nil || !rep.Passed || rep.Counts.Areas != 1 || rep.Counts.Passed != 1 {
		t.Errorf("report %s", data)
	}
	r = mcpv(t, "", args([]string{"check", "--output", filepath.Join(t.TempDir(), "no", "such", "dir", "x")}, specFake(t, checkSpec))...)
	if r.code != 2 || !strings.Contains(r.stderr, "--output") {
		t.Errorf("an --output that cannot be made: exit %d, %s", r.code, r.stderr)
	}
}

// The project's own demo server, the first a newcomer checks, passes
// mcpv check over stdio and over Streamable HTTP, with sessions and
// without.
func TestCheckTheDemoServerPasses(t *testing.T) {
	t.Parallel()
	servers := map[string][]string{"stdio": demo()}
	for name, opts := range map[string]*sdk.StreamableHTTPOptions{"http": nil, "http stateless": {Stateless: true}} {
		ts := httptest.NewServer(demoserver.HTTPHandler(demoserver.New(), opts))
		t.Cleanup(ts.Close)
		servers[name] = []string{"-u", ts.URL}
	}
	for name, server := range servers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, "", args([]string{"check"}, server)...)
			if r.code != 0 || !strings.Contains(r.stdout, "\nPASS ") {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			// 2026-07-28 over HTTP: a request without its name has no
			// Mcp-Name header, which the go-sdk refuses first (-32020).
			if r := mcpv(t, "", args([]string{"check", "--strict", "--only", "jsonrpc.invalid-params"}, server)...); r.code != 0 {
				t.Errorf("--strict jsonrpc.invalid-params: exit %d\nstdout: %s", r.code, r.stdout)
			}
		})
	}
}

// --connect-only walks the connection, step by step, and exits with the
// code of the step that fails; a server that could not be started gets
// the walk as its report too; a first exchange that breaks a requirement
// is named (exit 1).
func TestCheckConnectOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		outHas   []string
		errHas   string
	}{
		{"a server that connects", args([]string{"check", "--connect-only"}, specFake(t, checkSpec)), 0,
			[]string{", the connection\n", "✓ connect.first-answer", "✓ connect.first-exchange", "PASS "}, ""},
		{"a command not found", []string{"check", "--connect-only", "--", "mcpv-no-such-server-here"}, 4,
			[]string{"✗ connect.command", "fix: install the server"}, "mcpv: the connection fails at command"},
		{"without --connect-only, no session: the walk is the report", []string{"check", "--", "mcpv-no-such-server-here"}, 4,
			[]string{"✗ connect.command", "○ connect.start  start  skipped: not reached"}, "mcpv-no-such-server-here"},
		{"messages over several lines", args([]string{"check", "--connect-only"}, specFake(t, strings.Replace(checkSpec, `{"tools"`, `{"faults":["pretty-json"],"tools"`, 1))), 1,
			[]string{"✗ connect.first-exchange", "jsonrpc.framing"}, "the connection fails at first exchange"},
		// What came is judged as it comes: --connect-timeout 1h, and no wait.
		{"a byte order mark before each message", args([]string{"check", "--connect-only", "--connect-timeout", "1h"}, specFake(t, strings.Replace(checkSpec, `{"tools"`, `{"faults":["bom"],"tools"`, 1))), 1,
			[]string{"✗ connect.first-answer", "jsonrpc.messages", "byte order mark", `it sent: \ufeff{"jsonrpc":"2.0"`}, "the connection fails at first answer"},
		{"text in place of JSON-RPC", args([]string{"check", "--connect-only", "--connect-timeout", "1h"}, specFake(t, strings.Replace(checkSpec, `{"tools"`, `{"faults":["text-answers"],"tools"`, 1))), 1,
			[]string{"✗ connect.first-answer", "jsonrpc.stdout-only", "answered with 4 lines of text", "it sent: OK: {jsonrpc:2.0"}, "the connection fails at first answer"},
		{"text in place of JSON-RPC, the whole run", args([]string{"check", "--connect-timeout", "1h", "--check-timeout", "1h"}, specFake(t, strings.Replace(checkSpec, `{"tools"`, `{"faults":["text-answers"],"tools"`, 1))), 1,
			[]string{"✗ jsonrpc.stdout-only", "received: OK: {jsonrpc:2.0"}, "a requirement does not hold: jsonrpc.stdout-only"},
		{"json", args([]string{"check", "--connect-only", "--format", "json", "-q", `[.areas[0].steps[] | .status] | unique`}, specFake(t, checkSpec)), 0,
			[]string{`["passed"]`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantRun(t, mcpv(t, "", tt.args...), tt.wantCode, tt.outHas, tt.errHas)
		})
	}
}

// --expected-failures holds the run to a baseline in the suite's format:
// the failures it lists pass, one it does not list fails, an entry that
// now passes fails as stale; a file that cannot be read is a usage error.
func TestCheckExpectedFailures(t *testing.T) {
	t.Parallel()
	broken := specFake(t, strings.Replace(checkSpec, `{"tools"`, `{"faults":["ping-nonempty"],"tools"`, 1))
	baseline := func(text string) string {
		p := filepath.Join(t.TempDir(), "expected.yaml")
		os.WriteFile(p, []byte(text), 0o600)
		return p
	}
	only := []string{"check", "--only", "lifecycle.ping,jsonrpc.notification"}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		outHas   string
		errHas   string
	}{
		{"a failure expected", append(only, "--expected-failures", baseline("server:\n  - ping\n")), 0, "  ~ ping\n", ""},
		{"a check expected", append(only, "--expected-failures", baseline("server:\n  - lifecycle.ping\n")), 0, "Baseline check passed", ""},
		{"a failure not expected", append(only, "--expected-failures", baseline("server:\n  - tools-list\n")), 1, "  ✗ lifecycle.ping\n", "a requirement does not hold: lifecycle.ping"},
		{"a stale entry", append(only, "--expected-failures", baseline("server:\n  - ping\n  - server-session-lifecycle\n  - jsonrpc.notification\n")), 1, "  ✓ jsonrpc.notification\n", "the baseline is stale"},
		{"a file that is no baseline", append(only, "--expected-failures", baseline("server:\n  - pnig\n")), 2, "", `did you mean "ping"?`},
		{"no such file", append(only, "--expected-failures", filepath.Join(t.TempDir(), "none.yaml")), 2, "", "--expected-failures"},
		{"a device, not a file", append(only, "--expected-failures", os.DevNull), 2, "", "--expected-failures"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantRun(t, mcpv(t, "", args(tt.args, broken)...), tt.wantCode, []string{tt.outHas}, tt.errHas)
		})
	}
}

// A stdio server that says nothing at all is waited for 10 s, the walk's
// bound, not the session's minute, and the walk exits 124.
func TestCheckConnectOnlySilence(t *testing.T) {
	testkit.SkipLong(t, "waits out the walk's 10 s")
	t.Parallel()
	wantRun(t, mcpv(t, "", args([]string{"check", "--connect-only"}, fake("slow-start=3600000"))...), 124,
		[]string{"✗ connect.first-answer", "no answer to initialize within 10s"}, "the connection fails at first answer")
}

// Against a server that asks for authorization, --connect-only walks the
// authorization as far as it goes without a login (the resource
// metadata, the authorization server's, the registration, the scopes),
// names the first step that is wrong, and exits 5 as every command does.
func TestCheckConnectOnlyAuthorization(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		broken, fails string
		ok            []string
	}{
		{"", "authorization", []string{"✓ connect.endpoint", "✓ connect.resource-metadata", "✓ connect.authorization-server", "✓ connect.registration", "✓ connect.scopes"}},
		{"no-auth-servers", "resource-metadata", []string{"✓ connect.endpoint"}},
		{"no-s256", "authorization-server", []string{"✓ connect.resource-metadata"}},
	} {
		t.Run("broken="+tc.broken, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			srv, _ := authWorld(t, w)
			srv.Broken = tc.broken
			r := w.mcpv(t, "", "check", "--connect-only", "-u", srv.URL())
			wantRun(t, r, 5, append(tc.ok, "✗ connect."+tc.fails), "the connection fails at")
		})
	}
}

// The line a run with inconclusive checks ends with says why they are:
// the time the server was given, or another process that killed it.
func TestCheckInconclusiveSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		killed int
		want   string
	}{
		{0, "2 checks were inconclusive (the server did not answer in time; give it more with --check-timeout or --connect-timeout): a, b"},
		{2, "2 checks were inconclusive (the server was killed by another process, perhaps another of its kind started beside it: try --parallel 1): a, b"},
		{1, "2 checks were inconclusive (the server did not answer in time; give it more with --check-timeout or --connect-timeout; or the server was killed by another process: each says which): a, b"},
	} {
		if got := (checkFailed{inconclusive: []string{"a", "b"}, killed: tc.killed}).Error(); got != tc.want {
			t.Errorf("killed %d:\n got %s\nwant %s", tc.killed, got, tc.want)
		}
	}
}
