package elicit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// kind is what a property of the requested schema holds.
type kind int

const (
	kindString  kind = iota // free text
	kindNumber              // any JSON number
	kindInteger             // an integral JSON number
	kindBoolean             // true or false
	kindEnum                // one string of choices
	kindMulti               // an array of strings of choices
)

// choice is one value of an enum, with its display title ("" if none).
type choice struct{ Value, Title string }

// field is one property of the requested schema.
type field struct {
	name, title, description string
	kind                     kind
	required                 bool
	def                      json.RawMessage // the schema's default, compact; nil when none

	minLength, maxLength int // -1 when absent
	format, pattern      string
	re                   *regexp.Regexp // compiled pattern; nil when absent or not Go syntax
	patternErr           error          // why pattern did not compile

	minimum, maximum string // number text; "" when absent

	choices            []choice
	minItems, maxItems int // -1 when absent
}

// form is a form-mode request.
type form struct {
	message string
	fields  []*field // in the schema's property order
}

func (f *form) field(name string) *field {
	if i := f.index(name); i >= 0 {
		return f.fields[i]
	}
	return nil
}

// index is the position of the field named name, or -1.
func (f *form) index(name string) int {
	return slices.IndexFunc(f.fields, func(fl *field) bool { return fl.name == name })
}

// property is the JSON of one PrimitiveSchemaDefinition (every variant merged).
type property struct {
	Type        *string         `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Default     json.RawMessage `json:"default"`
	MinLength   *float64        `json:"minLength"`
	MaxLength   *float64        `json:"maxLength"`
	Format      string          `json:"format"`
	Pattern     string          `json:"pattern"`
	Minimum     json.Number     `json:"minimum"`
	Maximum     json.Number     `json:"maximum"`
	Enum        []string        `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []titled        `json:"oneOf"`
	Items       *struct {
		Enum  []string `json:"enum"`
		AnyOf []titled `json:"anyOf"`
	} `json:"items"`
	MinItems *float64 `json:"minItems"`
	MaxItems *float64 `json:"maxItems"`
}

type titled struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// parseForm reads form-mode params; a schema outside the elicitation subset is
// a *ParamsError.
func parseForm(params json.RawMessage) (*form, error) {
	var p struct {
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, paramsErrorf("elicitation/create: %v", err)
	}
	if !rawjson.IsObject(p.RequestedSchema) {
		return nil, paramsErrorf("elicitation/create: requestedSchema must be a JSON object")
	}
	var s struct {
		Type       *string         `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(p.RequestedSchema, &s); err != nil {
		return nil, paramsErrorf("elicitation/create: requestedSchema: %v", err)
	}
	if s.Type != nil && *s.Type != "object" {
		return nil, paramsErrorf("elicitation/create: requestedSchema must have type \"object\", not %q", *s.Type)
	}
	f := &form{message: p.Message}
	if len(s.Properties) > 0 && string(s.Properties) != "null" {
		err := rawjson.ForEachMember(s.Properties, func(name string, v []byte) error {
			fl, err := parseField(name, v)
			if err != nil {
				return err
			}
			if old := f.field(name); old != nil {
				*old = *fl // a repeated key: the last one counts, as in encoding/json
			} else {
				f.fields = append(f.fields, fl)
			}
			return nil
		})
		if err != nil {
			if _, ok := err.(*ParamsError); ok {
				return nil, err
			}
			return nil, paramsErrorf("elicitation/create: requestedSchema.properties: %v", err)
		}
	}
	for _, name := range s.Required {
		fl := f.field(name)
		if fl == nil {
			return nil, paramsErrorf("elicitation/create: requestedSchema requires %q, which is not among its properties", name)
		}
		fl.required = true
	}
	return f, nil
}

func parseField(name string, data []byte) (*field, error) {
	bad := func(format string, a ...any) error {
		return paramsErrorf("elicitation/create: requestedSchema property %q: %s", name, fmt.Sprintf(format, a...))
	}
	if !rawjson.IsObject(data) {
		return nil, bad("must be a JSON object")
	}
	var p property
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, bad("%v", err)
	}
	fl := &field{name: name, title: p.Title, description: p.Description,
		minLength: count(p.MinLength), maxLength: count(p.MaxLength),
		minItems: count(p.MinItems), maxItems: count(p.MaxItems),
		format: p.Format, pattern: p.Pattern, minimum: p.Minimum.String(), maximum: p.Maximum.String()}
	if len(p.Default) > 0 && string(p.Default) != "null" {
		var b bytes.Buffer
		if err := json.Compact(&b, p.Default); err != nil {
			return nil, bad("default: %v", err)
		}
		fl.def = b.Bytes()
	}
	if p.Pattern != "" {
		fl.re, fl.patternErr = regexp.Compile(p.Pattern)
	}
	typ := ""
	if p.Type != nil {
		typ = *p.Type
	} else if len(p.Enum) > 0 || len(p.OneOf) > 0 {
		typ = "string" // an enum without a type: its values are strings
	}
	switch typ {
	case "string":
		switch {
		case len(p.OneOf) > 0:
			fl.kind = kindEnum
			fl.choices = titledChoices(p.OneOf)
		case len(p.Enum) > 0:
			fl.kind = kindEnum
			for i, v := range p.Enum {
				c := choice{Value: v}
				if len(p.EnumNames) == len(p.Enum) {
					c.Title = p.EnumNames[i]
				}
				fl.choices = append(fl.choices, c)
			}
		default:
			fl.kind = kindString
		}
	case "number":
		fl.kind = kindNumber
	case "integer":
		fl.kind = kindInteger
	case "boolean":
		fl.kind = kindBoolean
	case "array":
		fl.kind = kindMulti
		switch {
		case p.Items != nil && len(p.Items.AnyOf) > 0:
			fl.choices = titledChoices(p.Items.AnyOf)
		case p.Items != nil && len(p.Items.Enum) > 0:
			for _, v := range p.Items.Enum {
				fl.choices = append(fl.choices, choice{Value: v})
			}
		default:
			return nil, bad("an array needs items with enum or anyOf")
		}
	case "":
		return nil, bad("has no type")
	default:
		return nil, bad("type %q is not allowed in an elicitation form (only string, number, integer, boolean and arrays of enum strings)", typ)
	}
	return fl, nil
}

func titledChoices(ts []titled) []choice {
	cs := make([]choice, len(ts))
	for i, t := range ts {
		cs[i] = choice{Value: t.Const, Title: t.Title}
	}
	return cs
}

// count turns an optional JSON count into an int, -1 when absent.
func count(f *float64) int {
	if f == nil || *f < 0 {
		return -1
	}
	return int(*f)
}

// hasChoice reports whether v is one of fl's choice values.
func (fl *field) hasChoice(v string) bool {
	return slices.ContainsFunc(fl.choices, func(c choice) bool { return c.Value == v })
}
