package demoserver

//lint:file-ignore SA1019 the demo server serves roots, sampling and logging, which MCP 2026-07-28 deprecates but keeps for a year; mcpv still speaks them

import (
	"cmp"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools that make the server ask the client something or report to it: they
// exercise a client's answers to roots, sampling and elicitation requests,
// and its display of log messages.

type askIn struct {
	Message string `json:"message,omitempty" jsonschema:"what to ask the user"`
}
type sampleIn struct {
	Prompt string `json:"prompt" jsonschema:"the text to send to the client's model"`
}
type logIn struct {
	Message string `json:"message" jsonschema:"the log message"`
	Level   string `json:"level,omitempty" jsonschema:"debug, info, notice, warning, error, critical, alert or emergency (default info)"`
}

// askSchema is the form the ask tool requests: one field of each kind.
var askSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","title":"Name","default":"Ada"},` +
	`"age":{"type":"integer","minimum":0,"maximum":150},` +
	`"color":{"type":"string","enum":["red","green","blue"],"default":"green"},` +
	`"subscribe":{"type":"boolean","default":false}},` +
	`"required":["name","age"]}`)

func addAskers(s *mcp.Server) {
	// A client of the modern era (2026-07-28) gets what a tool needs as an
	// input request and sends the call again with the answer
	// (multi-round-trip requests); a client of the initialize era gets a
	// server request while the call runs.
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the user for a name, an age, a colour and a yes/no by elicitation; return the answer."},
		func(ctx context.Context, req *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, any, error) {
			params := &mcp.ElicitParams{Message: cmp.Or(in.Message, "Who are you?"), RequestedSchema: askSchema}
			return asked(ctx, req, "ask", params, req.Session.Elicit)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "Ask the client's model to answer the prompt (sampling); return its message."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sampleIn) (*mcp.CallToolResult, any, error) {
			params := &mcp.CreateMessageParams{
				MaxTokens: 100,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
			}
			return asked(ctx, req, "sample", params, req.Session.CreateMessage)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Return the client's roots."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			// The request of the initialize era has no params.
			listRoots := func(ctx context.Context, _ *mcp.ListRootsParams) (*mcp.ListRootsResult, error) {
				return req.Session.ListRoots(ctx, nil)
			}
			return asked(ctx, req, "roots", &mcp.ListRootsParams{}, listRoots)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "Send a log message to the client (at or above its logging level)."},
		func(ctx context.Context, req *mcp.CallToolRequest, in logIn) (*mcp.CallToolResult, any, error) {
			level := cmp.Or(in.Level, "info")
			err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(level), Logger: "demo", Data: in.Message})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: text("logged")}, nil, nil
		})
}

// asked returns the client's answer to params: as an input request, as id,
// in the modern era, else by asking while the call runs.
func asked[P mcp.InputRequest, R any](ctx context.Context, req *mcp.CallToolRequest, id string, params P,
	ask func(context.Context, P) (R, error)) (*mcp.CallToolResult, any, error) {
	if req.ProtocolVersion() >= "2026-07-28" { // the modern era's protocol
		return roundTrip(req, id, params)
	}
	res, err := ask(ctx, params)
	if err != nil {
		return nil, nil, err
	}
	return jsonResult(res)
}

// roundTrip asks for one input, as id, and returns the answer once the
// client has sent the call again with it.
func roundTrip(req *mcp.CallToolRequest, id string, ask mcp.InputRequest) (*mcp.CallToolResult, any, error) {
	if answer, ok := req.Params.InputResponses[id]; ok {
		return jsonResult(answer)
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{id: ask}}, nil, nil
}

func jsonResult(v any) (*mcp.CallToolResult, any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: text(string(b))}, nil, nil
}
