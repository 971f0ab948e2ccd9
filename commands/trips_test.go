package commands

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/testkit"
)

// sent is the methods of the requests and notifications mcpv sent, in
// order, as its --verbose trace on stderr shows them.
func sent(stderr string) []string {
	var methods []string
	for line := range strings.SplitSeq(stderr, "\n") {
		msg, ok := strings.CutPrefix(line, "mcpv: -> ")
		if !ok {
			continue
		}
		var m struct{ Method string }
		if json.Unmarshal([]byte(msg), &m) == nil && m.Method != "" {
			methods = append(methods, m.Method)
		}
	}
	return methods
}

// tripCase is a command line and the requests it may send after the
// session is open: a later change that adds one fails here.
type tripCase struct {
	name     string
	args     []string
	want     []string
	wantCode int
	errHas   string
}

// modernHTTPTrips are the paths whose requests differ over Streamable
// HTTP in the 2026-07-28 era: a call needs its tool's definition there,
// for the headers it mirrors arguments in and whether its marks are valid.
var modernHTTPTrips = map[string][]string{
	"call --no-validate, no arguments":   {"tools/list", "tools/call"},
	"call --no-validate --args":          {"tools/list", "tools/call"},
	"call --no-validate key:=JSON":       {"tools/list", "tools/call"},
	"call --no-validate --no-coerce":     {"tools/list", "tools/call"},
	"call --no-validate, a name refused": {"tools/list", "tools/call"},
}

// tripCases are the paths of the commands that look something up before
// their request, against the go-sdk demo server.
var tripCases = []tripCase{
	{"list-tools", []string{"list-tools"}, []string{"tools/list"}, 0, ""},
	{"call, typed and checked", []string{"call", "echo", "message=hi"}, []string{"tools/list", "tools/call"}, 0, ""},
	{"call --no-validate, typed", []string{"call", "echo", "message=hi", "--no-validate"}, []string{"tools/list", "tools/call"}, 0, ""},
	{"call --no-validate, no arguments", []string{"call", "fail", "--no-validate"}, []string{"tools/call"}, 1, ""},
	{"call --no-validate --args", []string{"call", "echo", "--args", `{"message":"hi"}`, "--no-validate"}, []string{"tools/call"}, 0, ""},
	{"call --no-validate key:=JSON", []string{"call", "echo", `message:="hi"`, "--no-validate"}, []string{"tools/call"}, 0, ""},
	{"call --no-validate --no-coerce", []string{"call", "echo", "message=hi", "--no-validate", "--no-coerce"}, []string{"tools/call"}, 0, ""},
	{"call --no-validate, a dotted key", []string{"call", "echo", "a.b:=1", "--no-validate"}, []string{"tools/list", "tools/call"}, 1, ""},
	{"call --no-validate, the output checked", []string{"call", "fail", "--no-validate", "--validate-output", "warn"}, []string{"tools/list", "tools/call"}, 1, ""},
	{"call --no-validate, a name refused", []string{"call", "ehco", "--no-validate"}, []string{"tools/call", "tools/list"}, 3,
		`unknown tool "ehco"; the server lists no tool "ehco"; did you mean "echo"? (see mcpv list-tools)`},
	{"call, a name not listed", []string{"call", "ehco"}, []string{"tools/list"}, 3, `did you mean "echo"?`},
	{"get-prompt, checked", []string{"get-prompt", "greet", "name=Ada"}, []string{"prompts/list", "prompts/get"}, 0, ""},
	{"get-prompt --no-validate", []string{"get-prompt", "greet", "name=Ada", "--no-validate"}, []string{"prompts/get"}, 0, ""},
	{"get-prompt --no-validate, a name refused", []string{"get-prompt", "gret", "--no-validate"}, []string{"prompts/get", "prompts/list"}, 3,
		`the server lists no prompt "gret"; did you mean "greet"? (see mcpv list-prompts)`},
	{"get-prompt, a name refused", []string{"get-prompt", "gret"}, []string{"prompts/list", "prompts/get"}, 3, `did you mean "greet"?`},
	{"read", []string{"read", "demo://readme"}, []string{"resources/read"}, 0, ""},
	{"read, a URI refused", []string{"read", "demo://readm"}, []string{"resources/read", "resources/list"}, 3,
		`the server lists no resource "demo://readm"; did you mean "demo://readme"? (see mcpv list-resources)`},
}

// TestRequestsPerPath counts the requests each path of the commands sends,
// over stdio and Streamable HTTP, in both eras: the session's opening (the
// era's), then the command's own, and nothing more.
func TestRequestsPerPath(t *testing.T) {
	testkit.SkipLong(t, "every path of the commands, in two eras over two transports")
	t.Parallel()
	const (
		modern = "server/discover"
		init   = "initialize"
		inited = "notifications/initialized"
	)
	targets := []struct {
		name    string
		server  func(t *testing.T) []string
		opening []string
	}{
		{"stdio, modern", func(*testing.T) []string { return demo() }, []string{modern}},
		{"stdio, initialize era", func(*testing.T) []string { return demoLegacy() }, []string{init, inited}},
		{"http, modern", func(t *testing.T) []string { return []string{"-u", demoHTTP(t, httpModes["stateless"])} }, []string{modern}},
		{"http, initialize era", func(t *testing.T) []string {
			return []string{"--protocol-era", "legacy", "-u", demoHTTP(t, httpModes["json"])}
		}, []string{init, inited}},
	}
	for name := range modernHTTPTrips {
		if !slices.ContainsFunc(tripCases, func(tc tripCase) bool { return tc.name == name }) {
			t.Fatalf("modernHTTPTrips names %q, which is no trip case", name)
		}
	}
	for _, target := range targets {
		t.Run(target.name, func(t *testing.T) {
			t.Parallel()
			server := target.server(t)
			for _, tc := range tripCases {
				r := mcpv(t, "", args([]string{"-v"}, tc.args, server)...)
				if r.code != tc.wantCode || !strings.Contains(r.stderr, tc.errHas) {
					t.Errorf("%s: exit %d, want %d with %q; stderr:\n%s", tc.name, r.code, tc.wantCode, tc.errHas, r.stderr)
				}
				want := slices.Concat(target.opening, tc.want)
				if alt, ok := modernHTTPTrips[tc.name]; ok && target.name == "http, modern" {
					want = slices.Concat(target.opening, alt)
				}
				if d := cmp.Diff(want, sent(r.stderr)); d != "" {
					t.Errorf("%s: requests sent (-want +got):\n%s", tc.name, d)
				}
			}
		})
	}
}

// A server of the initialize era that runs tools as tasks gets the tool
// listed before the call all the same: the tool may require a task.
func TestTaskServerListsBeforeTheFastPath(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"-v", "--protocol-era", "legacy", "call", "job", "--no-validate"}, fake("tasks=completed"))...)
	if d := cmp.Diff([]string{"initialize", "notifications/initialized", "tools/list", "tools/call"}, sent(r.stderr)[:4]); d != "" {
		t.Errorf("requests sent (-want +got):\n%s\nstderr:\n%s", d, r.stderr)
	}
}
