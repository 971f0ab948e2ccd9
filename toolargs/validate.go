package toolargs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

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
	where := v.Pointer
	if where == "" {
		where = "/"
	}
	return fmt.Sprintf("%s: %s (%s)", where, v.Message, v.Rule)
}

// noLoader refuses every external reference.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("not fetching %s", url)
}

const schemaURL = "mcpv:///schema.json"

// MaxDepth is how deeply a schema may nest (arrays and objects: about two
// levels per nested schema) for mcpv to check values against it. Compiling
// costs more than linear time in a schema's depth: at 128 it takes
// milliseconds, while a schema 4,000 levels deep took minutes. Real schemas
// stay far below.
const MaxDepth = 128

// LimitError is a schema mcpv does not check values against because it is
// nested deeper than MaxDepth.
type LimitError struct{ Depth int }

func (e *LimitError) Error() string {
	return fmt.Sprintf("it nests %d levels deep, more than the %d mcpv checks", e.Depth, MaxDepth)
}

// Compile prepares a schema: a *LimitError when it nests too deep, the
// cause of ctx when ctx ends first, any other error when the schema itself
// is invalid.
func Compile(ctx context.Context, schema json.RawMessage) (*Validator, error) {
	if d := rawjson.Depth(schema); d > MaxDepth {
		return nil, &LimitError{Depth: d}
	}
	return within(ctx, func() (*Validator, error) { return compile(schema) })
}

// within runs fn, giving up when ctx ends first (fn then finishes on its
// own, its result unused: the process is about to stop).
func within[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	if ctx.Err() != nil {
		var zero T
		return zero, context.Cause(ctx)
	}
	done := make(chan result, 1)
	go func() { // ends when fn does
		v, err := fn()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}

func compile(schema json.RawMessage) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	return &Validator{schema: s}, nil
}

var (
	english     = message.NewPrinter(language.English)
	digitGroups = regexp.MustCompile(`(\d),(\d{3})`)
)

// Validate returns nil or a *Violation for the first rule value breaks, or
// the cause of ctx when ctx ends first.
func (v *Validator) Validate(ctx context.Context, value json.RawMessage) error {
	_, err := within(ctx, func() (struct{}, error) { return struct{}{}, v.validate(value) })
	return err
}

func (v *Validator) validate(value json.RawMessage) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return err
	}
	err = v.schema.Validate(inst)
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	var ptr strings.Builder
	for _, p := range ve.InstanceLocation {
		ptr.WriteByte('/')
		ptr.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
	}
	rule := ""
	if kp := ve.ErrorKind.KeywordPath(); len(kp) > 0 {
		rule = kp[len(kp)-1]
	}
	var missing []string
	if r, ok := ve.ErrorKind.(*kind.Required); ok {
		missing = r.Missing
	}
	return &Violation{Pointer: ptr.String(), Rule: rule, Message: describe(ve.ErrorKind, rule), Missing: missing}
}

// describe describes a broken rule without naming it (Violation.Error adds
// the rule's name once) and with numbers as JSON writes them: 300000001,
// not the library's 3.00000001×10⁰⁸.
func describe(k jsonschema.ErrorKind, rule string) string {
	switch k := k.(type) {
	case *kind.Minimum:
		return fmt.Sprintf("got %s, want at least %s", decimal(k.Got), decimal(k.Want))
	case *kind.Maximum:
		return fmt.Sprintf("got %s, want at most %s", decimal(k.Got), decimal(k.Want))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("got %s, want more than %s", decimal(k.Got), decimal(k.Want))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("got %s, want less than %s", decimal(k.Got), decimal(k.Want))
	case *kind.MultipleOf:
		return fmt.Sprintf("got %s, want a multiple of %s", decimal(k.Got), decimal(k.Want))
	case *kind.MinLength:
		return fmt.Sprintf("got %d characters, want at least %d", k.Got, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("got %d characters, want at most %d", k.Got, k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("got %d items, want at least %d", k.Got, k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("got %d items, want at most %d", k.Got, k.Want)
	case *kind.MinProperties:
		return fmt.Sprintf("got %d properties, want at least %d", k.Got, k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("got %d properties, want at most %d", k.Got, k.Want)
	}
	msg := k.LocalizedString(english)
	for digitGroups.MatchString(msg) { // the printer groups thousands: 1,000
		msg = digitGroups.ReplaceAllString(msg, "$1$2")
	}
	return strings.TrimPrefix(msg, rule+": ")
}

// decimal writes r in plain decimal notation, exactly: every JSON number
// has such a form. A rational that has none (never from JSON) is written
// as a fraction.
func decimal(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if n, exact := r.FloatPrec(); exact {
		return r.FloatString(n)
	}
	return r.RatString()
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
