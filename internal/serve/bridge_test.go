package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// askingServer serves a go-sdk server of the initialize era over HTTP
// (it may ask mid-call), whose tools report what happens to them on
// events: ask (elicits a name; its answer, or the error it got), slow
// (waits, and reports its end).
func askingServer(t *testing.T) (url string, events <-chan string) {
	t.Helper()
	ev := make(chan string, 16)
	s := sdk.NewServer(&sdk.Implementation{Name: "asking", Version: "1"}, nil)
	type in struct {
		Who string `json:"who,omitempty"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "ask"}, func(ctx context.Context, req *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			ev <- "ask: " + err.Error()
			return nil, nil, err
		}
		ev <- "ask: answered " + res.Action
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello " + res.Content["name"].(string)}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "slow"}, func(ctx context.Context, req *sdk.CallToolRequest, _ in) (*sdk.CallToolResult, any, error) {
		ev <- "slow: started"
		<-ctx.Done()
		ev <- "slow: cancelled"
		return nil, nil, ctx.Err()
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts.URL, ev
}

// next is the next event, waited for generously.
func next(t *testing.T, events <-chan string) string {
	t.Helper()
	select {
	case e := <-events:
		return e
	case <-time.After(30 * time.Second):
		t.Fatal("no event")
		return ""
	}
}

// modernCall is a tools/call of a modern client declaring caps, with more
// params members.
func modernCall(id int, tool, caps, more string) string {
	meta := strings.Replace(servetest.ModernMetaJSON, `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientCapabilities":`+caps, 1)
	return `{"jsonrpc":"2.0","id":` + mustString(id) + `,"method":"tools/call","params":{"_meta":` + meta + `,"name":"` + tool + `","arguments":{}` + more + `}}`
}

func mustString(v any) string { return string(mustJSON(v)) }

// inputRequired reads an input_required answer's requestState and the key
// of its one input request.
func inputRequired(t *testing.T, body string) (state, key string) {
	t.Helper()
	var m struct {
		Result struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  string                     `json:"requestState"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(sseData(body)), &m)
	if m.Result.ResultType != "input_required" || len(m.Result.InputRequests) != 1 || m.Result.RequestState == "" {
		t.Fatalf("answer %s, want input_required with one input request", body)
	}
	for k := range m.Result.InputRequests {
		key = k
	}
	return m.Result.RequestState, key
}

// sseData is the data of an answer's last event, or the answer itself.
func sseData(body string) string {
	if i := strings.LastIndex(body, "data: "); i >= 0 {
		return strings.TrimSpace(body[i+len("data: "):])
	}
	return body
}

const elicitCaps = `{"elicitation":{}}`

// TestBridgeUnansweredIsBounded: a modern client that never sends its
// request again after input_required does not hold the server's question
// for ever: past InputWait it is answered with an error; the client that
// comes back later with the state starts the call again, and is asked
// afresh.
func TestBridgeUnansweredIsBounded(t *testing.T) {
	t.Parallel()
	url, events := askingServer(t)
	srv := serverFor(t, servetest.Settings(url, "legacy", nil))
	srv.InputWait = 100 * time.Millisecond
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	u := serveHTTP(t, srv, "")
	_, body := servetest.PostModern(t, u, modernCall(1, "ask", elicitCaps, ""), nil)
	state, key := inputRequired(t, body)
	if e := next(t, events); !strings.Contains(e, "the client did not send its answers within 100ms") {
		t.Fatalf("the server's question: %s, want it refused once InputWait passed", e)
	}
	_, body = servetest.PostModern(t, u, modernCall(2, "ask", elicitCaps, `,"requestState":"`+state+`","inputResponses":{"`+key+`":{"action":"accept","content":{"name":"late"}}}`), nil)
	if again, _ := inputRequired(t, body); again == state {
		t.Errorf("a retry past the bound: %s, want the call started again under a new state", body)
	}
}

// TestBridgeClientHangsUp: a modern client that goes while its call runs
// (its HTTP request closed) has the call cancelled at the server at once.
func TestBridgeClientHangsUp(t *testing.T) {
	t.Parallel()
	url, events := askingServer(t)
	srv := startServer(t, servetest.Settings(url, "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "")
	ctx, cancel := context.WithCancel(context.Background())
	body := modernCall(1, "slow", elicitCaps, "")
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	req.Header = servetest.ModernHeaders(body, nil)
	done := make(chan struct{})
	go func() {
		if resp, err := testkit.HTTP(t).Do(req); err == nil {
			resp.Body.Close()
		}
		close(done)
	}()
	if e := next(t, events); e != "slow: started" {
		t.Fatalf("event %q", e)
	}
	cancel()
	<-done
	if e := next(t, events); e != "slow: cancelled" {
		t.Fatalf("event %q, want the call cancelled at the server", e)
	}
}

// TestBridgeStateRules: a requestState is for the request it was made
// for: made up or tampered with it is refused (-32602), one that comes
// back with other arguments is refused and gives its call up; its call is
// taken back once, and the state used again starts the request again (the
// answers it brings, to the call gone, taken by none), and is refused for
// another request.
func TestBridgeStateRules(t *testing.T) {
	t.Parallel()
	url, events := askingServer(t)
	srv := startServer(t, servetest.Settings(url, "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "")
	retry := func(id int, tool, state, key string) (int, string) {
		resp, body := servetest.PostModern(t, u, modernCall(id, tool, elicitCaps, `,"requestState":"`+state+`","inputResponses":{"`+key+`":{"action":"accept","content":{"name":"ada"}}}`), nil)
		return resp.StatusCode, body
	}
	_, body := servetest.PostModern(t, u, modernCall(1, "ask", elicitCaps, ""), nil)
	state, key := inputRequired(t, body)
	for _, bad := range []string{statePrefix + "0123", state + "-TAMPERED", "mcpv-serve."} {
		if status, body := retry(2, "ask", bad, key); status != http.StatusBadRequest || !strings.Contains(body, "-32602") {
			t.Errorf("requestState %q: %d %s, want 400 -32602", bad, status, body)
		}
	}
	status, body := retry(3, "ask", state, key)
	res := rawjson.Member([]byte(sseData(body)), "result")
	if name, _ := rawjson.String(rawjson.Member(rawjson.Member(rawjson.Member(res, "_meta"), mcp.MetaServerInfo), "name")); status != http.StatusOK || !strings.Contains(body, "hello ada") || name != "asking" {
		t.Fatalf("the retry: %d %s, want the result naming the server", status, body)
	}
	if e := next(t, events); e != "ask: answered accept" {
		t.Fatalf("event %q", e)
	}
	if _, body := retry(4, "ask", state, key); strings.Contains(body, "hello") {
		t.Errorf("a state used twice: %s, want the request asked afresh", body)
	} else if again, _ := inputRequired(t, body); again == state {
		t.Errorf("a state used twice: %s, want a new state", body)
	}
	if status, body := retry(7, "slow", state, key); status != http.StatusBadRequest || !strings.Contains(body, "not made here for this request") {
		t.Errorf("a used state back with another tool: %d %s, want 400 -32602", status, body)
	}

	_, body = servetest.PostModern(t, u, modernCall(5, "ask", elicitCaps, ""), nil)
	state, key = inputRequired(t, body)
	if status, body := retry(6, "slow", state, key); status != http.StatusBadRequest || !strings.Contains(body, "another request") {
		t.Errorf("a state back with another tool: %d %s, want 400 -32602", status, body)
	}
	if e := next(t, events); !strings.Contains(e, "came back with another request") {
		t.Errorf("event %q, want the call given up", e)
	}
}

// TestBridgeRetryMissingOrExtra: a retry without the answer asked for is
// asked it again, under a new state, and answers to keys never asked are
// ignored (modern.input-missing and modern.input-extra of mcpv check:
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#error-handling),
// whether the state's call waits or has gone.
func TestBridgeRetryMissingOrExtra(t *testing.T) {
	t.Parallel()
	url, events := askingServer(t)
	srv := startServer(t, servetest.Settings(url, "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "")
	retry := func(id int, state, responses string) string {
		_, body := servetest.PostModern(t, u, modernCall(id, "ask", elicitCaps, `,"requestState":"`+state+`","inputResponses":`+responses), nil)
		return body
	}
	_, body := servetest.PostModern(t, u, modernCall(1, "ask", elicitCaps, ""), nil)
	first, key := inputRequired(t, body)
	second, again := inputRequired(t, retry(2, first, `{}`))
	if again != key || second == first {
		t.Fatalf("a retry without its answer: asked %s under %s, want %s again under a new state", again, second, key)
	}
	if body := retry(3, second, `{"`+key+`":{"action":"accept","content":{"name":"ada"}},"not-asked":{"action":"decline"}}`); !strings.Contains(body, "hello ada") {
		t.Errorf("a retry with an answer never asked for beside its own: %s, want the call's result", body)
	}
	if e := next(t, events); e != "ask: answered accept" {
		t.Fatalf("event %q", e)
	}
	for i, responses := range []string{`{}`, `{"not-asked":{"action":"decline"}}`} {
		if state, k := inputRequired(t, retry(4+i, first, responses)); state == first || k != key {
			t.Errorf("a retry with %s under a state whose call has gone: asked %s under %s, want the request asked afresh", responses, k, state)
		}
	}
}

// TestBridgeAsksOnlyWhatWasDeclared: a question for a capability the
// modern request did not declare is answered with an error for the
// client, never put to it.
func TestBridgeAsksOnlyWhatWasDeclared(t *testing.T) {
	t.Parallel()
	url, events := askingServer(t)
	srv := startServer(t, servetest.Settings(url, "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "")
	_, body := servetest.PostModern(t, u, modernCall(1, "ask", `{"sampling":{}}`, ""), nil)
	if strings.Contains(body, "input_required") {
		t.Errorf("the answer %s puts an elicitation to a client that declared none", body)
	}
	if e := next(t, events); !strings.Contains(e, "did not declare the elicitation capability") {
		t.Errorf("event %q, want the question refused", e)
	}
}

// TestBridgeUpstreamDies: a server that asks a question and dies leaves
// the modern client an error, at once, not a question to answer for ever.
func TestBridgeUpstreamDies(t *testing.T) {
	t.Parallel()
	var fake *mcptest.HTTPServer
	fake = mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "tools/call":
			x.W.Header().Set("Content-Type", "text/event-stream")
			x.W.WriteHeader(http.StatusOK)
			x.W.Write([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}\n\n"))
			x.W.(http.Flusher).Flush()
			fake.Die()
			return true
		}
		return false
	}})
	srv := startServer(t, servetest.Settings(fake.URL, "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "")
	c, _ := servetest.HTTPClient(t, u, "modern", "x")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"anything","arguments":{}}`))
	if err == nil || ctx.Err() != nil {
		t.Fatalf("a call whose server died: %s, %v; want an error at once", res, err)
	}
	var ce *mcp.CallError
	if !errors.As(err, &ce) {
		t.Errorf("error %v, want the relay's JSON-RPC error", err)
	}
}

