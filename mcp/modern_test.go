package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

const discovered = `{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"instructions":"hi",` +
	`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"resultType":"complete"}`

// A pinned modern version sends server/discover, never initialize or
// notifications/initialized, and every later request carries the
// protocol version, the client's capabilities and identity in _meta.
func TestModernDiscover(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), ProtocolVersion: ModernVersion, LogLevel: "debug"})
	req := m.nextMsg(t)
	want := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/skills":{},"io.modelcontextprotocol/tasks":{},` +
		`"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"mcpv-test","version":"0.0.1"},"io.modelcontextprotocol/logLevel":"debug"}}`
	if req.Method != "server/discover" || string(req.Params) != want {
		t.Fatalf("first message %s %s, want server/discover with %s", req.Method, req.Params, want)
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+discovered+`}`)
	r := waitFor(t, init)
	if r.err != nil {
		t.Fatal(r.err)
	}
	c := r.c
	if !c.Modern() || c.ProtocolVersion() != ModernVersion || !c.HasCapability("tools") || c.HasCapability("prompts") {
		t.Errorf("client: modern %v, version %s, tools %v", c.Modern(), c.ProtocolVersion(), c.HasCapability("tools"))
	}
	wantInfo := `{"protocolVersion":"2026-07-28","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},"instructions":"hi","supportedVersions":["2026-07-28","2025-11-25"]}`
	if d := cmp.Diff(wantInfo, string(c.InitializeResult().Raw())); d != "" {
		t.Errorf("info (-want +got):\n%s", d)
	}
	call := goCall(t.Context(), c.Call, "tools/list", []byte(`{"cursor":"c1"}`))
	req = m.nextMsg(t)
	if req.Method != "tools/list" || !strings.Contains(string(req.Params), `"cursor":"c1"`) ||
		!strings.Contains(string(req.Params), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) ||
		!strings.Contains(string(req.Params), `"io.modelcontextprotocol/clientInfo"`) {
		t.Errorf("tools/list params %s lack the modern _meta", req.Params)
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"tools":[],"resultType":"complete"}}`)
	if r := waitFor(t, call); r.err != nil {
		t.Errorf("tools/list: %v", r.err)
	}
	// A result of a type mcpv does not know is never a success.
	call = goCall(t.Context(), c.Call, "tools/call", []byte(`{"name":"x"}`))
	req = m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"resultType":"later"}}`)
	var rte *ResultTypeError
	if r := waitFor(t, call); !errors.As(r.err, &rte) || rte.Type != "later" {
		t.Errorf("a result of type later gave %v", r.err)
	}
}

