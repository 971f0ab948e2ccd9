package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// decodedCanonical is the canonical form as it was first made: decoded
// with UseNumber and encoded again. Canonical must give the same bytes,
// or the digests of the pin files written before would no longer match.
func decodedCanonical(raw []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errMore
	}
	return Encode(v)
}

var errMore = errors.New("more")

var canonicalSeeds = []string{
	`{"b":1,"a":[true,false,null,-0,1.50,1e5,"x"]}`,
	` { "z" : { "y" : [ ] , "x" : { } } } `,
	`{"a":1,"a":{"b":2},"c":[{"a":2,"a":3}]}`,
	`"<IMPORTANT> & \u003c \u2028 \u2029 \ud800 \n\t\b\f\u0001 \u00e9 é \"q\" \\"`,
	"\"\xff\xfe invalid\"",
	`{"\u00e9":1,"é":2,"e\u0301":3}`,
	`[1, 2 ,3]`,
	`{"description":"Adds \u0007 two.","inputSchema":{"type":"object"}}`,
	`12345678901234567890123456789`,
	`{} {}`,
	`{"a":`,
	`[` + strings.Repeat(`[`, 50) + strings.Repeat(`]`, 50) + `]`,
	`{"b":{"d":1,"c":[{"f":1,"e":2},{"e":1}],"c":0} , "a":{"x":{"z":1,"y":2}},"b":{"k":1}}`,
}

// deepSchema is an input schema nested n properties deep, its keys out of
// order at each level, as a hostile server may list it.
func deepSchema(n int) string {
	return strings.Repeat(`{"type":"object","properties":{"x":`, n) + `{"type":"string"}` + strings.Repeat(`}}`, n)
}

func TestCanonicalIsTheDecodedForm(t *testing.T) {
	deep := []string{ // too large to seed the fuzzing, which minimizes what it finds
		deepSchema(3000), // out of order at each level
		strings.Repeat(`{"a":`, 4000) + `1` + strings.Repeat(`}`, 4000),
		strings.Repeat(`{"b":1,"a":[`, 3000) + strings.Repeat(`]}`, 3000),
	}
	for _, s := range append(canonicalSeeds, deep...) {
		checkCanonical(t, []byte(s))
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkCanonical)
}

func checkCanonical(t *testing.T, raw []byte) {
	if !json.Valid(raw) {
		if got, err := Canonical(raw); err == nil {
			t.Fatalf("Canonical(%q) = %q, no error", raw, got)
		}
		return // the decoded form took some texts that are no one value ("0}")
	}
	want, wantErr := decodedCanonical(raw)
	got, err := Canonical(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("Canonical(%q): error %v, the decoded form's %v", raw, err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Canonical(%q) = %q, want %q", raw, got, want)
	}
}

// BenchmarkCanonical writes the canonical form of a list of 1,000 tools,
// keys out of order, and of a schema nested 3,000 properties deep, which
// must cost about its size, not its size times its depth.
func BenchmarkCanonical(b *testing.B) {
	var tools []string
	for i := range 1000 {
		tools = append(tools, fmt.Sprintf(`{"name":"t%d","description":"Tool %d.","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"A query."},"n":{"type":"integer"}},"required":["q"]}}`, i, i))
	}
	for _, tc := range []struct{ name, doc string }{
		{"1000 tools", `{"tools":[` + strings.Join(tools, ",") + `]}`},
		{"3000 deep", deepSchema(3000)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.doc)))
			for b.Loop() {
				if _, err := Canonical([]byte(tc.doc)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Same: one document written otherwise (spacing, key order, escapes, a
// key given twice) is the same; another value is not; text that is no
// JSON is none.
func TestSame(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{`{"name":"s","version":"1"}`, "{ \"version\": \"1\",\n  \"name\": \"s\" }", true},
		{`{"i":"<b> & é"}`, `{"i":"\u003cb\u003e \u0026 \u00e9"}`, true},
		{`{"a":1,"a":2}`, `{"a":2}`, true},
		{`{"a":[1,2]}`, `{"a":[2,1]}`, false},
		{`{"version":"1"}`, `{"version":"2"}`, false},
		{`{"n":1}`, `{"n":1.0}`, false}, // a number as written
		{``, `{"a":`, true},
		{`{}`, ``, false},
	} {
		if got := Same([]byte(tt.a), []byte(tt.b)); got != tt.same {
			t.Errorf("Same(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}
