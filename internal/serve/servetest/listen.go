package servetest

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListenServer is a go-sdk server whose resources (file:///a and
// file:///b) take subscriptions, with one tool, served over HTTP
// (stateless for era modern); subscribed, when not nil, is told each URI
// it is asked to subscribe to.
func ListenServer(t testing.TB, era string, subscribed func(uri string)) (*sdk.Server, string) {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "listened", Version: "1"}, &sdk.ServerOptions{
		SubscribeHandler: func(_ context.Context, r *sdk.SubscribeRequest) error {
			if subscribed != nil {
				subscribed(r.Params.URI)
			}
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
	return s, Streamable(t, s, era)
}

// SubscriptionID is the subscription a notification says it belongs to.
func SubscriptionID(t testing.TB, msg string) string {
	t.Helper()
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		t.Fatalf("%s: %v", msg, err)
	}
	id := m.Params.Meta["io.modelcontextprotocol/subscriptionId"]
	if id == nil {
		t.Fatalf("%s carries no subscription id", msg)
	}
	return string(id)
}
