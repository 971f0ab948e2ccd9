package loaddata

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// The line checker agrees with json.Valid on any bytes, however they are
// cut, and finds the value's text within the white space around it.
func FuzzLineChecker(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, -2.5e+3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]}`, ` [ ] `, `{}`, `0`, `-0.0E-0`, `01`, `1.`, `1e`, `-`, `.5`, `+1`,
		`"\u12g4"`, `"a` + "\x01" + `"`, `"` + "\xff\xfe" + `"`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[}`, `{]`, `tru`, `nul`, `truex`,
		`1 2`, `"a" "b"`, "\t\r 7 \r", ``, `   `, `[[[]]]`, `{"a":{"b":[{}]}}`, `"` + strings.Repeat("x", 100) + `"`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001), `["\u0022", "\\\"", "a\u 123"]`, "\x00", `[` + "\x00" + `]`,
	} {
		f.Add([]byte(s), uint16(3))
	}
	for _, s := range testkit.HostileJSON() {
		f.Add(s, uint16(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		if bytes.IndexByte(data, '\n') >= 0 {
			data = bytes.ReplaceAll(data, []byte("\n"), []byte(" "))
		}
		c := newJSONLine()
		step := int(cut)%7 + 1
		for i := 0; i < len(data); i += step {
			c.write(data[i:min(i+step, len(data))])
		}
		want := json.Valid(data)
		if c.valid() != want {
			t.Fatalf("%q cut every %d bytes: valid %v, json.Valid %v", data, step, c.valid(), want)
		}
		if want {
			if value := bytes.Trim(data, " \t\r"); !bytes.Equal(data[c.start:c.end], value) {
				t.Fatalf("%q: the value is %q, found %q", data, value, data[c.start:c.end])
			}
		}
	})
}

// A row that is one long string with escapes goes by without being held:
// its escapes, but \u, are valid wherever they stand, as its plain bytes.
func TestLineCheckerHoldsNoEscapes(t *testing.T) {
	c := newJSONLine()
	c.write([]byte(`{"t": "` + strings.Repeat(`line \"q\" \\ é\n`, 1<<16) + `\u00e9"}`))
	if !c.valid() || len(c.held) > 32 {
		t.Errorf("valid %v, holding %d bytes: %.80q", c.valid(), len(c.held), c.held)
	}
}
