package demoserver

import (
	"net/http"

	"github.com/mcpv/mcpv/internal/origin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHandler is the demo server over Streamable HTTP, as
// examples/demo-server serves it: every request goes to server, and one
// from a web page of another origin than this machine's is refused with
// 403, as the transport requires against DNS rebinding and pages that
// reach for loopback
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning).
func HTTPHandler(server *mcp.Server, opts *mcp.StreamableHTTPOptions) http.Handler {
	next := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !(origin.Policy{}).Admits(r.Header.Get("Origin")) {
			http.Error(w, "Forbidden: Origin not allowed", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
