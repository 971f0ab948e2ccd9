package commands

import (
	"bufio"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// newHTTPFake is mcptest's scripted MCP server over HTTP: post answers
// the POSTs it wants to (returning true) and the fake the rest.
func newHTTPFake(t *testing.T, post func(x *mcptest.Exchange) bool) *mcptest.HTTPServer {
	return mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: post})
}

// requestLog is what the fake received, a line per request:
// "POST tools/list sid=s1 version=2025-11-25 last-event-id=".
func requestLog(f *mcptest.HTTPServer) string {
	var lines []string
	for _, r := range f.Requests() {
		lines = append(lines, r.String())
	}
	return strings.Join(lines, "\n")
}

func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter, id json.RawMessage)
		code   int
		errHas string
	}{
		{"401 names the challenge", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/.well-known/oauth-protected-resource", scope="tools:read"`)
			w.WriteHeader(http.StatusUnauthorized)
		}, 5, `scope="tools:read"`},
		// A 403 with no challenge to a request without credentials is no
		// authentication matter (here a Host check): its reason is quoted, exit 4.
		{"403 for reasons of the server's own", func(w http.ResponseWriter, id json.RawMessage) {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, "Access is only allowed at localhost:3108")
		}, 4, "/mcp: Access is only allowed at localhost:3108"},
		{"403 with a challenge is authorization", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="tools:write"`)
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, "need tools:write")
		}, 5, `the server needs more scopes (Bearer error="insufficient_scope", scope="tools:write") (HTTP 403)`},
		{"500", func(w http.ResponseWriter, id json.RawMessage) {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "database down")
		}, 4, "HTTP 500 Internal Server Error from http://127.0.0.1"},
		{"escapes in the body are shown escaped", func(w http.ResponseWriter, id json.RawMessage) {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, "\x1b]0;pwned\x07 \x1b]52;c;aGk=\x07 \x1b[2J\u009b2J down")
		}, 4, `: \x1b]0;pwned\x07 \x1b]52;c;aGk=\x07 \x1b[2J\u009b2J down`},
		{"JSON-RPC error in a 400", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"bad cursor"}}`, id)
		}, 3, "bad cursor"},
		{"batch answer", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			fmt.Fprintf(w, `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}},{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}]`, id)
		}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
				if x.RPCMethod != "tools/list" {
					return false
				}
				tt.answer(x.W, x.ID)
				return true
			})
			r := mcpv(t, "", "-u", f.URL, "list-tools")
			if r.code != tt.code || !strings.Contains(r.stderr, tt.errHas) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tt.code, r.stderr, tt.errHas)
			}
			if strings.ContainsAny(r.stderr, "\x1b\x07\u009b") {
				t.Errorf("stderr holds a raw escape: %q", r.stderr)
			}
			if strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
				t.Errorf("stderr is not one line: %q", r.stderr)
			}
		})
	}
}

func TestHTTPTimeoutCancelsByPostThenDeletes(t *testing.T) {
	t.Parallel()
	f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" {
			return false
		}
		x.SSE()
		x.Hold() // never answers
		return true
	})
	held := func() bool { return strings.Contains(requestLog(f), "POST tools/call") }
	code, stderr := timeoutWhen(t, 200*time.Millisecond, `"method":"tools/call"`, []string{"-u", f.URL, "--timeout", "200ms", "call", "x"}, func() bool {
		for guard := time.Now().Add(testWait); !held() && time.Now().Before(guard); time.Sleep(10 * time.Millisecond) {
		}
		return held()
	})
	if code != 124 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	got := requestLog(f)
	c, d := strings.Index(got, "POST notifications/cancelled sid=s1"), strings.Index(got, "DELETE  sid=s1")
	if c < 0 || d < 0 || c > d {
		t.Errorf("want the cancellation POSTed, then DELETE; got:\n%s", got)
	}
}

func TestHTTPUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		errHas string
	}{
		{[]string{"-u", "ftp://x", "ping"}, "want an http:// or https:// URL with a host"},
		{[]string{"-u", "ftp://user:pw@x/?api_key=s3cr3t", "ping"}, "invalid server URL"},
		{[]string{"-u", "http://127.0.0.1:1", "-H", "Bearer sk-live-s3cr3t", "ping"}, "(21 characters)"},
		{[]string{"-u", "http://127.0.0.1:1", "ping", "--", "server"}, "give one server"},
		{[]string{"-H", "X-A: b", "ping", "--", "server"}, "are for HTTP servers"},
		{[]string{"-u", "http://127.0.0.1:1", "-H", "no colon", "ping"}, "want 'Name: value'"},
		{[]string{"-u", "http://127.0.0.1:1", "--env", "A=1", "ping"}, "--env and --cwd are for stdio servers"},
		{[]string{"-u", "http://127.0.0.1:1", "--transport", "carrier-pigeon", "ping"}, "must be one of"},
	}
	for _, tt := range tests {
		r := mcpv(t, "", tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.errHas) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.errHas)
		}
		if strings.Contains(r.stderr, "s3cr3t") {
			t.Errorf("%q: stderr shows a secret: %q", tt.args, r.stderr)
		}
	}
}

