package portable

import (
	"strings"
	"testing"
)

// Each rule of each host is found where a schema breaks it, at its
// place, quoting the host's documented rule; a schema inside every
// subset has no finding.
func TestGrade(t *testing.T) {
	// additionalProperties: false, which OpenAI's strict mode requires,
	// is no member of Gemini's schema object: no one spelling suits both.
	const closed = `{"type":"object","properties":{"city":{"type":"string","description":"A city."},"when":{"type":"string","format":"date-time"}},"required":["city","when"],"additionalProperties":false}`
	open := strings.Replace(closed, `,"additionalProperties":false`, "", 1)
	for host, s := range map[string]string{"openai": closed, "anthropic": closed, "gemini": open} {
		if f := Grade([]byte(s), "inputSchema", host); len(f) > 0 {
			t.Errorf("%s: a schema inside its subset: %v", host, f)
		}
	}
	for _, tc := range []struct {
		host, schema, path, has, rule string
	}{
		{"openai", `{"anyOf":[{"type":"object"}]}`, "", "root is not an object", "root level object"},
		{"openai", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, "", "additionalProperties: false", "must always be set in objects"},
		{"openai", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, "", `"a" is not required`, "all fields must be required"},
		{"openai", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}},"required":["a"],"additionalProperties":false}`, "/properties/a", `"allOf" is not supported`, "Composition: allOf"},
		{"openai", `{"type":"object","properties":{"u":{"type":"string","format":"uri"}},"required":["u"],"additionalProperties":false}`, "/properties/u", `"uri"`, "Currently supported"},
		{"anthropic", `{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`, "/properties/n", `"minimum"`, "Numerical constraints"},
		{"anthropic", `{"type":"object","properties":{"s":{"type":"string","maxLength":9}}}`, "/properties/s", `"maxLength"`, "String constraints"},
		{"anthropic", `{"type":"object","additionalProperties":{"type":"string"}}`, "", "other than false", "additionalProperties set to anything other than false"},
		{"anthropic", `{"type":"object","properties":{"x":{"$ref":"https://example.com/s.json"}}}`, "/properties/x", "outside the schema", "External $ref"},
		{"anthropic", `{"type":"object","$defs":{"n":{"type":"object","properties":{"child":{"$ref":"#/$defs/n"}}}},"properties":{"root":{"$ref":"#/$defs/n"}}}`, "", "recursive", "Recursive schemas"},
		{"anthropic", `{"type":"object","properties":{"l":{"type":"array","minItems":2}}}`, "/properties/l", "minItems 2", "only values 0 and 1"},
		{"gemini", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, "/additionalProperties", "no member of the Schema object", "select subset of an OpenAPI 3.0 schema object"},
		{"gemini", `{"type":"object","properties":{"a":{"type":["string","null"]}}}`, "/properties/a", "an array of types", "Required. Data type."},
		{"gemini", `{"type":"object","properties":{"a":{"description":"anything"}}}`, "/properties/a", "no type", "Required. Data type."},
		{"gemini", `{"type":"object","properties":{"a":{"type":"string","format":"email"}}}`, "/properties/a", `"email"`, "for STRING type: enum, date-time"},
	} {
		var found *Finding
		for _, f := range Grade([]byte(tc.schema), "inputSchema", tc.host) {
			if strings.Contains(f.Message, tc.has) {
				found = &f
			}
		}
		switch {
		case found == nil:
			t.Errorf("%s %s: no finding saying %q: %v", tc.host, tc.schema, tc.has, Grade([]byte(tc.schema), "inputSchema", tc.host))
		case !strings.HasPrefix(found.Path, tc.path) || !strings.Contains(found.Rule, tc.rule) || !strings.HasPrefix(found.Source, "https://"):
			t.Errorf("%s: %+v, want at %q quoting %q", tc.host, *found, tc.path, tc.rule)
		}
	}
}

// A schema that refers to itself, or nests without end, is walked to a
// bound; one that is no JSON has no finding.
func TestGradeHostile(t *testing.T) {
	loop := `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 500) + `{}` + strings.Repeat(`}}`, 500)
	for _, s := range []string{loop, deep, `{"type":`, `[]`, `"x"`} {
		for _, h := range Hosts() {
			Grade([]byte(s), "inputSchema", h.ID) // ends
		}
	}
}

func TestChoose(t *testing.T) {
	if got, err := Choose("all"); err != nil || len(got) != len(Hosts()) {
		t.Errorf("all: %v %v", got, err)
	}
	if got, err := Choose("Gemini, openai,gemini"); err != nil || strings.Join(got, ",") != "gemini,openai" {
		t.Errorf("a list: %v %v", got, err)
	}
	if _, err := Choose("openai,copilot"); err == nil || !strings.Contains(err.Error(), `no host "copilot"`) {
		t.Errorf("an unknown host: %v", err)
	}
}
