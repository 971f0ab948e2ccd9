package rawjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// validCases are texts on every edge of the grammar, valid or not.
var validCases = []string{
	``, ` `, `1`, ` 1 `, `-`, `-0`, `-01`, `01`, `0.`, `0.5`, `.5`, `1e`, `1e+`, `1E-7`, `1e5.0`, `-1.5e+10`,
	`12345678901234567890123`, `1 2`, `1,`, `+1`, `0x1`, `Infinity`, `NaN`,
	`true`, `tru`, `truex`, `false`, `null`, `nul`, `True`, `[true,false,null]`,
	`""`, `"`, `"a`, `"\"`, `"\\"`, `"\/"`, `"\x"`, `"\u00e9"`, `"\u00E9"`, `"\u00g9"`, `"\u00"`, `"\ud800"`,
	"\"tab\there\"", "\"nl\nhere\"", "\"\x00\"", "\"\x1f\"", "\"\x7f\"", "\"\xff\xfe\"", "\"é\"",
	`"<a>&amp;"`, "\"\u2028\u2029\"", "\"\xe2\x80\"", "\"\xe2\x80\xa8", "\"\xe2\x80\xa7\"",
	`[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `[1,2`, `[[[]]]`, `[[[]]`, `]`, `[}`,
	`{}`, `{ }`, `{"a":1}`, `{"a" : 1 , "b" : [ ] }`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`,
	`{1:2}`, `{"a":1}}`, `{"a":{"b":{"c":[{}]}}}`, "\t\r\n{\"a\":1}\n", `{"a":1}x`, "\xef\xbb\xbf{}",
	`{"\u0069d":1}`, `{"":""}`,
	`"\ud83d\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\udc00\ud800"`, `"\ud800\ud800\udc00"`, `"\ud83d\ude0"`,
	"\"a\xc3\"", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"", `"\"\\\/\b\f\n\r\t"`, ` "x" `,
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range validCases {
		checkValid(t, []byte(in))
	}
}

// checkValid fails unless Valid and Marshaled say what encoding/json says.
func checkValid(t *testing.T, in []byte) {
	t.Helper()
	want := json.Valid(in)
	if got := Valid(in); got != want {
		t.Errorf("Valid(%q) = %v, json.Valid says %v", in, got, want)
	}
	valid, marshaled := Marshaled(in)
	if valid != want {
		t.Errorf("Marshaled(%q) valid = %v, json.Valid says %v", in, valid, want)
	}
	if want {
		out, err := json.Marshal(json.RawMessage(in))
		if err != nil {
			t.Fatalf("json.Marshal(%q): %v", in, err)
		}
		if same := bytes.Equal(out, in); marshaled != same {
			t.Errorf("Marshaled(%q) = %v, but json.Marshal writes %q", in, marshaled, out)
		}
	}
}

func TestValidDepth(t *testing.T) {
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		arrays := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		objects := strings.Repeat(`{"a":`, depth-1) + "{}" + strings.Repeat("}", depth-1)
		for _, in := range []string{arrays, objects} {
			if got, want := Valid([]byte(in)), json.Valid([]byte(in)); got != want || want != (depth <= maxDepth) {
				t.Errorf("depth %d: Valid = %v, json.Valid = %v", depth, got, want)
			}
		}
	}
}

