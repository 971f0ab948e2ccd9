// Command demo-server runs the mcpv demo MCP server over stdio, or over
// Streamable HTTP with -http ADDR.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on `ADDR` (e.g. 127.0.0.1:8080) instead of stdio")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "demo-server: unexpected arguments: %q\n", flag.Args())
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var err error
	if *addr != "" {
		err = serveHTTP(ctx, *addr)
	} else {
		err = demoserver.New().Run(ctx, &mcp.StdioTransport{})
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "demo-server:", err)
		os.Exit(1)
	}
}

func serveHTTP(ctx context.Context, addr string) error {
	server := demoserver.New()
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// Report the bound address (useful with port 0) on stderr, never stdout.
	fmt.Fprintf(os.Stderr, "demo-server: listening on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: handler}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
