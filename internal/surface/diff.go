package surface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/safetext"
)

// Change is one difference between two snapshots.
type Change struct {
	// Breaking is true when a client written against the old surface may
	// fail against the new one.
	Breaking bool
	Object   string // `tool "search"`, `prompt "greet"`, `resource template "file:///{path}"`
	Path     string // where in the object, e.g. "inputSchema.properties.limit.type"; "" for the object itself
	Message  string // e.g. `type narrowed from ["string","number"] to "string"`, `removed`
}

// String is the change on one line: `tool "search" inputSchema.properties.q:
// new required argument "q" (breaking)`.
func (c Change) String() string {
	s := c.Object
	if c.Path != "" {
		s += " " + c.Path
	}
	s += ": " + c.Message
	if c.Breaking {
		s += " (breaking)"
	}
	return s
}

// Diff tells how new differs from old, object by object: tools, then
// prompts, then resource templates, each kind by name, and within an
// object in a fixed order. Objects are matched by name (a template with
// no name by its uriTemplate).
//
// Breaking: an object removed; an input property or prompt argument
// removed; a new required input property or argument, or one becoming
// required; an input property's type narrowed (fewer types accepted;
// number to integer narrows) or an enum value removed from it; a
// template's uriTemplate changed. In an outputSchema the direction is
// reversed: a property removed, a type widened, an enum value added, a
// required property no longer required, or the outputSchema removed.
// Everything else that differs is reported with Breaking false: additions,
// "description changed" (never the texts), and "schema changed" for a
// schema keyword other than type, enum, required, properties and items
// (a $ref is not followed: its target changing is "schema changed" at
// $defs).
func Diff(old, new Snapshot) []Change {
	var d differ
	d.objects("tool", old.Tools, new.Tools, nameOf, d.tool)
	d.objects("prompt", old.Prompts, new.Prompts, nameOf, d.prompt)
	d.objects("resource template", old.ResourceTemplates, new.ResourceTemplates, templateKey, d.template)
	for _, m := range new.Unimplemented {
		if !slices.Contains(old.Unimplemented, m) {
			d.add(false, m, "", "now answers method not found (taken as an empty list)")
		}
	}
	for _, m := range old.Unimplemented {
		if !slices.Contains(new.Unimplemented, m) {
			d.add(false, m, "", "now implemented")
		}
	}
	return d.changes
}

type differ struct {
	changes []Change
}

func (d *differ) add(breaking bool, object, path, format string, args ...any) {
	d.changes = append(d.changes, Change{Breaking: breaking, Object: object, Path: path, Message: fmt.Sprintf(format, args...)})
}

// templateKey matches templates by name, else by uriTemplate.
func templateKey(raw json.RawMessage) string {
	if n := nameOf(raw); n != "" {
		return n
	}
	return "\x00" + stringMember(raw, "uriTemplate")
}

// objects matches old and new items of one kind by key and reports each
// removed, added or changed one. Items sharing a key are matched in order.
func (d *differ) objects(kind string, old, new []json.RawMessage, key func(json.RawMessage) string,
	compare func(label string, o, n map[string]any)) {
	oldBy, newBy := byKey(old, key), byKey(new, key)
	for _, k := range memberKeys(oldBy, newBy) {
		o, inOld := oldBy[k]
		n, inNew := newBy[k]
		switch {
		case !inNew:
			d.add(true, label(kind, o), "", "removed")
		case !inOld:
			d.add(false, label(kind, n), "", "added")
		default:
			compare(label(kind, o), decode(o), decode(n))
		}
	}
}

// byKey indexes items by key. Items sharing a key are taken in the order
// of their uriTemplate and then their bytes, whatever order the server
// listed them in, and the second is keyed "key\x00#2", and so on.
func byKey(items []json.RawMessage, key func(json.RawMessage) string) map[string]json.RawMessage {
	items = sorted(items, func(raw json.RawMessage) string {
		var b bytes.Buffer
		json.Compact(&b, raw)
		return key(raw) + "\x00" + stringMember(raw, "uriTemplate") + "\x00" + b.String()
	})
	out := map[string]json.RawMessage{}
	for _, it := range items {
		k := key(it)
		for n := 2; ; n++ {
			if _, dup := out[k]; !dup {
				break
			}
			k = fmt.Sprintf("%s\x00#%d", key(it), n)
		}
		out[k] = it
	}
	return out
}

