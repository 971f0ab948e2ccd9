package mcp

// Tool arguments mirrored into HTTP headers (MCP 2026-07-28, x-mcp-header):
// a tool's inputSchema may mark properties of type string, integer or
// boolean with "x-mcp-header": NAME; a tools/call over Streamable HTTP then
// carries each such argument as the header Mcp-Param-NAME, so that a
// gateway can route on it without reading the body.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// ParamHeader is one annotated property: its path from the arguments
// object, and the header name it asks for.
type ParamHeader struct {
	path []string
	name string
}

// ParamHeaders returns the x-mcp-header annotations of an inputSchema, or
// an error naming the first that is invalid: on a property that is not a
// string, integer or boolean, not a header token, or a repeated name
// (compared without case).
func ParamHeaders(schema json.RawMessage) ([]ParamHeader, error) {
	var out []ParamHeader
	seen := map[string]bool{}
	var walk func(props json.RawMessage, prefix []string) error
	walk = func(props json.RawMessage, prefix []string) error {
		return rawjson.ForEachValidMember(props, func(name string, prop []byte) error {
			path := append(append([]string(nil), prefix...), name)
			var p struct {
				Type       json.RawMessage `json:"type"`
				Header     json.RawMessage `json:"x-mcp-header"`
				Properties json.RawMessage `json:"properties"`
			}
			if json.Unmarshal(prop, &p) != nil {
				return nil
			}
			if p.Header != nil {
				where := strings.Join(path, ".")
				var typ, header string
				rawjson.DecodeLoose(p.Type, &typ)
				if typ != "string" && typ != "integer" && typ != "boolean" {
					return fmt.Errorf("property %q: x-mcp-header on a property of type %s, not string, integer or boolean", where, p.Type)
				}
				if json.Unmarshal(p.Header, &header) != nil || !isToken(header) {
					return fmt.Errorf("property %q: x-mcp-header %s is not a header name", where, p.Header)
				}
				if seen[strings.ToLower(header)] {
					return fmt.Errorf("property %q: x-mcp-header %q is used twice", where, header)
				}
				seen[strings.ToLower(header)] = true
				out = append(out, ParamHeader{path: path, name: header})
			}
			if p.Properties != nil {
				return walk(p.Properties, path)
			}
			return nil
		})
	}
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || s.Properties == nil {
		return nil, nil
	}
	return out, walk(s.Properties, nil)
}

// isToken reports whether s is an HTTP token (RFC 9110 tchar).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// SetParamHeaders sets on h, as a client sends them, Mcp-Param-NAME for
// each annotated argument present in the tools/call message msg: strings
// as they are (base64 when they must be), booleans as true or false,
// integers in decimal. Absent and null arguments, and values of another
// type, set nothing.
func SetParamHeaders(h http.Header, headers []ParamHeader, msg []byte) {
	args := rawjson.Member(rawjson.Member(msg, "params"), "arguments")
	for _, ph := range headers {
		if text, ok := headerText(ph.argument(args)); ok {
			h.Set("Mcp-Param-"+ph.name, text)
		}
	}
}

// argument is the annotated argument's value in the arguments object
// args, nil when it is absent.
func (ph ParamHeader) argument(args json.RawMessage) json.RawMessage {
	for _, k := range ph.path {
		args = rawjson.Member(args, k)
	}
	return args
}

// maxSafeInteger is the largest integer every JSON reader holds exactly.
const maxSafeInteger = 1<<53 - 1

// headerText is an argument's header value, if it is a string, a boolean,
// or an integer a JSON reader holds exactly.
func headerText(v json.RawMessage) (string, bool) {
	var x any
	if len(v) == 0 || json.Unmarshal(v, &x) != nil {
		return "", false
	}
	switch x := x.(type) {
	case string:
		return headerValue(x), true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > maxSafeInteger {
			return "", false
		}
		return strconv.FormatInt(int64(x), 10), true
	}
	return "", false
}

type paramHeadersKey struct{}

// WithParamHeaders tells the transport the x-mcp-header annotations of the
// tool a tools/call sent with ctx calls (ParamHeaders of its inputSchema).
func WithParamHeaders(ctx context.Context, headers []ParamHeader) context.Context {
	return context.WithValue(ctx, paramHeadersKey{}, headers)
}

// ParamHeadersFrom returns what WithParamHeaders put in ctx.
func ParamHeadersFrom(ctx context.Context) []ParamHeader {
	h, _ := ctx.Value(paramHeadersKey{}).([]ParamHeader)
	return h
}

type paramHeaderJSON struct {
	Path []string `json:"path"`
	Name string   `json:"name"`
}

// MarshalJSON lets an annotation travel to the process that sends the
// request (a session keeper).
func (h ParamHeader) MarshalJSON() ([]byte, error) {
	return json.Marshal(paramHeaderJSON{h.path, h.name})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (h *ParamHeader) UnmarshalJSON(b []byte) error {
	var v paramHeaderJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	h.path, h.name = v.Path, v.Name
	return nil
}