// TestBridgeProgress: a modern client's call bridged to a server of the
// initialize era gets its progress, under its own token.
func TestBridgeProgress(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	for _, side := range []string{"stdio", "http"} {
		var c *mcp.Client
		var rec *servetest.Recorder
		if side == "stdio" {
			c, rec = servetest.StdioClient(t, srv, "modern")
		} else {
			c, rec = servetest.HTTPClient(t, serveHTTP(t, srv, ""), "modern", "x")
		}
		servetest.Call(t, c, "tools/call", `{"name":"slow","arguments":{"seconds":0.05,"steps":3},"_meta":{"progressToken":"mine"}}`)
		n := 0
		for _, m := range rec.All() {
			if strings.Contains(string(m), "notifications/progress") {
				if !strings.Contains(string(m), `"progressToken":"mine"`) {
					t.Errorf("%s: %s, want the client's own token", side, m)
				}
				n++
			}
		}
		if n != 3 {
			t.Errorf("%s: %d progress notifications, want 3", side, n)
		}
	}
}

// TestBridgeParkedAreBounded: past MaxParked calls waiting for their
// clients, a call that asks is refused (and given up at the server),
// while those that wait go on.
func TestBridgeParkedAreBounded(t *testing.T) {
	t.Parallel()
	url, events := askingServer(t)
	srv := serverFor(t, servetest.Settings(url, "legacy", nil))
	srv.MaxParked = 1
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	u := serveHTTP(t, srv, "")
	_, body := servetest.PostModern(t, u, modernCall(1, "ask", elicitCaps, ""), nil)
	state, key := inputRequired(t, body)
	if _, body := servetest.PostModern(t, u, modernCall(2, "ask", elicitCaps, ""), nil); !strings.Contains(body, "calls wait for their clients already") {
		t.Errorf("a second call that asks, past the bound: %s, want it refused", body)
	}
	if e := next(t, events); !strings.Contains(e, "too many calls wait") {
		t.Errorf("event %q, want the second call's question refused", e)
	}
	_, body = servetest.PostModern(t, u, modernCall(3, "ask", elicitCaps, `,"requestState":"`+state+`","inputResponses":{"`+key+`":{"action":"accept","content":{"name":"first"}}}`), nil)
	if !strings.Contains(body, "hello first") {
		t.Errorf("the call that waited: %s", body)
	}
}

