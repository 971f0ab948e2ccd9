package elicit

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mustField parses one property schema.
func mustField(t *testing.T, schema string) *field {
	t.Helper()
	fl, err := parseField("f", []byte(schema))
	if err != nil {
		t.Fatalf("parseField(%s): %v", schema, err)
	}
	return fl
}

func TestFromText(t *testing.T) {
	const (
		str     = `{"type":"string"}`
		integer = `{"type":"integer"}`
		num     = `{"type":"number"}`
		boolean = `{"type":"boolean"}`
		enum    = `{"type":"string","enum":["red","green"]}`
		titled  = `{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]}`
		legacy  = `{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]}`
		multi   = `{"type":"array","items":{"type":"string","enum":["a","b","c"]}}`
		multiT  = `{"type":"array","items":{"anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"Beta"}]}}`
	)
	tests := []struct {
		schema, in string
		want       string // JSON, or "" for an error
		wantErr    string
	}{
		{integer, "42", "42", ""},
		{integer, " -7 ", "-7", ""},
		{integer, "+5", "5", ""},
		{integer, "007", "7", ""},
		{integer, "-000", "0", ""},
		{integer, "123456789012345678901234567890", "123456789012345678901234567890", ""},
		{integer, "1.5", "", "must be an integer"},
		{integer, "1e3", "", "must be an integer"},
		{integer, "", "", "must be an integer"},
		{integer, "abc", "", "must be an integer"},
		{num, "95.5", "95.5", ""},
		{num, "-1e-3", "-1e-3", ""},
		{num, "42", "42", ""},
		{num, "1.", "", "must be a number"},
		{num, "007", "", "must be a number"},
		{num, "NaN", "", "must be a number"},
		{num, "0x10", "", "must be a number"},
		{boolean, "true", "true", ""},
		{boolean, "YES", "true", ""},
		{boolean, "1", "true", ""},
		{boolean, "False", "false", ""},
		{boolean, "no", "false", ""},
		{boolean, "0", "false", ""},
		{boolean, "y", "", "must be true or false (or yes/no, 1/0)"},
		{boolean, "maybe", "", "must be true or false (or yes/no, 1/0)"},
		{str, "007", `"007"`, ""},
		{str, "  spaced  ", `"  spaced  "`, ""},
		{str, "a<b>&c", `"a<b>&c"`, ""},
		{str, "", `""`, ""},
		{enum, "green", `"green"`, ""},
		{enum, "blue", `"blue"`, ""}, // typed, not validated: check rejects it
		{titled, "g", `"g"`, ""},
		{titled, "green", `"g"`, ""}, // a title names its value
		{titled, "2", `"2"`, ""},     // numbers pick choices only at the prompt
		{legacy, "Red", `"r"`, ""},
		{multi, "a,c", `["a","c"]`, ""},
		{multi, " a , b ,", `["a","b"]`, ""},
		{multi, "", `[]`, ""},
		{multiT, "alpha,b", `["a","b"]`, ""},
	}
	for _, tt := range tests {
		fl := mustField(t, tt.schema)
		got, err := fl.fromText(tt.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if string(got) != tt.want || gotErr != tt.wantErr {
			t.Errorf("%s fromText(%q) = %s, %q; want %s, %q", tt.schema, tt.in, got, gotErr, tt.want, tt.wantErr)
		}
		if err == nil && !json.Valid(got) {
			t.Errorf("%s fromText(%q) = %s: not JSON", tt.schema, tt.in, got)
		}
	}
}

func TestFromInput(t *testing.T) {
	tests := []struct {
		schema, in, want string
	}{
		{`{"type":"boolean"}`, "y", "true"},
		{`{"type":"boolean"}`, "N", "false"},
		{`{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]}`, "2", `"g"`},
		{`{"type":"string","enum":["x","y"]}`, "1", `"x"`},
		{`{"type":"string","enum":["x","y"]}`, "3", `"3"`},
		{`{"type":"string","enum":["1","2"]}`, "2", `"2"`}, // a value wins over a number
		{`{"type":"array","items":{"enum":["a","b","c"]}}`, "3, 1", `["c","a"]`},
		{`{"type":"integer"}`, "08", "8"},
	}
	for _, tt := range tests {
		got, err := mustField(t, tt.schema).fromInput(tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s fromInput(%q) = %s, %v; want %s", tt.schema, tt.in, got, err, tt.want)
		}
	}
}

func TestCoerceDefault(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"integer","default":30}`, "30"},
		{`{"type":"integer","default":"30"}`, "30"},
		{`{"type":"boolean","default":"true"}`, "true"},
		{`{"type":"string","default":"30"}`, `"30"`},
		{`{"type":"number","default":"lots"}`, `"lots"`}, // left for check to reject
		{`{"type":"array","items":{"enum":["a","b"]},"default":["a"]}`, `["a"]`},
		{`{"type":"string"}`, ""},
		{`{"type":"string","default":null}`, ""},
	}
	for _, tt := range tests {
		if got := string(mustField(t, tt.schema).coerceDefault()); got != tt.want {
			t.Errorf("%s: default %s, want %s", tt.schema, got, tt.want)
		}
	}
}

func TestDisplay(t *testing.T) {
	got := []string{display(json.RawMessage(`"John Doe"`)), display(json.RawMessage(`["a","b"]`)),
		display(json.RawMessage(`95.5`)), display(json.RawMessage(`true`))}
	if diff := cmp.Diff([]string{"John Doe", "a,b", "95.5", "true"}, got); diff != "" {
		t.Error(diff)
	}
}
