package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
)

// sseDoor serves srv with SSE on, the token "let-me-in", and set applied
// to the handler; it returns the handler and the base URL.
func sseDoor(t *testing.T, srv *Server, set func(*HTTPHandler)) (*HTTPHandler, string) {
	t.Helper()
	h := srv.HTTPHandler("let-me-in", false)
	h.SSE = true
	if set != nil {
		set(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return h, ts.URL
}

var bearer = map[string]string{"Authorization": "Bearer let-me-in"}

// The legacy transport's paths beside the default endpoint.
const ssePath, messagePath = "/sse", "/message"

// legacyStream is a raw client's GET stream of the legacy transport.
type legacyStream struct {
	resp     *http.Response
	endpoint string           // the URL to POST to, from the endpoint event
	events   chan legacyEvent // the message events after it; closed at the stream's end
	drop     context.CancelFunc
	r        *bufio.Reader // what is read of it
}

type legacyEvent struct{ typ, data string }

// openStream GETs base's SSE stream with header, and reads its endpoint
// event; with read, it reads the events after it too, else it leaves
// them unread, as a client that does not read.
func openStream(t *testing.T, base string, header map[string]string, read bool) *legacyStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+ssePath, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := testkit.HTTP(t).Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &legacyStream{resp: resp, drop: cancel, events: make(chan legacyEvent, 64)}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		close(s.events)
		return s
	}
	r := bufio.NewReader(resp.Body)
	ev, err := nextEvent(r)
	if err != nil || ev.typ != "endpoint" {
		t.Fatalf("the stream's first event: %+v %v", ev, err)
	}
	s.endpoint, s.r = base+ev.data, r
	if !read {
		return s
	}
	go func() { // ends at the stream's end
		defer close(s.events)
		for {
			ev, err := nextEvent(r)
			if err != nil {
				return
			}
			s.events <- ev
		}
	}()
	return s
}

// nextEvent reads one event: its type and its one data line.
func nextEvent(r *bufio.Reader) (legacyEvent, error) {
	var ev legacyEvent
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && ev.data != "":
			return ev, nil
		case strings.HasPrefix(line, "event: "):
			ev.typ = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			ev.data = line[len("data: "):]
		}
	}
}

// post POSTs body to the stream's endpoint, with the token.
func (s *legacyStream) post(t *testing.T, body string) int {
	t.Helper()
	resp, _ := servetest.Do(t, http.MethodPost, s.endpoint, map[string]string{"Authorization": "Bearer let-me-in", "Content-Type": "application/json"}, body)
	return resp.StatusCode
}

// answer waits for the event that holds text.
func (s *legacyStream) answer(t *testing.T, text string) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("the stream ended before an event with %q", text)
			}
			if strings.Contains(ev.data, text) {
				return ev.data
			}
		case <-deadline:
			t.Fatalf("no event with %q within 10s", text)
		}
	}
}

// initialized initializes the stream's session.
func (s *legacyStream) initialized(t *testing.T) {
	t.Helper()
	if code := s.post(t, servetest.LegacyInitialize); code != http.StatusAccepted {
		t.Fatalf("initialize: %d", code)
	}
	s.answer(t, `"serverInfo"`)
	s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// mcpv's own client of the legacy transport, given the SSE URL (and
// --transport auto, which finds it), and the go-sdk's: each lists and
// calls the tools of the server through serve, while a client of
// Streamable HTTP is served at /mcp beside them.
func TestSSEClients(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	_, base := sseDoor(t, srv, nil)
	auth := http.Header{"Authorization": {"Bearer let-me-in"}}
	for _, mode := range []string{mcp.ModeSSE, mcp.ModeAuto} {
		tr, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: base + ssePath, Mode: mode, Header: auth})
		if err != nil {
			t.Fatal(err)
		}
		rec := &servetest.Recorder{Transport: tr}
		sess := mcp.NewSession(rec, mcp.SessionOptions{})
		c := servetest.InitializeDeclaring(t, sess, "legacy", servetest.ClientCaps)
		if !strings.Contains(string(servetest.Call(t, c, "tools/list", `{}`)), `"echo"`) {
			t.Errorf("%s: no echo tool", mode)
		}
		if res := servetest.Call(t, c, "tools/call", `{"name":"echo","arguments":{"message":"legacy `+mode+`"}}`); !strings.Contains(string(res), "legacy "+mode) {
			t.Errorf("%s: %s", mode, res)
		}
		sess.Close(context.Background())
	}

	client := sdk.NewClient(&sdk.Implementation{Name: "sdk-sse", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.SSEClientTransport{Endpoint: base + ssePath, HTTPClient: &http.Client{Transport: servetest.WithHeader{H: auth}}}, nil)
	if err != nil {
		t.Fatalf("the go-sdk's SSE client: %v", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("go-sdk tools/list: %v %v", tools, err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "from the sdk"}})
	if b, _ := json.Marshal(res); err != nil || !strings.Contains(string(b), "from the sdk") {
		t.Errorf("go-sdk tools/call: %s %v", b, err)
	}

	tr, _ := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: base + "/mcp", Mode: mcp.ModeStreamable, Header: auth})
	sess := mcp.NewSession(tr, mcp.SessionOptions{})
	defer sess.Close(context.Background())
	c := servetest.InitializeDeclaring(t, sess, "legacy", servetest.ClientCaps)
	if res := servetest.Call(t, c, "tools/call", `{"name":"echo","arguments":{"message":"streamable beside"}}`); !strings.Contains(string(res), "streamable beside") {
		t.Errorf("Streamable HTTP beside: %s", res)
	}
}

