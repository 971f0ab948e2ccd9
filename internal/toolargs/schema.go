package toolargs

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
)

// node is a JSON Schema (a decoded object) inside a document, so that $ref
// can be followed.
type node struct {
	m   map[string]any
	doc *document
}

// document is a schema being used to type arguments. Typing looks at each
// schema of the document at most once per question (see alternatives), so
// its cost is bounded by the schema's size; it stops when ctx ends.
type document struct {
	root  map[string]any
	ctx   context.Context
	steps int
	err   error              // the cause of ctx, once it has ended
	alts  map[uintptr][]node // alternatives, by schema
}

func parseSchema(ctx context.Context, raw json.RawMessage) (node, error) {
	var m map[string]any
	if len(raw) == 0 {
		return node{}, nil
	}
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return node{}, err
	}
	return node{m: m, doc: &document{root: m, ctx: ctx}}, nil
}

// stopped counts a step and reports whether the context has ended.
func (d *document) stopped() bool {
	if d.err == nil && d.steps%256 == 0 && d.ctx.Err() != nil {
		d.err = context.Cause(d.ctx)
	}
	d.steps++
	return d.err != nil
}

func (n node) valid() bool { return n.m != nil }

func (n node) child(v any) node {
	m, _ := v.(map[string]any)
	return node{m: m, doc: n.doc}.deref()
}

// deref follows local $ref ("#/$defs/x", "#/definitions/x", "#"), a bounded
// number of times so that a cycle cannot loop.
func (n node) deref() node {
	for i := 0; i < 32 && n.m != nil; i++ {
		ref, ok := n.m["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			return n
		}
		target := any(n.doc.root)
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
			return node{doc: n.doc}
		}
		n = node{m: next, doc: n.doc}
	}
	return n
}

// alternatives are the schemas a value may match: the node itself, or the
// members of its anyOf/oneOf (each followed through $ref), flattened. A
// schema met again (references to one definition from many places, or
// back to itself) is taken once: a chain of anyOf levels of two references
// to the level below is a list as long as the chain, not 2^levels.
func (n node) alternatives() []node {
	if !n.valid() {
		return nil
	}
	id := reflect.ValueOf(n.m).Pointer()
	if out, ok := n.doc.alts[id]; ok {
		return out
	}
	var out []node
	n.collect(&out, map[uintptr]bool{})
	if n.doc.err == nil {
		lazy.Put(&n.doc.alts, id, out)
	}
	return out
}

func (n node) collect(out *[]node, seen map[uintptr]bool) {
	id := reflect.ValueOf(n.m).Pointer()
	if seen[id] || n.doc.stopped() {
		return
	}
	seen[id] = true
	self := len(*out)
	*out = append(*out, n) // kept in front, or taken out below
	for _, key := range []string{"anyOf", "oneOf"} {
		if list, ok := n.m[key].([]any); ok {
			for _, s := range list {
				if c := n.child(s); c.valid() {
					c.collect(out, seen)
				}
			}
		}
	}
	if list, ok := n.m["allOf"].([]any); ok {
		for _, s := range list {
			if c := n.child(s); c.valid() && len(c.types()) > 0 && !seen[reflect.ValueOf(c.m).Pointer()] {
				seen[reflect.ValueOf(c.m).Pointer()] = true
				*out = append(*out, c)
			}
		}
	}
	if len(*out) > self+1 && len(n.types()) == 0 && n.m["enum"] == nil && n.m["const"] == nil {
		*out = append((*out)[:self], (*out)[self+1:]...)
	}
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
	if p, ok := n.declared(name); ok {
		return n.child(p), true
	}
	for _, alt := range n.alternatives() {
		if ap, ok := alt.m["additionalProperties"].(map[string]any); ok {
			return n.child(ap), true
		}
	}
	return node{doc: n.doc}, false
}

// declared is the schema of name where properties declares it, and
// whether one does (which also keeps a dotted name whole).
func (n node) declared(name string) (any, bool) {
	for _, alt := range n.alternatives() {
		if props, ok := alt.m["properties"].(map[string]any); ok {
			if p, ok := props[name]; ok {
				return p, true
			}
		}
	}
	return nil, false
}

// items returns the schema of an array's items.
func (n node) items() node {
	for _, alt := range n.alternatives() {
		if it, ok := alt.m["items"]; ok {
			return n.child(it)
		}
	}
	return node{doc: n.doc}
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
	return slices.ContainsFunc(n.alternatives(), func(alt node) bool {
		return len(alt.types()) > 0 || alt.m["enum"] != nil || alt.m["const"] != nil
	})
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
