package toolargs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpv/mcpv/internal/jsonschema"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// Validator checks JSON values against a schema from a server. The schema
// may name its dialect with $schema (2020-12 when it does not); references
// outside the document are never fetched or read from disk.
type Validator struct {
	schema *jsonschema.Schema
}

// Violation is a value that breaks the schema: where, and which rule.
type Violation struct {
	Pointer string // JSON pointer into the value, "" for the whole value
	Rule    string // the schema keyword, e.g. "type", "required", "minimum"
	Message string
	Missing []string // for "required": the properties missing
}

func (v *Violation) Error() string {
	return fmt.Sprintf("%s: %s (%s)", cmp.Or(v.Pointer, "/"), v.Message, v.Rule)
}

// MaxDepth is how deeply a schema may nest (arrays and objects: about two
// levels per nested schema) for mcpv to check values against it. Real
// schemas stay far below; one much deeper is more likely an attack on the
// checker than a description of arguments.
const MaxDepth = 128

// LimitError is a schema mcpv does not check values against because it is
// nested deeper than MaxDepth.
type LimitError struct{ Depth int }

func (e *LimitError) Error() string {
	return fmt.Sprintf("it nests %d levels deep, more than the %d mcpv checks", e.Depth, MaxDepth)
}

// Compile prepares a schema: a *LimitError when it nests too deep, the
// cause of ctx when ctx ends first, any other error when the schema itself
// is invalid. A schema is compiled once per process: the same bytes again
// (the same tool called many times in a batch or a session) get the same
// Validator.
func Compile(ctx context.Context, schema json.RawMessage) (*Validator, error) {
	return compiled.get(ctx, schema)
}

// compile compiles a schema the memo has not seen; the depth is checked
// here, so the memo keeps a *LimitError too.
func compile(schema json.RawMessage) (*Validator, error) {
	if d := rawjson.Depth(schema); d > MaxDepth {
		return nil, &LimitError{Depth: d}
	}
	s, err := jsonschema.Compile(schema)
	if err != nil {
		return nil, err
	}
	return &Validator{schema: s}, nil
}

// CostError is a value mcpv did not finish checking because the schema
// makes the check loop back on itself too many times.
type CostError = jsonschema.CostError

// Validate returns nil or a *Violation for the first rule value breaks, a
// *CostError, or the cause of ctx when ctx ends first (the check stops
// then too).
func (v *Validator) Validate(ctx context.Context, value json.RawMessage) error {
	err := v.schema.ValidateContext(ctx, value)
	if ve, ok := errors.AsType[*jsonschema.ValidationError](err); ok {
		return &Violation{Pointer: ve.Pointer, Rule: ve.Keyword, Message: ve.Message, Missing: ve.Missing}
	}
	return err
}

// PropertyNames returns the names in a schema's top-level "properties", in
// the schema's order; nil when it has none.
func PropertyNames(schema json.RawMessage) []string {
	var names []string
	rawjson.ForEachValidMember(schema, func(k string, v []byte) error {
		if k == "properties" {
			rawjson.ForEachValidMember(v, func(name string, _ []byte) error {
				names = append(names, name)
				return nil
			})
		}
		return nil
	})
	return names
}
