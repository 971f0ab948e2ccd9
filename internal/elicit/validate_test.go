package elicit

import (
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		schema, value, want string // want "" means valid
	}{
		{`{"type":"string"}`, `"x"`, ""},
		{`{"type":"string"}`, `5`, "must be a string"},
		{`{"type":"string","minLength":3}`, `"ab"`, "must be at least 3 characters long"},
		{`{"type":"string","minLength":3}`, `"äöü"`, ""}, // characters, not bytes
		{`{"type":"string","maxLength":2}`, `"abc"`, "must be at most 2 characters long"},
		{`{"type":"string","format":"email"}`, `"a@example.com"`, ""},
		{`{"type":"string","format":"email"}`, `"a@b@example.com"`, "must be an email address (name@example.com)"},
		{`{"type":"string","format":"email"}`, `"a@localhost"`, "must be an email address (name@example.com)"},
		{`{"type":"string","format":"email"}`, `"@example.com"`, "must be an email address (name@example.com)"},
		{`{"type":"string","format":"email"}`, `"a@example."`, "must be an email address (name@example.com)"},
		{`{"type":"string","format":"uri"}`, `"https://example.com/x"`, ""},
		{`{"type":"string","format":"uri"}`, `"urn:isbn:123"`, ""},
		{`{"type":"string","format":"uri"}`, `"example.com/x"`, "must be a URI with a scheme (https://...)"},
		{`{"type":"string","format":"date"}`, `"2025-11-25"`, ""},
		{`{"type":"string","format":"date"}`, `"2025-13-01"`, "must be a date (YYYY-MM-DD)"},
		{`{"type":"string","format":"date"}`, `"25.11.2025"`, "must be a date (YYYY-MM-DD)"},
		{`{"type":"string","format":"date-time"}`, `"2025-11-25T10:00:00+01:00"`, ""},
		{`{"type":"string","format":"date-time"}`, `"2025-11-25 10:00"`, "must be an RFC 3339 date-time (2006-01-02T15:04:05Z)"},
		{`{"type":"string","format":"color"}`, `"anything"`, ""}, // unknown formats pass
		{`{"type":"string","pattern":"^[A-Z]{3}$"}`, `"ABC"`, ""},
		{`{"type":"string","pattern":"^[A-Z]{3}$"}`, `"ABCD"`, `must match the pattern "^[A-Z]{3}$"`},
		{`{"type":"string","pattern":"[0-9]"}`, `"a1b"`, ""}, // unanchored, as in JSON Schema
		{`{"type":"string","pattern":"(?=x)"}`, `"y"`, ""},   // not Go syntax: not checked
		{`{"type":"integer","minimum":0,"maximum":120}`, `30`, ""},
		{`{"type":"integer","minimum":0,"maximum":120}`, `30.0`, ""},
		{`{"type":"integer","minimum":0,"maximum":120}`, `150`, "must be at most 120"},
		{`{"type":"integer","minimum":0,"maximum":120}`, `-1`, "must be at least 0"},
		{`{"type":"integer"}`, `1.5`, "must be an integer"},
		{`{"type":"integer"}`, `"3"`, "must be an integer"},
		{`{"type":"integer","maximum":9007199254740993}`, `9007199254740994`, "must be at most 9007199254740993"},
		{`{"type":"integer","maximum":9007199254740993}`, `9007199254740993`, ""},
		{`{"type":"number","minimum":0.5}`, `0.5`, ""},
		{`{"type":"number","minimum":0.5}`, `0.49`, "must be at least 0.5"},
		{`{"type":"number","maximum":1e2}`, `100.5`, "must be at most 1e2"},
		{`{"type":"number"}`, `true`, "must be a number"},
		{`{"type":"boolean"}`, `true`, ""},
		{`{"type":"boolean"}`, `"true"`, "must be true or false"},
		{`{"type":"string","enum":["a","b","c"]}`, `"b"`, ""},
		{`{"type":"string","enum":["a","b","c"]}`, `"d"`, `must be one of "a", "b" or "c"`},
		{`{"type":"string","oneOf":[{"const":"r","title":"Red"}]}`, `"Red"`, `must be one of "r"`},
		{`{"type":"array","items":{"enum":["a","b"]}}`, `["a","b"]`, ""},
		{`{"type":"array","items":{"enum":["a","b"]}}`, `[]`, ""},
		{`{"type":"array","items":{"enum":["a","b"]}}`, `["a","x"]`, `must be a list of "a" or "b"`},
		{`{"type":"array","items":{"enum":["a","b"]}}`, `"a"`, `must be a list of "a" or "b"`},
		{`{"type":"array","items":{"enum":["a","b"]}}`, `[1]`, `must be a list of "a" or "b"`},
		{`{"type":"array","items":{"enum":["a","b"]},"minItems":1}`, `[]`, "must have at least 1 choice"},
		{`{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]},"maxItems":1}`, `["a","b"]`, "must have at most 1 choice"},
	}
	for _, tt := range tests {
		if got := mustField(t, tt.schema).check([]byte(tt.value)); got != tt.want {
			t.Errorf("%s check(%s) = %q, want %q", tt.schema, tt.value, got, tt.want)
		}
	}
}