// hangSSE serves a hang upstream with SSE on.
func hangSSE(t *testing.T) (*servetest.Hang, *HTTPHandler, string) {
	t.Helper()
	return hangServed(t, "let-me-in", func(h *HTTPHandler) { h.SSE = true })
}

const hangingCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}`

// A legacy client that drops its stream ends its session: its call in
// flight is cancelled upstream, and its endpoint is gone.
func TestSSEDroppedStreamEndsSession(t *testing.T) {
	t.Parallel()
	up, _, base := hangSSE(t)
	s := openStream(t, base, bearer, true)
	s.initialized(t)
	if code := s.post(t, hangingCall); code != http.StatusAccepted {
		t.Fatalf("the call: %d", code)
	}
	<-up.Called
	s.drop()
	select {
	case <-up.Cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the call of a client that dropped its stream was not cancelled upstream")
	}
	servetest.WaitFor(t, "the session to end", func() bool { return s.post(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`) == http.StatusNotFound })
}

// Closing the endpoint (SIGTERM, Ctrl-C) with legacy clients connected
// cancels their calls upstream, answers them with an error on their
// streams, and ends the streams.
func TestSSECloseCancels(t *testing.T) {
	t.Parallel()
	up, h, base := hangSSE(t)
	s := openStream(t, base, bearer, true)
	s.initialized(t)
	s.post(t, hangingCall)
	<-up.Called
	closed := make(chan struct{})
	go func() { h.Close(); close(closed) }()
	select {
	case <-up.Cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("closing did not cancel the legacy client's call upstream")
	}
	if got := s.answer(t, `"id":2`); !strings.Contains(got, `"error"`) {
		t.Errorf("the call's answer: %s", got)
	}
	for range s.events {
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}

// A hostile client of the legacy transport: it cannot reach a session by
// guessing or borrowing an id of another kind, nor open more sessions
// than the endpoint holds, nor get in without the token or from a
// foreign page; what it posts is read within bounds.
func TestSSEHostile(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	h, base := sseDoor(t, srv, func(h *HTTPHandler) { h.MaxSessions = 3; h.MaxBody = 1 << 10 })

	a := openStream(t, base, bearer, true)
	a.initialized(t)
	sid := strings.TrimPrefix(a.endpoint, base+messagePath+"?sessionId=")
	if len(sid) != 32 {
		t.Fatalf("the session id %q is not 128 random bits", sid)
	}
	resp, _ := servetest.Do(t, http.MethodPost, base+"/mcp", map[string]string{"Authorization": "Bearer let-me-in", "Content-Type": "application/json", "Accept": servetest.AcceptBoth}, servetest.LegacyInitialize)
	streamable := resp.Header.Get("Mcp-Session-Id")
	jsonPost := map[string]string{"Authorization": "Bearer let-me-in", "Content-Type": "application/json"}
	for _, tt := range []struct {
		name   string
		url    string
		header map[string]string
		body   string
		status int
	}{
		{"a guessed id", base + messagePath + "?sessionId=00000000000000000000000000000000", jsonPost, `{}`, http.StatusNotFound},
		{"no id", base + messagePath, jsonPost, `{}`, http.StatusBadRequest},
		{"two ids", a.endpoint + "&sessionId=" + sid, jsonPost, `{}`, http.StatusBadRequest},
		{"a Streamable session's id", base + messagePath + "?sessionId=" + streamable, jsonPost, `{}`, http.StatusNotFound},
		{"the id in another case", base + messagePath + "?sessionId=" + strings.ToUpper(sid), jsonPost, `{}`, http.StatusNotFound},
		{"no token", a.endpoint, map[string]string{"Content-Type": "application/json"}, `{}`, http.StatusUnauthorized},
		{"a foreign page", a.endpoint, map[string]string{"Authorization": "Bearer let-me-in", "Origin": "https://evil.example"}, `{}`, http.StatusForbidden},
		{"a rebound name", a.endpoint, map[string]string{"Authorization": "Bearer let-me-in", "Host": "evil.example"}, `{}`, http.StatusForbidden},
		{"not JSON", a.endpoint, jsonPost, `{"jsonrpc":`, http.StatusBadRequest},
		{"no JSON-RPC message", a.endpoint, jsonPost, `{"jsonrpc":"2.0","id":1}`, http.StatusBadRequest},
		{"an id that is an object", a.endpoint, jsonPost, `{"jsonrpc":"2.0","id":{},"method":"ping"}`, http.StatusBadRequest},
		{"a number", a.endpoint, jsonPost, ` 5`, http.StatusBadRequest},
		{"a batch", a.endpoint, jsonPost, ` [{"jsonrpc":"2.0","id":"b","method":"ping"}]`, http.StatusAccepted},
		{"too big", a.endpoint, jsonPost, `"` + strings.Repeat("x", 2<<10) + `"`, http.StatusRequestEntityTooLarge},
		{"GET", a.endpoint, bearer, "", http.StatusMethodNotAllowed},
	} {
		if resp, body := servetest.Do(t, map[bool]string{true: http.MethodPost, false: http.MethodGet}[tt.name != "GET"], tt.url, tt.header, tt.body); resp.StatusCode != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, resp.StatusCode, body, tt.status)
		}
	}
	// The legacy session's id is not a Streamable one's.
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		resp, _ := servetest.Do(t, method, base+"/mcp", map[string]string{"Authorization": "Bearer let-me-in", "Mcp-Session-Id": sid, "Content-Type": "application/json", "Accept": servetest.AcceptBoth},
			`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s /mcp with a legacy session's id: %d", method, resp.StatusCode)
		}
	}
	if code := a.post(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); code != http.StatusAccepted {
		t.Errorf("the session did not live through all that: %d", code)
	}
	for _, header := range []map[string]string{nil, {"Authorization": "Bearer let-me-in", "Origin": "https://evil.example"}} {
		if s := openStream(t, base, header, false); s.resp.StatusCode/100 != 4 {
			t.Errorf("a stream with %v: %d", header, s.resp.StatusCode)
		}
	}

	// Two clients' streams carry each its own answers alone.
	b := openStream(t, base, bearer, true)
	b.initialized(t)
	a.post(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":"for-a"}}}`)
	b.post(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":"for-b"}}}`)
	a.answer(t, "for-a")
	b.answer(t, "for-b")
	a.post(t, `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	b.post(t, `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	a.answer(t, `"id":6`)
	b.answer(t, `"id":6`)
	for _, s := range []*legacyStream{a, b} {
		s.drop()
		for ev := range s.events {
			if strings.Contains(ev.data, "for-a") && s == b || strings.Contains(ev.data, "for-b") && s == a {
				t.Errorf("a client got another's answer: %s", ev.data)
			}
		}
	}

	// Three sessions at most: a fourth stream is refused until one ends.
	var streams []*legacyStream
	servetest.WaitFor(t, "the dropped streams' sessions to end", func() bool { return h.sessionsOpen() == 1 })
	for range 3 {
		streams = append(streams, openStream(t, base, bearer, true))
	}
	s := openStream(t, base, bearer, false)
	if s.resp.StatusCode != http.StatusServiceUnavailable || s.resp.Header.Get("Retry-After") == "" {
		t.Errorf("a fourth stream: %d %v", s.resp.StatusCode, s.resp.Header)
	}
	streams[0].drop()
	servetest.WaitFor(t, "a session to end", func() bool { return h.sessionsOpen() == 2 })
	if s := openStream(t, base, bearer, true); s.resp.StatusCode != http.StatusOK {
		t.Errorf("a stream once one ended: %d", s.resp.StatusCode)
	}
}

// sessionsOpen is how many sessions are open.
func (h *HTTPHandler) sessionsOpen() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// A legacy client that takes nothing of its stream, whatever it asks for
// (results of megabytes here), holds no more than what waits for it: once
// it has taken nothing for the stall, its session ends.
func TestSSEStalledClientEnds(t *testing.T) {
	t.Parallel()
	srv := startServer(t, bigResults(2<<20), nil, false)
	h, base := sseDoor(t, srv, func(h *HTTPHandler) { h.Stall = 100 * time.Millisecond })
	st := openStream(t, base, bearer, false)
	if code := st.post(t, servetest.LegacyInitialize); code != http.StatusAccepted {
		t.Fatalf("initialize: %d", code)
	}
	st.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var posted sync.WaitGroup
	for i := range 32 {
		if h.sessionsOpen() == 0 {
			break
		}
		posted.Go(func() {
			st.post(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","arguments":{}}}`, 10+i))
		})
	}
	servetest.WaitFor(t, "the session of a client that does not read to end", func() bool { return h.sessionsOpen() == 0 })
	posted.Wait()
	if code := st.post(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); code != http.StatusNotFound {
		t.Errorf("its endpoint: %d", code)
	}
	io.Copy(io.Discard, st.resp.Body) // the stream has ended
}

// With the endpoint at a path of its own, the legacy transport is served
// beside it, and its endpoint event names the message path there: a
// proxy that routes the endpoint's prefix routes it all.
func TestSSEBesidePath(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	_, base := sseDoor(t, srv, func(h *HTTPHandler) { h.Path = "/api/v1/mcp" })
	tr, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: base + "/api/v1/sse", Mode: mcp.ModeSSE, Header: http.Header{"Authorization": {"Bearer let-me-in"}}})
	if err != nil {
		t.Fatal(err)
	}
	sess := mcp.NewSession(tr, mcp.SessionOptions{})
	defer sess.Close(context.Background())
	c := servetest.InitializeDeclaring(t, sess, "legacy", servetest.ClientCaps)
	if res := servetest.Call(t, c, "tools/call", `{"name":"echo","arguments":{"message":"beside the path"}}`); !strings.Contains(string(res), "beside the path") {
		t.Errorf("call: %s", res)
	}
	for _, p := range []string{ssePath, messagePath} {
		if resp, _ := servetest.Do(t, http.MethodGet, base+p, bearer, ""); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s, with the endpoint elsewhere: %d", p, resp.StatusCode)
		}
	}
}

