package servetest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// PairServer is a go-sdk server of the initialize era over Streamable
// HTTP whose tool "pair" and prompt "pair" each wait until n of them
// (either) are in flight at once, then ask their client's name by
// elicitation and answer "hello NAME": so each question is asked while
// the others' requests are in flight, and its answer shows whose client
// took it.
func PairServer(t testing.TB, n int) string {
	t.Helper()
	var mu sync.Mutex // guards in
	in, all := 0, make(chan struct{})
	hello := func(ctx context.Context, ss *sdk.ServerSession) (string, error) {
		mu.Lock()
		if in++; in == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		res, err := ss.Elicit(ctx, &sdk.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return "", err
		}
		name, _ := res.Content["name"].(string)
		if name == "" {
			return "", errors.New("no name: " + res.Action)
		}
		return "hello " + name, nil
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "pair", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "pair"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		text, err := hello(ctx, req.Session)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil, err
	})
	s.AddPrompt(&sdk.Prompt{Name: "pair"}, func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		text, err := hello(ctx, req.Session)
		if err != nil {
			return nil, err
		}
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
	})
	return Streamable(t, s, "legacy")
}
