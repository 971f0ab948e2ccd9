package mcp

// The server's side of the modern era's request headers
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation):
// a server that reads the body MUST refuse a request whose Mcp-Method,
// Mcp-Name or Mcp-Param-NAME header is missing, malformed, or says other
// than the body, with HTTP 400 and the error -32020 (HeaderMismatch).

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// HeaderMismatch is the error for a request whose headers do not match
// its body.
func HeaderMismatch(format string, args ...any) *RPCError {
	return &RPCError{Code: CodeHeaderMismatch, Message: "header mismatch: " + fmt.Sprintf(format, args...)}
}

// nameHeader is the member of a request's params that Mcp-Name mirrors,
// by method (made at its first use: a map costs start-up its allocations).
var nameHeader = &lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
		"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}
}}

// CheckStandardHeaders checks a modern request's Mcp-Method, and Mcp-Name
// for the methods that name a tool, prompt or resource, against the
// request (msg: the whole message).
func CheckStandardHeaders(h http.Header, msg []byte) *RPCError {
	method, _ := rawjson.String(rawjson.Member(msg, "method"))
	got, ok := h["Mcp-Method"]
	switch {
	case !ok:
		return HeaderMismatch("the Mcp-Method header is missing")
	case len(got) != 1 || got[0] != method:
		return HeaderMismatch("Mcp-Method %q does not match the request's method %q", strings.Join(got, ", "), method)
	}
	member := nameHeader.Get()[method]
	if member != "name" && member != "uri" { // a task's id is not checked
		return nil
	}
	want, _ := rawjson.String(rawjson.Member(rawjson.Member(msg, "params"), member))
	got, ok = h["Mcp-Name"]
	if !ok {
		return HeaderMismatch("the Mcp-Name header is missing")
	}
	name, valid := DecodeHeaderValue(strings.Join(got, ", "))
	switch {
	case !valid || len(got) != 1:
		return HeaderMismatch("Mcp-Name is not a valid value")
	case name != want:
		return HeaderMismatch("Mcp-Name %q does not match the request's %s %q", got[0], member, want)
	}
	return nil
}

// DecodeHeaderValue reads a header value as headerValue writes it: as it
// is, or =?base64?...?= (padded standard base64 of UTF-8); ok is false
// for a sentinel whose content is not that, and for a value as it is
// that holds what only Base64 may carry (a character outside visible
// ASCII, space and tab), which the transport has a server refuse.
func DecodeHeaderValue(v string) (string, bool) {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") || len(v) < len("=?base64??=") {
		return v, !strings.ContainsFunc(v, func(r rune) bool { return r > '~' || r < ' ' && r != '\t' })
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len("=?base64?") : len(v)-len("?=")])
	if err != nil {
		return "", false
	}
	return string(b), true
}

// CheckParamHeaders checks a tools/call's Mcp-Param-NAME headers against
// its arguments, as the tool's annotations (ParamHeaders) ask: each
// annotated argument present (and not null) must have its header, with
// its value (integers compared as numbers); an annotated argument that is
// absent must have none.
func CheckParamHeaders(h http.Header, headers []ParamHeader, msg []byte) *RPCError {
	args := rawjson.Member(rawjson.Member(msg, "params"), "arguments")
	for _, ph := range headers {
		v := ph.Argument(args)
		name := "Mcp-Param-" + ph.name
		got, present := h[http.CanonicalHeaderKey(name)]
		if len(v) == 0 || string(v) == "null" {
			if present {
				return HeaderMismatch("%s is given for argument %q, which the request does not have", name, strings.Join(ph.path, "."))
			}
			continue
		}
		if !present {
			return HeaderMismatch("%s is missing for argument %q", name, strings.Join(ph.path, "."))
		}
		text, valid := DecodeHeaderValue(strings.Join(got, ", "))
		if !valid || len(got) != 1 {
			return HeaderMismatch("%s is not a valid value", name)
		}
		if !headerMatches(text, v) {
			return HeaderMismatch("%s %q does not match argument %q", name, got[0], strings.Join(ph.path, "."))
		}
	}
	return nil
}

// headerMatches reports whether a header's text (decoded) says what the
// argument v holds: a string as it is, a boolean as true or false, an
// integer as a number equal to it.
func headerMatches(text string, v json.RawMessage) bool {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return false
	}
	switch x := x.(type) {
	case string:
		return text == x
	case bool:
		return text == strconv.FormatBool(x)
	case float64:
		n, err := strconv.ParseFloat(text, 64)
		return err == nil && !math.IsInf(n, 0) && n == x
	}
	return false
}
