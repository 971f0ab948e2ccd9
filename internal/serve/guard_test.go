package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// guardedServer is a go-sdk server with two items to a page: read-only
// and writing tools, public and private resources, plain and admin
// prompts (the go-sdk lists them by name).
func guardedServer(t *testing.T) (*sdk.Server, string) {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "guarded", Version: "1"}, &sdk.ServerOptions{PageSize: 2,
		SubscribeHandler:   func(context.Context, *sdk.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil }})
	type in struct{}
	for _, tool := range []struct {
		name string
		ro   bool
	}{{"read_a", true}, {"read_b", true}, {"write_a", false}, {"delete_x", false}, {"other", true}} {
		sdk.AddTool(s, &sdk.Tool{Name: tool.name, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: tool.ro}},
			func(context.Context, *sdk.CallToolRequest, in) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ran " + tool.name}}}, nil, nil
			})
	}
	for _, uri := range []string{"file:///pub/a", "file:///priv/b", "file:///pub/c"} {
		s.AddResource(&sdk.Resource{URI: uri, Name: uri}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, Text: "text of " + uri}}}, nil
		})
	}
	for _, name := range []string{"hello", "admin", "bye"} {
		s.AddPrompt(&sdk.Prompt{Name: name}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: name}}}}, nil
		})
	}
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return s, ts.URL
}

// names walks every page of a list through c.
func names(t *testing.T, c *mcp.Client, method, key, field string) []string {
	t.Helper()
	var out []string
	pages := 0
	for p, err := range c.Walk(context.Background(), method, key, 0) {
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		pages++
		for _, it := range p.Items {
			var m map[string]any
			json.Unmarshal(it, &m)
			out = append(out, m[field].(string))
		}
	}
	if pages < 2 {
		t.Fatalf("%s: %d page, want several", method, pages)
	}
	return out
}

func refusedCall(t *testing.T, c *mcp.Client, method, params string) {
	t.Helper()
	_, err := c.Call(context.Background(), method, json.RawMessage(params))
	var ce *mcp.CallError
	if !errors.As(err, &ce) || ce.Err.Code != mcp.CodeInvalidParams || !strings.Contains(ce.Err.Message, "guarded") {
		t.Fatalf("%s %s: %v, want the guard's -32602", method, params, err)
	}
}