// TestAnswerWaitsForItsStream: an answer waits for its stream however
// long its writer's context lasts (the session gives each answer a
// bound): given up, a legacy client's call would be answered by nothing
// while its stream lives on with keep-alives. The stream's own stall
// bounds the wait (TestSSEStalledClientEnds).
func TestAnswerWaitsForItsStream(t *testing.T) {
	t.Parallel()
	tr := &httpTransport{in: make(chan []byte), closed: make(chan struct{}), posts: map[string]*stream{}}
	tr.get = newStream()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the writer's bound is over before it writes
	for i := range 200 {
		msg := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i))
		if err := tr.Write(ctx, msg); err != nil {
			t.Fatalf("answer %d given up with its stream there to take it: %v", i, err)
		}
		<-tr.get.ch
	}
	// A notification is given up with its context, as ever.
	for range 20 {
		tr.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`))
	}
	if n := len(tr.get.ch); n == 20 {
		t.Error("every notification was taken by a stream past its writer's bound")
	}
}

// TestSSEStoppedReaderSeesItsEnd: a legacy client that stops reading has
// its session ended once it has taken nothing for the stall, and its
// call cancelled upstream; when it reads again it finds its stream's
// end, not keep-alives that never bring its answer.
func TestSSEStoppedReaderSeesItsEnd(t *testing.T) {
	t.Parallel()
	srv := startServer(t, bigResults(4<<20), nil, false)
	h, base := sseDoor(t, srv, func(h *HTTPHandler) { h.Stall, h.KeepAlive = 100*time.Millisecond, 20*time.Millisecond })
	st := openStream(t, base, bearer, false)
	st.post(t, servetest.LegacyInitialize)
	st.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	st.post(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	servetest.WaitFor(t, "the session of a client that does not read to end", func() bool { return h.sessionsOpen() == 0 })
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, st.resp.Body); done <- err }()
	select {
	case <-done: // its end, at once
	case <-time.After(10 * time.Second):
		t.Fatal("the stream of an ended session is still open")
	}
}

// chatty is an upstream whose tools/call logs without end, each line
// large, until it is cancelled, which cancelled is told.
type chatty struct {
	mu        sync.Mutex // guards note
	note      func(string, json.RawMessage)
	cancelled chan struct{}
}

func (c *chatty) State() mcp.State {
	return mcp.State{Version: "2025-11-25", InitializeResult: servetest.Init(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"chatty","version":"1"}}`)}
}
func (c *chatty) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method != "tools/call" {
		return json.RawMessage(`{}`), nil
	}
	c.mu.Lock()
	note := c.note
	c.mu.Unlock()
	line := mustJSON(map[string]any{"level": "info", "data": strings.Repeat("x", 32<<10)})
	for ctx.Err() == nil {
		note("notifications/message", line)
	}
	c.cancelled <- struct{}{}
	return nil, ctx.Err()
}
func (c *chatty) Relay(ctx context.Context, m string, p json.RawMessage) (json.RawMessage, error) {
	return c.Forward(ctx, m, p)
}
func (c *chatty) ForwardNotification(context.Context, string, json.RawMessage) error { return nil }
func (c *chatty) Tool(context.Context, string) (json.RawMessage, bool)               { return nil, false }
func (c *chatty) Done() <-chan struct{}                                              { return nil }
func (c *chatty) Err() error                                                         { return nil }
func (c *chatty) Close()                                                             {}

