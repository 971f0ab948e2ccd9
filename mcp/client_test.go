package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type initResult struct {
	c   *Client
	err error
}

func goInitialize(ctx context.Context, s *Session, opts ClientOptions) <-chan initResult {
	ch := make(chan initResult, 1)
	go func() {
		c, err := Initialize(ctx, s, opts)
		ch <- initResult{c, err}
	}()
	return ch
}

func testInfo() Implementation { return Implementation{Name: "mcpv-test", Version: "0.0.1"} }

// initParams are the params of the initialize a client with no options
// sends: the extensions mcpv speaks in the initialize era are declared.
func initParams(version string) string {
	return `{"protocolVersion":"` + version + `","capabilities":{"extensions":{"io.modelcontextprotocol/skills":{},` +
		`"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}},"clientInfo":{"name":"mcpv-test","version":"0.0.1"}}`
}

// readInitialize reads the initialize request and checks its params.
func readInitialize(t *testing.T, m *memTransport, wantParams string) wireMsg {
	t.Helper()
	req := m.nextMsg(t)
	if req.Method != "initialize" || req.ID == nil {
		t.Fatalf("first message = %+v, want an initialize request", req)
	}
	if diff := cmp.Diff(wantParams, string(req.Params)); diff != "" {
		t.Errorf("initialize params (-want +got):\n%s", diff)
	}
	return req
}

func TestInitializeVersionNegotiation(t *testing.T) {
	tests := []struct {
		name     string
		pinned   string // ClientOptions.ProtocolVersion
		answered string
		wantErr  *VersionError
	}{
		{"latest", "", "2025-11-25", nil},
		{"2025-06-18", "", "2025-06-18", nil},
		{"2025-03-26", "", "2025-03-26", nil},
		{"2024-11-05", "", "2024-11-05", nil},
		{"unknown version", "", "2099-01-01", &VersionError{Offered: LatestVersion, Answered: "2099-01-01", Accepted: SupportedVersions}},
		{"pinned and answered", "2025-03-26", "2025-03-26", nil},
		{"pinned, other supported version answered", "2025-03-26", "2025-11-25", &VersionError{Offered: "2025-03-26", Answered: "2025-11-25", Accepted: []string{"2025-03-26"}}},
		{"pinned unknown version", "2030-01-01", "2030-01-01", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, m := newTestSession(t, SessionOptions{})
			init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), ProtocolVersion: tt.pinned})
			offered := tt.pinned
			if offered == "" {
				offered = LatestVersion
			}
			req := readInitialize(t, m, initParams(offered))
			result := `{"protocolVersion":"` + tt.answered + `","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`
			m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
			r := waitFor(t, init)
			if tt.wantErr != nil {
				var ve *VersionError
				if !errors.As(r.err, &ve) {
					t.Fatalf("Initialize = %v, want a *VersionError", r.err)
				}
				if diff := cmp.Diff(tt.wantErr, ve); diff != "" {
					t.Errorf("VersionError (-want +got):\n%s", diff)
				}
				if msg := ve.Error(); !strings.Contains(msg, tt.answered) || !strings.Contains(msg, offered) {
					t.Errorf("error %q does not name both %q and %q", msg, tt.answered, offered)
				}
				m.assertQuiet(t) // no notifications/initialized
				return
			}
			if r.err != nil {
				t.Fatalf("Initialize: %v", r.err)
			}
			if r.c.ProtocolVersion() != tt.answered || string(r.c.InitializeResult().Raw()) != result {
				t.Errorf("client has version %q and result %s", r.c.ProtocolVersion(), r.c.InitializeResult().Raw())
			}
			if got, want := string(m.next(t)), `{"jsonrpc":"2.0","method":"notifications/initialized"}`; got != want {
				t.Errorf("after initialize the client sent %s, want %s", got, want)
			}
		})
	}
}

