// Package portable grades a tool's JSON schemas for where they travel:
// each model provider takes tool schemas in a subset of JSON Schema of
// its own (OpenAI's strict mode, Anthropic's strict tool use, Gemini's
// function declarations, a subset of OpenAPI 3.0's schema object), and
// rejects a tool, or drops a constraint, whose schema steps outside it.
// Each finding names the host that rejects the schema, where in the
// schema, and the host's documented rule, quoted from rules.tsv (the
// rules are data: the code here applies them).
//
// A schema is hostile input: it is walked to a bounded depth, each
// reference followed once, and nothing is fetched.
package portable

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
)

// Host is a model provider or host whose schema rules can be graded.
type Host struct {
	ID, Name string
	// Subset is the host's statement of the subset it accepts, and
	// Source where it is documented.
	Subset, Source string
}

// Finding is one place a schema steps outside a host's subset.
type Finding struct {
	Host   string // the host's id
	Schema string // "inputSchema" or "outputSchema"
	Path   string // a JSON pointer into the schema, "" its root
	// Message says what is there and what the host does with it.
	Message string
	// Rule is the host's documented rule, and Source where.
	Rule, Source string
}

func (f Finding) String() string {
	at := f.Schema
	if f.Path != "" {
		at += f.Path
	}
	return fmt.Sprintf("%s: %s; %s's rule: %q (%s)", at, f.Message, f.Host, f.Rule, f.Source)
}

//go:embed rules.tsv
var rulesText string

// rule is one line of rules.tsv.
type rule struct{ host, id, source, text string }

// rules are rules.tsv's lines by host and rule id, read on first use: a
// run that grades no schema does not pay for the map.
var rules = &lazy.Value[map[string]rule]{New: func() map[string]rule {
	out := map[string]rule{}
	for _, line := range strings.Split(rulesText, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 {
			panic("portable: a line of rules.tsv is not host, rule, source and text: " + line)
		}
		out[f[0]+"/"+f[1]] = rule{f[0], f[1], f[2], f[3]}
	}
	return out
}}

// Hosts are the hosts that can be graded, in the order they are shown.
func Hosts() []Host {
	out := []Host{
		{ID: "openai", Name: "OpenAI (function calling and Structured Outputs, strict mode)"},
		{ID: "anthropic", Name: "Anthropic (tool use with strict: true)"},
		{ID: "gemini", Name: "Google Gemini (function declarations)"},
	}
	for i := range out {
		r := rules.Get()[out[i].ID+"/subset"]
		out[i].Subset, out[i].Source = r.text, r.source
	}
	return out
}

// Choose reads a list of hosts: "all", or ids separated by commas. An id
// that is no host's is an error naming the ones there are.
func Choose(list string) ([]string, error) {
	var ids []string
	for _, h := range Hosts() {
		ids = append(ids, h.ID)
	}
	if list == "all" {
		return ids, nil
	}
	var out []string
	for _, w := range strings.Split(list, ",") {
		w = strings.ToLower(strings.TrimSpace(w))
		if !slices.Contains(ids, w) {
			return nil, fmt.Errorf("no host %q: the hosts are all, %s", w, strings.Join(ids, ", "))
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out, nil
}

// maxDepth bounds the walk of one schema.
const maxDepth = 64

// Grade walks one schema (which names it: "inputSchema" or
// "outputSchema") and returns where it steps outside each host's subset,
// at most one finding per host, rule and place.
func Grade(schema json.RawMessage, which, host string) []Finding {
	var root any
	if json.Unmarshal(schema, &root) != nil {
		return nil // not JSON: the surface checks say so
	}
	g := &grader{host: host, which: which, root: root, seen: map[string]bool{}}
	switch host {
	case "openai":
		if obj, ok := root.(map[string]any); !ok || obj["type"] != "object" || obj["anyOf"] != nil {
			g.add("root-object", "", "the root is not an object schema without anyOf")
		}
	}
	g.walk(root, "", 0, nil)
	if host == "openai" {
		if g.enums > 1000 {
			g.add("enum-size", "", fmt.Sprintf("%d enum values in all", g.enums))
		}
		if g.properties > 5000 {
			g.add("nesting", "", fmt.Sprintf("%d object properties in all", g.properties))
		}
	}
	return g.out
}

// grader is one schema's walk for one host.
type grader struct {
	host, which string
	root        any
	out         []Finding
	seen        map[string]bool // host/rule/path already found
	enums       int             // enum values in all (openai)
	properties  int             // object properties in all (openai)
}

func (g *grader) add(id, path, msg string) {
	key := id + "\x00" + path
	if g.seen[key] {
		return
	}
	g.seen[key] = true
	r := rules.Get()[g.host+"/"+id]
	g.out = append(g.out, Finding{Host: g.host, Schema: g.which, Path: path, Message: msg, Rule: r.text, Source: r.source})
}

// geminiKeywords are the members of Gemini's Schema object.
var geminiKeywords = []string{"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
	"minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum"}

// openaiFormats are the string formats OpenAI's strict mode supports.
var openaiFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}

// walk grades one subschema at path; refs are the references followed
// to get here (a reference met again is a recursion).
func (g *grader) walk(node any, path string, depth int, refs []string) {
	obj, ok := node.(map[string]any)
	if !ok || depth > maxDepth {
		return
	}
	if ref, ok := obj["$ref"].(string); ok {
		g.ref(ref, path, depth, refs)
	}
	g.keywords(obj, path, depth)
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		switch k {
		case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
			if m, ok := v.(map[string]any); ok {
				for _, name := range slices.Sorted(maps.Keys(m)) {
					g.walk(m[name], path+"/"+k+"/"+escape(name), depth+1, refs)
				}
			}
		case "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems":
			g.walk(v, path+"/"+k, depth+1, refs)
		case "anyOf", "allOf", "oneOf", "prefixItems":
			if list, ok := v.([]any); ok {
				for i, sub := range list {
					g.walk(sub, fmt.Sprintf("%s/%s/%d", path, k, i), depth+1, refs)
				}
			}
		}
	}
}