func TestHTTPHeadersAndURLFromEnvironment(t *testing.T) {
	t.Parallel()
	f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "ping" {
			return false
		}
		x.Reply(x.Result(fmt.Sprintf(`{"team":%q,"key":%q}`, x.R.Header.Get("X-Team"), x.R.Header.Get("X-Api-Key"))))
		return true
	})
	file := t.TempDir() + "/headers"
	if err := os.WriteFile(file, []byte("# credentials\nX-Api-Key: k-123\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mcpvIn(t, with(testEnv(t), "MCPV_URL="+f.URL), "", "-H", "X-Team: blue", "--header", "@"+file, "ping")
	if r.code != 0 || r.stdout != `{"team":"blue","key":"k-123"}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestHTTPSWithCACert(t *testing.T) {
	t.Parallel()
	server := demoserver.New()
	ts := httptest.NewTLSServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(ts.Close)
	certFile := t.TempDir() + "/ca.pem"
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(certFile, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := mcpv(t, "", "-u", ts.URL, "ping"); r.code != 4 || !strings.Contains(r.stderr, "certificate") {
		t.Errorf("without --cacert: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := mcpv(t, "", "-u", ts.URL, "--cacert", certFile, "ping"); r.code != 0 || r.stdout != "{}\n" {
		t.Errorf("with --cacert: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	notPEM := t.TempDir() + "/not.pem"
	os.WriteFile(notPEM, []byte("hello"), 0o644)
	if r := mcpv(t, "", "-u", ts.URL, "--cacert", notPEM, "ping"); r.code != 2 || !strings.Contains(r.stderr, "no PEM certificate") {
		t.Errorf("bad --cacert: exit %d, stderr %q", r.code, r.stderr)
	}
}

// --transport sse against a Streamable HTTP server says what the server is
// and what to do, on one line.
func TestTransportSSEAgainstStreamableHTTP(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	r := mcpv(t, "", "--transport", "sse", "-u", srv.URL, "ping")
	want := "mcpv: initialize: legacy SSE: " + srv.URL + " is a Streamable HTTP server, not a legacy HTTP+SSE one (its GET: HTTP 405 Method Not Allowed from " + srv.URL + "); drop --transport sse\n"
	if r.code != 4 || r.stderr != want {
		t.Errorf("exit %d, stderr %q\nwant %q", r.code, r.stderr, want)
	}
}

// In the modern era a tool whose x-mcp-header annotations are invalid is
// not called; a -32020 (headers wrong) gets one more try after the tools
// are listed again.
func TestModernParamHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := 0
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"f","version":"1"}}}`))
		case "tools/list":
			x.Reply(x.Result(`{"tools":[{"name":"bad","inputSchema":{"type":"object","properties":{"f":{"type":"number","x-mcp-header":"F"}}}},` +
				`{"name":"ok","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}]}`))
		case "tools/call":
			mu.Lock()
			calls++
			first := calls == 1
			mu.Unlock()
			if first {
				x.Reply(x.Error(-32020, "Header mismatch"))
			} else {
				x.Reply(x.Result(`{"content":[{"type":"text","text":"` + x.Header.Get("Mcp-Param-Region") + `"}]}`))
			}
		default:
			return false
		}
		return true
	}})
	r := mcpv(t, "", "--protocol-version", "2026-07-28", "-u", srv.URL, "call", "bad", "f:=1.5")
	if r.code != 3 || !strings.Contains(r.stderr, `tool "bad" has an invalid x-mcp-header annotation (property "f": x-mcp-header "F" is on a property of type "number": only string, integer and boolean may be mirrored); mcpv does not call it`) {
		t.Errorf("bad: exit %d, stderr %q", r.code, r.stderr)
	}
	r = mcpv(t, "", "--protocol-version", "2026-07-28", "-u", srv.URL, "call", "ok", "r=eu", "-r", "-q", ".content[0].text")
	if r.code != 0 || r.stdout != "eu\n" {
		t.Errorf("ok: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	var lists, toolCalls int
	for _, q := range srv.Requests() {
		switch q.RPCMethod {
		case "tools/list":
			lists++
		case "tools/call":
			toolCalls++
		}
	}
	if lists != 3 || toolCalls != 2 { // bad: one list; ok: a list, the -32020, a list again, the retry
		t.Errorf("%d tools/list and %d tools/call, want 3 and 2", lists, toolCalls)
	}
}

// invalidHeaderTools are the conformance suite's tools of
// http-invalid-tool-headers, and one that breaks the rule of static
// reachability: each has an x-mcp-header annotation a client over
// Streamable HTTP must reject.
var invalidHeaderTools = map[string]string{
	"invalid_empty_header":        `{"value":{"type":"string","x-mcp-header":""}}`,
	"invalid_object_header":       `{"data":{"type":"object","x-mcp-header":"Data"}}`,
	"invalid_array_header":        `{"items":{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}}`,
	"invalid_null_header":         `{"nil":{"type":"null","x-mcp-header":"Nil"}}`,
	"invalid_number_header":       `{"score":{"type":"number","x-mcp-header":"Score"}}`,
	"invalid_duplicate_same_case": `{"field1":{"type":"string","x-mcp-header":"Region"},"field2":{"type":"string","x-mcp-header":"Region"}}`,
	"invalid_duplicate_diff_case": `{"field1":{"type":"string","x-mcp-header":"MyField"},"field2":{"type":"string","x-mcp-header":"myfield"}}`,
	"invalid_space_in_name":       `{"value":{"type":"string","x-mcp-header":"My Region"}}`,
	"invalid_colon_in_name":       `{"value":{"type":"string","x-mcp-header":"Region:Primary"}}`,
	"invalid_non_ascii_name":      `{"value":{"type":"string","x-mcp-header":"Région"}}`,
	"invalid_control_char_name":   `{"value":{"type":"string","x-mcp-header":"Region\t1"}}`,
	"invalid_under_items":         `{"tags":{"type":"array","items":{"type":"string","x-mcp-header":"Tag"}}}`,
}

// Over Streamable HTTP in the 2026-07-28 era list-tools leaves out every
// tool whose x-mcp-header annotations break the transport's constraints,
// each said once on stderr with the reason, and keeps the valid ones:
// whole lists of many pages, one page (--cursor), --names; a tool asked
// for by name is refused (exit 3).
func TestModernListToolsLeavesOutInvalidHeaders(t *testing.T) {
	t.Parallel()
	names := slices.Sorted(maps.Keys(invalidHeaderTools))
	var tools []string
	for i, n := range names {
		tools = append(tools, `{"name":"`+n+`","inputSchema":{"type":"object","properties":`+invalidHeaderTools[n]+`}}`)
		if i%4 == 0 {
			tools = append(tools, fmt.Sprintf(`{"name":"valid_%d","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}`, i))
		}
	}
	const pageSize = 5
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"f","version":"1"}}}`))
		case "tools/list":
			var p struct {
				Params struct{ Cursor string }
			}
			json.Unmarshal(x.Body, &p)
			from, _ := strconv.Atoi(p.Params.Cursor)
			to := min(from+pageSize, len(tools))
			next := ""
			if to < len(tools) {
				next = fmt.Sprintf(`,"nextCursor":"%d"`, to)
			}
			x.Reply(x.Result(`{"tools":[` + strings.Join(tools[from:to], ",") + `]` + next + `}`))
		default:
			return false
		}
		return true
	}})
	want := "valid_0\nvalid_4\nvalid_8\n"
	for _, a := range [][]string{{"list-tools", "-r", "-q", ".tools[].name"}, {"list-tools", "-o", "json", "-r", "-q", ".tools[].name"}, {"list-tools", "--names", "-r", "-q", ".tools[].name"}} {
		r := mcpv(t, "", args([]string{"-u", srv.URL}, a)...)
		if r.code != 0 || r.stdout != want {
			t.Errorf("%q: exit %d, stdout %q, want %q; stderr %q", a, r.code, r.stdout, want, r.stderr)
		}
		for _, n := range names {
			if c := strings.Count(r.stderr, fmt.Sprintf("mcpv: warning: tool %q is left out of the list: ", n)); c != 1 {
				t.Errorf("%q: tool %s warned of %d times; stderr %q", a, n, c, r.stderr)
			}
		}
		if !strings.Contains(r.stderr, `tool "invalid_number_header" is left out of the list: property "score": x-mcp-header "Score" is on a property of type "number"`) ||
			!strings.Contains(r.stderr, `tool "invalid_under_items" is left out of the list: property "tags": x-mcp-header "Tag" is under items`) {
			t.Errorf("%q: the reasons not said: %q", a, r.stderr)
		}
	}
	r := mcpv(t, "", "-u", srv.URL, "list-tools", "--cursor", "5", "-r", "-q", "[.tools[].name, .nextCursor]|@json")
	if r.code != 0 || r.stdout != `["valid_4","10"]`+"\n" || strings.Count(r.stderr, "is left out of the list") != 4 {
		t.Errorf("one page: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = mcpv(t, "", "-u", srv.URL, "list-tools", "invalid_duplicate_diff_case")
	if r.code != 3 || r.stdout != "" || r.stderr != `mcpv: tool "invalid_duplicate_diff_case" is left out of the list: property "field2": x-mcp-header "myfield" repeats the header name of property "field1" (names are compared without case)`+"\n" {
		t.Errorf("by name: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A call sent without listing (--no-validate, JSON arguments) to a modern
// server over HTTP has no x-mcp-header annotations to follow: the server
// that refuses its headers gets them after a listing, and the call again.
func TestModernParamHeadersOnTheFastPath(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"f","version":"1"}}}`))
		case "tools/list":
			x.Reply(x.Result(`{"tools":[{"name":"ok","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}]}`))
		case "tools/call":
			if region := x.Header.Get("Mcp-Param-Region"); region == "" {
				x.Reply(x.Error(-32020, "Header mismatch"))
			} else {
				x.Reply(x.Result(`{"content":[{"type":"text","text":"` + region + `"}]}`))
			}
		default:
			return false
		}
		return true
	}})
	r := mcpv(t, "", "-u", srv.URL, "call", "ok", `r:="eu"`, "--no-validate", "-r", "-q", ".content[0].text")
	if r.code != 0 || r.stdout != "eu\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	var got []string
	for _, q := range srv.Requests() {
		got = append(got, q.RPCMethod)
	}
	if want := []string{"server/discover", "tools/list", "tools/call"}; !slices.Equal(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}
}

