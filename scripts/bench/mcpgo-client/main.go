// Command mcpgo-client is the smallest one-shot MCP client built on
// mark3labs/mcp-go, a peer for scripts/bench.sh:
//
//	mcpgo-client version
//	mcpgo-client [-u URL] list-tools [-- SERVER ARGS...]
//	mcpgo-client [-u URL] call TOOL [KEY=VALUE...] [-- SERVER ARGS...]
//
// It speaks 2025-11-25 (the initialize handshake), as the benchmark's mcpv
// runs do, and prints the result as one line of JSON.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgo-client:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var url string
	if len(args) > 1 && args[0] == "-u" {
		url, args = args[1], args[2:]
	}
	var server []string
	for i, a := range args {
		if a == "--" {
			args, server = args[:i], args[i+1:]
			break
		}
	}
	if len(args) == 0 {
		return fmt.Errorf("usage: mcpgo-client version | list-tools | call TOOL [KEY=VALUE...]")
	}
	if args[0] == "version" {
		fmt.Println("mcpgo-client (mark3labs/mcp-go)")
		return nil
	}
	var c *client.Client
	var err error
	switch {
	case url != "":
		c, err = client.NewStreamableHttpClient(url)
		if err == nil {
			err = c.Start(context.Background())
		}
	case len(server) > 0:
		c, err = client.NewStdioMCPClient(server[0], os.Environ(), server[1:]...)
	default:
		return fmt.Errorf("no server: give -u URL or -- SERVER")
	}
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpgo-client", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}
	var result any
	switch args[0] {
	case "list-tools":
		result, err = c.ListTools(ctx, mcp.ListToolsRequest{})
	case "call":
		if len(args) < 2 {
			return fmt.Errorf("call needs a tool name")
		}
		req := mcp.CallToolRequest{}
		req.Params.Name = args[1]
		arguments := map[string]any{}
		for _, kv := range args[2:] {
			k, v, _ := strings.Cut(kv, "=")
			arguments[k] = v
		}
		req.Params.Arguments = arguments
		result, err = c.CallTool(ctx, req)
	default:
		return fmt.Errorf("unknown command %s", args[0])
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(result)
}
