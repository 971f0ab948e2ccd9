package jq

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeCases are texts whose values must be what a json.Decoder with
// UseNumber makes of them: numbers as their text, strings with every kind
// of escape, invalid UTF-8 and lone surrogates, repeated keys, empty
// containers, and texts that are not one valid value.
var decodeCases = []string{
	`null`, `true`, `false`, ` 0 `, `-0`, `-0.0`, `1e400`, `123456789012345678901234567890`, `1.50`, `-12.5E-3`,
	`""`, `"plain"`, `"é and 日本"`, `"say \"hi\" \\ \/ \b\f\n\r\t"`, `"\u00e9\u00E9"`, `"\ud83d\ude00"`,
	`"\ud83d"`, `"\ude00"`, `"\ud83d\u0041"`, `"\ud83dx"`, `"\ud83d\ud83d\ude00"`, "\"\xff\xfe\"", "\"a\xe2\x82\"",
	"\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"", "\"<&>\u2028\"", "\"bad\xffthen\\nescape\"",
	`[]`, `{}`, `[1,"a",[2,[3]],{"b":null}]`, `{"a":1,"a":2}`, `{"a":{"a":{"a":[]}}}`, `{"\u0061":1,"a\u0000b":2}`,
	"{\"k\xff\":1}", `[{"type":"text","text":"x"},{"type":"text","text":"y"}]`, " \t\r\n[ 1 , 2 ] \n",
	``, ` `, `[1,]`, `{"a"}`, `tru`, `[1 2]`, `1 2`, `{"a":1} x`, `[1]]`, `"\x"`, "\"\x01\"", `01`, `-`, `1.`,
}

// Deeper than encoding/json allows is its error; as deep as it allows is
// a value.
func TestDecodeExactDepth(t *testing.T) {
	for _, depth := range []int{maxDepth, maxDepth + 1} {
		in := []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth))
		_, wantErr := decodeStream(in)
		v, err := Decode(in)
		if (err != nil) != (depth > maxDepth) || err != nil && err.Error() != wantErr.Error() {
			t.Errorf("depth %d: error %v, want %v", depth, err, wantErr)
		}
		for n := 1; err == nil && n < depth; n++ {
			v = v.([]any)[0]
		}
		if err == nil && len(v.([]any)) != 0 {
			t.Errorf("depth %d: the innermost array is %v", depth, v)
		}
	}
}

func TestDecodeExactAgreesWithDecoder(t *testing.T) {
	for _, in := range decodeCases {
		checkDecode(t, []byte(in))
	}
}

// checkDecode fails unless Decode and DecodeJSON give what they gave
// through encoding/json alone.
func checkDecode(t *testing.T, in []byte) {
	t.Helper()
	want, wantErr := decodeStream(in)
	got, err := Decode(in)
	if (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error() {
		t.Errorf("Decode(%.60q) error %v, want %v", in, err, wantErr)
	}
	if !reflect.DeepEqual(want, got) { // cmp.Diff only then: it is slow on deep nesting
		t.Errorf("Decode(%.60q) (-decoder +got):\n%s", in, cmp.Diff(want, got))
	}
	got, err = DecodeJSON(in)
	if validValue := wantErr == nil && func() bool { _, ok := decodeValue(in); return ok }(); validValue {
		if err != nil {
			t.Errorf("DecodeJSON(%.60q): %v", in, err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("DecodeJSON(%.60q) (-decoder +got):\n%s", in, cmp.Diff(want, got))
		}
	} else if err == nil && wantErr != nil {
		t.Errorf("DecodeJSON(%.60q) = %v, want an error", in, got)
	}
}

func FuzzDecodeExact(f *testing.F) {
	for _, in := range decodeCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkDecode(t, in) })
}

// DecodeString decodes as Decode does, its strings without escapes parts
// of the text: an 8 MiB string costs no copy of it.
func TestDecodeString(t *testing.T) {
	for _, text := range decodeCases {
		want, wantErr := Decode([]byte(text))
		got, err := DecodeString(text)
		if !reflect.DeepEqual(got, want) || (err == nil) != (wantErr == nil) {
			t.Errorf("%q: %#v, %v; Decode gives %#v, %v", text, got, err, want, wantErr)
		}
	}
	big := `{"s": "` + strings.Repeat("x", 8<<20) + `"}`
	var v any
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v, _ = DecodeString(big)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 || len(v.(map[string]any)["s"].(string)) != 8<<20 {
		t.Errorf("an 8 MiB string decoded with %d KiB allocated", got>>10)
	}
}