// label names an object for people: `tool "search"`; a template by its
// uriTemplate.
func label(kind string, raw json.RawMessage) string {
	name := nameOf(raw)
	if kind == "resource template" {
		if u := stringMember(raw, "uriTemplate"); u != "" {
			name = u
		}
	}
	return fmt.Sprintf("%s %q", kind, name)
}

// decode reads a JSON object with its numbers as written; nil when raw is
// no object.
func decode(raw json.RawMessage) map[string]any {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil {
		return nil
	}
	return m
}

func (d *differ) tool(label string, o, n map[string]any) {
	for _, k := range memberKeys(o, n, "name") {
		ov, inO := o[k]
		nv, inN := n[k]
		switch {
		case k == "inputSchema":
			d.schema(label, k, ov, nv, input, true)
		case k == "outputSchema" && !inN:
			d.add(true, label, k, "removed")
		case k == "outputSchema" && !inO:
			d.add(false, label, k, "added")
		case k == "outputSchema":
			d.schema(label, k, ov, nv, output, false)
		default:
			d.member(label, k, ov, inO, nv, inN)
		}
	}
}

func (d *differ) prompt(label string, o, n map[string]any) {
	for _, k := range memberKeys(o, n, "name") {
		ov, inO := o[k]
		nv, inN := n[k]
		oa, okO := ov.([]any)
		na, okN := nv.([]any)
		if k == "arguments" && (okO || !inO) && (okN || !inN) {
			d.arguments(label, oa, na)
			continue
		}
		d.member(label, k, ov, inO, nv, inN)
	}
}

// arguments compares a prompt's argument lists, matched by name.
func (d *differ) arguments(label string, old, new []any) {
	oldBy, newBy := argumentsByName(old), argumentsByName(new)
	for _, name := range memberKeys(oldBy, newBy) {
		o, inO := oldBy[name]
		n, inN := newBy[name]
		path := "arguments" + pathKey(name)
		switch {
		case !inN:
			d.add(true, label, path, "argument %q removed", name)
		case !inO && isTrue(n["required"]):
			d.add(true, label, path, "new required argument %q", name)
		case !inO:
			d.add(false, label, path, "optional argument %q added", name)
		default:
			d.requiredChange(label, path, name, isTrue(o["required"]), isTrue(n["required"]), input, true)
			for _, k := range memberKeys(o, n, "name", "required") {
				ov, inO := o[k]
				nv, inN := n[k]
				d.member(label, path+pathKey(k), ov, inO, nv, inN)
			}
		}
	}
}

func argumentsByName(args []any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, a := range args {
		if m, ok := a.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				out[name] = m
			}
		}
	}
	return out
}

func (d *differ) template(label string, o, n map[string]any) {
	for _, k := range memberKeys(o, n, "name") {
		ov, inO := o[k]
		nv, inN := n[k]
		if k == "uriTemplate" && !reflect.DeepEqual(ov, nv) {
			d.add(true, label, k, "uriTemplate changed from %s to %s", jsonText(ov, inO), jsonText(nv, inN))
			continue
		}
		d.member(label, k, ov, inO, nv, inN)
	}
}

// member reports a plain member of an object (title, annotations, _meta,
// a description) that was added, removed or changed: never breaking.
func (d *differ) member(label, path string, ov any, inO bool, nv any, inN bool) {
	switch {
	case reflect.DeepEqual(ov, nv) && inO == inN:
	case (path == "description" || strings.HasSuffix(path, ".description")) && inO && inN:
		d.add(false, label, path, "description changed")
	case !inO:
		d.add(false, label, path, "added")
	case !inN:
		d.add(false, label, path, "removed")
	default:
		d.add(false, label, path, "changed")
	}
}

// memberKeys are the keys of o and n but skip, sorted, each once.
func memberKeys[V any](o, n map[string]V, skip ...string) []string {
	set := map[string]bool{}
	for k := range o {
		set[k] = true
	}
	for k := range n {
		set[k] = true
	}
	for _, k := range skip {
		delete(set, k)
	}
	return slices.Sorted(maps.Keys(set))
}

// pathKey is ".name", or `["a name"]` for a name that would not read as
// one step of a dotted path.
func pathKey(name string) string {
	for _, r := range name {
		if !(r == '_' || r == '-' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fmt.Sprintf("[%q]", name)
		}
	}
	if name == "" {
		return `[""]`
	}
	return "." + name
}

// jsonText is v as compact JSON, made safe to show; "any" when absent.
func jsonText(v any, present bool) string {
	if !present {
		return "any"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return "?"
	}
	return safetext.Line(strings.TrimSuffix(b.String(), "\n"))
}

func isTrue(v any) bool { b, _ := v.(bool); return b }
