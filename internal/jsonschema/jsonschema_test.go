package jsonschema

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustCompile(t testing.TB, schema string) *Schema {
	t.Helper()
	s, err := Compile([]byte(schema))
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	return s
}

func TestCorpus(t *testing.T) {
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			s := mustCompile(t, c.schema)
			for _, v := range c.valid {
				if err := s.Validate([]byte(v)); err != nil {
					t.Errorf("%s: %v, want valid", v, err)
				}
			}
			for _, v := range c.invalid {
				err := s.Validate([]byte(v))
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Errorf("%s: %v, want a *ValidationError", v, err)
				} else if ve.Keyword == "" || ve.Message == "" {
					t.Errorf("%s: %#v has no keyword or message", v, ve)
				}
			}
		})
	}
}

func TestInvalidSchemas(t *testing.T) {
	for _, c := range invalidSchemas {
		_, err := Compile([]byte(c.schema))
		var se *SchemaError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want a *SchemaError", c.schema, err)
			continue
		}
		if se.Pointer != c.pointer || se.Keyword != c.keyword || se.Message == "" {
			t.Errorf("%s: %#v, want pointer %q keyword %q", c.schema, se, c.pointer, c.keyword)
		}
	}
}

func TestSchemaErrorText(t *testing.T) {
	for _, tt := range []struct{ schema, want string }{
		{`{"properties":{"a":{"type":"strng"}}}`, `/properties/a/type: unknown type 'strng'; want a type name (array, boolean, integer, null, number, object, string) or an array of unique ones (type)`},
		{`{"$ref":"https://example.com/s.json"}`, `/$ref: 'https://example.com/s.json' is outside the document, and is not fetched ($ref)`},
		{`{"$schema":"http://example.com/x"}`, `/$schema: unknown dialect 'http://example.com/x' (want a JSON Schema metaschema URL: draft-04, -06, -07, 2019-09 or 2020-12) ($schema)`},
		{`{"required":["a",1]}`, `/required: item 1 is number, want an array of unique strings (required)`},
		{`{"pattern":"a("}`, "/pattern: 'a(' is not a valid regular expression: error parsing regexp: missing closing ): `a(` (pattern)"},
		{`[]`, `/: got array, want a schema (an object or a boolean)`},
		// A huge pattern is quoted in part.
		{`{"pattern":"(` + strings.Repeat("a", 1<<20) + `"}`, "/pattern: '(" + strings.Repeat("a", 199) + "'… (1048377 more bytes) is not a valid regular expression: error parsing regexp: missing closing ): `(" + strings.Repeat("a", 199) + "`… (1048377 more bytes) (pattern)"},
	} {
		_, err := Compile([]byte(tt.schema))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s:\n got %v\nwant %s", tt.schema, err, tt.want)
		}
	}
}

