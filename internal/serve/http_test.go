package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
)

// TestSixteenHTTPClients: 16 clients at once over HTTP on one upstream
// session, each with the same progress tokens as the others (mcpv's
// client numbers its own from 1), each get their own answers and their
// own progress, never another's.
func TestSixteenHTTPClients(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	url := serveHTTP(t, srv, "")
	const clients, calls = 16, 10
	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, rec := servetest.HTTPClient(t, url, "legacy", "http")
			for j := range calls {
				msg := fmt.Sprintf("caller-%d-call-%d", i, j)
				res, err := c.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"echo","arguments":{"message":"`+msg+`"}}`))
				if err != nil || !strings.Contains(string(res), `"`+msg+`"`) {
					errs <- fmt.Errorf("%s: %s %v", msg, res, err)
				}
			}
			if _, err := c.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"slow","arguments":{"seconds":0.2,"steps":4}}`)); err != nil {
				errs <- fmt.Errorf("client %d slow: %v", i, err)
			}
			progress := 0
			for _, m := range rec.All() {
				if strings.Contains(string(m), "notifications/progress") {
					progress++
				}
				if strings.Contains(string(m), "caller-") && !strings.Contains(string(m), fmt.Sprintf("caller-%d-", i)) {
					errs <- fmt.Errorf("client %d received another's message: %s", i, m)
				}
			}
			if progress != 4 {
				errs <- fmt.Errorf("client %d received %d progress notifications, want its 4", i, progress)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestIsolateAsks: with Isolate, clients asked at once by the server each
// answer their own question.
func TestIsolateAsks(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, true)
	url := serveHTTP(t, srv, "")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			who := fmt.Sprintf("client-%d", i)
			c, _ := servetest.HTTPClient(t, url, "legacy", who)
			res, err := c.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"ask","arguments":{}}`))
			if err != nil || !strings.Contains(string(res), who) {
				t.Errorf("%s: %s %v", who, res, err)
			}
		}()
	}
	wg.Wait()
}

// TestClientsBearerAnyCase: an endpoint of several tokens knows each
// whatever the case of the scheme's name (RFC 9110 §11.1), and no other
// scheme's.
func TestClientsBearerAnyCase(t *testing.T) {
	t.Parallel()
	one := &View{Name: "one"}
	clients, _ := NewClients(map[string]*View{"let-me-in": one, "two": nil})
	for _, tt := range []struct {
		auth string
		want bool
	}{
		{"Bearer let-me-in", true}, {"bearer let-me-in", true}, {"BeArEr let-me-in", true},
		{"bearer nope", false}, {"Basic let-me-in", false}, {"bearer", false}, {"", false},
	} {
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
		r.Header.Set("Authorization", tt.auth)
		v, ok := clients.who(r)
		if ok != tt.want || ok && v.Name != "one" {
			t.Errorf("Authorization %q: %v %v, want known %v", tt.auth, v, ok, tt.want)
		}
	}
}

// TestHTTPBearerAndOrigin: with a token, a client without it is refused
// (401), and one with it is let in whatever the case of the scheme's name
// (RFC 9110 §11.1); a browser page of another origin is refused (403), and so is a
// request for another host name, as a page that rebound its name to
// 127.0.0.1 sends (403).
func TestHTTPBearerAndOrigin(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	url := serveHTTP(t, srv, "let-me-in")
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tt := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"token", map[string]string{"Authorization": "Bearer let-me-in"}, http.StatusOK},
		{"scheme in lower case", map[string]string{"Authorization": "bearer let-me-in"}, http.StatusOK},
		{"scheme in upper case", map[string]string{"Authorization": "BEARER let-me-in"}, http.StatusOK},
		{"wrong token, lower case", map[string]string{"Authorization": "bearer nope"}, http.StatusUnauthorized},
		{"another scheme", map[string]string{"Authorization": "Basic let-me-in"}, http.StatusUnauthorized},
		{"no space", map[string]string{"Authorization": "Bearerlet-me-in"}, http.StatusUnauthorized},
		{"foreign origin", map[string]string{"Authorization": "Bearer let-me-in", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"loopback origin", map[string]string{"Authorization": "Bearer let-me-in", "Origin": "http://localhost:3000"}, http.StatusOK},
		{"foreign host", map[string]string{"Authorization": "Bearer let-me-in", "Host": "evil.example:8808"}, http.StatusForbidden},
		{"foreign host, no port", map[string]string{"Authorization": "Bearer let-me-in", "Host": "evil.example"}, http.StatusForbidden},
		{"localhost", map[string]string{"Authorization": "Bearer let-me-in", "Host": "localhost:8808"}, http.StatusOK},
		{"IPv6 loopback", map[string]string{"Authorization": "Bearer let-me-in", "Host": "[::1]:8808"}, http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tt.header {
			req.Header.Set(k, v)
		}
		if h := tt.header["Host"]; h != "" {
			req.Host = h
		}
		resp, err := testkit.HTTP(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.want)
		}
	}
	tr, _ := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: url, Mode: mcp.ModeStreamable, Header: http.Header{"Authorization": {"Bearer let-me-in"}}})
	c := servetest.InitializeDeclaring(t, mcp.NewSession(tr, mcp.SessionOptions{}), "legacy", servetest.ClientCaps)
	servetest.Call(t, c, "tools/list", `{}`)
	c.Close(context.Background())
}

// TestHTTPIdleSessionEnds: a client that leaves without DELETE has its
// session ended after the idle time; its next request finds none (404).
func TestHTTPIdleSessionEnds(t *testing.T) {
	t.Parallel()
	testkit.SkipLong(t, "a session left idle for its idle time")
	// Long enough that a busy machine's ping comes before it runs out.
	h, url := httpServe(t, servetest.DemoURL(t, "legacy"), func(h *HTTPHandler) { h.Idle = 2 * time.Second })
	post := func(sid, body string) *http.Response {
		resp, _ := postMessage(t, url, sid, servetest.AcceptBoth, body)
		return resp
	}
	sid := post("", servetest.LegacyInitialize).Header.Get("Mcp-Session-Id")
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if code := post(sid, ping).StatusCode; code != http.StatusOK {
		t.Fatalf("ping in the session: %d", code)
	}
	// Wait, without a request that would keep it alive, for it to end.
	deadline := time.Now().Add(time.Minute)
	for {
		h.mu.Lock()
		_, open := h.sessions[sid]
		h.mu.Unlock()
		if !open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle session never ended")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code := post(sid, ping).StatusCode; code != http.StatusNotFound {
		t.Fatalf("ping after the session ended: %d, want 404", code)
	}
}

// TestHTTPJSONOnlyClient: a client that takes no event stream gets each
// response as one JSON body; a question the server asks during its call
// cannot reach it and fails at once, rather than leaving the call hanging.
func TestHTTPJSONOnlyClient(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	url := serveHTTP(t, srv, "")
	post := func(sid, body string) (*http.Response, string) {
		return postMessage(t, url, sid, "application/json", body)
	}
	resp, _ := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	resp, body := post(sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !strings.Contains(body, `"id":2`) || !strings.Contains(body, "no stream open") {
		t.Fatalf("%s %s, want the call's answer as JSON, saying the question could not be asked", ct, body)
	}
}

// postMessage POSTs one message in session sid ("" for none) and returns
// the answer and its body.
func postMessage(t *testing.T, url, sid, accept, body string) (*http.Response, string) {
	t.Helper()
	h := http.Header{"Accept": {accept}}
	if sid != "" {
		h.Set("Mcp-Session-Id", sid)
	}
	return servetest.Send(t, http.MethodPost, url, h, body)
}

// initialized opens a legacy session on url and returns its id.
func initialized(t *testing.T, url string) string {
	t.Helper()
	resp, body := postMessage(t, url, "", servetest.AcceptBoth, servetest.LegacyInitialize)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	return resp.Header.Get("Mcp-Session-Id")
}

// deleted ends session sid on url.
func deleted(t *testing.T, url, sid string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := testkit.HTTP(t).Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
}

// TestHTTPLimits: an initialize, or a modern request with no session,
// beyond the sessions allowed is refused (503) until one ends, and once
// the handler is closed; a body beyond the bound is refused (413).
func TestHTTPLimits(t *testing.T) {
	t.Parallel()
	h, url := httpServe(t, servetest.DemoURL(t, "legacy"), func(h *HTTPHandler) { h.MaxSessions, h.MaxBody = 2, 4096 })
	const accept, initialize = servetest.AcceptBoth, servetest.LegacyInitialize
	sids := []string{initialized(t, url), initialized(t, url)}
	if resp, body := postMessage(t, url, "", accept, initialize); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("an initialize beyond the cap: %d %s, want 503", resp.StatusCode, body)
	}
	deleted(t, url, sids[0])
	sids[0] = initialized(t, url) // once a session ended

	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + strings.Repeat("x", 8192) + `"}}}`
	if resp, body := postMessage(t, url, sids[1], accept, big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body beyond the bound: %d %s, want 413", resp.StatusCode, body)
	}

	// A modern client's request, with no session id, is a session of its
	// own while it runs: it counts against the cap too.
	modern := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":` + servetest.ModernMetaJSON + `,"name":"echo","arguments":{"message":"hi"}}}`
	if resp, body := servetest.PostModern(t, url, modern, nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a modern request beyond the cap: %d %s, want 503", resp.StatusCode, body)
	}
	deleted(t, url, sids[1])
	if resp, body := servetest.PostModern(t, url, modern, nil); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"hi"`) {
		t.Errorf("a modern request within the cap: %d %s", resp.StatusCode, body)
	}
	h.Close()
	if resp, body := servetest.PostModern(t, url, modern, nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a modern request once closed: %d %s, want 503", resp.StatusCode, body)
	}
}

// TestHTTPInitIdle: a session that had nothing but its handshake ends
// after InitIdle; one in use lasts Idle.
func TestHTTPInitIdle(t *testing.T) {
	t.Parallel()
	testkit.SkipLong(t, "sessions left for their handshake's idle time")
	// Long enough that a busy machine's second session is in use before
	// it runs out.
	const initIdle = 2 * time.Second
	h, url := httpServe(t, servetest.DemoURL(t, "legacy"), func(h *HTTPHandler) { h.InitIdle = initIdle })
	const accept = servetest.AcceptBoth
	var sids []string
	for range 2 {
		sid := initialized(t, url)
		postMessage(t, url, sid, accept, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		sids = append(sids, sid)
	}
	if resp, body := postMessage(t, url, sids[1], accept, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("ping: %d %s", resp.StatusCode, body)
	}
	open := func(sid string) bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.sessions[sid] != nil
	}
	servetest.WaitFor(t, "the session that only initialized to end", func() bool { return !open(sids[0]) })
	time.Sleep(initIdle) // the second's InitIdle, counted from its handshake, has passed too
	if !open(sids[1]) {
		t.Errorf("a session in use ended after InitIdle")
	}
}

// TestHTTPWritesResultInParts: a response the session gives in parts (a
// relayed result) goes to the POST it answers as those parts, the result
// not copied; anything else in parts is joined.
func TestHTTPWritesResultInParts(t *testing.T) {
	tr := &httpTransport{in: make(chan []byte), closed: make(chan struct{}), posts: map[string]*stream{}}
	st := tr.expect(json.RawMessage(`7`), true)
	var pw mcp.PartsWriter = tr
	result := []byte(`{"content":[{"type":"text","text":"big"}]}`)
	if err := pw.WriteParts(context.Background(), [][]byte{[]byte(`{"jsonrpc":"2.0","id":7,"result":`), result, []byte(`}`)}); err != nil {
		t.Fatal(err)
	}
	msg := <-st.ch
	if !msg.response || string(msg.id) != "7" || len(msg.parts) != 3 || &msg.parts[1][0] != &result[0] {
		t.Errorf("the response: id %s (response %v), %d parts, result copied: %v", msg.id, msg.response, len(msg.parts), &msg.parts[1][0] != &result[0])
	}
	get := newStream()
	tr.get = get
	if err := pw.WriteParts(context.Background(), [][]byte{[]byte(`{"jsonrpc":"2.0",`), []byte(`"method":"notifications/x"}`)}); err != nil {
		t.Fatal(err)
	}
	if msg := <-get.ch; len(msg.parts) != 1 || string(msg.parts[0]) != `{"jsonrpc":"2.0","method":"notifications/x"}` {
		t.Errorf("a notification in parts: %q", msg.parts)
	}
}

// A response in parts whose POST has gone (the client cancelled or hung
// up before a large result came) is dropped, as a whole response is: its
// head alone is not a message to read.
func TestHTTPResultInPartsForAGonePost(t *testing.T) {
	tr := &httpTransport{in: make(chan []byte), closed: make(chan struct{}), posts: map[string]*stream{}}
	parts := [][]byte{[]byte(`{"jsonrpc":"2.0","id":7,"result":`), []byte(`{"content":[]}`), []byte(`}`)}
	if err := tr.WriteParts(context.Background(), parts); err != nil {
		t.Errorf("a response nobody awaits: %v", err)
	}
	if err := tr.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":8,"method":"roots/list"}`)); err == nil {
		t.Errorf("a request with no stream to take it was not refused")
	}
}

