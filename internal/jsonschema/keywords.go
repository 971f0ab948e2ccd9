package jsonschema

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// compile compiles the schema v (once: references share the node),
// checking each keyword's value as the dialect's metaschema would. keyword
// is the keyword that holds v, for errors.
func (c *compiler) compile(v *value, loc location, keyword string) (*node, error) {
	if n, ok := c.nodes[v]; ok {
		return n, nil
	}
	n := &node{ptr: loc.ptr, d: loc.d, res: loc.res, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1,
		minProperties: -1, maxProperties: -1, minContains: -1, maxContains: -1}
	switch v.kind {
	case kindTrue, kindFalse:
		if loc.d == draft4 && keyword != "additionalProperties" && keyword != "additionalItems" {
			return nil, &SchemaError{Pointer: loc.ptr.String(), Keyword: keyword, Message: "want a schema object (draft-04 has no boolean schemas)"}
		}
		n.empty = v.kind == kindTrue
		n.never = v.kind == kindFalse
		c.nodes[v] = n
		return n, nil
	case kindObject:
	default:
		return nil, &SchemaError{Pointer: loc.ptr.String(), Keyword: keyword, Message: fmt.Sprintf("got %s, want a schema (an object or a boolean)", v.typeName())}
	}
	c.nodes[v] = n
	k := keywords{c: c, v: v, loc: loc, n: n}
	for i := range v.obj {
		if err := k.keyword(v.obj[i].key, &v.obj[i].val); err != nil {
			return nil, err
		}
	}
	k.finish()
	return n, nil
}

// keywords compiles the keywords of one schema object.
type keywords struct {
	c   *compiler
	v   *value
	loc location
	n   *node

	exclusiveMaximum4, exclusiveMinimum4 bool // draft-04's boolean forms
	itemsList                            *value
	additionalItems                      *value
}

func (k *keywords) fail(key, format string, args ...any) error {
	return &SchemaError{Pointer: k.loc.ptr.plus(key), Keyword: key, Message: fmt.Sprintf(format, args...)}
}

// failAt is fail for a value inside the keyword's, at sub.
func (k *keywords) failAt(key, sub, format string, args ...any) error {
	return &SchemaError{Pointer: k.loc.ptr.plus(key, sub), Keyword: key, Message: fmt.Sprintf(format, args...)}
}

// sub compiles the schema v under keyword key (at tokens within its value).
func (k *keywords) sub(key string, v *value, tokens ...string) (*node, error) {
	loc, ok := k.c.locs[v]
	if !ok {
		at := k.loc.ptr.child(key)
		for _, t := range tokens {
			at = at.child(t)
		}
		loc = location{ptr: at, res: k.loc.res, d: k.loc.d}
	}
	return k.c.compile(v, loc, key)
}

func (k *keywords) keyword(key string, v *value) error {
	if k.loc.d < since(key) {
		return nil
	}
	return k.core(key, v)
}

// finish settles what depends on several keywords, and what is left to do.
func (k *keywords) finish() {
	n := k.n
	if k.exclusiveMaximum4 {
		n.exclusiveMaximum, n.maximum = n.maximum, nil
	}
	if k.exclusiveMinimum4 {
		n.exclusiveMinimum, n.minimum = n.minimum, nil
	}
	if k.itemsList != nil && k.additionalItems != nil {
		if k.additionalItems.kind == kindFalse {
			n.noMoreItems = true
		} else { // true too: it evaluates the items
			n.items = k.c.nodes[k.additionalItems]
			n.itemsKeyword = "additionalItems"
		}
	}
	if n.ifSchema == nil { // then and else apply only beside if
		n.thenSchema, n.elseSchema = nil, nil
	}
	if n.contains == nil {
		n.minContains, n.maxContains = -1, -1
	}
	if n.refOnly {
		*n = node{ptr: n.ptr, d: n.d, res: n.res, ref: n.ref, refOnly: true}
	}
	n.empty = n.isEmpty()
}

// isEmpty reports whether the node has nothing to check.
func (n *node) isEmpty() bool {
	return n.ref == nil && n.recursiveRef == nil && n.dynamicRef == nil && n.types == 0 && n.constVal == nil &&
		n.enum == nil && n.format == nil && n.minimum == nil && n.maximum == nil && n.exclusiveMinimum == nil &&
		n.exclusiveMaximum == nil && n.multipleOf == nil && n.minLength < 0 && n.maxLength < 0 && n.pattern == nil &&
		n.minItems < 0 && n.maxItems < 0 && !n.uniqueItems && n.prefixItems == nil && n.items == nil && !n.noMoreItems &&
		n.contains == nil && n.minProperties < 0 && n.maxProperties < 0 && n.required == nil && n.dependencies == nil &&
		n.properties == nil && n.patternProperties == nil && n.additionalProperties == nil && !n.noMoreProperties &&
		n.propertyNames == nil && n.dependentSchemas == nil && n.dependentRequired == nil && n.allOf == nil &&
		n.anyOf == nil && n.oneOf == nil && n.not == nil && n.ifSchema == nil && n.unevaluatedProperties == nil &&
		n.unevaluatedItems == nil && !n.never
}

