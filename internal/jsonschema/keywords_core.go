package jsonschema

import "strings"

// core compiles the keywords of the core, meta-data and content
// vocabularies, and hands any other keyword to assertion.
func (k *keywords) core(key string, v *value) (err error) {
	d := k.loc.d
	n := k.n
	switch key {
	// The core vocabulary.
	case "$schema":
		if v.kind != kindString {
			return k.fail(key, "got %s, want a URI string", v.typeName())
		}
		if _, ok := dialectOf(v.str); !ok && k.loc.ptr == nil {
			return k.fail(key, "unknown dialect %s", quote(v.str))
		}
		return k.uri(key, v, true)
	case "id", "$id":
		if key != d.idKeyword() {
			return nil
		}
		if v.kind != kindString {
			return k.fail(key, "got %s, want a URI-reference string", v.typeName())
		}
		if _, frag, _ := strings.Cut(v.str, "#"); d >= draft2019 && frag != "" {
			return k.fail(key, "%s has a fragment, which %s ids may not have (use $anchor)", quote(v.str), d)
		}
		// draft-04's meta-schema asks only for a string, but an id is a
		// URI-reference all the same: one that is none can neither be
		// resolved against nor named.
		return k.uri(key, v, false)
	case "$anchor", "$dynamicAnchor":
		return k.anchorName(key, v)
	case "$ref", "$dynamicRef", "$recursiveRef":
		if v.kind != kindString {
			return k.fail(key, "got %s, want a URI-reference string", v.typeName())
		}
		if d >= draft6 {
			if err := k.uri(key, v, false); err != nil {
				return err
			}
		}
		if key == "$recursiveRef" && d != draft2019 {
			return nil
		}
		target, loc, err := k.c.resolve(v.str, k.loc, k.loc.ptr, key)
		if err != nil {
			return err
		}
		ref, err := k.c.compile(target, loc, key)
		switch key {
		case "$ref":
			n.ref, n.refOnly = ref, d < draft2019
		case "$recursiveRef":
			n.recursiveRef = ref
		default:
			n.dynamicRef = ref
			// The scope decides only when the first target has the anchor named.
			if _, frag, _ := strings.Cut(v.str, "#"); frag != "" {
				if a := target.member("$dynamicAnchor"); a != nil && a.kind == kindString && a.str == frag {
					n.dynamicName = frag
				}
			}
		}
		return err
	case "$recursiveAnchor":
		if d == draft2019 {
			return k.want(key, v, "a boolean", kindTrue, kindFalse)
		}
		return k.anchorName(key, v)
	case "$vocabulary":
		if v.kind != kindObject {
			return k.fail(key, "got %s, want an object", v.typeName())
		}
		for i := range v.obj {
			m := &v.obj[i]
			if err := idURI(m.key); err != nil {
				return k.failAt(key, m.key, "%s is not a URI: %v", quote(m.key), err)
			}
			if m.val.kind != kindTrue && m.val.kind != kindFalse {
				return k.failAt(key, m.key, "got %s, want a boolean", m.val.typeName())
			}
		}
	case "definitions", "$defs":
		_, err = k.schemaMap(key, v)

	// Meta-data and content.
	case "title", "description", "format":
		if err := k.want(key, v, "a string", kindString); err != nil || key != "format" {
			return err
		}
		if d <= draft7 {
			n.format, n.formatStr = formatCheck(v.str), v.str
		}
	case "readOnly", "writeOnly", "deprecated":
		return k.want(key, v, "a boolean", kindTrue, kindFalse)
	case "examples":
		return k.want(key, v, "an array", kindArray)
	case "$comment", "contentMediaType", "contentEncoding":
		return k.want(key, v, "a string", kindString)
	case "contentSchema":
		_, err = k.sub(key, v) // an annotation: checked, never applied

	default:
		return k.assertion(key, v)
	}
	return err
}