// TestSSEPausedClientToldItsCallsError: a legacy client that stops
// reading while its call floods it with log lines has its call cancelled
// upstream once it has taken nothing for the stall; when it reads again
// (within Told, an hour here) it finds its call's error, then its
// stream's end.
func TestSSEPausedClientToldItsCallsError(t *testing.T) {
	t.Parallel()
	up := &chatty{cancelled: make(chan struct{}, 1)}
	srv := &Server{Open: func(_ context.Context, r Relay) (Upstream, error) {
		up.mu.Lock()
		up.note = r.OnNotification
		up.mu.Unlock()
		return up, nil
	}}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	_, base := sseDoor(t, srv, func(h *HTTPHandler) { h.Stall, h.Told = 100*time.Millisecond, time.Hour })
	st := openStream(t, base, bearer, false)
	st.post(t, servetest.LegacyInitialize)
	st.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	st.post(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	select {
	case <-up.cancelled:
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("the call of a client that stopped reading was not cancelled upstream")
	}
	ended := make(chan string, 1)
	go func() { // the client reads again, to its stream's end
		var answer string
		for {
			ev, err := nextEvent(st.r)
			if err != nil {
				ended <- answer
				return
			}
			if strings.Contains(ev.data, `"id":7`) {
				answer = ev.data
			}
		}
	}()
	select {
	case answer := <-ended:
		if !strings.Contains(answer, `"error"`) {
			t.Errorf("the stream ended without its call's error (the call's answer: %q)", answer)
		}
	case <-time.After(time.Minute):
		t.Fatal("the stream of a client told its call's error did not end")
	}
}

// TestSSEPausedClientWithAHungCall: a legacy client paused while its call
// hangs has nothing to take but keep-alives, which the network holds for
// it; pinged while it waits, and answering nothing, it has its call
// cancelled upstream, and finds its call's error and its stream's end
// when it reads again.
func TestSSEPausedClientWithAHungCall(t *testing.T) {
	t.Parallel()
	up, _, base := hangServed(t, "let-me-in", func(h *HTTPHandler) { h.SSE, h.Stall, h.Told = true, 100*time.Millisecond, time.Hour })
	st := openStream(t, base, bearer, false)
	st.post(t, servetest.LegacyInitialize)
	st.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	st.post(t, hangingCall)
	<-up.Called
	select {
	case <-up.Cancelled:
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("the hung call of a paused client was not cancelled upstream")
	}
	var answer string
	for {
		ev, err := nextEvent(st.r)
		if err != nil {
			break
		}
		if strings.Contains(ev.data, `"id":2`) {
			answer = ev.data
		}
	}
	if !strings.Contains(answer, `"error"`) {
		t.Errorf("the stream ended without its call's error (the call's answer: %q)", answer)
	}
}

// A legacy client that reads its stream, and answers each ping while its
// call hangs, is not taken for paused: its call is kept. (The stall is
// two seconds, a hundred times what an answer takes at rest: a loaded
// machine's slow answer is no pause.)
func TestSSEClientAnsweringPingsKeepsItsCall(t *testing.T) {
	testkit.SkipLong(t, "waits four seconds of pings by design")
	t.Parallel()
	up, _, base := hangServed(t, "let-me-in", func(h *HTTPHandler) { h.SSE, h.Stall = true, 2*time.Second })
	live := openStream(t, base, bearer, true)
	live.initialized(t)
	live.post(t, hangingCall)
	<-up.Called
	for pings := 0; pings < 2; {
		ev, ok := <-live.events
		if !ok {
			t.Fatal("the stream of a client that answers its pings ended")
		}
		var m struct {
			ID     json.RawMessage
			Method string
		}
		if json.Unmarshal([]byte(ev.data), &m) == nil && m.Method == "ping" {
			live.post(t, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`)
			pings++
		}
	}
	select {
	case <-up.Cancelled:
		t.Error("the call of a client that answers its pings was cancelled")
	default:
	}
}
