package surface

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
)

// Change is one difference between two snapshots, or two surfaces.
type Change struct {
	// Breaking is true when a client written against the old surface may
	// fail against the new one: Class is then ClassBreaking.
	Breaking bool
	// Class is what the change means to whoever approved the old surface.
	Class  Class
	Object string // `tool "search"`, `prompt "greet"`, `resource template "file:///{path}"`
	Path   string // where in the object, e.g. "inputSchema.properties.limit.type"; "" for the object itself
	// Message says what changed, e.g. `type narrowed from ["string","number"] to "string"`, `removed`.
	Message string
	// Old and New are the texts of a text that changed (a description, a
	// title, instructions), as sent: the reader of a change to what a
	// model reads wants to see it. Made safe where they are shown.
	Old, New string
}

// Class is how much a change matters, from the least to the most.
type Class int

const (
	// ClassCompatible: a client of the old surface goes on working, and
	// nothing a model reads changed meaning (an optional parameter, a new
	// item, a version).
	ClassCompatible Class = iota
	// ClassSecurity: what a model reads or trusts changed (a description,
	// a title, instructions, an annotation; readOnlyHint or
	// destructiveHint flipped; a new item named like another).
	ClassSecurity
	// ClassBreaking: a client of the old surface may fail (an item
	// removed, a required parameter added, a type narrowed, an enum value
	// removed, an outputSchema that old results no longer fit).
	ClassBreaking
)

// String is the class's name: "compatible", "security" or "breaking".
func (c Class) String() string { return [...]string{"compatible", "security", "breaking"}[c] }

// ParseClass reads a class's name.
func ParseClass(name string) (Class, bool) {
	for _, c := range []Class{ClassCompatible, ClassSecurity, ClassBreaking} {
		if c.String() == name {
			return c, true
		}
	}
	return 0, false
}

// Worst is the highest class of changes, and false when there are none.
func Worst(changes []Change) (Class, bool) {
	worst := ClassCompatible
	for _, c := range changes {
		worst = max(worst, c.Class)
	}
	return worst, len(changes) > 0
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
	depth   int // of the schema being compared
}

// add records a change that breaks clients or is compatible.
func (d *differ) add(breaking bool, object, path, format string, args ...any) {
	class := ClassCompatible
	if breaking {
		class = ClassBreaking
	}
	d.addClass(class, object, path, format, args...)
}

// addClass records a change of class, and returns it.
func (d *differ) addClass(class Class, object, path, format string, args ...any) *Change {
	d.changes = append(d.changes, Change{Breaking: class == ClassBreaking, Class: class, Object: object, Path: path, Message: fmt.Sprintf(format, args...)})
	return &d.changes[len(d.changes)-1]
}

// text records a change of a text a model reads (a description, a title):
// security-relevant, with both texts.
func (d *differ) text(object, path string, ov, nv any) {
	c := d.addClass(ClassSecurity, object, path, "%s changed", lastStep(path))
	c.Old, _ = ov.(string)
	c.New, _ = nv.(string)
}

