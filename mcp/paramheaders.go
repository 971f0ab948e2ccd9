package mcp

// Tool arguments mirrored into HTTP headers (MCP 2026-07-28, x-mcp-header):
// a tool's inputSchema may mark properties of type string, integer or
// boolean with "x-mcp-header": NAME; a tools/call over Streamable HTTP then
// carries each such argument as the header Mcp-Param-NAME, so that a
// gateway can route on it without reading the body.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
)

// ParamHeader is one annotated property: its path from the arguments
// object, and the header name it asks for.
type ParamHeader struct {
	path []string
	name string
}

// Path is the annotated property's path from the arguments, and Name
// the header name it asks for (after Mcp-Param-).
func (h ParamHeader) Path() []string { return slices.Clone(h.path) }
func (h ParamHeader) Name() string   { return h.name }

// ParamHeaderError is an x-mcp-header annotation that breaks one of the
// constraints the transport sets on it, each a MUST
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#schema-extension):
// a client over Streamable HTTP must leave the tool out of its list.
type ParamHeaderError struct {
	// Property is the annotated property's path from the arguments,
	// its names joined with dots ("" for the schema's root).
	Property string
	// Header is the annotation's value, quoted.
	Header string
	// Rule is the constraint it breaks, in plain words.
	Rule string
}

func (e *ParamHeaderError) Error() string {
	where := "the schema's root"
	if e.Property != "" {
		where = fmt.Sprintf("property %q", e.Property)
	}
	if e.Header == "" {
		return where + ": " + e.Rule
	}
	return fmt.Sprintf("%s: x-mcp-header %s %s", where, e.Header, e.Rule)
}

// maxHeaderDepth bounds how deep in a schema annotations are sought: each
// level costs a read of what it holds, and no honest schema nests so far.
// A schema that may hold one deeper is refused, saying so.
const maxHeaderDepth = 64

// ParamHeaders returns the x-mcp-header annotations of an inputSchema that
// keep the transport's constraints, and the first that breaks one (a
// *ParamHeaderError; ParamHeaderProblems has them all).
func ParamHeaders(schema json.RawMessage) ([]ParamHeader, error) {
	out, problems := readParamHeaders(schema)
	if len(problems) > 0 {
		return out, problems[0]
	}
	return out, nil
}

// ParamHeaderProblems are the x-mcp-header annotations of an inputSchema
// that break the transport's constraints, in the schema's order: the one
// reading a server's checker and a client's list both use.
func ParamHeaderProblems(schema json.RawMessage) []*ParamHeaderError {
	_, problems := readParamHeaders(schema)
	return problems
}

