package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/subscription"
	"github.com/mcpv/mcpv/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRelayEachEra: a client of either era, on stdio or HTTP, reaches a
// server of either era through serve: lists, calls, and the server's
// questions, which reach the client that asked.
func TestRelayEachEra(t *testing.T) {
	t.Parallel()
	for _, upEra := range []string{"legacy", "modern"} {
		url := servetest.DemoURL(t, upEra)
		for _, side := range []string{"stdio", "http"} {
			for _, downEra := range []string{"legacy", "modern"} {
				t.Run(upEra+"/"+side+"/"+downEra, func(t *testing.T) {
					t.Parallel()
					srv := startServer(t, servetest.Settings(url, upEra, nil), nil, false)
					var c *mcp.Client
					if side == "stdio" {
						c, _ = servetest.StdioClient(t, srv, downEra)
					} else {
						c, _ = servetest.HTTPClient(t, serveHTTP(t, srv, ""), downEra, side)
					}
					if got := c.Modern(); got != (downEra == "modern") {
						t.Fatalf("client modern = %v, want %v", got, downEra == "modern")
					}
					tools := servetest.Call(t, c, "tools/list", `{}`)
					if !strings.Contains(string(tools), `"name":"echo"`) {
						t.Fatalf("tools/list: %s", tools)
					}
					res := servetest.Call(t, c, "tools/call", `{"name":"echo","arguments":{"message":"hi there"}}`)
					if !strings.Contains(string(res), `hi there`) {
						t.Fatalf("echo: %s", res)
					}
					// A question mid-call reaches the client in its era: a
					// server request, or an input request of an
					// input_required result, whose answer comes back.
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					res, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"ask","arguments":{}}`))
					if err != nil {
						t.Fatalf("ask: %v", err)
					}
					if !strings.Contains(string(res), side) {
						t.Fatalf("ask: %s, want the answer of %s", res, side)
					}
				})
			}
		}
	}
}

// TestLogLevelForModernServer: a legacy client's logging/setLevel, which
// a modern server has no method for, goes in the _meta of the client's
// later requests: messages below the level stay away, the rest come.
func TestLogLevelForModernServer(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "modern"), "modern", nil), nil, false)
	c, rec := servetest.StdioClient(t, srv, "legacy")
	servetest.Call(t, c, "logging/setLevel", `{"level":"error"}`)
	servetest.Call(t, c, "tools/call", `{"name":"log","arguments":{"level":"info","message":"quiet please"}}`)
	servetest.Call(t, c, "tools/call", `{"name":"log","arguments":{"level":"error","message":"loud and clear"}}`)
	var logged []string
	for _, m := range rec.All() {
		if strings.Contains(string(m), "notifications/message") {
			logged = append(logged, string(m))
		}
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "loud and clear") {
		t.Fatalf("log messages: %q, want the error one only", logged)
	}
}

// TestLogsGoToTheirClient: a log message the server sends while one
// client's request is in flight reaches that client and no other.
func TestLogsGoToTheirClient(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	a, arec := servetest.StdioClient(t, srv, "legacy")
	b, brec := servetest.StdioClient(t, srv, "legacy")
	servetest.Call(t, a, "logging/setLevel", `{"level":"debug"}`)
	servetest.Call(t, a, "tools/call", `{"name":"log","arguments":{"level":"error","message":"A's private text"}}`)
	// B's own log message comes after anything queued for B before it:
	// once B has it, B has had all it was going to get of A's.
	servetest.Call(t, b, "tools/call", `{"name":"log","arguments":{"level":"error","message":"B's own text"}}`)
	if !arec.Saw("A's private text") || !brec.Saw("B's own text") {
		t.Fatalf("a client missed its own log message: A got %q, B got %q", arec.All(), brec.All())
	}
	if brec.Saw("A's private text") {
		t.Errorf("client B received A's log message")
	}
	if arec.Saw("B's own text") {
		t.Errorf("client A received B's log message")
	}
}

// TestNotificationRecipients: a log message goes to the one client with
// a request in flight, a list's change to every client of the initialize
// era, a resource's update to no client that did not subscribe to it.
func TestNotificationRecipients(t *testing.T) {
	t.Parallel()
	up := &servetest.Hang{End: make(chan struct{}), Called: make(chan struct{}, 1)}
	srv := &Server{Open: func(context.Context, Relay) (Upstream, error) { return up, nil }}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	a, _ := servetest.StdioClient(t, srv, "legacy")
	b, _ := servetest.StdioClient(t, srv, "legacy")
	servetest.Call(t, b, "tools/list", `{}`) // B has its upstream session too
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.Call(ctx, "tools/call", json.RawMessage(`{"name":"x","arguments":{}}`))
	<-up.Called
	u := srv.shared
	for _, tc := range []struct {
		method, params string
		want           int // how many clients: 1 is the busy one
	}{
		{"notifications/resources/updated", `{"uri":"file:///y"}`, 0},
		{"notifications/message", `{"level":"info","data":"a's"}`, 1},
		{"notifications/tools/list_changed", ``, 2},
	} {
		to, _ := u.recipients(subscription.AudienceOf(tc.method, json.RawMessage(tc.params)))
		if len(to) != tc.want || tc.want == 1 && !to[0].c.busy() {
			t.Errorf("%s %s: went to %d clients, want %d", tc.method, tc.params, len(to), tc.want)
		}
	}
}

// TestCancellationReachesServer: a client that cancels a call it made
// through serve, on stdio or HTTP, cancels it at the server too: the
// server's handler sees its context end.
func TestCancellationReachesServer(t *testing.T) {
	t.Parallel()
	s := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	started := make(chan struct{}, 2)
	cancelled := make(chan struct{}, 2)
	type in struct{}
	sdk.AddTool(s, &sdk.Tool{Name: "slow"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ in) (*sdk.CallToolResult, any, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			cancelled <- struct{}{}
			return nil, nil, ctx.Err()
		case <-time.After(30 * time.Second):
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "finished"}}}, nil, nil
		}
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	srv := startServer(t, servetest.Settings(ts.URL, "legacy", nil), nil, false)
	for _, side := range []string{"stdio", "http"} {
		var c *mcp.Client
		if side == "stdio" {
			c, _ = servetest.StdioClient(t, srv, "legacy")
		} else {
			c, _ = servetest.HTTPClient(t, serveHTTP(t, srv, ""), "legacy", side)
		}
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"slow","arguments":{}}`))
			errc <- err
		}()
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the call never reached the server", side)
		}
		cancel()
		select {
		case <-cancelled:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the server's handler was not cancelled", side)
		}
		if err := <-errc; err == nil {
			t.Errorf("%s: the cancelled call succeeded", side)
		}
	}
}