// ref follows a reference within the document: one met again on the way
// here is a recursion; one outside it is fetched by no host.
func (g *grader) ref(ref, path string, depth int, refs []string) {
	switch {
	case !strings.HasPrefix(ref, "#"):
		if g.host == "anthropic" {
			g.add("external-ref", path, fmt.Sprintf("$ref %q points outside the schema", ref))
		}
	case slices.Contains(refs, ref):
		if g.host == "anthropic" {
			g.add("recursive", path, fmt.Sprintf("$ref %q refers back to a schema it is inside: a recursive schema", ref))
		}
	default:
		if target := pointer(g.root, strings.TrimPrefix(ref, "#")); target != nil {
			g.walk(target, path+"/$ref", depth+1, append(slices.Clone(refs), ref))
		}
	}
}

// keywords grades one subschema's own keywords.
func (g *grader) keywords(obj map[string]any, path string, depth int) {
	typ, _ := obj["type"].(string)
	switch g.host {
	case "openai":
		for _, k := range []string{"allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else"} {
			if _, ok := obj[k]; ok {
				g.add("keyword", path, fmt.Sprintf("%q is not supported", k))
			}
		}
		if f, ok := obj["format"].(string); ok && !slices.Contains(openaiFormats, f) {
			g.add("format", path, fmt.Sprintf("the format %q is not supported", f))
		}
		if e, ok := obj["enum"].([]any); ok {
			g.enums += len(e)
		}
		if strings.Count(path, "/properties/") > 10 {
			g.add("nesting", path, "an object nested deeper than 10 levels")
		}
		if props, ok := obj["properties"].(map[string]any); ok || typ == "object" {
			g.properties += len(props)
			if obj["additionalProperties"] != false {
				g.add("additional-properties", path, "an object without additionalProperties: false")
			}
			req := strings2(obj["required"])
			for _, name := range slices.Sorted(maps.Keys(props)) {
				if !slices.Contains(req, name) {
					g.add("all-required", path, fmt.Sprintf("the property %q is not required", name))
					break
				}
			}
		}
	case "anthropic":
		for _, k := range []string{"minimum", "maximum", "multipleOf", "exclusiveMinimum", "exclusiveMaximum"} {
			if _, ok := obj[k]; ok {
				g.add("numeric", path, fmt.Sprintf("the numerical constraint %q", k))
			}
		}
		for _, k := range []string{"minLength", "maxLength"} {
			if _, ok := obj[k]; ok {
				g.add("string", path, fmt.Sprintf("the string constraint %q", k))
			}
		}
		if n, ok := obj["minItems"].(float64); ok && n > 1 {
			g.add("array", path, fmt.Sprintf("minItems %v", n))
		}
		if _, ok := obj["maxItems"]; ok {
			g.add("array", path, "maxItems")
		}
		if ap, ok := obj["additionalProperties"]; ok && ap != false {
			g.add("additional-properties", path, "additionalProperties other than false")
		}
		if e, ok := obj["enum"].([]any); ok && slices.ContainsFunc(e, func(v any) bool { _, m := v.(map[string]any); _, a := v.([]any); return m || a }) {
			g.add("enum", path, "an enum holding an object or an array")
		}
	case "gemini":
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if !slices.Contains(geminiKeywords, k) {
				g.add("keyword", path+"/"+escape(k), fmt.Sprintf("%q is no member of the Schema object: it is rejected or dropped", k))
			}
		}
		if _, ok := obj["type"].([]any); ok {
			g.add("type", path, "type is an array of types, not one type")
		} else if _, ok := obj["type"]; !ok && obj["anyOf"] == nil {
			g.add("type", path, "no type")
		}
		if f, ok := obj["format"].(string); ok && !geminiFormat(typ, f) {
			g.add("format", path, fmt.Sprintf("the format %q of a %s", f, typ))
		}
	}
}

// geminiFormat reports whether Gemini takes format f for type t.
func geminiFormat(t, f string) bool {
	switch t {
	case "number":
		return f == "float" || f == "double"
	case "integer":
		return f == "int32" || f == "int64"
	case "string":
		return f == "enum" || f == "date-time"
	}
	return false
}

// pointer is what a JSON pointer (RFC 6901) names in doc, or nil.
func pointer(doc any, p string) any {
	if p == "" {
		return doc
	}
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := doc.(type) {
		case map[string]any:
			doc = v[tok]
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
}

// escape is a member's name as a JSON pointer's token.
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// strings2 is a JSON array of strings' values (others left out).
func strings2(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