// Against a modern server with the tasks extension, a call the server turns
// into a task is followed to its result; tasks list says there is none.
func TestModernTaskCall(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	polls := 0
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`))
		case "tools/list":
			x.Reply(x.Result(`{"tools":[{"name":"job","inputSchema":{"type":"object"}}]}`))
		case "tools/call":
			x.Reply(x.Result(`{"resultType":"task","taskId":"t-1","status":"working","pollIntervalMs":20,"ttlMs":null}`))
		case "tasks/get":
			mu.Lock()
			polls++
			n := polls
			mu.Unlock()
			if n < 3 || x.Header.Get("Mcp-Name") != "t-1" {
				x.Reply(x.Result(`{"taskId":"t-1","status":"working","statusMessage":"busy","pollIntervalMs":20}`))
			} else {
				x.Reply(x.Result(`{"taskId":"t-1","status":"completed","result":{"content":[{"type":"text","text":"done"}]}}`))
			}
		default:
			return false
		}
		return true
	}})
	r := mcpv(t, "", "--protocol-version", "2026-07-28", "-u", srv.URL, "call", "job", "-r", "-q", ".content[0].text")
	if r.code != 0 || r.stdout != "done\n" || !strings.Contains(r.stderr, "task t-1 created (working)") {
		t.Errorf("call: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = mcpv(t, "", "--protocol-version", "2026-07-28", "-u", srv.URL, "tasks", "list")
	if r.code != 3 || !strings.Contains(r.stderr, "has no tasks/list") {
		t.Errorf("tasks list: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A subscriptions/listen acknowledgement that leaves a URI out is warned
// about; one that leaves all out ends the watch.
func TestModernWatchAcknowledgement(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"resources":{"subscribe":true}}}`))
		case "subscriptions/listen":
			e := x.SSE()
			acked := `[]`
			if strings.Contains(string(x.Body), "a://kept") {
				acked = `["a://kept"]`
			}
			e.Event("", `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"resourceSubscriptions":`+acked+`}}}`)
			e.Event("", `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a://kept"}}`)
			x.Hold()
		default:
			return false
		}
		return true
	}})
	r := mcpv(t, "", "--protocol-version", "2026-07-28", "-u", srv.URL, "watch", "a://kept", "a://gone", "--count", "1", "-c", "-q", ".uri")
	if r.code != 0 || r.stdout != "\"a://kept\"\n" || !strings.Contains(r.stderr, "warning: the server left a://gone out of its acknowledgement") {
		t.Errorf("partial: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = mcpv(t, "", "--protocol-version", "2026-07-28", "-u", srv.URL, "watch", "a://gone", "--count", "1")
	if r.code != 3 || !strings.Contains(r.stderr, "acknowledged none of the subscriptions (a://gone)") {
		t.Errorf("none: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A server that keeps tasks per session: call --detach keeps the HTTP
// session open (no DELETE) and names it; a later command resumes it with
// --session-id, without initializing again, and collects the task.
func TestDetachKeepsTheHTTPSession(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	owner := map[string]string{} // task id -> the session that made it
	task := func(id, status string) string {
		return fmt.Sprintf(`{"taskId":%q,"status":%q,"createdAt":"2026-11-23T00:00:00Z","lastUpdatedAt":"2026-11-23T00:00:00Z","ttl":null,"pollInterval":10}`, id, status)
	}
	srv := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		mu.Lock()
		defer mu.Unlock()
		switch x.RPCMethod {
		case "initialize":
			x.W.Header().Set("Mcp-Session-Id", x.Server().NewSession())
			x.Reply(x.Result(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"f","version":"1"}}`))
		case "tools/list":
			x.Reply(x.Result(`{"tools":[{"name":"job","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`))
		case "tools/call":
			owner["t-1"] = x.SessionID
			x.Reply(x.Result(`{"task":` + task("t-1", "working") + `}`))
		case "tasks/get", "tasks/result":
			if owner["t-1"] != x.SessionID {
				x.Reply(x.Error(-32602, "Task not found"))
			} else if x.RPCMethod == "tasks/get" {
				x.Reply(x.Result(task("t-1", "completed")))
			} else {
				x.W.Header().Set("X-Note", "txt.\u202eexe\u0085") // what a terminal shows reversed, or as a line break, traced under --verbose
				x.Reply(x.Result(`{"content":[{"type":"text","text":"done"}]}`))
			}
		default:
			return false
		}
		return true
	})
	w := testEnv(t)
	r := mcpvIn(t, w, "", "-u", srv.URL, "call", "job", "--detach", "-r", "-q", ".task.taskId")
	if r.code != 0 || r.stdout != "t-1\n" || !strings.Contains(r.stderr, "the HTTP session stays open for task t-1: collect it with mcpv tasks result t-1 --session-id s1") {
		t.Fatalf("detach: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	before := len(srv.Requests())
	r = mcpvIn(t, w, "", "-u", srv.URL, "tasks", "result", "t-1", "--session-id", "s1", "--verbose", "-r", "-q", ".content[0].text")
	if r.code != 0 || r.stdout != "done\n" || !strings.Contains(r.stderr, "mcpv: http: POST") || strings.ContainsAny(r.stderr, "\u202e\u0085") {
		t.Errorf("resumed: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for i, q := range srv.Requests() {
		if q.Method == "DELETE" || i >= before && (q.RPCMethod == "initialize" || q.SessionID != "s1") {
			t.Errorf("request %d: %s", i, q.String())
		}
	}
	r = mcpvIn(t, w, "", "-u", srv.URL, "tasks", "get", "t-1")
	if r.code != 3 || !strings.Contains(r.stderr, "Task not found") {
		t.Errorf("a new session: exit %d, stderr %q", r.code, r.stderr)
	}
	r = mcpvIn(t, w, "", "-u", srv.URL, "tasks", "get", "t-1", "--session-id", "s9")
	if r.code != 2 || !strings.Contains(r.stderr, `--session-id: no session "s9" of `+srv.URL+` was kept here`) {
		t.Errorf("unknown session id: exit %d, stderr %q", r.code, r.stderr)
	}
	r = mcpvIn(t, w, "", "tasks", "get", "t-1", "--session-id", "s1", "--", "./server")
	if r.code != 2 || !strings.Contains(r.stderr, "--session-id resumes an HTTP session") {
		t.Errorf("stdio: exit %d, stderr %q", r.code, r.stderr)
	}
}

// The reason phrase of an HTTP status line is the server's text too: it
// reaches the error line escaped.
func TestHTTPStatusTextEscaped(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() { // ends when the listener closes
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				http.ReadRequest(bufio.NewReader(c))
				io.WriteString(c, "HTTP/1.1 502 Bad\x1b]0;pwned\x07Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			}()
		}
	}()
	r := mcpv(t, "", "-u", "http://"+l.Addr().String()+"/mcp", "ping")
	if r.code != 4 || !strings.Contains(r.stderr, `HTTP 502 Bad\x1b]0;pwned\x07Gateway from`) || strings.ContainsAny(r.stderr, "\x1b\x07") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// The verbose trace shows what the server sent, escaped where a terminal
// would act on it: a C1 control is valid in a JSON string, raw.
func TestVerboseTraceEscapes(t *testing.T) {
	t.Parallel()
	f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/list" {
			return false
		}
		x.Reply(x.Result("{\"tools\":[{\"name\":\"x\",\"description\":\"\u009b2J\u202egnp.exe\",\"inputSchema\":{\"type\":\"object\"}}]}"))
		return true
	})
	r := mcpv(t, "", "-v", "-u", f.URL, "list-tools")
	if r.code != 0 || !strings.Contains(r.stderr, `"description":"\u009b2J\u202egnp.exe"`) || strings.ContainsAny(r.stderr, "\u009b\u202e") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// A 403 to a request that carried credentials refuses them: exit 5, with
// the server's reason.
func TestHTTP403ToCredentialsIsAuthorization(t *testing.T) {
	t.Parallel()
	f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/list" {
			return false
		}
		x.Status(http.StatusForbidden, "this token may not list tools")
		return true
	})
	for _, header := range []string{"Authorization: Bearer s3cr3t-t0ken", "X-API-Key: s3cr3t-t0ken"} {
		r := mcpv(t, "", "-u", f.URL, "-H", header, "list-tools")
		if r.code != 5 || !strings.Contains(r.stderr, "refused access (HTTP 403") || !strings.Contains(r.stderr, "it says: this token may not list tools") || strings.Contains(r.stderr, "s3cr3t") {
			t.Fatalf("-H %q: exit %d, stderr %q", header, r.code, r.stderr)
		}
	}
}

// A call of a tool the server does not list, sent anyway (--no-validate)
// and refused, names the nearest tool the server lists, with arguments or
// without: over modern HTTP the one with arguments lists the tools first
// (for the headers), and that listing serves the suggestion, with no
// second one.
func TestNoValidateRefusalNamesTheNearestTool(t *testing.T) {
	t.Parallel()
	var lists atomic.Int32
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"f","version":"1"}}}`))
		case "tools/list":
			lists.Add(1)
			x.Reply(x.Result(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`))
		case "tools/call":
			x.Reply(x.Error(-32602, "Unknown tool"))
		default:
			return false
		}
		return true
	}})
	for _, args := range [][]string{
		{"call", "ecoh", "--no-validate"},
		{"call", "ecoh", "a:=1", "--no-validate"},
	} {
		lists.Store(0)
		r := mcpv(t, "", append([]string{"-u", srv.URL}, args...)...)
		if r.code != 3 || !strings.Contains(r.stderr, `the server lists no tool "ecoh"; did you mean "echo"?`) {
			t.Errorf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if n := lists.Load(); n != 1 {
			t.Errorf("%q: %d tools/list, want 1", args, n)
		}
	}
}

