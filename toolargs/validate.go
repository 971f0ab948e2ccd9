package toolargs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
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

// Compile prepares a schema; an error means the schema itself is invalid.
func Compile(schema json.RawMessage) (*Validator, error) {
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

// Validate returns nil or a *Violation for the first rule value breaks.
func (v *Validator) Validate(value json.RawMessage) error {
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
	msg := ve.ErrorKind.LocalizedString(english)
	for digitGroups.MatchString(msg) { // the printer groups thousands: 1,000
		msg = digitGroups.ReplaceAllString(msg, "$1$2")
	}
	return &Violation{Pointer: ptr.String(), Rule: rule, Message: msg}
}
