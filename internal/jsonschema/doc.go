// Package jsonschema compiles a JSON Schema document and validates JSON
// values against it: the schemas MCP servers give their tools' inputs and
// outputs, and later those of mcpv test's checks.
//
// # Dialects
//
// $schema chooses the dialect, written as the drafts write their metaschema
// URLs (http or https, with or without the empty fragment): draft-04,
// draft-06, draft-07, 2019-09 or 2020-12, the default. Any other $schema is
// an error. Where the dialects differ, each keeps its own meaning:
// draft-04's boolean exclusiveMinimum/exclusiveMaximum and its id; boolean
// schemas from draft-06; items as an array with additionalItems before
// 2020-12, prefixItems in it; $ref's siblings ignored before 2019-09;
// dependentRequired and dependentSchemas from 2019-09 (dependencies, which
// they replace, keeps working there too, as those drafts' metaschemas still
// describe it and validators commonly apply it); $recursiveRef and
// $recursiveAnchor in 2019-09, $dynamicRef and $dynamicAnchor in 2020-12;
// unevaluatedProperties and unevaluatedItems, with the annotations they
// need, from 2019-09 (contains counts towards unevaluatedItems in 2020-12
// only).
//
// # Keywords
//
// Every validation and applicator keyword: type (an integer is any number
// with no fraction, 1.0 included), enum and const (JSON equality: 1 equals
// 1.0, members in any order), multipleOf, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, minLength and maxLength (in code
// points), pattern (Go's regexp syntax, unanchored), items, prefixItems,
// additionalItems, contains, minContains, maxContains, minItems, maxItems,
// uniqueItems, minProperties, maxProperties, required, properties,
// patternProperties, additionalProperties, propertyNames, dependencies,
// dependentRequired, dependentSchemas, allOf, anyOf, oneOf, not,
// if/then/else, unevaluatedProperties, unevaluatedItems; and $ref, $defs,
// definitions, $id, $anchor within the document. Numbers are compared and
// divided exactly, as decimals, never through float64.
//
// Compile checks the schema as its dialect's metaschema would (each
// keyword's value of the right type and range, patterns that compile,
// identifiers and anchors well formed and unique) and that every
// reference resolves in the document; a *SchemaError names the place in
// the schema and the keyword.
//
// Validate reports the first violation as a *ValidationError: the place in
// the value, the keyword, a message, and for required the names missing.
//
// # What it does not do
//
//   - References outside the document are never fetched, nor read from
//     disk: such a schema does not compile. The metaschemas themselves are
//     outside too.
//   - format asserts nothing from 2019-09 on, where it is an annotation.
//     In draft-04, -06 and -07, whose validators commonly assert it, the
//     formats those drafts and later ones define (date-time, date, time,
//     duration, email, hostname, ipv4, ipv6, uri, uri-reference, iri,
//     iri-reference, uri-template, json-pointer, relative-json-pointer,
//     uuid, regex) and period and semver are checked; other names
//     (idn-hostname, idn-email) are ignored. uri, uri-reference, iri,
//     iri-reference and uri-template are read by the grammars of RFC 3986,
//     3987 and 6570; a host name's A-labels (xn--) are decoded and checked
//     with golang.org/x/net/idna, which has UTS #46's tables, not IDNA2008's
//     exceptions and contextual rules. A schema's own $id, $ref and $schema
//     are read as url.Parse reads them, more loosely, so that schemas found
//     in the wild still compile.
//   - pattern and the regex format are Go's regexp syntax (RE2), not
//     ECMA-262's.
//   - An integer is any number with no fraction, 1.0 included, in
//     draft-04 too.
//   - contentEncoding, contentMediaType and contentSchema are annotations.
//   - $vocabulary is checked for its shape, and custom vocabularies and
//     metaschemas are not supported: a $schema naming one does not compile.
//
// Nothing runs at package initialisation: mcpv pays for this package only
// when it compiles a schema.
package jsonschema