// TestRefusedConnectionClosed: a request refused for its token (or its
// origin, or its host) is answered on a connection that is then closed:
// no number of them holds a connection open.
func TestRefusedConnectionClosed(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "secret")
	for _, h := range []http.Header{
		{"Authorization": {"Bearer wrong"}},
		{"Origin": {"https://evil.example"}},
	} {
		resp, _ := servetest.Send(t, http.MethodPost, u, h, servetest.LegacyInitialize)
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden || !resp.Close {
			t.Errorf("%v: %d, close %v", h, resp.StatusCode, resp.Close)
		}
	}
}

// TestProtocolVersionHeader: in a session of the initialize era, a
// request (POST, GET, DELETE) whose MCP-Protocol-Version names a
// version the session does not speak, or that is no version, is answered
// 400 and not served; one with a version of that era, or with none (a
// client older than the header), is served.
func TestProtocolVersionHeader(t *testing.T) {
	t.Parallel()
	_, url := httpServe(t, servetest.DemoURL(t, "legacy"), nil)
	sid := initialized(t, url)
	ping := `{"jsonrpc":"2.0","id":5,"method":"ping"}`
	for _, tc := range []struct {
		version string
		want    int
	}{
		{"1900-01-01", http.StatusBadRequest},
		{"2026-07-28", http.StatusBadRequest}, // the other era's: no session has it
		{"not a version", http.StatusBadRequest},
		{"2025-11-25", http.StatusOK},
		{"2025-03-26", http.StatusOK},
		{"", http.StatusOK},
	} {
		h := http.Header{"Accept": {servetest.AcceptBoth}, "Mcp-Session-Id": {sid}, "Content-Type": {"application/json"}}
		if tc.version != "" {
			h.Set("Mcp-Protocol-Version", tc.version)
		}
		if resp, body := servetest.Send(t, http.MethodPost, url, h, ping); resp.StatusCode != tc.want {
			t.Errorf("POST ping with MCP-Protocol-Version %q: %d %s, want %d", tc.version, resp.StatusCode, body, tc.want)
		}
		if tc.want != http.StatusBadRequest {
			continue
		}
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard: a GET served streams
			req, _ := http.NewRequestWithContext(ctx, method, url, nil)
			req.Header = h
			resp, err := testkit.HTTP(t).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s with MCP-Protocol-Version %q: %d, want 400", method, tc.version, resp.StatusCode)
			}
			resp.Body.Close()
			cancel()
		}
	}
	// Refused, the session was neither ended nor harmed.
	if resp, body := postMessage(t, url, sid, servetest.AcceptBoth, ping); resp.StatusCode != http.StatusOK {
		t.Errorf("the session after: %d %s", resp.StatusCode, body)
	}
}