// An input_required result is fulfilled with the session's handler and the
// request sent again, with a new id, the responses and the exact
// requestState; a server that never stops asking is given up on.
func TestModernInputRequired(t *testing.T) {
	var asked []string
	handler := func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		asked = append(asked, method+" "+string(params))
		if method == "roots/list" {
			return nil, &RPCError{Code: CodeMethodNotFound, Message: "no roots"}
		}
		return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), nil
	}
	s, m := newTestSession(t, SessionOptions{Handler: handler})
	init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), ProtocolVersion: ModernVersion})
	req := m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+discovered+`}`)
	c := waitFor(t, init).c

	call := goCall(t.Context(), c.Call, "tools/call", json.RawMessage(`{"name":"greet","arguments":{"x":1}}`))
	first := m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(first.ID)+`,"result":{"resultType":"input_required",`+
		`"inputRequests":{"e1":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object"}}}},`+
		`"requestState":"opaque \u00e9 state"}}`)
	second := m.nextMsg(t)
	if second.Method != "tools/call" || string(second.ID) == string(first.ID) {
		t.Fatalf("retry: %s id %s after id %s", second.Method, second.ID, first.ID)
	}
	var p struct {
		Name           string                     `json:"name"`
		Arguments      json.RawMessage            `json:"arguments"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   json.RawMessage            `json:"requestState"`
		Meta           map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(second.Params, &p); err != nil {
		t.Fatal(err)
	}
	if p.Name != "greet" || string(p.Arguments) != `{"x":1}` || string(p.RequestState) != `"opaque \u00e9 state"` ||
		string(p.InputResponses["e1"]) != `{"action":"accept","content":{"name":"Ada"}}` || p.Meta[MetaProtocolVersion] == nil {
		t.Errorf("retry params %s", second.Params)
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], `elicitation/create {"message":"name?"`) {
		t.Errorf("handler asked %q", asked)
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(second.ID)+`,"result":{"content":[],"resultType":"complete"}}`)
	if r := waitFor(t, call); r.err != nil || string(r.result) != `{"content":[],"resultType":"complete"}` {
		t.Errorf("result %s, %v", r.result, r.err)
	}

	// A refused input request fails the call with what the handler said.
	call = goCall(t.Context(), c.Call, "resources/read", json.RawMessage(`{"uri":"demo://x"}`))
	req = m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}}`)
	if r := waitFor(t, call); r.err == nil || !strings.Contains(r.err.Error(), "roots/list (input request r): server error -32601: no roots") {
		t.Errorf("refused input: %v", r.err)
	}

	// Rounds are bounded.
	call = goCall(t.Context(), c.Call, "prompts/get", json.RawMessage(`{"name":"p"}`))
	for range MaxInputRounds {
		req = m.nextMsg(t)
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"resultType":"input_required","inputRequests":{}}}`)
	}
	var rte *ResultTypeError
	if r := waitFor(t, call); !errors.As(r.err, &rte) || rte.Rounds != MaxInputRounds {
		t.Errorf("endless input: %v", r.err)
	}

	// Only the three methods may ask.
	call = goCall(t.Context(), c.Call, "tools/list", nil)
	req = m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"resultType":"input_required","inputRequests":{}}}`)
	if r := waitFor(t, call); !errors.As(r.err, &rte) || rte.Type != "input_required" || rte.Rounds != 0 {
		t.Errorf("tools/list asking for input: %v", r.err)
	}

	// inputRequests that are no object break the protocol: the call
	// fails naming its method, and nothing is sent again.
	call = goCall(t.Context(), c.Call, "tools/call", json.RawMessage(`{"name":"greet"}`))
	req = m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"resultType":"input_required","inputRequests":["e1"]}}`)
	var te *TransportError
	if r := waitFor(t, call); !errors.As(r.err, &te) || !strings.HasPrefix(r.err.Error(), "tools/call: malformed result: ") {
		t.Errorf("inputRequests an array: %v", r.err)
	}
}

// A server that refuses initialize with -32022 and supports only modern
// versions is spoken to in the modern era; one whose discover result lists
// no version mcpv speaks is a VersionError.
func TestModernNegotiation(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo()})
	req := readInitialize(t, m, initParams(LatestVersion))
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}`)
	req = m.nextMsg(t)
	if req.Method != "server/discover" {
		t.Fatalf("after -32022: %s, want server/discover", req.Method)
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+discovered+`}`)
	if r := waitFor(t, init); r.err != nil || !r.c.Modern() {
		t.Fatalf("Initialize = %v", r.err)
	}

	s, m = newTestSession(t, SessionOptions{})
	init = goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), ProtocolVersion: ModernVersion})
	req = m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"supportedVersions":["2025-11-25"],"capabilities":{}}}`)
	var ve *VersionError
	if r := waitFor(t, init); !errors.As(r.err, &ve) || !cmp.Equal(ve.ServerSupports, []string{"2025-11-25"}) {
		t.Fatalf("Initialize = %v, want a VersionError listing 2025-11-25", r.err)
	}

	s, m = newTestSession(t, SessionOptions{})
	init = goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), ProtocolVersion: ModernVersion})
	req = m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32022,"message":"no","data":{"supported":["2025-06-18"],"requested":"2026-07-28"}}}`)
	if r := waitFor(t, init); !errors.As(r.err, &ve) || !strings.Contains(r.err.Error(), "supports only 2025-06-18; mcpv accepts 2026-07-28") {
		t.Fatalf("Initialize = %v", r.err)
	}
}