func TestInitializeSendsInitializedAfterResponse(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Capabilities: rawJSON("{\"roots\": {\"listChanged\": true}}")})
	req := m.nextMsg(t)
	if diff := cmp.Diff(`{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"extensions":{"io.modelcontextprotocol/skills":{},`+
		`"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}},"clientInfo":{"name":"mcpv-test","version":"0.0.1"}}`, string(req.Params)); diff != "" {
		t.Errorf("initialize params (-want +got):\n%s", diff)
	}
	// Before we answer, the client says nothing but the answer to our ping.
	m.send(t, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if got := string(m.next(t)); got != `{"jsonrpc":"2.0","id":"p","result":{}}` {
		t.Fatalf("before the initialize answer the client sent %s", got)
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	if got := m.nextMsg(t); got.Method != "notifications/initialized" || got.ID != nil {
		t.Errorf("after the answer the client sent %+v, want notifications/initialized", got)
	}
	if r := waitFor(t, init); r.err != nil {
		t.Fatal(r.err)
	}
}

func TestInitializeRetriesWithServerVersion(t *testing.T) {
	refuse := func(id json.RawMessage, supported string) string {
		return `{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":` + supported + `}}}`
	}
	t.Run("retry with the newest mutual version", func(t *testing.T) {
		s, m := newTestSession(t, SessionOptions{})
		init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo()})
		req := readInitialize(t, m, initParams(LatestVersion))
		m.send(t, refuse(req.ID, `["1999-01-01","2024-11-05","2025-03-26"]`))
		req = readInitialize(t, m, initParams("2025-03-26"))
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"protocolVersion":"2025-03-26","capabilities":{}}}`)
		r := waitFor(t, init)
		if r.err != nil || r.c.ProtocolVersion() != "2025-03-26" {
			t.Fatalf("Initialize = %v, %v", r.c, r.err)
		}
	})
	tests := []struct {
		name, pinned, supported string
		want                    *VersionError
	}{
		{"no mutual version", "", `["1999-01-01"]`,
			&VersionError{Offered: LatestVersion, ServerSupports: []string{"1999-01-01"}, Accepted: SupportedVersions}},
		{"pinned version is not retried", "2025-06-18", `["2025-03-26"]`,
			&VersionError{Offered: "2025-06-18", ServerSupports: []string{"2025-03-26"}, Accepted: []string{"2025-06-18"}}},
		{"server lists the version it refused", "", `["2025-11-25"]`,
			&VersionError{Offered: LatestVersion, ServerSupports: []string{"2025-11-25"}, Accepted: SupportedVersions}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, m := newTestSession(t, SessionOptions{})
			init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), ProtocolVersion: tt.pinned})
			req := m.nextMsg(t)
			m.send(t, refuse(req.ID, tt.supported))
			r := waitFor(t, init)
			var ve *VersionError
			if !errors.As(r.err, &ve) {
				t.Fatalf("Initialize = %v, want a *VersionError", r.err)
			}
			if diff := cmp.Diff(tt.want, ve); diff != "" {
				t.Errorf("VersionError (-want +got):\n%s", diff)
			}
			if !strings.Contains(ve.Error(), "refused") || !strings.Contains(ve.Error(), tt.want.ServerSupports[0]) {
				t.Errorf("message %q does not say what the server supports", ve.Error())
			}
			m.assertQuiet(t)
		})
	}
}

func TestInitializeFailures(t *testing.T) {
	tests := []struct {
		name   string
		answer string // the member after "id"
		check  func(error) bool
	}{
		{"array result", `"result":[]`, isTransportError},
		{"string result", `"result":"ok"`, isTransportError},
		{"null result", `"result":null`, isTransportError},
		{"version not a string", `"result":{"protocolVersion":5}`, isTransportError},
		{"missing version", `"result":{"capabilities":{}}`, func(err error) bool {
			var ve *VersionError
			return errors.As(err, &ve) && ve.Answered == "" && ve.ServerSupports == nil
		}},
		{"other RPC error", `"error":{"code":-32603,"message":"broken"}`, func(err error) bool {
			var ce *CallError
			return errors.As(err, &ce) && ce.Method == "initialize" && ce.Err.Message == "broken"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, m := newTestSession(t, SessionOptions{})
			init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo()})
			req := m.nextMsg(t)
			m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,`+tt.answer+`}`)
			if r := waitFor(t, init); !tt.check(r.err) {
				t.Errorf("Initialize = %v, %v", r.c, r.err)
			}
			m.assertQuiet(t)
		})
	}
}

func isTransportError(err error) bool {
	var te *TransportError
	return errors.As(err, &te)
}

// initialized runs Initialize against a server answering with result.
func initialized(t *testing.T, opts ClientOptions, result string) (*Client, *memTransport) {
	t.Helper()
	s, m := newTestSession(t, SessionOptions{})
	init := goInitialize(t.Context(), s, opts)
	req := m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	r := waitFor(t, init)
	if r.err != nil {
		t.Fatal(r.err)
	}
	m.nextMsg(t) // notifications/initialized
	return r.c, m
}