func TestFields(t *testing.T) {
	in := []byte(` {"a" : 1, "b\u0022":"x", "\u0069d": [1, {"c":2}] } `)
	fields, err := Fields(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fields {
		key, err := f.Key()
		if err != nil {
			t.Fatal(err)
		}
		if subSliceOffset(in, f.Value) < 0 || subSliceOffset(in, f.RawKey) < 0 {
			t.Errorf("member %q is not a sub-slice of the input", key)
		}
		got = append(got, key+"="+string(f.Value))
	}
	if d := cmp.Diff([]string{`a=1`, `b"="x"`, `id=[1, {"c":2}]`}, got); d != "" {
		t.Errorf("fields (-want +got):\n%s", d)
	}
	if !fields[2].KeyIs("id") || fields[2].KeyIs("i") || !fields[0].KeyIs("a") || fields[0].KeyIs("b") || !fields[1].KeyIs(`b"`) {
		t.Error("KeyIs does not compare decoded keys")
	}
	// The error is ForEachMember's, and dst comes back as it was given.
	dst := []Field{{Value: []byte("kept")}}
	for in, want := range map[string]string{
		`{"a":1,}`: "invalid JSON at byte 8",
		`[1]`:      "not a JSON object",
		`{"a":1}x`: "invalid JSON at byte 8",
		``:         "invalid JSON",
	} {
		got, err := Fields(dst, []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Fields(%q) error = %v, want %q", in, err, want)
		}
		if len(got) != 1 || string(got[0].Value) != "kept" {
			t.Errorf("Fields(%q) changed dst: %q", in, got)
		}
	}
}

// checkString holds String to encoding/json's decoding of a string, and
// of anything else to its error.
func checkString(t *testing.T, in []byte) {
	t.Helper()
	var want string
	wantErr := json.Unmarshal(in, &want)
	got, err := String(in)
	if (err == nil) != (wantErr == nil) || got != want {
		t.Errorf("String(%q) = %q, %v; encoding/json gives %q, %v", in, got, err, want, wantErr)
	}
	if len(in) > 0 && in[0] == '"' { // what the readers of values read
		s, end := ReadString(in, 0)
		if wantErr == nil && (end < 0 || s != want) || end == len(in) && wantErr != nil {
			t.Errorf("ReadString(%q) = %q, %d; encoding/json gives %q, %v", in, s, end, want, wantErr)
		}
	}
}

func TestScanLiteral(t *testing.T) {
	for _, tc := range []struct {
		data string
		i    int
		lit  string
		want int
	}{
		{"true", 0, "true", 4},
		{"[null]", 1, "null", 5},
		{"fals", 0, "false", -1},
		{"nul", 0, "null", -1},
		{"trUe", 0, "true", -1},
		{" null", 0, "null", -1},
	} {
		if got := ScanLiteral([]byte(tc.data), tc.i, tc.lit); got != tc.want {
			t.Errorf("ScanLiteral(%q, %d, %q) = %d, want %d", tc.data, tc.i, tc.lit, got, tc.want)
		}
	}
}

func TestString(t *testing.T) {
	for _, in := range validCases {
		checkString(t, []byte(in))
	}
}

// FuzzValid holds Valid and Marshaled to encoding/json's answers, String
// to its decoding of strings, Fields
// to ForEachValidMember's walk, and ScanFields and ScanElements to Fields
// and Elements where the input is valid (and to not failing where not).
func FuzzValid(f *testing.F) {
	for _, in := range validCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkValid(t, in)
		checkString(t, in)
		scanned := ScanFields(nil, in) // any input: it must not fail
		var elements [][]byte
		ScanElements(in, func(el []byte) { elements = append(elements, el) })
		if want, ok := Elements(nil, in); ok {
			if d := cmp.Diff(want, elements); d != "" {
				t.Errorf("ScanElements(%q) differs from Elements (-want +got):\n%s", in, d)
			}
		}
		fields, err := Fields(nil, in)
		if err != nil {
			return
		}
		if d := cmp.Diff(fields, scanned); d != "" {
			t.Errorf("ScanFields(%q) differs from Fields (-want +got):\n%s", in, d)
		}
		var walked []Field
		ForEachValidRawMember(in, func(_ string, rawKey, value []byte) error {
			walked = append(walked, Field{rawKey, value})
			return nil
		})
		if d := cmp.Diff(walked, fields); d != "" {
			t.Errorf("Fields(%q) differs from the walk (-walk +fields):\n%s", in, d)
		}
	})
}

// PlainRun stops at the first byte a string does not hold as it is,
// wherever it falls among eight.
func TestPlainRun(t *testing.T) {
	for i := range 20 {
		for _, stop := range []byte{'"', '\\', 0x00, 0x1f, '\n'} {
			data := []byte(strings.Repeat("é<>&\u2028", 4))[:20]
			data[i] = stop
			if got := PlainRun(data); got != i {
				t.Errorf("%q: %d, want %d", data, got, i)
			}
		}
	}
	if got := PlainRun([]byte("plain text of 23 bytes.")); got != 23 {
		t.Errorf("no stop: %d", got)
	}
}