// lastStep is the last step of a dotted path: "description" of
// "arguments.x.description".
func lastStep(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
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
		case bytes.Equal(o, n):
			// The same text is the same item: most items of a diff of a
			// server against its pin or its last snapshot.
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

// label names an object for people: `tool "search"`; a resource by its
// URI and a template by its uriTemplate.
func label(kind string, raw json.RawMessage) string {
	name := nameOf(raw)
	if key := map[string]string{"resource template": "uriTemplate", "resource": "uri"}[kind]; key != "" {
		name = cmp.Or(stringMember(raw, key), name)
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
			d.requiredChange(label, path, name, isTrue(o["required"]), isTrue(n["required"]), input, "argument")
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
// a description) that was added, removed or changed: never breaking; a
// text a model reads (a description or a title) and an annotation are
// security-relevant.
func (d *differ) member(label, path string, ov any, inO bool, nv any, inN bool) {
	step := lastStep(path)
	class := ClassCompatible
	if readByModel(step) || path == "annotations" {
		class = ClassSecurity
	}
	switch {
	case reflect.DeepEqual(ov, nv) && inO == inN:
	case path == "annotations":
		d.annotations(label, ov, nv)
	case readByModel(step) && inO && inN:
		d.text(label, path, ov, nv)
	default:
		c := d.addClass(class, label, path, "%s", presence(inO, inN))
		if s, ok := nv.(string); ok && !inO && class == ClassSecurity {
			c.New = s
		}
	}
}

// readByModel says whether a member of this name is text a model reads
// to choose and use an item.
func readByModel(step string) bool { return step == "description" || step == "title" }

// hints are the tool annotations whose flip changes what a host lets a
// tool do unasked, with the value each has when absent.
var hints = []struct {
	name string
	def  bool
}{{"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", false}, {"openWorldHint", true}}

// annotations compares a tool's annotations: each hint that flipped, and
// any other member, security-relevant all.
func (d *differ) annotations(label string, ov, nv any) {
	o, _ := ov.(map[string]any)
	n, _ := nv.(map[string]any)
	if o == nil && ov != nil || n == nil && nv != nil {
		d.addClass(ClassSecurity, label, "annotations", "changed")
		return
	}
	for _, h := range hints {
		was, is := hintValue(o, h.name, h.def), hintValue(n, h.name, h.def)
		if was != is {
			d.addClass(ClassSecurity, label, "annotations."+h.name, "%s flipped from %t to %t", h.name, was, is)
		}
	}
	for _, k := range memberKeys(o, n, "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint") {
		ov, inO := o[k]
		nv, inN := n[k]
		if reflect.DeepEqual(ov, nv) && inO == inN {
			continue
		}
		if readByModel(k) && inO && inN {
			d.text(label, "annotations"+pathKey(k), ov, nv)
			continue
		}
		d.addClass(ClassSecurity, label, "annotations"+pathKey(k), "%s", presence(inO, inN))
	}
}

// presence says how a member that differs changed: "added", "removed" or
// "changed".
func presence(inO, inN bool) string {
	switch {
	case !inO:
		return "added"
	case !inN:
		return "removed"
	}
	return "changed"
}

// hintValue reads a boolean hint, def when it is absent or no boolean.
func hintValue(m map[string]any, name string, def bool) bool {
	if b, ok := m[name].(bool); ok {
		return b
	}
	return def
}

// memberKeys are the keys of o and n but skip, sorted, each once.
func memberKeys[V any](o, n map[string]V, skip ...string) []string {
	keys := slices.Sorted(slices.Values(slices.AppendSeq(slices.Collect(maps.Keys(o)), maps.Keys(n))))
	return slices.DeleteFunc(slices.Compact(keys), func(k string) bool { return slices.Contains(skip, k) })
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
	b, err := rawjson.Encode(v)
	if err != nil {
		return "?"
	}
	return safetext.Line(redact.MaskSecrets(string(b)))
}

func isTrue(v any) bool { b, _ := v.(bool); return b }

// Lines are the change for people, on lines made safe for a terminal: the
// change itself, and for a text that changed, the texts before and after
// ("- " and "+ "), each cut to about width columns around where they first
// differ.
func (c Change) Lines(width int) []string {
	head := c.Object
	if c.Path != "" {
		head += " " + safetext.Line(c.Path)
	}
	lines := []string{head + ": " + c.Message + " (" + c.Class.String() + ")"}
	if c.Old == "" && c.New == "" {
		return lines
	}
	o, n := Excerpts(c.Old, c.New, width)
	if c.Old != "" {
		lines = append(lines, "- "+o)
	}
	if c.New != "" {
		lines = append(lines, "+ "+n)
	}
	return lines
}

// Excerpts are two texts made safe to show on a line each, cut to about
// width characters from a little before where they first differ, with …
// where something was left out. What a reader could not see is shown
// (characters that show nothing named, Unicode tags spelled out: a change
// hidden in them is the change a reviewer must see), and the secrets the
// texts hold are masked before either is cut.
func Excerpts(old, new string, width int) (string, string) {
	o, n := []rune(shown(old)), []rune(shown(new))
	same := 0
	for same < len(o) && same < len(n) && o[same] == n[same] {
		same++
	}
	start := max(0, same-width/4)
	return excerpt(o, start, width), excerpt(n, start, width)
}

// shown is a text as Excerpts shows it, before it is cut.
func shown(s string) string { return canon.Show(safetext.Prose(redact.MaskSecrets(s))) }

func excerpt(r []rune, start, width int) string {
	if start >= len(r) {
		start = max(0, len(r)-width)
	}
	s := ""
	if start > 0 {
		s = "…"
	}
	end := min(len(r), start+width)
	s += string(r[start:end])
	if end < len(r) {
		s += "…"
	}
	return s
}
