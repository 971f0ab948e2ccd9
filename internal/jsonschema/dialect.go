package jsonschema

import "strings"

// dialect is a JSON Schema draft. The order matters: later drafts compare
// greater.
type dialect uint8

const (
	draft4 dialect = iota + 1
	draft6
	draft7
	draft2019
	draft2020
)

func (d dialect) String() string {
	if names := [...]string{"draft-04", "draft-06", "draft-07", "2019-09"}; d >= draft4 && d <= draft2019 {
		return names[d-draft4]
	}
	return "2020-12"
}

// dialectOf reads a $schema value: the metaschema URLs as the drafts write
// them, with or without the empty fragment, over http or https.
func dialectOf(uri string) (dialect, bool) {
	scheme, u, ok := strings.Cut(strings.TrimSuffix(uri, "#"), "://")
	if !ok || scheme != "http" && scheme != "https" {
		return 0, false
	}
	switch u {
	case "json-schema.org/draft-04/schema":
		return draft4, true
	case "json-schema.org/draft-06/schema":
		return draft6, true
	case "json-schema.org/draft-07/schema":
		return draft7, true
	case "json-schema.org/draft/2019-09/schema":
		return draft2019, true
	case "json-schema.org/draft/2020-12/schema", "json-schema.org/schema":
		return draft2020, true
	}
	return 0, false
}

// idKeyword is the keyword that gives a schema its URI.
func (d dialect) idKeyword() string {
	if d == draft4 {
		return "id"
	}
	return "$id"
}

// since is the first draft that knows keyword (draft-04 for the keywords
// it knows, and for any other): in an earlier draft the keyword is unknown,
// and ignored as any unknown one is.
func since(keyword string) dialect {
	switch keyword {
	case "const", "contains", "propertyNames":
		return draft6
	case "if", "then", "else", "$comment", "readOnly", "writeOnly", "examples", "contentMediaType",
		"contentEncoding":
		return draft7
	case "$anchor", "$recursiveRef", "$recursiveAnchor", "$vocabulary", "$defs", "deprecated",
		"contentSchema", "maxContains", "minContains", "unevaluatedItems", "unevaluatedProperties",
		"dependentSchemas", "dependentRequired":
		return draft2019
	case "prefixItems", "$dynamicRef", "$dynamicAnchor":
		return draft2020
	}
	return draft4
}

// The shapes a keyword's value takes where it holds schemas.
const (
	holdsSchema     = iota + 1 // a schema
	holdsSchemaList            // a non-empty array of schemas
	holdsSchemaMap             // an object whose members are schemas
	holdsItems                 // a schema, or before 2020-12 an array of schemas
	holdsDependency            // an object whose members are schemas or arrays of names
)

// shape says whether keyword holds schemas in d, and how (0 when it does
// not): identifiers and anchors count only there, and the compiler checks
// and compiles only there. "definitions" and "dependencies" keep their
// meaning in 2019-09 and 2020-12, whose metaschemas still describe them.
func (d dialect) shape(keyword string) int {
	if d < since(keyword) {
		return 0
	}
	switch keyword {
	case "definitions", "properties", "patternProperties", "$defs", "dependentSchemas":
		return holdsSchemaMap
	case "not", "additionalProperties", "propertyNames", "contains", "if", "then", "else",
		"unevaluatedProperties", "unevaluatedItems", "contentSchema":
		return holdsSchema
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return holdsSchemaList
	case "items":
		if d >= draft2020 {
			return holdsSchema
		}
		return holdsItems
	case "dependencies":
		return holdsDependency
	case "additionalItems":
		if d < draft2020 {
			return holdsSchema
		}
	}
	return 0
}