func (k *keywords) typeKeyword(v *value) error {
	const want = "want a type name (array, boolean, integer, null, number, object, string) or an array of unique ones"
	add := func(name, sub string) error {
		bit := typeBit(name)
		if bit == 0 {
			if sub != "" {
				return k.failAt("type", sub, "unknown type %s; %s", quote(name), want)
			}
			return k.fail("type", "unknown type %s; %s", quote(name), want)
		}
		if k.n.types&bit != 0 {
			return k.failAt("type", sub, "%s is listed twice; %s", quote(name), want)
		}
		k.n.types |= bit
		k.n.typeNames = append(k.n.typeNames, name)
		return nil
	}
	switch v.kind {
	case kindString:
		return add(v.str, "")
	case kindArray:
		if len(v.arr) == 0 {
			return k.fail("type", "an empty array; %s", want)
		}
		for i := range v.arr {
			if v.arr[i].kind != kindString {
				return k.failAt("type", strconv.Itoa(i), "got %s; %s", v.arr[i].typeName(), want)
			}
			if err := add(v.arr[i].str, strconv.Itoa(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return k.fail("type", "got %s; %s", v.typeName(), want)
}

// want refuses a value of none of kinds, saying what the keyword wants.
func (k *keywords) want(key string, v *value, what string, kinds ...kind) error {
	if !slices.Contains(kinds, v.kind) {
		return k.fail(key, "got %s, want %s", v.typeName(), what)
	}
	return nil
}

func (k *keywords) number(key string, v *value) (*decimal, error) {
	if v.kind != kindNumber {
		return nil, k.fail(key, "got %s, want a number", v.typeName())
	}
	d, _ := parseDecimal(v.str)
	return &d, nil
}

// count reads a non-negative integer (2.0 is one); one too large for an
// int is as good as infinite.
func (k *keywords) count(key string, v *value, dst *int) error {
	if v.kind != kindNumber {
		return k.fail(key, "got %s, want a non-negative integer", v.typeName())
	}
	d, _ := parseDecimal(v.str)
	if !d.isInt() || d.neg {
		return k.fail(key, "got %s, want a non-negative integer", v.str)
	}
	*dst = math.MaxInt
	if d.isZero() {
		*dst = 0
	} else if int64(len(d.digits))+d.exp <= 18 {
		x, _ := strconv.ParseInt(d.digits, 10, 64)
		for range d.exp {
			x *= 10
		}
		*dst = int(x)
	}
	return nil
}

func (k *keywords) anchorName(key string, v *value) error {
	if v.kind != kindString {
		return k.fail(key, "got %s, want a string", v.typeName())
	}
	ok := v.str != ""
	for i := 0; i < len(v.str) && ok; i++ {
		c := v.str[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 {
			ok = letter || c == '_' && k.loc.d >= draft2020
		} else {
			ok = letter || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == ':' && k.loc.d == draft2019
		}
	}
	if !ok {
		return k.fail(key, "%s is not a valid anchor name", quote(v.str))
	}
	return nil
}

// uri checks a URI (absolute) or URI-reference string.
func (k *keywords) uri(key string, v *value, absolute bool) error {
	check, what := idURIReference, "URI-reference"
	if absolute {
		check, what = idURI, "URI"
	}
	if err := check(v.str); err != nil {
		return k.fail(key, "%s is not a valid %s: %v", quote(v.str), what, err)
	}
	return nil
}

// names reads an array of unique strings: the keyword's value, or the
// member sub of it.
func (k *keywords) names(key string, v *value, nonEmpty bool, sub ...string) ([]string, error) {
	fail := func(format string, args ...any) ([]string, error) {
		if len(sub) == 0 {
			return nil, k.fail(key, format, args...)
		}
		return nil, k.failAt(key, sub[0], format, args...)
	}
	if v.kind != kindArray {
		return fail("got %s, want an array of unique strings", v.typeName())
	}
	if nonEmpty && len(v.arr) == 0 {
		return fail("an empty array; want at least one name in draft-04")
	}
	names := make([]string, 0, len(v.arr))
	for i := range v.arr {
		if v.arr[i].kind != kindString {
			return fail("item %d is %s, want an array of unique strings", i, v.arr[i].typeName())
		}
		for j, prev := range names {
			if prev == v.arr[i].str {
				return fail("items %d and %d are both %s, want unique strings", j, i, quote(prev))
			}
		}
		names = append(names, v.arr[i].str)
	}
	return names, nil
}

func (k *keywords) schemaList(key string, v *value) ([]*node, error) {
	if v.kind != kindArray {
		return nil, k.fail(key, "got %s, want an array of schemas", v.typeName())
	}
	if len(v.arr) == 0 {
		return nil, k.fail(key, "an empty array, want at least one schema")
	}
	list := make([]*node, len(v.arr))
	for i := range v.arr {
		s, err := k.sub(key, &v.arr[i], strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		list[i] = s
	}
	return list, nil
}

func (k *keywords) schemaMap(key string, v *value) ([]named, error) {
	if v.kind != kindObject {
		return nil, k.fail(key, "got %s, want an object of schemas", v.typeName())
	}
	out := make([]named, 0, len(v.obj))
	for i := range v.obj {
		s, err := k.sub(key, &v.obj[i].val, v.obj[i].key)
		if err != nil {
			return nil, err
		}
		out = append(out, named{v.obj[i].key, s})
	}
	return out, nil
}

// duplicate returns the indexes of the first two equal values, or -1.
func duplicate(arr []value) (int, int) {
	if len(arr) <= 16 {
		for j := 1; j < len(arr); j++ {
			for i := range j {
				if equal(&arr[i], &arr[j]) {
					return i, j
				}
			}
		}
		return -1, -1
	}
	seen := make(map[uint64][]int, len(arr))
	for j := range arr {
		h := hash(&arr[j])
		for _, i := range seen[h] {
			if equal(&arr[i], &arr[j]) {
				return i, j
			}
		}
		seen[h] = append(seen[h], j)
	}
	return -1, -1
}