// Keywords whose values are schemas (one, or an array of them) and
// keywords whose values are objects of schemas, other than properties:
// an annotation under any of them is not reached from the root by a
// chain of properties alone, as the constraints ask.
var (
	subschemaKeywords = []string{"items", "prefixItems", "additionalItems", "contains", "unevaluatedItems",
		"additionalProperties", "unevaluatedProperties", "propertyNames",
		"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "contentSchema"}
	schemaMapKeywords = []string{"patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"}
)

// readParamHeaders walks an inputSchema for x-mcp-header annotations:
// through properties (a chain of them from the root is where an
// annotation may be) and every other keyword that holds schemas (where
// none may be).
func readParamHeaders(schema json.RawMessage) (out []ParamHeader, problems []*ParamHeaderError) {
	seen := map[string]string{} // a header name, in lower case → the property it is on
	var walk func(s []byte, path []string, under string, depth int)
	annotation := func(s, v []byte, path []string, under string) {
		where := strings.Join(path, ".")
		header := safetext.Line(string(v))
		var name string
		isString := json.Unmarshal(v, &name) == nil
		if isString {
			header = fmt.Sprintf("%q", name)
		}
		bad := func(format string, args ...any) {
			problems = append(problems, &ParamHeaderError{Property: where, Header: header, Rule: fmt.Sprintf(format, args...)})
		}
		typ, primitive := headerType(rawjson.Member(s, "type"))
		switch {
		case under != "":
			bad("is under %s: only a property reached from the schema's root by properties alone may be mirrored", under)
		case len(path) == 0:
			bad("is not on a property")
		case !isString:
			bad("is not a string")
		case name == "":
			bad("is empty")
		case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			bad("holds a control character")
		case !isToken(name):
			bad("is not an HTTP header name: only letters, digits and !#$%%&'*+-.^_`|~ may make one (RFC 9110 token)")
		case !primitive:
			bad("is on a property %s: only string, integer and boolean may be mirrored", typ)
		case seen[strings.ToLower(name)] != "":
			bad("repeats the header name of property %q (names are compared without case)", seen[strings.ToLower(name)])
		default:
			seen[strings.ToLower(name)] = where
			out = append(out, ParamHeader{path: path, name: name})
		}
	}
	walk = func(s []byte, path []string, under string, depth int) {
		if !bytes.Contains(s, []byte("x-mcp-header")) && !bytes.Contains(s, []byte(`\u`)) {
			return // no x-mcp-header key, not even escaped: most schemas, read no further
		}
		if depth > maxHeaderDepth {
			if bytes.Contains(s, []byte("x-mcp-header")) { // an escaped one this deep is not sought
				problems = append(problems, &ParamHeaderError{Property: safetext.Runes(strings.Join(path, "."), 200),
					Rule: fmt.Sprintf("its schema nests deeper than %d levels, past which mcpv does not seek x-mcp-header annotations", maxHeaderDepth)})
			}
			return
		}
		rawjson.ForEachValidMember(s, func(k string, v []byte) error {
			switch {
			case k == "x-mcp-header":
				annotation(s, v, path, under)
			case k == "properties":
				rawjson.ForEachValidMember(v, func(name string, sub []byte) error {
					walk(sub, append(slices.Clip(path), name), under, depth+1)
					return nil
				})
			case slices.Contains(schemaMapKeywords, k):
				rawjson.ForEachValidMember(v, func(_ string, sub []byte) error {
					walk(sub, path, cmp.Or(under, k), depth+1)
					return nil
				})
			case slices.Contains(subschemaKeywords, k):
				rawjson.ForEachElement(v, func(_ int, el []byte) { walk(el, path, cmp.Or(under, k), depth+1) })
				walk(v, path, cmp.Or(under, k), depth+1)
			}
			return nil
		})
	}
	walk(schema, nil, "", 0)
	return out, problems
}

// headerType is a property's type as a header's constraint reads it: ok
// when it is string, integer or boolean, alone or beside "null" (a null
// argument sends no header); else what it is, for the error ("of type
// \"number\"", "with no type").
func headerType(raw []byte) (typ string, ok bool) {
	primitive := func(t string) bool { return t == "string" || t == "integer" || t == "boolean" }
	var one string
	var some []string
	switch {
	case raw == nil:
		return "with no type", false
	case json.Unmarshal(raw, &one) == nil:
		return fmt.Sprintf("of type %q", one), primitive(one)
	case json.Unmarshal(raw, &some) == nil:
		kept := slices.DeleteFunc(slices.Clone(some), func(t string) bool { return t == "null" })
		return fmt.Sprintf("of type %q", some), len(kept) == 1 && primitive(kept[0])
	}
	return "of type " + safetext.Line(string(raw)), false
}

// isToken reports whether s is an HTTP token (RFC 9110 tchar).
func isToken(s string) bool { return s != "" && strings.Trim(s, alnum+"!#$%&'*+-.^_`|~") == "" }

// SetParamHeaders sets on h, as a client sends them, Mcp-Param-NAME for
// each annotated argument present in the tools/call message msg: strings
// as they are (base64 when they must be), booleans as true or false,
// integers in decimal. Absent and null arguments, and values of another
// type, set nothing.
func SetParamHeaders(h http.Header, headers []ParamHeader, msg []byte) {
	args := rawjson.Member(rawjson.Member(msg, "params"), "arguments")
	for _, ph := range headers {
		if text, ok := headerText(ph.Argument(args)); ok {
			h.Set("Mcp-Param-"+ph.name, text)
		}
	}
}

// Argument is the annotated argument's value in the arguments object
// args, nil when it is absent.
func (ph ParamHeader) Argument(args json.RawMessage) json.RawMessage {
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
