package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// listenServer is a go-sdk server whose resources take subscriptions,
// served over HTTP (stateless for era modern).
func listenServer(t *testing.T, era string) (*sdk.Server, string) {
	t.Helper()
	return listenServerTelling(t, era, func(string) {})
}

// listenServerTelling is listenServer telling subscribed each URI it is
// asked to subscribe to.
func listenServerTelling(t *testing.T, era string, subscribed func(uri string)) (*sdk.Server, string) {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "listened", Version: "1"}, &sdk.ServerOptions{
		SubscribeHandler: func(_ context.Context, r *sdk.SubscribeRequest) error {
			subscribed(r.Params.URI)
			return nil
		},
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil }})
	sdk.AddTool(s, &sdk.Tool{Name: "t"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{}, nil, nil
	})
	for _, uri := range []string{"file:///a", "file:///b"} {
		s.AddResource(&sdk.Resource{URI: uri, Name: uri}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, Text: uri}}}, nil
		})
	}
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: era == "modern"}))
	t.Cleanup(ts.Close)
	return s, ts.URL
}

// TestListenThroughServe: a modern client's subscriptions/listen through
// serve, in front of a server of either era, gets its acknowledgement
// first, then what it asked for and nothing else, each notification under
// its own subscription id; over HTTP, on the listen's own stream.
func TestListenThroughServe(t *testing.T) {
	t.Parallel()
	for _, upEra := range []string{"legacy", "modern"} {
		for _, side := range []string{"stdio", "http"} {
			t.Run(upEra+"/"+side, func(t *testing.T) {
				t.Parallel()
				s, url := listenServer(t, upEra)
				srv := startServer(t, settingsFor(url, upEra, nil), nil, false)
				var c *mcp.Client
				var rec *recorder
				if side == "stdio" {
					c, rec = stdioClient(t, srv, "modern")
				} else {
					c, rec = httpClient(t, serveHTTP(t, srv, ""), "modern", "x")
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ended := make(chan error, 1)
				go func() {
					_, err := c.Stream(ctx, "subscriptions/listen", json.RawMessage(`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}}`))
					ended <- err
				}()
				ack := waitMessage(t, rec, "notifications/subscriptions/acknowledged")
				if !strings.Contains(ack, `"resourceSubscriptions":["file:///a"]`) || !strings.Contains(ack, `"toolsListChanged":true`) {
					t.Errorf("acknowledgement %s, want what was asked", ack)
				}
				id := subscriptionID(t, ack)
				s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///b"}) // not asked for
				s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///a"})
				upd := waitMessage(t, rec, "notifications/resources/updated")
				if !strings.Contains(upd, `"file:///a"`) || subscriptionID(t, upd) != id {
					t.Errorf("update %s, want file:///a under subscription %s", upd, id)
				}
				sdk.AddTool(s, &sdk.Tool{Name: "new"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{}, nil, nil
				})
				if changed := waitMessage(t, rec, "notifications/tools/list_changed"); subscriptionID(t, changed) != id {
					t.Errorf("list change %s, want it under subscription %s", changed, id)
				}
				for _, m := range rec.all() {
					if strings.Contains(string(m), `file:///b`) {
						t.Errorf("the listener got %s, which it did not ask for", m)
					}
				}
				cancel()
				<-ended
			})
		}
	}
}

// waitMessage waits for the first message of method the client got.
func waitMessage(t *testing.T, rec *recorder, method string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range rec.all() {
			if strings.Contains(string(m), `"method":"`+method+`"`) {
				return string(m)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %s came", method)
	return ""
}

// subscriptionID is the subscription a notification says it belongs to.
func subscriptionID(t *testing.T, msg string) string {
	t.Helper()
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	json.Unmarshal([]byte(msg), &m)
	id := m.Params.Meta[metaSubscriptionID]
	if id == nil {
		t.Fatalf("%s carries no subscription id", msg)
	}
	return string(id)
}

// TestGuardAppliesToListen: a modern client's subscriptions/listen is
// held to the guard as resources/subscribe is: a resource the guard hides,
// however its URI is written, is neither subscribed to at the server nor
// acknowledged, and its updates do not reach the listener; what the guard
// allows is.
func TestGuardAppliesToListen(t *testing.T) {
	t.Parallel()
	hidden := []string{"file:///b", "FILE:///b", "file:///%62", "file://localhost/b", "file:///a/../b", "file:///a/%2e%2e/b"}
	for _, upEra := range []string{"legacy", "modern"} {
		for _, side := range []string{"stdio", "http"} {
			t.Run(upEra+"/"+side, func(t *testing.T) {
				t.Parallel()
				var mu sync.Mutex
				var subscribed []string
				s, url := listenServerTelling(t, upEra, func(uri string) { mu.Lock(); subscribed = append(subscribed, uri); mu.Unlock() })
				srv := startServer(t, settingsFor(url, upEra, nil), Guards{{DenyResources: []string{"file:///b"}}}, false)
				var c *mcp.Client
				var rec *recorder
				if side == "stdio" {
					c, rec = stdioClient(t, srv, "modern")
				} else {
					c, rec = httpClient(t, serveHTTP(t, srv, ""), "modern", "x")
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ended := make(chan error, 1)
				uris, _ := json.Marshal(append([]string{"file:///a"}, hidden...))
				go func() {
					_, err := c.Stream(ctx, "subscriptions/listen", json.RawMessage(`{"notifications":{"resourceSubscriptions":`+string(uris)+`}}`))
					ended <- err
				}()
				ack := waitMessage(t, rec, "notifications/subscriptions/acknowledged")
				if !strings.Contains(ack, `"resourceSubscriptions":["file:///a"]`) {
					t.Errorf("acknowledgement %s, want file:///a alone", ack)
				}
				s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///b"})
				s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///a"})
				if upd := waitMessage(t, rec, "notifications/resources/updated"); !strings.Contains(upd, `"file:///a"`) {
					t.Errorf("update %s, want file:///a's", upd)
				}
				for _, m := range rec.all() {
					if strings.Contains(string(m), `"notifications/resources/updated"`) && !strings.Contains(string(m), `"file:///a"`) {
						t.Errorf("the listener got %s", m)
					}
				}
				mu.Lock()
				for _, uri := range subscribed {
					if uri != "file:///a" {
						t.Errorf("the server was asked to subscribe to %s", uri)
					}
				}
				mu.Unlock()
				cancel()
				<-ended
			})
		}
	}
}