// TestBridgeIsolated: with --isolate, a modern client's bridged call keeps
// its own server while it waits for the client's retry, which needs no
// server of its own.
func TestBridgeIsolated(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, true)
	c, _ := servetest.HTTPClient(t, serveHTTP(t, srv, ""), "modern", "isolated")
	if res := servetest.Call(t, c, "tools/call", `{"name":"ask","arguments":{}}`); !strings.Contains(string(res), "isolated") {
		t.Errorf("ask: %s", res)
	}
}

// TestBridgeStateIsTheTokens: a call parked for a client of one bearer
// token is taken back by that token alone. Another token's retry with its
// state (and answers of its own) is refused as a state serve never made,
// and neither answers the server nor takes the call; the token's own
// retry then gets its result, and the state of that call, gone, is still
// refused to the other token.
func TestBridgeStateIsTheTokens(t *testing.T) {
	t.Parallel()
	url, events := askingServer(t)
	srv := startServer(t, servetest.Settings(url, "legacy", nil), nil, false)
	h := srv.HTTPHandler("", false)
	clients, _ := NewClients(map[string]*View{"one": nil, "two": nil})
	h.SetClients(clients)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	u := ts.URL + "/mcp"
	post := func(token, body string) (int, string) {
		resp, got := servetest.PostModern(t, u, body, map[string]string{"Authorization": "Bearer " + token})
		return resp.StatusCode, got
	}
	retry := func(token string, id int, state, key, name string) (int, string) {
		return post(token, modernCall(id, "ask", elicitCaps, `,"requestState":"`+state+`","inputResponses":{"`+key+`":{"action":"accept","content":{"name":"`+name+`"}}}`))
	}
	_, body := post("one", modernCall(1, "ask", elicitCaps, ""))
	state, key := inputRequired(t, body)
	if status, body := retry("two", 2, state, key, "eve"); status != http.StatusBadRequest || !strings.Contains(body, "-32602") || !strings.Contains(body, "not made here") || strings.Contains(body, "hello") {
		t.Fatalf("another token's retry: %d %s, want 400 -32602 as for a state never made", status, body)
	}
	select {
	case e := <-events:
		t.Fatalf("another token's retry reached the server: %q", e)
	case <-time.After(100 * time.Millisecond):
	}
	status, body := retry("one", 3, state, key, "ada")
	if status != http.StatusOK || !strings.Contains(body, "hello ada") {
		t.Fatalf("the token's own retry: %d %s, want its result", status, body)
	}
	if e := next(t, events); e != "ask: answered accept" {
		t.Fatalf("event %q", e)
	}
	if status, body := retry("two", 4, state, key, "eve"); status != http.StatusBadRequest || !strings.Contains(body, "not made here") {
		t.Errorf("another token's retry of a call gone: %d %s, want 400 -32602", status, body)
	}
}
