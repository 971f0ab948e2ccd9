package serve

// The 2026-07-28 era's rules for Streamable HTTP
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http),
// kept for a modern client's POST before it is served (checkModernPost):
// its _meta, its headers against its body, and the methods the era
// removed (404). A tools/call's Mcp-Param-NAME headers are checked where
// the tool's annotations are known (checkParamHeaders). The answer's
// status follows its error (modernStatus).

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// checkModernPost checks a modern request (body: the whole message) before
// it is served; for a refusal, the HTTP status and the error.
func checkModernPost(r *http.Request, body []byte, method string) (int, *mcp.RPCError) {
	params := rawjson.Member(body, "params")
	inBody, _ := rawjson.String(rawjson.Member(rawjson.Member(params, "_meta"), mcp.MetaProtocolVersion))
	header, hasHeader := r.Header["Mcp-Protocol-Version"]
	switch {
	case inBody != "" && !hasHeader:
		return http.StatusBadRequest, mcp.HeaderMismatch("the MCP-Protocol-Version header is missing")
	case inBody != "" && (len(header) != 1 || header[0] != inBody):
		return http.StatusBadRequest, mcp.HeaderMismatch("MCP-Protocol-Version %q does not match the request's %s %q", r.Header.Get("Mcp-Protocol-Version"), mcp.MetaProtocolVersion, inBody)
	}
	if _, rerr := readModernMeta(params); rerr != nil {
		return http.StatusBadRequest, rerr
	}
	if removedMethods[method] {
		return http.StatusNotFound, mcp.MethodNotFound(method)
	}
	if rerr := mcp.CheckStandardHeaders(r.Header, body); rerr != nil {
		return http.StatusBadRequest, rerr
	}
	return 0, nil
}

// writeRPCError answers a request with its JSON-RPC error, and status.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, rerr *mcp.RPCError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(errorMessage(id, rerr))
}

// errorMessage is the JSON-RPC error rerr answering id (nil: null).
func errorMessage(id json.RawMessage, rerr *mcp.RPCError) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(cmp.Or(string(id), "null")), "error": rerr})
	return b
}

// modernStatus is the HTTP status of a modern request whose answer is
// parts, when its answer comes first: 404 for a method not found, 400 for
// a request the server could not take as it was, 200 otherwise.
func modernStatus(parts [][]byte) int {
	if len(parts) != 1 {
		return http.StatusOK // a result in parts: no error
	}
	var e struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(parts[0], &e) != nil || e.Error == nil {
		return http.StatusOK
	}
	switch e.Error.Code {
	case mcp.CodeMethodNotFound:
		return http.StatusNotFound
	case mcp.CodeInvalidParams, mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapabilities, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// checkParamHeaders checks a modern HTTP client's tools/call's
// Mcp-Param-NAME headers against its arguments, as the tool up lists
// asks.
func (c *client) checkParamHeaders(ctx context.Context, up *upstream, method string, params json.RawMessage) *mcp.RPCError {
	if method != "tools/call" || c.headers == nil {
		return nil
	}
	h := c.headers(mcp.IncomingID(ctx))
	if h == nil {
		return nil
	}
	headers := up.paramHeaders(ctx, params)
	if headers == nil {
		return nil
	}
	return mcp.CheckParamHeaders(h, headers, mustJSON(map[string]json.RawMessage{"params": params}))
}
