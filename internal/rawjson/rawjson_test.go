package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

type member struct {
	Key   string
	Value string
	Off   int // offset of Value inside the input
}

// members runs ForEachMember and records each member with the offset of its
// value inside data, failing the test when a value is not a sub-slice of data.
func members(t testing.TB, data []byte) ([]member, error) {
	t.Helper()
	var got []member
	err := ForEachMember(data, func(k string, v []byte) error {
		off := subSliceOffset(data, v)
		if off < 0 {
			t.Errorf("value %q of %q is not a sub-slice of the input", v, k)
		}
		got = append(got, member{Key: k, Value: string(v), Off: off})
		return nil
	})
	return got, err
}

// subSliceOffset returns where sub starts inside data, or -1 when sub does not
// share data's memory.
func subSliceOffset(data, sub []byte) int {
	if len(sub) == 0 || len(data) == 0 {
		return -1
	}
	d := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	s := uintptr(unsafe.Pointer(unsafe.SliceData(sub)))
	if s < d || s+uintptr(len(sub)) > d+uintptr(len(data)) {
		return -1
	}
	return int(s - d)
}

func TestForEachMember(t *testing.T) {
	// seq pairs keys and values, finding each value in the input after the
	// previous one.
	seq := func(in string, kv ...string) []member {
		var out []member
		from := 0
		for i := 0; i < len(kv); i += 2 {
			off := from + bytes.Index([]byte(in[from:]), []byte(kv[i+1]))
			out = append(out, member{kv[i], kv[i+1], off})
			from = off + len(kv[i+1])
		}
		return out
	}
	tests := []struct {
		name string
		in   string
		want func(in string) []member
	}{
		{"order preserved", `{"b":1,"a":2,"c":3}`, func(in string) []member {
			return []member{{"b", "1", 5}, {"a", "2", 11}, {"c", "3", 17}}
		}},
		{"escaped quotes and backslashes", `{"s":"say \"hi\" \\","k\"e\\y":"\\\"","u":"\u00e9\n"}`, func(in string) []member {
			return seq(in, "s", `"say \"hi\" \\"`, `k"e\y`, `"\\\""`, "u", `"\u00e9\n"`)
		}},
		{"brackets inside strings", `{"o":{"a":[1,{"b":"]}"}],"c":"{["},"n":[[],{},"}"],"z":0}`, func(in string) []member {
			return seq(in, "o", `{"a":[1,{"b":"]}"}],"c":"{["}`, "n", `[[],{},"}"]`, "z", "0")
		}},
		{"numbers", `{"a":1e2,"b":-0.0,"c":-12.5E-3,"d":0,"e":12345678901234567890}`, func(in string) []member {
			return seq(in, "a", "1e2", "b", "-0.0", "c", "-12.5E-3", "d", "0", "e", "12345678901234567890")
		}},
		{"literals", `{"t":true,"f":false,"n":null}`, func(in string) []member {
			return seq(in, "t", "true", "f", "false", "n", "null")
		}},
		{"whitespace everywhere", " \n\t{ \r\n\"a\" \t:\n 1e2 ,\"b\"  :  [ 1 , \"x y\" ] \n,\"c\":{ } }\n ", func(in string) []member {
			return seq(in, "a", "1e2", "b", `[ 1 , "x y" ]`, "c", "{ }")
		}},
		{"duplicate keys both reported", `{"a":1,"a":2}`, func(in string) []member {
			return []member{{"a", "1", 5}, {"a", "2", 11}}
		}},
		{"escaped key decoded", `{"\u0041\t":"v"}`, func(in string) []member {
			return seq(in, "A\t", `"v"`)
		}},
		{"empty object", `{}`, func(string) []member { return nil }},
		{"empty object with spaces", " { \n } ", func(string) []member { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := members(t, []byte(tt.in))
			if err != nil {
				t.Fatalf("ForEachMember(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want(tt.in), got); diff != "" {
				t.Errorf("ForEachMember(%q) members (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestForEachMemberRejects(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		notObject bool // a valid JSON value that is not an object
	}{
		{"empty input", "", false},
		{"only spaces", "  \n", false},
		{"unterminated", `{"a":1`, false},
		{"missing value", `{"a":}`, false},
		{"trailing comma", `{"a":1,}`, false},
		{"two objects", `{"a":1} {"b":2}`, false},
		{"trailing garbage", `{"a":1}x`, false},
		{"single quotes", `{'a':1}`, false},
		{"unquoted key", `{a:1}`, false},
		{"array", `[{"a":1}]`, true},
		{"empty array", `[]`, true},
		{"string", `"{}"`, true},
		{"number", `1`, true},
		{"null", `null`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := 0
			err := ForEachMember([]byte(tt.in), func(string, []byte) error { called++; return nil })
			if err == nil {
				t.Fatalf("ForEachMember(%q) = nil, want an error", tt.in)
			}
			if got := errors.Is(err, errNotObject); got != tt.notObject {
				t.Errorf("ForEachMember(%q) = %v; errors.Is(err, errNotObject) = %v, want %v", tt.in, err, got, tt.notObject)
			}
			if called != 0 {
				t.Errorf("ForEachMember(%q) called fn %d times for rejected input", tt.in, called)
			}
		})
	}
}

func TestForEachMemberStopsOnCallbackError(t *testing.T) {
	var keys []string
	err := ForEachMember([]byte(`{"a":1,"b":2,"c":3}`), func(k string, _ []byte) error {
		keys = append(keys, k)
		if k == "b" {
			return io.ErrUnexpectedEOF
		}
		return nil
	})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("ForEachMember error = %v, want the callback's error", err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, keys); diff != "" {
		t.Errorf("keys visited (-want +got):\n%s", diff)
	}
}

func TestIsObject(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{}`, true}, {" \n\t{", true}, {`[]`, false}, {`"{"`, false}, {``, false}, {`   `, false}, {`null`, false},
	}
	for _, tt := range tests {
		if got := IsObject([]byte(tt.in)); got != tt.want {
			t.Errorf("IsObject(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// decodeOrdered is an independent oracle: the object's members in order, each
// value as encoding/json's Decoder sees it.
func decodeOrdered(data []byte) ([]member, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	if _, err := d.Token(); err != nil {
		return nil, err
	}
	var out []member
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{Key: tok.(string), Value: string(v)})
	}
	return out, nil
}

func FuzzForEachMember(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"b":1,"a":2}`, `{"s":"a\"b\\"}`, `{"k\"\\":"}{]["}`,
		`{"o":{"a":[1,{"b":"]}"}]},"n":[[],{}]}`, `{"x":1e2,"y":-0.0,"z":-1.5E+3}`,
		" \n{ \"a\" :\t[ 1 , 2 ] ,\r\n\"b\" : { \"c\" : null } }\n", `{"a":1,"a":2}`,
		`{"\u00e9":"\ud83d\ude00"}`, `[]`, `[{"a":1}]`, `"x"`, `1`, `null`, `{"a":}`, `{"a":1}x`, ``,
		`{00`, `{"a"`, `{"a":`, `{"a" `, `{"a":1,`, `{`, `[1,`, `[`, // not valid: the walks for valid JSON read them without a panic
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The walks for valid JSON, given any other (a caller that was
		// wrong about it), neither panic nor hand out bytes past data's.
		within := func(what string, b []byte) {
			if len(b) > len(data) || len(b) > 0 && !bytes.Contains(data, b) {
				t.Fatalf("%s handed out %q, not within %q", what, b, data)
			}
		}
		ForEachValidRawMember(data, func(_ string, rawKey, value []byte) error {
			within("ForEachValidRawMember", rawKey)
			within("ForEachValidRawMember", value)
			return nil
		})
		ForEachElement(data, func(_ int, el []byte) { within("ForEachElement", el) })
		within("Member", Member(data, "a"))

		got, err := members(t, data)
		if !json.Valid(data) {
			if err == nil {
				t.Fatalf("ForEachMember accepted invalid JSON %q", data)
			}
			return
		}
		var asMap map[string]json.RawMessage
		if json.Unmarshal(data, &asMap) != nil || asMap == nil {
			// Valid JSON that is not an object.
			if !errors.Is(err, errNotObject) {
				t.Fatalf("ForEachMember(%q) = %v, want errNotObject", data, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("ForEachMember(%q) = %v on a valid object", data, err)
		}

		// The members, in order and byte-exact, match encoding/json's Decoder.
		want, err := decodeOrdered(data)
		if err != nil {
			t.Fatalf("oracle failed on %q: %v", data, err)
		}
		for i := range got {
			got[i].Off = 0
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("ForEachMember(%q) (-decoder +got):\n%s", data, diff)
		}

		// Re-assembled, the members mean what the input means.
		var b bytes.Buffer
		b.WriteByte('{')
		for i, m := range got {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(m.Key)
			b.Write(k)
			b.WriteByte(':')
			b.WriteString(m.Value)
		}
		b.WriteByte('}')
		var orig, again map[string]any
		if err := json.Unmarshal(data, &orig); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b.Bytes(), &again); err != nil {
			t.Fatalf("re-assembled %q is not JSON: %v", b.Bytes(), err)
		}
		if diff := cmp.Diff(orig, again); diff != "" {
			t.Fatalf("re-assembled %q differs from %q (-orig +again):\n%s", b.Bytes(), data, diff)
		}
	})
}

func TestDepth(t *testing.T) {
	for in, want := range map[string]int{
		`1`:                           0,
		`"[{"`:                        0,
		`[]`:                          1,
		`{}`:                          1,
		`[[]]`:                        2,
		`{"a":[1,{"b":"]}"}],"c":{}}`: 3,
		` [ [ ] , [ [ ] ] ] `:         3,
		`{"\"[":["\\",[[]]]}`:         4,
	} {
		if got := Depth([]byte(in)); got != want {
			t.Errorf("Depth(%s) = %d, want %d", in, got, want)
		}
	}
}

func TestMember(t *testing.T) {
	obj := []byte(`{"a":1,"b":{"c":"x"},"a":2}`)
	for _, tt := range []struct{ key, want string }{{"a", "1"}, {"b", `{"c":"x"}`}, {"z", ""}} {
		if got := string(Member(obj, tt.key)); got != tt.want {
			t.Errorf("Member(%s) = %q, want %q", tt.key, got, tt.want)
		}
	}
	if Member(nil, "a") != nil || Member([]byte(`[1]`), "a") != nil {
		t.Error("Member of no object found something")
	}
}

// Exact reads a member as the other side will: a key written twice, or
// in two cases, is no member to check; With and Without edit one member
// in place, the others as written.
func TestMembers(t *testing.T) {
	for _, tt := range []struct {
		obj, key, want string
		ok             bool
	}{
		{`{"name":"a"}`, "name", `"a"`, true},
		{`{"name":"a","Name":"b"}`, "name", "", false},
		{`{"name":"a","name":"b"}`, "name", "", false},
		{`{"Name":"b"}`, "name", "", false},
		{`{"other":1}`, "name", "", true},
		{``, "name", "", true},
		{`[1]`, "name", "", false},
	} {
		got, ok := Exact([]byte(tt.obj), tt.key)
		if ok != tt.ok || ok && string(got) != tt.want {
			t.Errorf("Exact(%s, %q) = %s, %v; want %s, %v", tt.obj, tt.key, got, ok, tt.want, tt.ok)
		}
	}
	if s, ok := ExactString([]byte(`{"name":5}`), "name"); ok || s != "" {
		t.Errorf("a number read as a string: %q %v", s, ok)
	}
	if got := string(With([]byte(`{"a":1,"b":2}`), "a", []byte(`"x"`))); got != `{"a":"x","b":2}` {
		t.Errorf("With in place: %s", got)
	}
	if got := string(With([]byte(`{}`), "c", []byte(`3`))); got != `{"c":3}` {
		t.Errorf("With added: %s", got)
	}
	if got := string(With([]byte(`[]`), "c", []byte(`3`))); got != `[]` {
		t.Errorf("With on an array: %s", got)
	}
	if got := string(Without([]byte(`{"a":1,"A":2,"b":3}`), "a")); got != `{"b":3}` {
		t.Errorf("Without: %s", got)
	}
	if got := string(Without([]byte(`{"b":3}`), "a")); got != `{"b":3}` {
		t.Errorf("Without nothing to take: %s", got)
	}
}

func TestDecodeLoose(t *testing.T) {
	type t2 struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	v := t2{A: 7, B: "kept"}
	DecodeLoose([]byte(`{"a":`), &v)
	if v != (t2{A: 7, B: "kept"}) {
		t.Errorf("text that is not JSON changed v: %+v", v)
	}
	DecodeLoose([]byte(`{"a":"x","b":"set"}`), &v)
	if v != (t2{A: 7, B: "set"}) {
		t.Errorf("a member of the wrong type: got %+v, want a kept and b set", v)
	}
	DecodeLoose([]byte(`{}`), nil) // no pointer: no panic
}
