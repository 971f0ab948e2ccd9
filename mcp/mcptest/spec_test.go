package mcptest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// exchange serves the request lines and returns the answer lines.
func exchange(t *testing.T, spec string, requests ...string) []string {
	t.Helper()
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		t.Fatalf("ParseSpec: %v", err)
	}
	var out bytes.Buffer
	if err := ServeSpec(s, strings.NewReader(strings.Join(requests, "\n")), &out); err != nil {
		t.Fatalf("ServeSpec: %v", err)
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

func req(id, method, params string) string {
	if params == "" {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
}

func result(id, res string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":` + res + `}` }

func rpcErr(id string, code, msg string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + code + `,"message":"` + msg + `"}}`
}

func TestLifecycle(t *testing.T) {
	spec := `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"instructions":"Be kind."}`
	got := exchange(t, spec,
		req("1", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		req(`"p"`, "ping", ""),
		req("2", "initialize", `{"protocolVersion":"2099-01-01"}`),
		req("3", "server/discover", `{}`),
		req("4", "logging/setLevel", `{"level":"debug"}`),
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		``,
		`not json`,
		`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
	)
	want := []string{
		result("1", `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fixture-server","version":"0"},"instructions":"Be kind."}`),
		result(`"p"`, `{}`),
		result("2", `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fixture-server","version":"0"},"instructions":"Be kind."}`),
		rpcErr("3", "-32601", "method not found: server/discover"),
		rpcErr("4", "-32601", "method not found: logging/setLevel"),
		rpcErr("null", "-32700", "parse error: "),
		rpcErr("null", "-32600", "batches are not served"),
	}
	// The decoder's own words after "parse error: " are not pinned.
	if len(got) == len(want) && strings.HasPrefix(got[5], strings.TrimSuffix(want[5], `"}}`)) {
		got[5] = want[5]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

func TestModernEra(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	got := exchange(t, `{"era":"modern","serverInfo":{"name":"m","version":"2"},"capabilities":{"prompts":{},"resources":{}}}`,
		req("1", "server/discover", `{`+meta+`}`),
		req("2", "initialize", `{"protocolVersion":"2025-11-25"}`),
		req("3", "prompts/list", `{`+meta+`}`),
		req("4", "prompts/list", `{"_meta":{}}`),
		req("5", "prompts/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`),
		req("6", "ping", `{`+meta+`}`),
		req("7", "resources/read", `{"uri":"x:///none",`+meta+`}`),
	)
	want := []string{
		result("1", `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"2"}},"cacheScope":"public","capabilities":{"prompts":{},"resources":{}},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":0}`),
		rpcErr("2", "-32601", "method not found: initialize: this server speaks protocol 2026-07-28 alone"),
		result("3", `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"2"}},"cacheScope":"public","prompts":[],"resultType":"complete","ttlMs":0}`),
		rpcErr("4", "-32602", "missing required _meta fields: this server speaks protocol 2026-07-28 alone"),
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"requested":"2099-01-01","supported":["2026-07-28"]}}}`,
		rpcErr("6", "-32601", "method not found: ping"),
		rpcErr("7", "-32602", `unknown resource \"x:///none\"`),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

func TestPages(t *testing.T) {
	spec := `{"pageSize":2,"tools":[{"name":"a"},{"name":"b"},{"name":"c"}],
		"prompts":[{"name":"p"}],"repeatCursor":["prompts/list"],
		"resources":[{"uri":"x:///1","name":"1"}],"endlessCursor":["resources/list"],
		"capabilities":{"tools":{},"prompts":{},"resources":{}}}`
	got := exchange(t, spec,
		req("1", "tools/list", ""),
		req("2", "tools/list", `{"cursor":"2"}`),
		req("3", "tools/list", `{"cursor":"bogus"}`),
		req("4", "prompts/list", `{}`),
		req("5", "prompts/list", `{"cursor":"again"}`),
		req("6", "resources/list", `{"cursor":"2"}`),
		req("7", "resources/list", `{"cursor":"4"}`),
		req("8", "resources/templates/list", ""),
	)
	want := []string{
		result("1", `{"nextCursor":"2","tools":[{"name":"a"},{"name":"b"}]}`),
		result("2", `{"tools":[{"name":"c"}]}`),
		rpcErr("3", "-32602", `tools/list: invalid cursor \"bogus\"`),
		result("4", `{"nextCursor":"again","prompts":[{"name":"p"}]}`),
		result("5", `{"nextCursor":"again","prompts":[]}`),
		result("6", `{"nextCursor":"4","resources":[]}`),
		result("7", `{"nextCursor":"6","resources":[]}`),
		result("8", `{"resourceTemplates":[]}`),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

func TestCapabilitiesAndFaults(t *testing.T) {
	spec := `{"capabilities":{"tools":{}},"tools":[{"name":"a"}],"prompts":[{"name":"p"}],
		"resourceTemplates":[{"name":"t","uriTemplate":"x:///{y}"}],
		"methodNotFound":["tools/list"],"serveUndeclared":["resources/templates/list"],
		"answers":{"tools/call":{"content":"not a list"}}}`
	got := exchange(t, spec,
		req("1", "tools/list", ""),
		req("2", "prompts/list", ""),
		req("3", "resources/templates/list", ""),
		req("4", "tools/call", `{"name":"a"}`),
	)
	want := []string{
		rpcErr("1", "-32601", "method not found: tools/list"),
		rpcErr("2", "-32601", "method not found: prompts/list"),
		result("3", `{"resourceTemplates":[{"name":"t","uriTemplate":"x:///{y}"}]}`),
		result("4", `{"content":"not a list"}`),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	// Without capabilities, the lists that are not empty are declared.
	got = exchange(t, `{"prompts":[{"name":"p"}],"resourceTemplates":[{"name":"t","uriTemplate":"x:///{y}"}]}`,
		req("1", "initialize", `{"protocolVersion":"2025-11-25"}`))
	if want := result("1", `{"protocolVersion":"2025-11-25","capabilities":{"prompts":{},"resources":{}},"serverInfo":{"name":"fixture-server","version":"0"}}`); got[0] != want {
		t.Errorf("initialize = %s, want %s", got[0], want)
	}
}

func TestCannedAnswers(t *testing.T) {
	spec := `{
		"tools":[{"name":"echo"},{"name":"typed"}],
		"prompts":[{"name":"greet"}],
		"resources":[{"uri":"file:///a","name":"a"}],
		"callResults":{"typed":{"content":[],"structuredContent":{"n":1.50,"s":"<&>"}}},
		"promptResults":{"canned":{"messages":[]}},
		"readResults":{"file:///b":{"contents":[{"uri":"file:///b","text":"B"}]}}}`
	got := exchange(t, spec,
		req("1", "tools/call", `{"name":"echo","arguments":{}}`),
		req("2", "tools/call", `{"name":"typed"}`),
		req("3", "tools/call", `{"name":"nope"}`),
		req("4", "tools/call", `{"arguments":{}}`),
		req("5", "prompts/get", `{"name":"greet"}`),
		req("6", "prompts/get", `{"name":"canned"}`),
		req("7", "prompts/get", `{"name":"nope"}`),
		req("8", "resources/read", `{"uri":"file:///a"}`),
		req("9", "resources/read", `{"uri":"file:///b"}`),
		req("10", "resources/read", `{"uri":"file:///c"}`),
	)
	want := []string{
		result("1", `{"content":[{"text":"called echo","type":"text"}]}`),
		result("2", `{"content":[],"structuredContent":{"n":1.50,"s":"<&>"}}`),
		rpcErr("3", "-32602", `unknown tool \"nope\"`),
		rpcErr("4", "-32602", "params.name: want a string"),
		result("5", `{"messages":[{"content":{"text":"greet","type":"text"},"role":"user"}]}`),
		result("6", `{"messages":[]}`),
		rpcErr("7", "-32602", `unknown prompt \"nope\"`),
		result("8", `{"contents":[{"text":"","uri":"file:///a"}]}`),
		result("9", `{"contents":[{"uri":"file:///b","text":"B"}]}`),
		rpcErr("10", "-32002", `unknown resource \"file:///c\"`),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

func TestLongLines(t *testing.T) {
	// A request far longer than any default line buffer.
	long := req("1", "tools/call", `{"name":"a","arguments":{"x":"`+strings.Repeat("x", 1<<20)+`"}}`)
	got := exchange(t, `{"tools":[{"name":"a"}]}`, long)
	if want := result("1", `{"content":[{"text":"called a","type":"text"}]}`); len(got) != 1 || got[0] != want {
		t.Errorf("answers = %.200q", got)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestServeSpecStopsWhenWritesFail(t *testing.T) {
	s, _ := ParseSpec([]byte(`{}`))
	if err := ServeSpec(s, strings.NewReader(req("1", "ping", "")+"\n"), failingWriter{}); err == nil || err.Error() != "closed" {
		t.Errorf("ServeSpec = %v, want the write's error", err)
	}
}

func TestParseSpec(t *testing.T) {
	tests := []struct{ spec, want string }{
		{`{"tool":[]}`, `unknown field "tool"`},
		{`{"era":"future"}`, `era "future": want "initialize" or "modern"`},
		{`{"pageSize":-1}`, "pageSize -1 is negative"},
		{`{"repeatCursor":["tools/call"]}`, `"tools/call" is not a list method`},
		{`{"tasks":{"statuses":["working","done"]}}`, `tasks: no status "done"`},
		{`{} {}`, "more than one JSON value"},
	}
	for _, tt := range tests {
		if _, err := ParseSpec([]byte(tt.spec)); err == nil || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("ParseSpec(%s) = %v, want %q", tt.spec, err, tt.want)
		}
	}
	if _, err := LoadSpec("testdata/none.json"); err == nil {
		t.Error("LoadSpec of a missing file: no error")
	}
}

// spec=FILE serves the spec on the fake's loop, where the behaviours that
// shape what goes out still apply.
func TestSpecBehaviour(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, []byte(`{"tools":[{"name":"a"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := parseConfig("spec="+path+",junk", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	newServer(c, strings.NewReader(req("1", "tools/call", `{"name":"a"}`)+"\n"), &out, io.Discard).serve()
	want := "this is not JSON\n" + result("1", `{"content":[{"text":"called a","type":"text"}]}`) + "\n"
	if out.String() != want {
		t.Errorf("served %q, want %q", out.String(), want)
	}
	if _, err := parseConfig("spec="+filepath.Join(t.TempDir(), "none.json"), nil, ""); err == nil {
		t.Error("spec= of a missing file: no error")
	}
}

// specConfig writes spec to a file and parses behaviours with spec= it.
func specConfig(t *testing.T, spec, behaviours string) (config, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return parseConfig("spec="+path+behaviours, nil, "")
}

// With ignore-early, a spec server drops requests until initialize, and
// answers every request after it.
func TestSpecIgnoreEarly(t *testing.T) {
	c, err := specConfig(t, `{"tools":[{"name":"a"}]}`, ",ignore-early")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	in := strings.Join([]string{req("1", "tools/list", ""), req("2", "initialize", `{"protocolVersion":"2025-11-25"}`), req("3", "tools/list", "")}, "\n") + "\n"
	newServer(c, strings.NewReader(in), &out, io.Discard).serve()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","id":2,"result":`) || lines[1] != result("3", `{"tools":[{"name":"a"}]}`) {
		t.Errorf("answers:\n%s\nwant initialize's and the second tools/list's", out.String())
	}
}

// A behaviour that does not apply to a spec server is refused with it.
func TestSpecRefusesBehavioursThatDoNotApply(t *testing.T) {
	for _, tt := range []struct{ spec, behaviours, want string }{
		{`{}`, ",hang", "hang does not apply to a spec server"},
		{`{}`, ",big=10", "big does not apply to a spec server"},
		{`{}`, ",tasks=working", "tasks does not apply to a spec server"},
		{`{"era":"modern"}`, ",ignore-early", "ignore-early does not apply to a spec server of the modern era"},
	} {
		if _, err := specConfig(t, tt.spec, tt.behaviours); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("spec=%s%s: %v, want %q", tt.spec, tt.behaviours, err, tt.want)
		}
	}
	for _, ok := range []string{",junk,stray-id,batch,content-length,ignore-exit,grandchild,stderr-env=X,ignore-early", ""} {
		if _, err := specConfig(t, `{}`, ok); err != nil {
			t.Errorf("spec=F%s: %v", ok, err)
		}
	}
}

// A framed body that does not decode is answered with a parse error, as a
// line is.
func TestSpecFramedJunk(t *testing.T) {
	c, err := specConfig(t, `{}`, ",content-length=strict")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	body := "{not json"
	in := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	newServer(c, strings.NewReader(in), &out, io.Discard).serve()
	if !strings.Contains(out.String(), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: `) {
		t.Errorf("answered %q, want a parse error", out.String())
	}
}

// A result the spec writes that is no object (a job's, initialize's
// capabilities aside) is answered as written, not a crash.
func TestSpecResultsThatAreNoObject(t *testing.T) {
	spec := `{"capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"tools":[{"name":"job","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}],"callResults":{"job":[1]},"tasks":{"statuses":["completed"]}}`
	got := exchange(t, spec,
		req("1", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`),
		req("2", "tools/call", `{"name":"job","task":{}}`),
		req("3", "tasks/get", `{"taskId":"task-1"}`),
		req("4", "tasks/result", `{"taskId":"task-1"}`))
	if last := got[len(got)-1]; last != result("4", "[1]") {
		t.Errorf("answers:\n%s", strings.Join(got, "\n"))
	}
}

// Arguments that are no object give none: a required one is missing.
func TestSpecPromptArgumentsThatAreNoObject(t *testing.T) {
	spec := `{"prompts":[{"name":"p","arguments":[{"name":"a","required":true}]}]}`
	init := req("1", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
	for args, want := range map[string]string{
		`[1]`:     rpcErr("2", "-32602", "prompts/get: missing required argument a"),
		`"a"`:     rpcErr("2", "-32602", "prompts/get: missing required argument a"),
		`{"a":1}`: result("2", `{"messages":[{"content":{"text":"p","type":"text"},"role":"user"}]}`),
	} {
		if got := exchange(t, spec, init, req("2", "prompts/get", `{"name":"p","arguments":`+args+`}`)); got[len(got)-1] != want {
			t.Errorf("arguments %s: %s, want %s", args, got[len(got)-1], want)
		}
	}
}

// TestVersionFaults holds initialize's answer to each version fault, and
// to an offer of no version.
func TestVersionFaults(t *testing.T) {
	init := func(v string) string { return req("1", "initialize", `{"protocolVersion":"`+v+`","capabilities":{}}`) }
	answer := func(v, info string) string {
		return result("1", `{"protocolVersion":"`+v+`","capabilities":{}`+info+`}`)
	}
	info := `,"serverInfo":{"name":"fixture-server","version":"0"}`
	for _, c := range []struct{ fault, offered, want, info string }{
		{"version-cycle", "2025-06-18", "2025-03-26", info},
		{"version-cycle", "2024-11-05", "2024-11-05", info},
		{"echo-any-version", "2099-01-01", "2099-01-01", info},
		{"echo-any-version", "", "2025-11-25", info},
		{"old-fallback", "2099-01-01", "2024-11-05", info},
		{"old-fallback", "2025-06-18", "2025-06-18", info},
		{"init-no-server-info", "2025-06-18", "2025-06-18", ""},
	} {
		got := exchange(t, `{"faults":["`+c.fault+`"]}`, init(c.offered))
		if diff := cmp.Diff([]string{answer(c.want, c.info)}, got); diff != "" {
			t.Errorf("%s, offered %q (-want +got):\n%s", c.fault, c.offered, diff)
		}
	}
}

// TestMetaEdgeOnNotifications holds the meta edge's _meta on each
// notification, added after the params' members, which keep their order;
// a notification without params gets them.
func TestMetaEdgeOnNotifications(t *testing.T) {
	got := exchange(t, `{"edges":["meta"],"faults":["bad-log-level","list-changed-undeclared"],"capabilities":{}}`,
		req("1", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{}}`),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	meta := `"_meta":{"com.example.mcpv/trace":"t-1","io.modelcontextprotocol/future":true,"note":{"a":[1,2]}}`
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":"answered",` + meta + `}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{` + meta + `}}`,
	}
	if len(got) != 3 || !strings.Contains(got[0], `"id":1,`) {
		t.Fatalf("want initialize's answer and two notifications, got %q", got)
	}
	if diff := cmp.Diff(want, got[1:]); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
}

// TestMetaEdgeLeavesWhatIsNoNotification holds noteWithMeta to lines it
// must pass as they are: no JSON, half of one, a batch, a response, a
// request, params that are no object.
func TestMetaEdgeLeavesWhatIsNoNotification(t *testing.T) {
	for _, line := range []string{
		`not json at all`, `{"jsonrpc":"2.0","method":"x","params":{`, `[{"jsonrpc":"2.0","method":"x"}]`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":["info","answered"]}`, "\xff", ``,
	} {
		if got := noteWithMeta(line); got != line {
			t.Errorf("noteWithMeta(%q) = %q, want it as it was", line, got)
		}
	}
}
