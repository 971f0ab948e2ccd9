package jsonschema

import (
	"regexp"
	"slices"
)

// Schema is a compiled schema document, safe for concurrent use.
type Schema struct {
	root *node
	// tracked is set when some schema in the document uses
	// unevaluatedProperties or unevaluatedItems: only then does validation
	// keep track of which members and items were evaluated.
	tracked bool
	dynamic bool // some schema has $recursiveRef or $dynamicRef
	nodes   int  // how many schemas it holds
	// unchecked are the patterns left unenforced, each "POINTER: why"
	unchecked []string
}

// Unchecked says which patterns of the schema are not enforced: valid
// ECMA-262 (a lookahead, a lookbehind, a backreference) that Go's regular
// expressions cannot evaluate. Each is "POINTER: what it uses".
func (s *Schema) Unchecked() []string { return s.unchecked }

// node is one compiled schema: an object or a boolean in the document.
type node struct {
	ptr   *pointer  // where it is in the document
	d     dialect   // the dialect of its resource
	res   *resource // the resource it belongs to
	never bool      // false, or a schema nothing can satisfy as written
	empty bool      // true or {}: everything is valid, nothing to do
	// shared: the verdicts of this schema are kept during a validation
	// (it has subschemas, or a reference leads to it)
	shared bool

	ref          *node // $ref; before 2019-09 the only keyword that counts
	refOnly      bool
	recursiveRef *node // $recursiveRef's target before the dynamic scope is consulted
	dynamicRef   *node // $dynamicRef's initial target
	dynamicName  string

	types     typeSet
	typeNames []string // as written, for messages
	constVal  *value
	enum      *value // the array
	format    func(string) error
	formatStr string

	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf *decimal

	minLength, maxLength int // -1 when absent
	pattern              *regexp.Regexp

	minItems, maxItems int
	uniqueItems        bool
	prefixItems        []*node // items as an array before 2020-12, prefixItems after
	items              *node   // every item after the prefix
	itemsKeyword       string  // "items" or "additionalItems"
	noMoreItems        bool    // additionalItems: false
	contains           *node
	minContains        int
	maxContains        int

	minProperties, maxProperties int
	required                     []string
	dependencies                 []dependency // draft-04 to draft-07 "dependencies"
	properties                   []named
	propertyIndex                map[string]*node // for objects with many properties
	patternProperties            []patterned
	additionalProperties         *node
	noMoreProperties             bool // additionalProperties: false
	propertyNames                *node
	dependentSchemas             []named
	dependentRequired            []dependency

	allOf, anyOf, oneOf []*node
	not                 *node
	ifSchema            *node
	thenSchema          *node
	elseSchema          *node

	unevaluatedProperties, unevaluatedItems *node
}

type named struct {
	name string
	node *node
}

type patterned struct {
	re   *regexp.Regexp
	node *node
}

// dependency is a property that, when present, requires other properties
// or a schema.
type dependency struct {
	name     string
	required []string
	schema   *node
}

// typeSet is a set of JSON Schema type names.
type typeSet uint8

const (
	typeNull typeSet = 1 << iota
	typeBoolean
	typeInteger
	typeNumber
	typeString
	typeArray
	typeObject
)

// typeBit is a type name's bit, in the order of the constants above; 0
// for another name.
func typeBit(name string) typeSet {
	if i := slices.Index([]string{"null", "boolean", "integer", "number", "string", "array", "object"}, name); i >= 0 {
		return 1 << i
	}
	return 0
}

// resource is a schema with its own URI: the document, or a schema in it
// with $id (id in draft-04).
type resource struct {
	uri             string
	val             *value
	ptr             *pointer
	d               dialect
	anchors         map[string]*value // $anchor, $dynamicAnchor, and "#name" ids before 2019-09
	dynamic         map[string]*node  // $dynamicAnchor, compiled
	dynamicVals     map[string]*value
	recursiveAnchor bool
	root            *node
}