func TestStandardHeaders(t *testing.T) {
	for _, tt := range []struct {
		msg, method, name string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`, "tools/call", "echo"},
		{`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":" padded "}}`, "prompts/get", "=?base64?IHBhZGRlZCA=?="},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///caf\u00e9"}}`, "resources/read", "=?base64?ZmlsZTovLy9jYWbDqQ==?="},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"=?base64?eA==?="}}`, "tools/call", "=?base64?PT9iYXNlNjQ/ZUE9PT89?="},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "tools/list", ""},
	} {
		h := http.Header{}
		StandardHeaders(h, []byte(tt.msg))
		if h.Get("Mcp-Method") != tt.method || h.Get("Mcp-Name") != tt.name {
			t.Errorf("%s: Mcp-Method %q, Mcp-Name %q; want %q, %q", tt.msg, h.Get("Mcp-Method"), h.Get("Mcp-Name"), tt.method, tt.name)
		}
	}
}

// -32021 names the capabilities the server wants; -32020 says what it means.
func TestModernErrorMessages(t *testing.T) {
	for _, tt := range []struct {
		err  RPCError
		want string
	}{
		{RPCError{Code: -32021, Message: "Missing capabilities", Data: []byte(`{"requiredCapabilities":{"elicitation":{"url":{}},"sampling":{}}}`)},
			"server error -32021: Missing capabilities: the server needs client capabilities mcpv did not declare: elicitation.url, sampling"},
		{RPCError{Code: -32021, Message: "Missing capabilities"}, "server error -32021: Missing capabilities"},
		{RPCError{Code: -32020, Message: "Header mismatch"},
			"server error -32020: Header mismatch: the server found the request's HTTP headers missing or not matching its body"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q\nwant %q", got, tt.want)
		}
	}
}

// By default a client probes with server/discover: a modern server is
// spoken to in the modern era; an error answer, or a discover result
// without a modern version, leads to initialize. (Silence: probe_test.go.)
func TestProbe(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer string
		modern bool
	}{
		{"modern", `"result":` + discovered, true},
		{"method not found", `"error":{"code":-32601,"message":"Method not found"}`, false},
		{"not initialized", `"error":{"code":-32002,"message":"Server not initialized"}`, false},
		{"only older versions", `"result":{"supportedVersions":["2025-11-25"],"capabilities":{}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, m := newTestSession(t, SessionOptions{})
			init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, DiscoverWait: 100 * time.Millisecond, silenceWait: time.Hour})
			req := m.nextMsg(t)
			if req.Method != "server/discover" {
				t.Fatalf("first message %s, want server/discover", req.Method)
			}
			m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,`+tt.answer+`}`)
			if tt.modern {
				if r := waitFor(t, init); r.err != nil || !r.c.Modern() {
					t.Fatalf("Initialize = %v", r.err)
				}
				return
			}
			next := m.nextMsg(t)
			if next.Method != "initialize" { // nothing about the probe before initialize, not even its cancellation
				t.Fatalf("after the probe: %s, want initialize", next.Method)
			}
			m.send(t, `{"jsonrpc":"2.0","id":`+string(next.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
			if r := waitFor(t, init); r.err != nil || r.c.Modern() || r.c.ProtocolVersion() != "2025-11-25" {
				t.Fatalf("Initialize = %v", r.err)
			}
		})
	}
}

