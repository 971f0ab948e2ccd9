package surface

import (
	"reflect"
	"slices"
)

// direction says who sends the values a schema describes, and so which
// way a change breaks: a client sends input, so narrowing an input schema
// breaks it; a server sends output, so widening an output schema does.
type direction int

const (
	input direction = iota
	output
)

// jsonTypes are the values "type" names; "integer" is also a "number".
var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// maxSchemaDepth bounds the levels of a schema compared by meaning.
const maxSchemaDepth = 64

// schemaKeywords are the keywords schema compares by meaning; any other
// keyword that differs is "schema changed".
var schemaKeywords = []string{"type", "enum", "properties", "required", "items"}

// schema compares the schemas ov and nv at path. args says that the
// schema's properties are a tool's arguments (the top of an inputSchema),
// for the wording.
func (d *differ) schema(label, path string, ov, nv any, dir direction, args bool) {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxSchemaDepth {
		// A schema nested this deep is compared whole: each level's
		// path and comparison would cost the levels below it again.
		if !reflect.DeepEqual(ov, nv) {
			d.add(false, label, path, "schema changed (nested deeper than %d levels; not compared further)", maxSchemaDepth)
		}
		return
	}
	o, okO := ov.(map[string]any)
	n, okN := nv.(map[string]any)
	if !okO || !okN {
		if !reflect.DeepEqual(ov, nv) {
			d.add(false, label, path, "schema changed")
		}
		return
	}
	d.types(label, path, o, n, dir)
	d.enum(label, path, o, n, dir)
	d.properties(label, path, o, n, dir, args)
	if oi, ni := o["items"], n["items"]; !reflect.DeepEqual(oi, ni) {
		_, isO := oi.(map[string]any)
		_, isN := ni.(map[string]any)
		if isO && isN {
			d.schema(label, path+".items", oi, ni, dir, false)
		} else {
			d.add(false, label, path+".items", "schema changed")
		}
	}
	for _, k := range memberKeys(o, n, schemaKeywords...) {
		ov, inO := o[k]
		nv, inN := n[k]
		switch {
		case reflect.DeepEqual(ov, nv) && inO == inN:
		case readByModel(k) && inO && inN:
			d.text(label, path+"."+k, ov, nv)
		case readByModel(k):
			d.addClass(ClassSecurity, label, path+"."+k, "%s", presence(inO, inN))
		default:
			d.add(false, label, path+pathKey(k), "schema changed")
		}
	}
}

// types compares "type": which JSON types each schema accepts.
func (d *differ) types(label, path string, o, n map[string]any, dir direction) {
	ov, inO := o["type"]
	nv, inN := n["type"]
	if reflect.DeepEqual(ov, nv) && inO == inN {
		return
	}
	oset, okO := typeSet(ov, inO)
	nset, okN := typeSet(nv, inN)
	if !okO || !okN {
		d.add(false, label, path+".type", "schema changed")
		return
	}
	narrowed, widened := false, false
	for _, t := range jsonTypes {
		a, b := accepts(oset, t), accepts(nset, t)
		narrowed = narrowed || a && !b
		widened = widened || b && !a
	}
	from, to := jsonText(ov, inO), jsonText(nv, inN)
	switch {
	case narrowed && widened:
		d.add(true, label, path+".type", "type changed from %s to %s", from, to)
	case narrowed:
		d.add(dir == input, label, path+".type", "type narrowed from %s to %s", from, to)
	case widened:
		d.add(dir == output, label, path+".type", "type widened from %s to %s", from, to)
	}
}

// typeSet reads "type" (a name or a list of names); nil when absent, which
// accepts every type. ok is false for anything else.
func typeSet(v any, present bool) (set map[string]bool, ok bool) {
	if !present {
		return nil, true
	}
	names, isList := v.([]any)
	if s, isString := v.(string); isString {
		names = []any{s}
	} else if !isList {
		return nil, false
	}
	set = map[string]bool{}
	for _, t := range names {
		s, isString := t.(string)
		if !isString || !slices.Contains(jsonTypes, s) {
			return nil, false
		}
		set[s] = true
	}
	return set, true
}