func TestHasCapability(t *testing.T) {
	c, _ := initialized(t, ClientOptions{}, `{"protocolVersion":"2025-11-25","capabilities":{
		"tools": {}, "resources" : { "subscribe" : true , "listChanged": false },
		"prompts": null, "logging": false, "completions": {"x": null}, "experimental": {"a": {"b": 1}}
	}}`)
	tests := []struct {
		path string
		want bool
	}{
		{"tools", true},
		{"tools.listChanged", false},
		{"resources", true},
		{"resources.subscribe", true},
		{"resources.listChanged", false},
		{"resources.subscribe.deeper", false},
		{"prompts", false},
		{"prompts.listChanged", false},
		{"logging", false},
		{"sampling", false},
		{"completions.x", false},
		{"experimental.a.b", true},
		{"experimental.a.c", false},
	}
	for _, tt := range tests {
		if got := c.HasCapability(tt.path); got != tt.want {
			t.Errorf("HasCapability(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
	if err := c.Require("tools", "tools/list"); err != nil {
		t.Errorf("Require(tools) = %v", err)
	}
	err := c.Require("resources.listChanged", "resources/list")
	var ce *CapabilityError
	if !errors.As(err, &ce) || *ce != (CapabilityError{Capability: "resources.listChanged", Method: "resources/list"}) {
		t.Errorf("Require(resources.listChanged) = %v, want a CapabilityError", err)
	}

	none, _ := initialized(t, ClientOptions{}, `{"protocolVersion":"2025-11-25","capabilities":null}`)
	if none.HasCapability("tools") {
		t.Error("HasCapability(tools) with null capabilities = true")
	}
}

func TestClientCallTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 50 * time.Millisecond
	c, m := initialized(t, ClientOptions{Timeout: timeout}, `{"protocolVersion":"2025-11-25","capabilities":{}}`)
	call := goCall(t.Context(), c.Call, "tools/call", rawJSON(`{"name":"hang"}`))
	req := m.nextMsg(t)
	// The server never answers.
	cancelled := m.nextMsg(t)
	want := fmt.Sprintf(`{"requestId":%s,"reason":"tools/call: no answer within 50ms"}`, req.ID)
	if cancelled.Method != "notifications/cancelled" || string(cancelled.Params) != want {
		t.Errorf("client sent %s %s, want notifications/cancelled %s", cancelled.Method, cancelled.Params, want)
	}
	r := waitFor(t, call)
	var te *TimeoutError
	if !errors.As(r.err, &te) || *te != (TimeoutError{Method: "tools/call", Timeout: timeout}) {
		t.Errorf("Call = %v, want a TimeoutError", r.err)
	}
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	long := rawJSON(`"` + strings.Repeat("x", 600) + `"`)
	tests := []struct {
		err  error
		want string
	}{
		{&RPCError{Code: -32602, Message: "bad", Data: rawJSON(`{"f":1}`)}, `server error -32602: bad (data: {"f":1})`},
		{&RPCError{Code: 1, Message: "big", Data: long}, `server error 1: big`},
		{&CallError{Method: "tools/call", Err: &RPCError{Code: 2, Message: "m"}}, `tools/call: server error 2: m`},
		{&TransportError{Op: "server exited with status 3", StderrTail: []string{"a", "b"}},
			"server exited with status 3\nlast lines of the server's stderr:\n  | a\n  | b"},
		{&TransportError{Op: "read", Err: errors.New("x")}, "read: x"},
		{&TimeoutError{Method: "m", Timeout: time.Second}, "m: no answer within 1s"},
		{&VersionError{Offered: "2025-11-25", Answered: "2099-01-01", Accepted: []string{"2025-11-25", "2025-06-18"}},
			`server answered protocol version "2099-01-01" to our "2025-11-25"; mcpv accepts 2025-11-25, 2025-06-18`},
		{&VersionError{Offered: "2025-11-25", ServerSupports: []string{"1999-01-01"}, Accepted: []string{"2025-11-25"}},
			`server refused protocol version "2025-11-25" and supports only 1999-01-01; mcpv accepts 2025-11-25`},
		// What the server sends is quoted in part: a line stays a line.
		{&VersionError{Offered: "2025-11-25", ServerSupports: manyVersions(1_000_000), Accepted: []string{"2025-11-25"}},
			`server refused protocol version "2025-11-25" and supports only v0, v1, v2, v3, v4, v5, v6, v7, v8, v9 and 999990 more; mcpv accepts 2025-11-25`},
		{&RPCError{Code: 7, Message: strings.Repeat("é", 600)}, "server error 7: " + strings.Repeat("é", 500) + "… (200 more bytes)"},
		// An answer without a protocolVersion is an answer, not a refusal.
		{&VersionError{Offered: "2025-11-25", Answered: "", Accepted: []string{"2025-11-25"}},
			`server answered protocol version "" to our "2025-11-25"; mcpv accepts 2025-11-25`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func manyVersions(n int) []string {
	v := make([]string, n)
	for i := range v {
		v[i] = "v" + strconv.Itoa(i)
	}
	return v
}
