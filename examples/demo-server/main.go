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
	"strings"
	"syscall"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on `ADDR` (e.g. 127.0.0.1:8080) instead of stdio")
	var opts demoserver.Options
	flag.DurationVar(&opts.TTL, "ttl", 0, "let clients keep server/discover's result and the lists this long (ttlMs)")
	flag.BoolVar(&opts.Private, "private", false, "with -ttl: for the client's authorization context alone (cacheScope private)")
	versions := flag.String("versions", "", "speak only these protocol `VERSIONS` (comma-separated)")
	stateless := flag.Bool("stateless", false, "with -http: keep no sessions (a client of 2026-07-28 needs none)")
	flag.Parse()
	if *versions != "" {
		opts.Versions = strings.Split(*versions, ",")
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "demo-server: unexpected arguments: %q\n", flag.Args())
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var err error
	if *addr != "" {
		err = serveHTTP(ctx, *addr, opts, &mcp.StreamableHTTPOptions{Stateless: *stateless})
	} else {
		err = demoserver.NewWith(opts).Run(ctx, &mcp.StdioTransport{})
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "demo-server:", err)
		os.Exit(1)
	}
}

func serveHTTP(ctx context.Context, addr string, opts demoserver.Options, httpOpts *mcp.StreamableHTTPOptions) error {
	handler := demoserver.HTTPHandler(demoserver.NewWith(opts), httpOpts)
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