func accepts(set map[string]bool, t string) bool {
	return set == nil || set[t] || t == "integer" && set["number"]
}

// enum compares "enum": each value removed or added, or the list added or
// removed as a whole.
func (d *differ) enum(label, path string, o, n map[string]any, dir direction) {
	ov, inO := o["enum"]
	nv, inN := n["enum"]
	if reflect.DeepEqual(ov, nv) && inO == inN {
		return
	}
	oe, okO := ov.([]any)
	ne, okN := nv.([]any)
	path += ".enum"
	switch {
	case (inO && !okO) || (inN && !okN):
		d.add(false, label, path, "schema changed")
	case !inO:
		d.add(dir == input, label, path, "enum %s added", jsonText(nv, true))
	case !inN:
		d.add(dir == output, label, path, "enum removed")
	default:
		oldText, newText := texts(oe), texts(ne)
		for _, t := range oldText {
			if !slices.Contains(newText, t) {
				d.add(dir == input, label, path, "enum value %s removed", t)
			}
		}
		for _, t := range newText {
			if !slices.Contains(oldText, t) {
				d.add(dir == output, label, path, "enum value %s added", t)
			}
		}
	}
}

func texts(values []any) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = jsonText(v, true)
	}
	return out
}

// properties compares "properties" and "required" together: a property
// removed or added, required or not, and each property both have.
func (d *differ) properties(label, path string, o, n map[string]any, dir direction, args bool) {
	oProps, okOP := propertiesOf(o)
	nProps, okNP := propertiesOf(n)
	oReq, okOR := requiredOf(o)
	nReq, okNR := requiredOf(n)
	if !okOP || !okNP || !okOR || !okNR {
		for _, k := range []string{"properties", "required"} {
			if !reflect.DeepEqual(o[k], n[k]) {
				d.add(false, label, path+"."+k, "schema changed")
			}
		}
		return
	}
	names := append(memberKeys(oProps, nProps), memberKeys(oReq, nReq)...)
	slices.Sort(names)
	noun := "property"
	if args {
		noun = "argument"
	}
	for _, name := range slices.Compact(names) {
		op, inO := oProps[name]
		np, inN := nProps[name]
		p := path + ".properties" + pathKey(name)
		switch {
		case inO && !inN:
			d.add(true, label, p, "%s %q removed", noun, name)
		case !inO && inN && dir == input && nReq[name]:
			d.add(true, label, p, "new required %s %q", noun, name)
		case !inO && inN && dir == input:
			d.add(false, label, p, "optional %s %q added", noun, name)
		case !inO && inN:
			d.add(false, label, p, "%s %q added", noun, name)
		case !inO && !inN && dir == input && nReq[name] && !oReq[name]:
			d.add(true, label, p, "new required %s %q", noun, name)
		default:
			d.requiredChange(label, p, name, oReq[name], nReq[name], dir, noun)
			if inO && inN {
				d.schema(label, p, op, np, dir, false)
			}
		}
	}
}

// requiredChange reports a property or argument (noun) that became
// required, or stopped being so.
func (d *differ) requiredChange(label, path, name string, was, is bool, dir direction, noun string) {
	switch {
	case is && !was:
		d.add(dir == input, label, path, "%s %q became required", noun, name)
	case was && !is:
		d.add(dir == output, label, path, "%s %q no longer required", noun, name)
	}
}

// propertiesOf reads "properties"; empty when absent, ok false when it is
// not an object.
func propertiesOf(s map[string]any) (map[string]any, bool) {
	v, present := s["properties"]
	if !present {
		return map[string]any{}, true
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// requiredOf reads "required"; empty when absent, ok false when it is not
// a list of names.
func requiredOf(s map[string]any) (map[string]bool, bool) {
	set := map[string]bool{}
	v, present := s["required"]
	list, ok := v.([]any)
	if present && !ok {
		return nil, false
	}
	for _, x := range list {
		name, ok := x.(string)
		if !ok {
			return nil, false
		}
		set[name] = true
	}
	return set, true
}
