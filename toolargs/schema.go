package toolargs

import (
	"encoding/json"
	"strings"
)

// node is a JSON Schema (a decoded object) inside a root document, so that
// $ref can be followed.
type node struct {
	m    map[string]any
	root map[string]any
}

func parseSchema(raw json.RawMessage) (node, error) {
	var m map[string]any
	if len(raw) == 0 {
		return node{}, nil
	}
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return node{}, err
	}
	return node{m: m, root: m}, nil
}

func (n node) valid() bool { return n.m != nil }

func (n node) child(v any) node {
	m, _ := v.(map[string]any)
	return node{m: m, root: n.root}.deref()
}

// deref follows local $ref ("#/$defs/x", "#/definitions/x", "#"), a bounded
// number of times so that a cycle cannot loop.
func (n node) deref() node {
	for i := 0; i < 32 && n.m != nil; i++ {
		ref, ok := n.m["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			return n
		}
		target := any(n.root)
		for part := range strings.SplitSeq(strings.TrimPrefix(strings.TrimPrefix(ref, "#"), "/"), "/") {
			if part == "" {
				continue
			}
			part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
			obj, _ := target.(map[string]any)
			target = obj[part]
		}
		next, _ := target.(map[string]any)
		if next == nil {
			return node{root: n.root}
		}
		n = node{m: next, root: n.root}
	}
	return n
}

// alternatives are the schemas a value may match: the node itself, or the
// members of its anyOf/oneOf (each followed through $ref), flattened.
func (n node) alternatives() []node {
	if !n.valid() {
		return nil
	}
	var out []node
	for _, key := range []string{"anyOf", "oneOf"} {
		if list, ok := n.m[key].([]any); ok {
			for _, s := range list {
				out = append(out, n.child(s).alternatives()...)
			}
		}
	}
	if list, ok := n.m["allOf"].([]any); ok {
		for _, s := range list {
			if c := n.child(s); c.valid() && len(c.types()) > 0 {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 || len(n.types()) > 0 || n.m["enum"] != nil || n.m["const"] != nil {
		out = append([]node{n}, out...)
	}
	return out
}

// types lists the node's declared types ("type" as a string or an array,
// plus "null" for OpenAPI's nullable: true).
func (n node) types() []string {
	var out []string
	switch t := n.m["type"].(type) {
	case string:
		out = append(out, t)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	if b, _ := n.m["nullable"].(bool); b {
		out = append(out, "null")
	}
	return out
}

// property returns the schema of a member of an object schema: from
// properties, else patternProperties are not tried, else additionalProperties.
func (n node) property(name string) (node, bool) {
	for _, alt := range n.alternatives() {
		if props, ok := alt.m["properties"].(map[string]any); ok {
			if p, ok := props[name]; ok {
				return n.child(p), true
			}
		}
	}
	for _, alt := range n.alternatives() {
		if ap, ok := alt.m["additionalProperties"].(map[string]any); ok {
			return n.child(ap), true
		}
	}
	return node{root: n.root}, false
}

// hasProperty reports whether name is a declared property (used to keep a
// dotted name whole when the schema has it).
func (n node) hasProperty(name string) bool {
	for _, alt := range n.alternatives() {
		if props, ok := alt.m["properties"].(map[string]any); ok {
			if _, ok := props[name]; ok {
				return true
			}
		}
	}
	return false
}

// items returns the schema of an array's items.
func (n node) items() node {
	for _, alt := range n.alternatives() {
		if it, ok := alt.m["items"]; ok {
			return n.child(it)
		}
	}
	return node{root: n.root}
}

// allows reports whether any alternative allows JSON type t ("integer" is
// also allowed by "number").
func (n node) allows(t string) bool {
	for _, alt := range n.alternatives() {
		for _, have := range alt.types() {
			if have == t || (t == "integer" && have == "number") {
				return true
			}
		}
	}
	return false
}

// typed reports whether the schema says anything about types at all.
func (n node) typed() bool {
	for _, alt := range n.alternatives() {
		if len(alt.types()) > 0 || alt.m["enum"] != nil || alt.m["const"] != nil {
			return true
		}
	}
	return false
}

// enumValues lists the enum and const values of every alternative.
func (n node) enumValues() []any {
	var out []any
	for _, alt := range n.alternatives() {
		if list, ok := alt.m["enum"].([]any); ok {
			out = append(out, list...)
		}
		if c, ok := alt.m["const"]; ok {
			out = append(out, c)
		}
	}
	return out
}
