// Command everything-http serves the go-sdk everything server's greet tool
// over Streamable HTTP in the go-sdk's stateless mode, where a tools/call
// POST is answered without a session: the server scripts/bench/load.sh
// puts mcpv load, hey and k6 side by side against, each posting the same
// request. (The everything example itself keeps sessions, and refuses a
// tools/call outside one; inside one, a raw generator's repeated request
// id is refused with 400 while the same id is in flight.)
//
//	everything-http -http 127.0.0.1:0    (prints "listening on http://ADDR" on stderr)
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type args struct {
	Name string `json:"name" jsonschema:"the name to say hi to"`
}

func greet(ctx context.Context, req *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hi " + a.Name}}}, nil, nil
}

func main() {
	addr := flag.String("http", "127.0.0.1:0", "serve Streamable HTTP at `ADDR`")
	jsonResponse := flag.Bool("json", false, "answer each POST with a JSON body rather than an event stream")
	flag.Parse()
	server := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "bench"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hi"}, greet)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: *jsonResponse})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on http://%s", ln.Addr())
	log.Fatal(http.Serve(ln, handler))
}