// TestMalformedBodyRefused: a POST whose body is no JSON is refused with
// an HTTP error, in a session as without one, not taken (202) for the
// session to find it has no answer.
func TestMalformedBodyRefused(t *testing.T) {
	t.Parallel()
	_, url := httpServe(t, servetest.DemoURL(t, "legacy"), nil)
	sid := initialized(t, url)
	for _, session := range []string{sid, ""} {
		resp, body := postMessage(t, url, session, servetest.AcceptBoth, `{"jsonrpc": "2.0", "id": 1, "method": `)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "-32700") {
			t.Errorf("session %q: %d %s, want 400 with a parse error", session, resp.StatusCode, body)
		}
	}
}

// told is an upstream that tells each request and notification that
// reaches it, by its method.
type told struct {
	servetest.Hang
	got chan string
}

func (u *told) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	u.got <- method
	return u.Hang.Forward(ctx, method, params)
}
func (u *told) Relay(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return u.Forward(ctx, method, params)
}
func (u *told) ForwardNotification(_ context.Context, method string, _ json.RawMessage) error {
	u.got <- method
	return nil
}

// TestInvalidRequestRefused: a POST whose body is JSON but no JSON-RPC
// message (no method, result nor error; a method that is no string; an
// id that is an object, an array or true) is refused with 400 and one
// -32600 error of id null, in a session as without one, and nothing of
// it reaches the server; a request and a notification after them do, as
// before.
func TestInvalidRequestRefused(t *testing.T) {
	t.Parallel()
	up := &told{Hang: servetest.Hang{End: make(chan struct{})}, got: make(chan string, 16)}
	srv := &Server{Open: func(context.Context, Relay) (Upstream, error) { return up, nil }}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	url := serveHTTP(t, srv, "")
	sid := initialized(t, url)
	for _, bad := range []string{
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":{},"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":5}`,
		`{"jsonrpc":"2.0","method":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":{},"result":{}}`,
	} {
		for _, session := range []string{sid, ""} {
			resp, body := postMessage(t, url, session, servetest.AcceptBoth, bad)
			var got struct {
				ID    json.RawMessage
				Error mcp.RPCError
			}
			json.Unmarshal([]byte(body), &got)
			if resp.StatusCode != http.StatusBadRequest || got.Error.Code != mcp.CodeInvalidRequest || string(got.ID) != "null" || !strings.Contains(got.Error.Message, "not one JSON-RPC message") {
				t.Errorf("session %v, %s: %d %s, want 400 with -32600 saying the body is no JSON-RPC message", session != "", bad, resp.StatusCode, body)
			}
		}
	}
	if resp, body := postMessage(t, url, sid, servetest.AcceptBoth, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///a"}}`); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"id":3`) {
		t.Errorf("a request: %d %s, want its answer", resp.StatusCode, body)
	}
	if m := <-up.got; m != "resources/read" {
		t.Errorf("the server was sent %s first, want the valid request alone", m)
	}
	if resp, body := postMessage(t, url, sid, servetest.AcceptBoth, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`); resp.StatusCode != http.StatusAccepted {
		t.Errorf("a notification: %d %s, want 202", resp.StatusCode, body)
	}
	if m := <-up.got; m != "notifications/roots/list_changed" {
		t.Errorf("the server was sent %s, want the notification", m)
	}
}

// TestClientAnswerGoesThrough: the client's answer to a question of the
// server, POSTed as a response, is taken (202) and reaches the server,
// whose call then ends with it.
func TestClientAnswerGoesThrough(t *testing.T) {
	t.Parallel()
	_, url := httpServe(t, servetest.DemoURL(t, "legacy"), nil)
	resp, body := postMessage(t, url, "", servetest.AcceptBoth, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"x","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	postMessage(t, url, sid, servetest.AcceptBoth, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"roots","arguments":{}}}`))
	req.Header = http.Header{"Accept": {servetest.AcceptBoth}, "Mcp-Session-Id": {sid}}
	call, err := testkit.HTTP(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer call.Body.Close()
	r := bufio.NewReader(call.Body)
	ev, err := nextEvent(r)
	var asked struct {
		ID     json.RawMessage
		Method string
	}
	if err != nil || json.Unmarshal([]byte(ev.data), &asked) != nil || asked.Method != "roots/list" {
		t.Fatalf("the call's first event: %+v %v, want the server's roots/list", ev, err)
	}
	answer := `{"jsonrpc":"2.0","id":` + string(asked.ID) + `,"result":{"roots":[{"uri":"file:///twin"}]}}`
	if resp, body := postMessage(t, url, sid, servetest.AcceptBoth, answer); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the answer: %d %s, want 202", resp.StatusCode, body)
	}
	if ev, err = nextEvent(r); err != nil || !strings.Contains(ev.data, `"id":2`) || !strings.Contains(ev.data, "file:///twin") {
		t.Errorf("the call's answer: %+v %v, want the roots the client gave", ev, err)
	}
}