// A modern server's own errors end the probe: there is no falling back.
func TestProbeFinalErrors(t *testing.T) {
	for _, answer := range []string{
		`"error":{"code":-32021,"message":"Missing capabilities","data":{"requiredCapabilities":{"sampling":{}}}}`,
		`"error":{"code":-32022,"message":"Unsupported","data":{"supported":["2030-01-01"],"requested":"2026-07-28"}}`,
	} {
		s, m := newTestSession(t, SessionOptions{})
		init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true})
		req := m.nextMsg(t)
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,`+answer+`}`)
		if r := waitFor(t, init); r.err == nil {
			t.Errorf("%s: Initialize succeeded", answer)
		}
	}
	// -32022 naming an older version mcpv speaks: initialize, as a legacy server.
	s, m := newTestSession(t, SessionOptions{})
	init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true})
	req := m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32022,"message":"no","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}}`)
	next := m.nextMsg(t)
	if next.Method != "initialize" {
		t.Fatalf("after -32022 listing 2025-11-25: %s", next.Method)
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(next.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	if r := waitFor(t, init); r.err != nil {
		t.Fatal(r.err)
	}
}

// A modern server may answer a tools/call with a task: WaitTask polls
// tasks/get, answers the task's input requests once with tasks/update, and
// returns the result the completed task carries.
func TestModernTask(t *testing.T) {
	t.Parallel()
	handler := func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept","content":{"ok":true}}`), nil
	}
	s, m := newTestSession(t, SessionOptions{Handler: handler})
	init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), ProtocolVersion: ModernVersion})
	req := m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}}`)
	c := waitFor(t, init).c
	if !c.HasCapability("tasks.cancel") || c.HasCapability("tasks.list") {
		t.Errorf("task capabilities: cancel %v, list %v", c.HasCapability("tasks.cancel"), c.HasCapability("tasks.list"))
	}
	if asTask, err := c.TaskWanted(Tool{Name: "x"}, true); asTask || err != nil {
		t.Errorf("TaskWanted = %v, %v; the modern server decides", asTask, err)
	}
	call := goCall(t.Context(), c.Call, "tools/call", json.RawMessage(`{"name":"x"}`))
	req = m.nextMsg(t)
	created := `{"resultType":"task","taskId":"t1","status":"working","pollIntervalMs":10,"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null}`
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+created+`}`)
	r := waitFor(t, call)
	if r.err != nil || !IsTaskResult(r.result) {
		t.Fatalf("tools/call = %s, %v", r.result, r.err)
	}
	task, _, err := CreatedTask(r.result)
	if err != nil || task.TaskID != "t1" || task.Poll() != 50*time.Millisecond {
		t.Fatalf("CreatedTask = %+v, %v", task, err)
	}
	type waited struct {
		res  json.RawMessage
		task Task
		err  error
	}
	done := make(chan waited, 1)
	var polls []time.Duration // the interval waited before each tasks/get
	go func() {
		res, final, err := c.WaitTask(t.Context(), task, func(t Task) { polls = append(polls, t.Poll()) })
		done <- waited{res, final, err}
	}()
	ask := `"inputRequests":{"q1":{"method":"elicitation/create","params":{"message":"sure?","requestedSchema":{"type":"object"}}}}`
	answer := func(result string) {
		req := m.nextMsg(t)
		if req.Method != "tasks/get" || !strings.Contains(string(req.Params), `"taskId":"t1"`) {
			t.Fatalf("poll: %s %s", req.Method, req.Params)
		}
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	}
	answer(`{"resultType":"complete","taskId":"t1","status":"input_required",` + ask + `}`)
	upd := m.nextMsg(t)
	if upd.Method != "tasks/update" || !strings.Contains(string(upd.Params), `"inputResponses":{"q1":{"action":"accept","content":{"ok":true}}}`) {
		t.Fatalf("update: %s %s", upd.Method, upd.Params)
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(upd.ID)+`,"result":{"resultType":"complete"}}`)
	answer(`{"resultType":"complete","taskId":"t1","status":"input_required",` + ask + `}`) // the same question again: not answered twice
	answer(`{"resultType":"complete","taskId":"t1","status":"completed","result":{"content":[{"type":"text","text":"done"}]}}`)
	w := <-done
	if w.err != nil || string(w.res) != `{"content":[{"type":"text","text":"done"}]}` || w.task.Status != TaskCompleted {
		t.Errorf("WaitTask = %s, %+v, %v", w.res, w.task, w.err)
	}
	// The statuses suggest no interval: the one the task was created with
	// holds, not the default second.
	if want := []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}; !slices.Equal(polls, want) {
		t.Errorf("polled after %v, want %v", polls, want)
	}

	// A failed task ends with its error.
	go func() {
		ms := 10.0
		res, final, err := c.WaitTask(t.Context(), Task{TaskID: "t2", Status: TaskWorking, PollIntervalMs: &ms}, nil)
		done <- waited{res, final, err}
	}()
	req = m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"resultType":"complete","taskId":"t2","status":"failed","error":{"code":-32603,"message":"disk full"}}}`)
	w = <-done
	var ended *TaskEndedError
	if !errors.As(w.err, &ended) || !ended.Failed() || !strings.Contains(w.err.Error(), "disk full") {
		t.Errorf("failed task: %v", w.err)
	}
}

// A pinned older version refused with -32022 is a VersionError naming both
// lists, not the server's bare error.
func TestPinnedVersionRefusedByAModernServer(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), ProtocolVersion: "2025-11-25"})
	req := readInitialize(t, m, initParams("2025-11-25"))
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}`)
	var ve *VersionError
	if r := waitFor(t, init); !errors.As(r.err, &ve) || r.err.Error() != `server refused protocol version "2025-11-25" and supports only 2026-07-28; mcpv accepts 2025-11-25` {
		t.Fatalf("Initialize = %v", r.err)
	}
}

