package serve

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

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
				s, url := servetest.ListenServer(t, upEra, nil)
				srv := startServer(t, servetest.Settings(url, upEra, nil), nil, false)
				var c *mcp.Client
				var rec *servetest.Recorder
				if side == "stdio" {
					c, rec = servetest.StdioClient(t, srv, "modern")
				} else {
					c, rec = servetest.HTTPClient(t, serveHTTP(t, srv, ""), "modern", "x")
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ended := make(chan error, 1)
				go func() {
					_, err := c.Stream(ctx, "subscriptions/listen", json.RawMessage(`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}}`))
					ended <- err
				}()
				ack := rec.WaitMessage(t, "notifications/subscriptions/acknowledged")
				if !strings.Contains(ack, `"resourceSubscriptions":["file:///a"]`) || !strings.Contains(ack, `"toolsListChanged":true`) {
					t.Errorf("acknowledgement %s, want what was asked", ack)
				}
				id := servetest.SubscriptionID(t, ack)
				s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///b"}) // not asked for
				s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///a"})
				upd := rec.WaitMessage(t, "notifications/resources/updated")
				if !strings.Contains(upd, `"file:///a"`) || servetest.SubscriptionID(t, upd) != id {
					t.Errorf("update %s, want file:///a under subscription %s", upd, id)
				}
				sdk.AddTool(s, &sdk.Tool{Name: "new"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{}, nil, nil
				})
				if changed := rec.WaitMessage(t, "notifications/tools/list_changed"); servetest.SubscriptionID(t, changed) != id {
					t.Errorf("list change %s, want it under subscription %s", changed, id)
				}
				for _, m := range rec.All() {
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
				s, url := servetest.ListenServer(t, upEra, func(uri string) { mu.Lock(); subscribed = append(subscribed, uri); mu.Unlock() })
				srv := startServer(t, servetest.Settings(url, upEra, nil), Guards{{DenyResources: []string{"file:///b"}}}, false)
				var c *mcp.Client
				var rec *servetest.Recorder
				if side == "stdio" {
					c, rec = servetest.StdioClient(t, srv, "modern")
				} else {
					c, rec = servetest.HTTPClient(t, serveHTTP(t, srv, ""), "modern", "x")
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ended := make(chan error, 1)
				uris, _ := json.Marshal(append([]string{"file:///a"}, hidden...))
				go func() {
					_, err := c.Stream(ctx, "subscriptions/listen", json.RawMessage(`{"notifications":{"resourceSubscriptions":`+string(uris)+`}}`))
					ended <- err
				}()
				ack := rec.WaitMessage(t, "notifications/subscriptions/acknowledged")
				if !strings.Contains(ack, `"resourceSubscriptions":["file:///a"]`) {
					t.Errorf("acknowledgement %s, want file:///a alone", ack)
				}
				s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///b"})
				s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///a"})
				if upd := rec.WaitMessage(t, "notifications/resources/updated"); !strings.Contains(upd, `"file:///a"`) {
					t.Errorf("update %s, want file:///a's", upd)
				}
				for _, m := range rec.All() {
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

// TestListenHeardFromItsAcknowledgement: in front of a server of the
// initialize era, a listen is among those the server's notifications go
// to by the time its acknowledgement is on its way, so an update the
// server sends once the client has it is not lost. The acknowledgement
// is looked at as a layer above gets it (WithListenRelay), where the
// listen's place among the upstream's listeners can be read at that very
// moment.
func TestListenHeardFromItsAcknowledgement(t *testing.T) {
	t.Parallel()
	_, url := servetest.ListenServer(t, "legacy", nil)
	member := startServer(t, servetest.Settings(url, "legacy", nil), nil, false)
	heard := make(chan bool, 1)
	front := &Server{Front: func(parent *Client) Front {
		return relayFront{member.Join(parent), func(n Notice) {
			if n.Method != "notifications/subscriptions/acknowledged" {
				return
			}
			u, err := member.sharedUpstream(context.Background(), nil)
			if err != nil {
				t.Error(err)
				heard <- false
				return
			}
			u.mu.Lock()
			heard <- len(u.listeners) == 1
			u.mu.Unlock()
		}}
	}}
	if err := front.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(front.Close)
	c, _ := servetest.StdioClient(t, front, "modern")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		_, err := c.Stream(ctx, "subscriptions/listen", json.RawMessage(`{"notifications":{"resourceSubscriptions":["file:///a"]}}`))
		ended <- err
	}()
	if !<-heard {
		t.Error("the acknowledgement went before the listen was among the upstream's listeners")
	}
	cancel()
	<-ended
}

// relayFront hands a joined client a front client's requests, its
// listens' notices to relay.
type relayFront struct {
	c     *Client
	relay func(Notice)
}

func (f relayFront) Handle(ctx context.Context, method string, params json.RawMessage, modern bool) (json.RawMessage, error) {
	switch method {
	case "initialize":
		return f.c.Initialize(params, json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"resources":{"subscribe":true}},"serverInfo":{"name":"front","version":"1"}}`))
	case "server/discover":
		res := Discovered(json.RawMessage(`{"capabilities":{"resources":{"subscribe":true}},"serverInfo":{"name":"front","version":"1"}}`))
		ModernResult(ctx, method, res, nil)
		return res, nil
	case "subscriptions/listen":
		ctx = WithListenRelay(ctx, f.relay)
	}
	return f.c.Handle(ctx, method, params)
}

func (relayFront) Notified(string, json.RawMessage) {}
func (relayFront) Close()                           {}
