package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// serveLocal serves h on 127.0.0.1 until the test ends.
func serveLocal(t *testing.T, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Listener.Close()
	ts.Listener = l
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}

func sdkStreamable(opts *sdk.StreamableHTTPOptions) http.Handler {
	server := demoserver.New()
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, opts)
}

func sdkLegacy() http.Handler {
	server := demoserver.New()
	return sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return server }, nil)
}

// toolText is the text of the first content block of a tools/call result.
func toolText(t *testing.T, result json.RawMessage) string {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("result %s: %v", result, err)
	}
	return r.Content[0].Text
}

// TestHTTPGoSDKServer runs the transport against a real peer, the go-sdk's
// server, in each of its set-ups.
func TestHTTPGoSDKServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		handler   func() http.Handler
		askRoots  bool // the server can ask the client something
		streaming bool // progress arrives on the call's stream
	}{
		{"event stream", func() http.Handler { return sdkStreamable(nil) }, true, true},
		{"JSON responses", func() http.Handler { return sdkStreamable(&sdk.StreamableHTTPOptions{JSONResponse: true}) }, true, false},
		{"stateless", func() http.Handler { return sdkStreamable(&sdk.StreamableHTTPOptions{Stateless: true}) }, false, true},
		{"event store", func() http.Handler {
			return sdkStreamable(&sdk.StreamableHTTPOptions{EventStore: sdk.NewMemoryEventStore(nil)})
		}, true, true},
		{"legacy HTTP+SSE", sdkLegacy, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := serveLocal(t, tt.handler())
			h := dialHTTP(t, HTTPOptions{URL: url}, SessionOptions{Handler: rootsHandler})
			c, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo(), Capabilities: json.RawMessage(`{"roots":{}}`)})
			if err != nil {
				t.Fatal(err)
			}
			list, err := c.Call(testCtx(t), "tools/list", nil)
			if err != nil {
				t.Fatal(err)
			}
			var tools struct{ Tools []struct{ Name string } }
			json.Unmarshal(list, &tools)
			if !slices.ContainsFunc(tools.Tools, func(tl struct{ Name string }) bool { return tl.Name == "echo" }) {
				t.Errorf("tools/list: %s", list)
			}
			echo, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"echo","arguments":{"message":"hi there"}}`))
			if err != nil || toolText(t, echo) != "hi there" {
				t.Fatalf("echo: %s, %v", echo, err)
			}
			slow, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"slow","arguments":{"seconds":0.01,"steps":3}}`))
			if err != nil {
				t.Fatalf("slow: %s, %v", slow, err)
			}
			if tt.askRoots {
				roots, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"roots"}`))
				if err != nil || !strings.Contains(toolText(t, roots), "file:///w") {
					t.Errorf("roots: %s, %v", roots, err)
				}
			}
			// On a stream, the progress of the slow call comes before its
			// result (with JSON responses it comes on the GET stream, in no
			// set order with the result).
			notes := h.delivered(t)
			if tt.streaming {
				var want []string
				for i := 1; i <= 3; i++ {
					want = append(want, fmt.Sprintf(`notifications/progress {"progressToken":"mcpv-2","message":"step %d of 3","progress":%d,"total":3}`, i, i))
				}
				if d := cmp.Diff(want, notes); d != "" {
					t.Errorf("notifications (-want +got):\n%s", d)
				}
			}
		})
	}
}

// TestHTTPGoSDKSessionExpiry ends the go-sdk server's session behind the
// client's back, as its idle timeout would.
func TestHTTPGoSDKSessionExpiry(t *testing.T) {
	t.Parallel()
	inner := sdkStreamable(nil)
	var once sync.Once
	url := serveLocal(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			if strings.Contains(string(body), `"tools/list"`) {
				once.Do(func() { // from now on the server answers 404 to sid
					del := httptest.NewRequest(http.MethodDelete, "/", nil)
					del.Header.Set("Mcp-Session-Id", sid)
					inner.ServeHTTP(httptest.NewRecorder(), del)
				})
			}
		}
		inner.ServeHTTP(w, r)
	}))
	var log mcptest.Buffer
	h := dialHTTP(t, HTTPOptions{URL: url, Log: lineLogger(&log)}, SessionOptions{})
	c := h.initialize(t)
	if _, err := c.Call(testCtx(t), "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff("the server's session expired (HTTP 404); starting a new one\n", log.String()); d != "" {
		t.Errorf("log (-want +got):\n%s", d)
	}
}

func TestHTTPGoSDKCancel(t *testing.T) {
	t.Parallel()
	url := serveLocal(t, sdkStreamable(nil))
	h := dialHTTP(t, HTTPOptions{URL: url}, SessionOptions{})
	c := h.initialize(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	call := goCall(ctx, c.Call, "tools/call", json.RawMessage(`{"name":"slow","arguments":{"seconds":60,"steps":600}}`))
	waitFor(t, h.notes) // the call is under way: its first progress came
	cause := errors.New("enough")
	cancel(cause)
	if r := waitFor(t, call); r.err != cause {
		t.Fatalf("got %v, want the cause", r.err)
	}
	if _, err := c.Call(testCtx(t), "tools/list", nil); err != nil {
		t.Errorf("after the cancellation: %v", err)
	}
}
