package rawjson

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// UnquoteInPlace decodes every literal as Unquote does, in its own
// bytes; Encoded says which literals encoding/json (HTML as it is) writes
// as they are, so that copying one is writing its value.
func TestUnquoteInPlaceAndEncoded(t *testing.T) {
	encode := func(s string) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	for _, tt := range []struct {
		lit     string
		encoded bool
	}{
		{`""`, true},
		{`"plain text"`, true},
		{`"a \"quoted\" \\ line\nand\ttab\r\b\f"`, true},
		{`"<tag> & é 中 😀"`, true},
		{`"\u0000\u001f\u007f"`, false}, // \u007f: written as it is
		{`"\u0000\u001f"`, true},
		{`"\u001F"`, false},
		{`"\u000a"`, false},
		{`"\/"`, false},
		{`"\u00e9"`, false},
		{`"\u2028\u2029"`, true},
		{"\"\u2028\"", false},
		{`"\ud83d\ude00 pair"`, false},
		{`"\ud83d lone"`, false},
		{`"\ude00\ud83d reversed"`, false},
		{"\"\xff invalid\"", false},
	} {
		lit := []byte(tt.lit)
		end, escapes, nonASCII := ScanString(lit, 0)
		if end != len(lit) {
			t.Fatalf("%s is no literal", tt.lit)
		}
		want := Unquote(lit, escapes, nonASCII)
		if got := Encoded(lit); got != tt.encoded {
			t.Errorf("Encoded(%s) = %v, want %v", tt.lit, got, tt.encoded)
		}
		if tt.encoded && encode(want) != tt.lit {
			t.Errorf("%s is Encoded, but encoding/json writes %s", tt.lit, encode(want))
		}
		if !tt.encoded && encode(want) == tt.lit {
			t.Errorf("%s is not Encoded, but encoding/json writes it so", tt.lit)
		}
		if !utf8.Valid(lit) {
			continue // UnquoteInPlace is for valid UTF-8
		}
		if got := UnquoteInPlace(bytes.Clone(lit)); string(got) != want {
			t.Errorf("UnquoteInPlace(%s) = %q, want %q", tt.lit, got, want)
		}
	}
}