// The first violation, as toolargs reports it.
func TestViolations(t *testing.T) {
	tests := []struct {
		schema, value string
		want          ValidationError
	}{
		{`{"properties":{"n":{"type":"integer"}}}`, `{"n":"x"}`, ValidationError{"/n", "type", "got string, want integer", nil}},
		{`{"type":["string","null"]}`, `1`, ValidationError{"", "type", "got number, want string or null", nil}},
		{`{"required":["query","limit","x"]}`, `{"limit":1}`, ValidationError{"", "required", "missing properties 'query', 'x'", []string{"query", "x"}}},
		{`{"required":["query"]}`, `{}`, ValidationError{"", "required", "missing property 'query'", []string{"query"}}},
		{`{"properties":{"n":{"maximum":300000000}}}`, `{"n":300000001}`, ValidationError{"/n", "maximum", "got 300000001, want at most 300000000", nil}},
		{`{"minimum":0.5}`, `0.25`, ValidationError{"", "minimum", "got 0.25, want at least 0.5", nil}},
		{`{"exclusiveMaximum":1e10}`, `12345678901.5`, ValidationError{"", "exclusiveMaximum", "got 12345678901.5, want less than 10000000000", nil}},
		{`{"exclusiveMinimum":-2}`, `-3`, ValidationError{"", "exclusiveMinimum", "got -3, want more than -2", nil}},
		{`{"multipleOf":0.01}`, `0.123`, ValidationError{"", "multipleOf", "got 0.123, want a multiple of 0.01", nil}},
		{`{"maximum":1e-50}`, `1`, ValidationError{"", "maximum", "got 1, want at most 1e-50", nil}},
		{`{"minLength":3}`, `"ab"`, ValidationError{"", "minLength", "got 2 characters, want at least 3", nil}},
		{`{"maxLength":3}`, `"abcdef"`, ValidationError{"", "maxLength", "got 6 characters, want at most 3", nil}},
		{`{"minItems":2}`, `[1]`, ValidationError{"", "minItems", "got 1 items, want at least 2", nil}},
		{`{"maxProperties":1}`, `{"a":1,"b":2}`, ValidationError{"", "maxProperties", "got 2 properties, want at most 1", nil}},
		{`{"enum":[1000000,2]}`, `3`, ValidationError{"", "enum", "value must be one of 1000000, 2", nil}},
		{`{"enum":["asc"]}`, `"x"`, ValidationError{"", "enum", "value must be 'asc'", nil}},
		{`{"enum":[[1]]}`, `"x"`, ValidationError{"", "enum", "value is not one of those listed", nil}},
		{`{"const":"it's"}`, `1`, ValidationError{"", "const", `value must be 'it\'s'`, nil}},
		{`{"pattern":"^a"}`, `"b"`, ValidationError{"", "pattern", "'b' does not match pattern '^a'", nil}},
		{`{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2,"c/d":3}`, ValidationError{"", "additionalProperties", "additional properties 'b', 'c/d' not allowed", nil}},
		{`{"properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"b":2,"a":1}`, ValidationError{"/a", "type", "got number, want string", nil}},
		{`{"properties":{"a/b":{"type":"string"}}}`, `{"a/b":1}`, ValidationError{"/a~1b", "type", "got number, want string", nil}},
		{`{"items":{"type":"string"}}`, `["a",1]`, ValidationError{"/1", "type", "got number, want string", nil}},
		{`{"uniqueItems":true}`, `[1,2,1.0]`, ValidationError{"", "uniqueItems", "items at 0 and 2 are equal", nil}},
		{`{"contains":{"type":"string"}}`, `[1,2]`, ValidationError{"", "contains", "no items match the contains schema", nil}},
		{`{"contains":{"type":"string"},"minContains":2}`, `["a",2]`, ValidationError{"", "minContains", "1 items match the contains schema, want at least 2", nil}},
		{`{"propertyNames":{"maxLength":2}}`, `{"ab":1,"abc":{}}`, ValidationError{"", "propertyNames", "invalid property name 'abc': got 3 characters, want at most 2", nil}},
		{`{"properties":{"o":{"propertyNames":{"maxLength":2}}}}`, `{"o":{"abc":1}}`, ValidationError{"/o", "propertyNames", "invalid property name 'abc': got 3 characters, want at most 2", nil}},
		{`{"dependentRequired":{"a":["b","c"]}}`, `{"a":1,"c":1}`, ValidationError{"", "dependentRequired", "properties 'b' required, if 'a' exists", []string{"b"}}},
		{`{"anyOf":[{"type":"integer"},{"type":"null"}]}`, `"x"`, ValidationError{"", "type", "got string, want integer", nil}},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `3`, ValidationError{"", "oneOf", "matches subschemas 0 and 1, want exactly one", nil}},
		{`{"allOf":[{"type":"integer"},{"minimum":3}]}`, `2`, ValidationError{"", "minimum", "got 2, want at least 3", nil}},
		{`{"not":{"type":"string"}}`, `"x"`, ValidationError{"", "not", "value matches the schema it must not match", nil}},
		{`false`, `1`, ValidationError{"", "false", "the schema allows no value", nil}},
		{`{"properties":{"a":false}}`, `{"a":1}`, ValidationError{"/a", "properties", "not allowed", nil}},
		{`{"prefixItems":[{}],"items":false}`, `[1,2]`, ValidationError{"/1", "items", "not allowed", nil}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":false}`, `[1,2]`, ValidationError{"", "additionalItems", "got 2 items, want at most 1 (no additional items)", nil}},
		{`{"properties":{"a":true},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, ValidationError{"/b", "unevaluatedProperties", "not allowed", nil}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","format":"email"}`, `"x"`, ValidationError{"", "format", "'x' is not valid email: missing @", nil}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}`, `{"a":1}`, ValidationError{"", "dependencies", "properties 'b' required, if 'a' exists", []string{"b"}}},
		{`{"type":"object","properties":{"limit":{"type":"integer"}},"required":["query"]}`, `{"limit":"x"}`, ValidationError{"", "required", "missing property 'query'", []string{"query"}}},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `1`, ValidationError{"", "$ref", "the reference to /$defs/a leads back to itself without moving into the value", nil}},
	}
	for _, tt := range tests {
		err := mustCompile(t, tt.schema).Validate([]byte(tt.value))
		var got *ValidationError
		if !errors.As(err, &got) {
			t.Errorf("%s against %s: %v, want a violation", tt.value, tt.schema, err)
			continue
		}
		if d := cmp.Diff(&tt.want, got); d != "" {
			t.Errorf("%s against %s (-want +got):\n%s", tt.value, tt.schema, d)
		}
	}
}

func TestInstanceSyntax(t *testing.T) {
	s := mustCompile(t, `{}`)
	for _, bad := range []string{``, `{`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `+1`, `tru`, `"a`, "\"\x01\"", `"\x"`, `"\u12"`, `1 2`, `{"a" 1}`, `NaN`, `[` + strings.Repeat(`[`, maxNesting) + strings.Repeat(`]`, maxNesting+1)} {
		var se *SyntaxError
		if err := s.Validate([]byte(bad)); !errors.As(err, &se) {
			t.Errorf("%q: %v, want a *SyntaxError", bad, err)
		}
	}
	for _, good := range []string{` 1 `, `-0.5e+10`, `"\ud83d\ude00\u00e9\"\\\/\b\f\n\r\t"`, `"\ud800"`, "\"\xff\"", `{"a":1,"a":2}`, strings.Repeat(`[`, maxNesting) + strings.Repeat(`]`, maxNesting)} {
		if err := s.Validate([]byte(good)); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}

// Strings decode as encoding/json decodes them; a repeated member keeps its
// last value.
func TestValueDecoding(t *testing.T) {
	for _, tt := range []struct{ schema, value string }{
		{`{"const":"😀é\"\\/\b\f\n\r\t"}`, `"\ud83d\ude00\u00e9\"\\\/\b\f\n\r\t"`},
		{`{"const":"\ufffd"}`, `"\ud800"`},
		{`{"const":"\ufffdx"}`, `"\udc00x"`},
		{`{"const":"\ufffd"}`, "\"\xff\""},
		{`{"const":{"a":2}}`, `{"a":1,"a":2}`},
		{`{"maxProperties":1}`, `{"a":1,"a":2}`},
	} {
		if err := mustCompile(t, tt.schema).Validate([]byte(tt.value)); err != nil {
			t.Errorf("%s against %s: %v", tt.value, tt.schema, err)
		}
	}
}

func TestDecimals(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		cmp  int
	}{
		{"1", "1.0", 0}, {"-0", "0", 0}, {"1e2", "100", 0}, {"0.1", "1e-1", 0},
		{"300000001", "300000000", 1}, {"9007199254740993", "9007199254740992", 1},
		{"-1", "1", -1}, {"-2", "-1", -1}, {"0.001", "0.01", -1}, {"12", "9.99", 1},
		{"1e400", "1e399", 1}, {"-1e-400", "0", -1}, {"1e99999999999999999999", "1", 1},
	} {
		if got := compareNumbers(tt.a, tt.b); got != tt.cmp {
			t.Errorf("compare(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.cmp)
		}
		if got := compareNumbers(tt.b, tt.a); got != -tt.cmp {
			t.Errorf("compare(%s, %s) = %d, want %d", tt.b, tt.a, got, -tt.cmp)
		}
	}
	for _, tt := range []struct {
		a, m string
		want bool
	}{
		{"0.3", "0.1", true}, {"0.123", "0.01", false}, {"19.99", "0.01", true}, {"1e308", "0.5", true},
		{"7.5", "2.5", true}, {"7", "2.5", false}, {"0", "0.7", true}, {"1e-400", "1e-401", true},
		{"1e-401", "1e-400", false}, {"123456789012345678901234567890", "3", true}, {"1e1000000000", "7", false},
	} {
		a, _ := parseDecimal(tt.a)
		m, _ := parseDecimal(tt.m)
		if got := a.multipleOf(m); got != tt.want {
			t.Errorf("%s multipleOf %s = %v, want %v", tt.a, tt.m, got, tt.want)
		}
	}
	for in, want := range map[string]string{"3e8": "300000000", "0.25": "0.25", "-1.50": "-1.5", "1e-3": "0.001", "0": "0", "-0.0": "0", "1e100": "1e+100", "12.5e-60": "1.25e-59"} {
		d, _ := parseDecimal(in)
		if got := d.plain(); got != want {
			t.Errorf("plain(%s) = %s, want %s", in, got, want)
		}
	}
}

// One compiled schema serves many goroutines.
func TestConcurrentValidation(t *testing.T) {
	s := mustCompile(t, benchSchema)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if err := s.Validate([]byte(benchValue)); err != nil {
					t.Error(err)
				}
				if err := s.Validate([]byte(`{"query":"q","owner":{}}`)); err == nil {
					t.Error("an invalid value passed")
				}
			}
		})
	}
	wg.Wait()
}

// A violation quotes the value and the pattern in part: one line, whatever
// the server's schema holds.
func TestViolationQuotesAreBounded(t *testing.T) {
	pattern := "^" + strings.Repeat("a", 1<<16) + "$"
	s, err := Compile([]byte(`{"pattern":"` + pattern + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate([]byte(`"` + strings.Repeat("b", 1<<16) + `"`))
	if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "… (65338 more bytes)") || !strings.Contains(err.Error(), "… (65336 more bytes)") {
		t.Errorf("got a message of %d bytes: %.300v", len(err.Error()), err)
	}
}