// TestGuard: what the guard hides is missing from every page of every
// list and refused by name; what it allows works; the command line's
// guard and a config entry's both apply.
func TestGuard(t *testing.T) {
	t.Parallel()
	sdkServer, url := guardedServer(t)
	flags := config.Guard{AllowTools: []string{"read_*", "write_*", "other"}, DenyTools: []string{"*_b"},
		DenyResources: []string{"file:///priv/*"}, DenyPrompts: []string{"adm?n"}}
	entry := config.Guard{ReadOnly: true, DenyTools: []string{"oth*"}}
	for _, tt := range []struct {
		name      string
		guards    Guards
		wantTools []string
		refused   []string
	}{
		{"flags", Guards{flags}, []string{"other", "read_a", "write_a"}, []string{"read_b", "delete_x"}},
		{"flags and entry", Guards{flags, entry}, []string{"read_a"}, []string{"read_b", "delete_x", "write_a", "other"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, servetest.Settings(url, "legacy", nil), tt.guards, false)
			c, rec := servetest.StdioClient(t, srv, "legacy")
			if got := names(t, c, "tools/list", "tools", "name"); !slices.Equal(got, tt.wantTools) {
				t.Errorf("tools: %v, want %v", got, tt.wantTools)
			}
			if got := names(t, c, "resources/list", "resources", "uri"); !slices.Equal(got, []string{"file:///pub/a", "file:///pub/c"}) {
				t.Errorf("resources: %v", got)
			}
			if got := names(t, c, "prompts/list", "prompts", "name"); !slices.Equal(got, []string{"bye", "hello"}) {
				t.Errorf("prompts: %v", got)
			}
			for _, name := range tt.refused {
				refusedCall(t, c, "tools/call", `{"name":"`+name+`","arguments":{}}`)
			}
			refusedCall(t, c, "resources/read", `{"uri":"file:///priv/b"}`)
			refusedCall(t, c, "prompts/get", `{"name":"admin"}`)
			if res := servetest.Call(t, c, "tools/call", `{"name":"read_a","arguments":{}}`); !strings.Contains(string(res), "ran read_a") {
				t.Errorf("read_a: %s", res)
			}
			if res := servetest.Call(t, c, "resources/read", `{"uri":"file:///pub/a"}`); !strings.Contains(string(res), "text of file:///pub/a") {
				t.Errorf("read pub/a: %s", res)
			}
			// A change of the server's tools reaches the client.
			sdk.AddTool(sdkServer, &sdk.Tool{Name: "read_" + strings.ReplaceAll(tt.name, " ", "_")},
				func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{}, nil, nil
				})
			deadline := time.Now().Add(10 * time.Second)
			for !received(rec, "notifications/tools/list_changed") {
				if time.Now().After(deadline) {
					t.Fatal("notifications/tools/list_changed never reached the client")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

func received(rec *servetest.Recorder, method string) bool {
	for _, m := range rec.All() {
		if strings.Contains(string(m), `"method":"`+method+`"`) {
			return true
		}
	}
	return false
}

func TestGlob(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true}, {"read_*", "read_file", true}, {"read_*", "write", false},
		{"file:///docs/*", "file:///docs/a/b.md", true}, {"a?c", "abc", true}, {"a?c", "ac", false},
		{"*_b", "read_b", true}, {"*_b", "read_bb", false}, {"a*b*c", "aXbYbZc", true}, {"a*", "b*", false},
	} {
		if got := glob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("glob(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// TestSharedSubscriptions: two clients on one upstream session subscribe
// to a resource; when one unsubscribes, the other still hears of its
// updates, and the one that left hears nothing more.
func TestSharedSubscriptions(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, *sdk.SubscribeRequest) error { return nil }
	s := sdk.NewServer(&sdk.Implementation{Name: "subs", Version: "1"}, &sdk.ServerOptions{
		SubscribeHandler: noop, UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil }})
	s.AddResource(&sdk.Resource{URI: "file:///watched", Name: "watched"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "file:///watched", Text: "x"}}}, nil
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	srv := startServer(t, servetest.Settings(ts.URL, "legacy", nil), nil, false)
	stays, staysRec := servetest.StdioClient(t, srv, "legacy")
	leaves, leavesRec := servetest.StdioClient(t, srv, "legacy")
	servetest.Call(t, stays, "resources/subscribe", `{"uri":"file:///watched"}`)
	servetest.Call(t, leaves, "resources/subscribe", `{"uri":"file:///watched"}`)
	servetest.Call(t, leaves, "resources/unsubscribe", `{"uri":"file:///watched"}`)
	if err := s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///watched"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !received(staysRec, "notifications/resources/updated") {
		if time.Now().After(deadline) {
			t.Fatal("the client still subscribed never heard of the update")
		}
		time.Sleep(10 * time.Millisecond)
	}
	servetest.Call(t, leaves, "tools/list", `{}`)
	if received(leavesRec, "notifications/resources/updated") {
		t.Error("the client that unsubscribed heard of the update")
	}
}

// TestFailedSubscribe: a resources/subscribe the server refuses is not
// counted as held, so the next subscribe goes to the server again rather
// than being answered as if it held.
func TestFailedSubscribe(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	asked := 0
	s := sdk.NewServer(&sdk.Implementation{Name: "subs", Version: "1"}, &sdk.ServerOptions{
		SubscribeHandler: func(context.Context, *sdk.SubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			if asked++; asked == 1 {
				return errors.New("not now")
			}
			return nil
		},
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil }})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	srv := startServer(t, servetest.Settings(ts.URL, "legacy", nil), nil, false)
	c, _ := servetest.StdioClient(t, srv, "legacy")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Call(ctx, "resources/subscribe", json.RawMessage(`{"uri":"file:///watched"}`)); err == nil {
		t.Fatal("the refused subscribe succeeded")
	}
	servetest.Call(t, c, "resources/subscribe", `{"uri":"file:///watched"}`)
	mu.Lock()
	defer mu.Unlock()
	if asked != 2 {
		t.Errorf("the server was asked to subscribe %d times, want 2", asked)
	}
}

