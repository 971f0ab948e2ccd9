package demoserver

import (
	"encoding/base64"
	"net/http"
	"strings"

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
		// 2026-07-28 has a server decode a Base64 Mcp-Name before it
		// compares it with the body; the go-sdk (v1.8.0) compares it as it came.
		if v, ok := strings.CutPrefix(r.Header.Get("Mcp-Name"), "=?base64?"); ok && strings.HasSuffix(v, "?=") {
			if name, err := base64.StdEncoding.Strict().DecodeString(strings.TrimSuffix(v, "?=")); err == nil {
				r = r.Clone(r.Context()) // the handler's own copy of the request to change
				r.Header.Set("Mcp-Name", string(name))
			}
		}
		next.ServeHTTP(w, r)
	})
}
