package servetest

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpv/mcpv/mcp"
)

// Hang is an upstream (a serve.Upstream) whose tools/call and
// subscriptions/listen hang until their context ends (Cancelled is then
// told, when set) or the server ends (End closed); Called is told of each.
// Release, when set and closed, answers the calls held.
type Hang struct{ End, Called, Cancelled, Release chan struct{} }

func (h *Hang) State() mcp.State {
	return mcp.State{Version: "2025-11-25", InitializeResult: Init(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}`)}
}

// Init is raw, an initialize result the test writes well formed, parsed;
// it panics on one that is not.
func Init(raw string) mcp.InitializeResult {
	r, err := mcp.ParseInitializeResult(json.RawMessage(raw))
	if err != nil {
		panic(err)
	}
	return r
}
func (h *Hang) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == "tools/call" || method == "subscriptions/listen" {
		h.Called <- struct{}{}
		select {
		case <-ctx.Done():
			if h.Cancelled != nil {
				h.Cancelled <- struct{}{}
			}
			return nil, ctx.Err()
		case <-h.End:
			return nil, errors.New("the server exited")
		case <-h.Release:
			return json.RawMessage(`{"content":[{"type":"text","text":"released"}]}`), nil
		}
	}
	return json.RawMessage(`{}`), nil
}
func (h *Hang) Relay(ctx context.Context, m string, p json.RawMessage) (json.RawMessage, error) {
	return h.Forward(ctx, m, p)
}
func (h *Hang) ForwardNotification(context.Context, string, json.RawMessage) error { return nil }
func (h *Hang) Tool(context.Context, string) (json.RawMessage, bool)               { return nil, false }
func (h *Hang) Done() <-chan struct{}                                              { return h.End }
func (h *Hang) Err() error                                                         { return errors.New("x") }
func (h *Hang) Close()                                                             {}