// A server that answers initialize as only a modern one would (-32020 for
// missing headers, or a modern version) is spoken to in the modern era.
func TestInitializeFindsAModernServer(t *testing.T) {
	for _, answer := range []string{
		`"error":{"code":-32020,"message":"Missing MCP-Protocol-Version header"}`,
		`"error":{"code":-32601,"message":"Method not found: initialize"}`,
		`"result":{"protocolVersion":"2026-07-28","capabilities":{}}`,
	} {
		s, m := newTestSession(t, SessionOptions{})
		init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo()})
		req := readInitialize(t, m, initParams(LatestVersion))
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,`+answer+`}`)
		req = m.nextMsg(t)
		if req.Method != "server/discover" {
			t.Fatalf("%s: then %s, want server/discover", answer, req.Method)
		}
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+discovered+`}`)
		if r := waitFor(t, init); r.err != nil || !r.c.Modern() {
			t.Fatalf("%s: Initialize = %v", answer, r.err)
		}
	}
}

// Over HTTP the probe falls back on a 4xx without a JSON-RPC body, and
// stops at what is an answer in itself: a 401 goes to authorization, not to
// initialize.
func TestProbeOverHTTP(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status     int
		initialize bool
	}{
		{http.StatusBadRequest, true},
		{http.StatusNotFound, true},
		{http.StatusUnauthorized, false},
		{http.StatusInternalServerError, false},
	} {
		srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: answerTo("server/discover", func(x *mcptest.Exchange) {
			x.Status(tt.status, "no")
		})})
		h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
		_, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo(), Probe: true})
		sent := slices.ContainsFunc(srv.Requests(), func(r mcptest.HTTPRequest) bool { return r.RPCMethod == "initialize" })
		if sent != tt.initialize || (tt.initialize && err != nil) || (!tt.initialize && err == nil) {
			t.Errorf("HTTP %d: initialize sent %v, error %v", tt.status, sent, err)
		}
	}
}

// withMeta adds _meta members in one pass; a key the params carry keeps
// its value and is never written twice.
func TestWithMeta(t *testing.T) {
	entries := []metaEntry{{"a", json.RawMessage(`1`)}, {"b", json.RawMessage(`"x"`)}}
	for _, tt := range []struct{ in, want string }{
		{``, `{"_meta":{"a":1,"b":"x"}}`},
		{`null`, `{"_meta":{"a":1,"b":"x"}}`},
		{`{}`, `{"_meta":{"a":1,"b":"x"}}`},
		{`{"name":"t"}`, `{"name":"t","_meta":{"a":1,"b":"x"}}`},
		{`{"_meta":{},"name":"t"}`, `{"_meta":{"a":1,"b":"x"},"name":"t"}`},
		{`{"_meta":{"b":"mine","c":true}}`, `{"_meta":{"b":"mine","c":true,"a":1}}`},
		{`{"_meta":{"a":2,"b":3}}`, `{"_meta":{"a":2,"b":3}}`},
	} {
		got, err := withMeta(json.RawMessage(tt.in), entries)
		if err != nil || string(got) != tt.want {
			t.Errorf("withMeta(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	if _, err := withMeta(json.RawMessage(`{"_meta":[1]}`), entries); err == nil {
		t.Error("a _meta that is no object was accepted")
	}
}

// A result that does not decode fails naming its method, on one line
// however the server spaced it, and clipped.
func TestDecodeResultOneLine(t *testing.T) {
	var v struct{ A string }
	err := DecodeResult("x/y", []byte("{\n  \"A\": 5,\n  \"B\": \""+strings.Repeat("b", 1000)+"\"\n}"), &v)
	var te *TransportError
	if !errors.As(err, &te) || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "x/y: malformed result: {") || len(err.Error()) > 300 {
		t.Errorf("DecodeResult = %q", err)
	}
}