// The guard reads a request's name, URI and ref exactly as the server will:
// a key given twice, or again in another case, is refused, since a JSON
// decoder keeps one and the server may read the other. So is an item of a
// list that holds its name so.
func TestGuardReadsKeysExactly(t *testing.T) {
	t.Parallel()
	g := Guards{{DenyTools: []string{"delete_*"}, DenyResources: []string{"file:///priv/*"}, DenyPrompts: []string{"admin"}}}
	readOnly := func(context.Context, string) bool { return true }
	for _, tt := range []struct {
		method, params string
		refused        bool
	}{
		{"tools/call", `{"name":"read_a","arguments":{}}`, false},
		{"tools/call", `{"name":"delete_x","Name":"read_a","arguments":{}}`, true},
		{"tools/call", `{"name":"delete_x","NAME":"read_a"}`, true},
		{"tools/call", `{"Name":"read_a","name":"delete_x"}`, true},
		{"tools/call", `{"name":"read_a","name":"delete_x"}`, true},
		{"tools/call", `{"Name":"delete_x"}`, true},
		{"tools/call", `{"name":7}`, true},
		{"resources/read", `{"uri":"file:///priv/b","URI":"file:///pub/a"}`, true},
		{"resources/read", `{"uri":"file:///pub/a"}`, false},
		{"prompts/get", `{"name":"admin","Name":"hello"}`, true},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"admin","Name":"hello"},"argument":{"name":"a","value":""}}`, true},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"hello"},"Ref":{"type":"ref/prompt","name":"admin"}}`, true},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"hello"},"argument":{"name":"a","value":""}}`, false},
	} {
		if got := g.check(t.Context(), tt.method, json.RawMessage(tt.params), readOnly) != nil; got != tt.refused {
			t.Errorf("%s %s: refused %v, want %v", tt.method, tt.params, got, tt.refused)
		}
	}
	page := g.filter("tools/list", "", json.RawMessage(`{"tools":[{"name":"read_a"},{"name":"delete_x","Name":"read_b"},{"Name":"read_c","name":"delete_y"}]}`))
	if !strings.Contains(string(page), `"read_a"`) || strings.Contains(string(page), "delete_") {
		t.Errorf("filtered page: %s", page)
	}
}

// With no guard, nothing is read or changed: a request goes on as the
// client wrote it (the server reads its own params), a page comes back
// whole, even with a key held twice.
func TestNoGuardTouchesNothing(t *testing.T) {
	t.Parallel()
	var g Guards
	for _, params := range []string{`{"name":"delete_x","Name":"read_a"}`, `{"name":7}`, `{"uri":"a","URI":"b"}`} {
		if err := g.check(t.Context(), "tools/call", json.RawMessage(params), nil); err != nil {
			t.Errorf("%s refused with no guard: %v", params, err)
		}
	}
	page := json.RawMessage(`{"tools":[{"name":"a"},{"name":"b","Name":"c"}]}`)
	if got := g.filter("tools/list", "", page); &got[0] != &page[0] {
		t.Errorf("a page was rewritten with no guard: %s", got)
	}
	if g.hidesNotification("notifications/resources/updated", json.RawMessage(`{"uri":"file:///priv/x"}`)) {
		t.Error("an update hidden with no guard")
	}
}

// notes is a Recorder that keeps what it is told.
type notes struct {
	mu  sync.Mutex
	all []string
}

func (n *notes) Note(method string, params, result json.RawMessage) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.all = append(n.all, method+" "+string(params)+" "+string(result))
}

// TestRecordingKeepsToTheGuard: a recording made through a guarded serve
// holds nothing the guard hides, neither in the surface listed at the
// start nor in the lists and answers the client got.
func TestRecordingKeepsToTheGuard(t *testing.T) {
	t.Parallel()
	_, url := guardedServer(t)
	rec := &notes{}
	guard := Guards{{DenyTools: []string{"write_*", "delete_*"}, DenyResources: []string{"file:///priv/*"}, DenyPrompts: []string{"admin"}}}
	srv := serverFor(t, servetest.Settings(url, "legacy", nil))
	srv.Guard, srv.Record = guard, rec
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c, _ := servetest.StdioClient(t, srv, "legacy")
	names(t, c, "tools/list", "tools", "name")
	names(t, c, "resources/list", "resources", "uri")
	servetest.Call(t, c, "tools/call", `{"name":"read_a","arguments":{}}`)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	listed := 0
	for _, n := range rec.all {
		if strings.HasPrefix(n, "tools/list") {
			listed++
		}
		for _, hidden := range []string{"write_a", "delete_x", "file:///priv/b", `"admin"`} {
			if strings.Contains(n, hidden) {
				t.Errorf("the recording holds %s, which the guard hides: %s", hidden, n)
			}
		}
	}
	if listed < 4 { // the surface at the start and the client's list, each of several pages
		t.Errorf("the recorder was told %d pages of tools/list: %q", listed, rec.all)
	}
}

// TestRecordStopsAtARepeatedCursor: listing the surface to record walks a
// list as every client of mcpv does: a server that hands out the cursor
// it was just sent fails the start at once, rather than being followed
// for page after page.
func TestRecordStopsAtARepeatedCursor(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	lists := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result := `{}`
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"loop","version":"1"}}`
		case "tools/list":
			mu.Lock()
			lists++
			mu.Unlock()
			result = `{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"again"}`
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
	}))
	t.Cleanup(ts.Close)
	srv := serverFor(t, servetest.Settings(ts.URL, "legacy", nil))
	srv.Record = &notes{}
	err := srv.Start(context.Background())
	var rc *mcp.RepeatedCursorError
	if !errors.As(err, &rc) {
		srv.Close()
		t.Fatalf("start: %v, want a repeated cursor", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if lists != 2 {
		t.Errorf("the server was asked for %d pages of tools/list, want 2", lists)
	}
}

// A pattern whose host is a glob matches URIs with and without a path.
func TestURIPatternWithGlobHost(t *testing.T) {
	t.Parallel()
	for uri, want := range map[string]bool{"demo://readme": true, "demo://notes/1": true, "demo://readme/": true, "other://readme": false} {
		if got := uriAllowed(uri, []string{"demo://*"}, nil); got != want {
			t.Errorf("%s against demo://*: %v, want %v", uri, got, want)
		}
	}
	for uri, want := range map[string]bool{"demo://readme": false, "demo://readme/.": false, "demo://README": false, "demo://notes/1": true} {
		if got := uriAllowed(uri, nil, []string{"demo://readme"}); got != want {
			t.Errorf("%s against a deny of demo://readme: %v, want %v", uri, got, want)
		}
	}
}

// TestFileURIByPath: a file URI is matched by its path alone, whatever
// authority it names (a server that reads its path opens /private/key
// for each), by a deny pattern and an allow pattern alike; a pattern's
// own host is dropped as a URI's is.
func TestFileURIByPath(t *testing.T) {
	t.Parallel()
	hosts := []string{"file://127.0.0.1/private/key", "file://[::1]/private/key", "file://127.1/private/key", "file://localhost:80/private/key",
		"file://user@localhost/private/key", "file://evil.example/private/key", "file:///private/key", "file://localhost/private/key"}
	for _, tt := range []struct {
		allow, deny []string
		want        bool
	}{
		{nil, []string{"file:///private/*"}, false},
		{nil, []string{"file://localhost/private/*"}, false},
		{nil, []string{"file://fileserver/private/*"}, false},
		{nil, []string{"file://*/private/*"}, false},
		{[]string{"file:///public/*"}, nil, false},
		{[]string{"file://evil.example/*"}, []string{"file:///other"}, true}, // its host dropped: file:///*
		{[]string{"file:///private/*"}, nil, true},
	} {
		for _, uri := range hosts {
			if got := uriAllowed(uri, tt.allow, tt.deny); got != tt.want {
				t.Errorf("%s, allow %q, deny %q: %v, want %v", uri, tt.allow, tt.deny, got, tt.want)
			}
		}
	}
	for _, uri := range []string{"file:///public/x", "file://evil.example/public/x", "file:///privatekey"} {
		if !uriAllowed(uri, nil, []string{"file:///private/*"}) {
			t.Errorf("%s is denied by file:///private/*", uri)
		}
	}
	if uriAllowed("file://evil.example/private/key", []string{"file://evil.example/public/*"}, nil) {
		t.Errorf("an allow pattern admits by host")
	}
}

// TestLoopbackURIByAddress: a network URI's host is matched as a client
// connects to it, so a rule naming localhost matches every way of
// writing this machine (127.1, [::1], 2130706433...), and one naming an
// address matches the address however it is written.
func TestLoopbackURIByAddress(t *testing.T) {
	t.Parallel()
	here := []string{"http://localhost/admin", "http://127.0.0.1/admin", "http://127.1/admin", "http://[::1]/admin", "http://[0:0::1]:80/admin",
		"http://2130706433/admin", "http://0x7f.0.0.1/admin", "http://0/admin", "http://LOCALHOST./admin", "http://app.localhost/admin", "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/admin"}
	for _, p := range []string{"http://localhost/*", "http://127.0.0.1/*", "http://[::1]/*"} {
		for _, uri := range here {
			if uriAllowed(uri, nil, []string{p}) {
				t.Errorf("%s passes a deny of %s", uri, p)
			}
			if !uriAllowed(uri, []string{p}, nil) {
				t.Errorf("%s is not admitted by %s", uri, p)
			}
		}
	}
	for _, uri := range []string{"http://localhost:8080/admin", "http://example.com/admin", "http://10.1/admin", "https://localhost/admin", "http://127.0.0.1.example/admin"} {
		if !uriAllowed(uri, nil, []string{"http://localhost/*"}) {
			t.Errorf("%s is denied by http://localhost/*", uri)
		}
	}
	if uriAllowed("http://0xa.0.0.1/x", nil, []string{"http://10.0.0.1/*"}) {
		t.Errorf("0xa.0.0.1 passes a deny of 10.0.0.1")
	}
	// A pattern that names loopback addresses by a glob matches them as
	// addresses, however written; a name is not an address.
	for _, tc := range []struct {
		uri, pattern string
		matches      bool
	}{
		{"http://127.0.0.5/x", "http://127.0.0.*/*", true},
		{"http://127.1/x", "http://127.0.0.?/*", true},
		{"http://2130706437/x", "http://127.*/*", true},
		{"http://[::1]:8080/x", "http://[::*]:*/*", true},
		{"http://0.0.0.0/x", "http://0.0.*/*", true},
		{"http://localhost/x", "http://127.0.0.*/*", false},
		{"http://10.0.0.5/x", "http://127.0.0.*/*", false},
	} {
		if denied := !uriAllowed(tc.uri, nil, []string{tc.pattern}); denied != tc.matches {
			t.Errorf("%s against a deny of %s: denied %v, want %v", tc.uri, tc.pattern, denied, tc.matches)
		}
		if admitted := uriAllowed(tc.uri, []string{tc.pattern}, nil); admitted != tc.matches {
			t.Errorf("%s against an allow of %s: admitted %v, want %v", tc.uri, tc.pattern, admitted, tc.matches)
		}
	}
}

// TestListenParams: a listen keeps of its resourceSubscriptions what the
// guard allows, and the rest of its params as they are; params a server
// may read otherwise than the guard (a key twice, or in another case)
// are refused.
func TestListenParams(t *testing.T) {
	g := Guards{{DenyResources: []string{"file:///b"}}}
	for _, tc := range []struct{ in, want string }{
		{`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a","FILE:///b","file:///a/../b"]},"_meta":{"k":1}}`,
			`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]},"_meta":{"k":1}}`},
		{`{"notifications":{"resourceSubscriptions":["file:///a"]}}`, `{"notifications":{"resourceSubscriptions":["file:///a"]}}`},
		{`{"notifications":{"toolsListChanged":true}}`, `{"notifications":{"toolsListChanged":true}}`},
		{`{"Notifications":{"resourceSubscriptions":["file:///b"]}}`, ""},
		{`{"notifications":{"resourceSubscriptions":["file:///a"],"ResourceSubscriptions":["file:///b"]}}`, ""},
		{`{"notifications":{"resourceSubscriptions":"file:///b"}}`, ""},
	} {
		got, rerr := g.listenParams(json.RawMessage(tc.in))
		switch {
		case tc.want == "" && (rerr == nil || rerr.Code != mcp.CodeInvalidParams):
			t.Errorf("%s: %s, %v; want refused", tc.in, got, rerr)
		case tc.want != "" && (rerr != nil || string(got) != tc.want):
			t.Errorf("%s: %s, %v; want %s", tc.in, got, rerr, tc.want)
		}
	}
	in := json.RawMessage(`{"Notifications":{"resourceSubscriptions":["file:///b"]}}`)
	if got, rerr := (Guards{}).listenParams(in); rerr != nil || string(got) != string(in) {
		t.Errorf("no guard: %s, %v; want the params as they are", got, rerr)
	}
}