// Over Streamable HTTP in the 2026-07-28 era a call knows its tool's
// definition before it is sent, even with no arguments and --no-validate:
// a tool whose x-mcp-header marks are invalid is refused, exit 3, and
// nothing is sent (the conformance suite's http-invalid-tool-headers).
func TestModernCallOfAToolWithInvalidHeaders(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"f","version":"1"}}}`))
		case "tools/list":
			x.Reply(x.Result(`{"tools":[{"name":"bad","inputSchema":{"type":"object","properties":{"f":{"type":"object","x-mcp-header":"F"}}}}]}`))
		case "tools/call":
			x.Reply(x.Result(`{"content":[]}`))
		default:
			return false
		}
		return true
	}})
	for _, a := range [][]string{{"call", "bad", "--no-validate"}, {"call", "bad", "--no-validate", "--args", "{}"}, {"call", "bad"}} {
		r := mcpv(t, "", args([]string{"-u", srv.URL}, a)...)
		if r.code != 3 || !strings.Contains(r.stderr, `tool "bad" has an invalid x-mcp-header annotation`) {
			t.Errorf("%q: exit %d, stderr %q", a, r.code, r.stderr)
		}
	}
	for _, q := range srv.Requests() {
		if q.RPCMethod == "tools/call" {
			t.Errorf("a tools/call was sent")
		}
	}
}
