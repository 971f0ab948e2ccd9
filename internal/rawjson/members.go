package rawjson

import (
	"encoding/json"
	"strings"
)

// Exact returns the member key of obj as written, for a check that must
// read it as the other side will. ok is false when obj holds key twice,
// or holds it under another case as well (a decoder would take one and a
// server may read the other), or is not an object when it is there at
// all. A missing member is (nil, true); so is a missing obj.
func Exact(obj []byte, key string) (value []byte, ok bool) {
	if len(obj) == 0 || string(obj) == "null" {
		return nil, true
	}
	seen := 0
	err := ForEachMember(obj, func(k string, v []byte) error {
		if strings.EqualFold(k, key) {
			seen++
			if k == key {
				value = v
			}
		}
		return nil
	})
	return value, err == nil && (seen == 0 || seen == 1 && value != nil)
}

// ExactString is Exact for a string member; one of another type is not
// ok.
func ExactString(obj []byte, key string) (string, bool) {
	raw, ok := Exact(obj, key)
	if !ok || raw == nil {
		return "", ok
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// Key is the string member of a valid JSON object named exactly key (not
// in another case; the last when it is there twice, a later null leaving
// it, as encoding/json does), "" when there is none or obj is no object.
// It is the one reader of an item's name or URI by which an item listed
// twice is counted, before the rest of the item is decoded.
func Key(obj []byte, key string) string {
	var s string
	ForEachValidMember(obj, func(k string, v []byte) error {
		if k == key && string(v) != "null" {
			if str, err := String(v); err == nil {
				s = str
			}
		}
		return nil
	})
	return s
}

// With is the JSON object obj with its member key set to value (in its
// place, or added at its end); obj as it is when it is no object.
func With(obj []byte, key string, value []byte) []byte {
	if !IsObject(obj) {
		return obj
	}
	out := []byte{'{'}
	found := false
	for _, f := range ScanFields(nil, obj) {
		v := f.Value
		if f.KeyIs(key) {
			v, found = value, true
		}
		out = appendMember(out, f.RawKey, v)
	}
	if !found {
		k, _ := json.Marshal(key)
		out = appendMember(out, k, value)
	}
	return append(out, '}')
}

// appendMember appends a member to the object being written in out, after
// a comma unless it is the first.
func appendMember(out, rawKey, value []byte) []byte {
	if len(out) > 1 {
		out = append(out, ',')
	}
	return append(append(append(out, rawKey...), ':'), value...)
}

// Without is the JSON object obj without its members called key, in any
// case.
func Without(obj []byte, key string) []byte {
	out := []byte{'{'}
	found := false
	ForEachValidRawMember(obj, func(k string, rawKey, v []byte) error {
		if strings.EqualFold(k, key) {
			found = true
			return nil
		}
		out = appendMember(out, rawKey, v)
		return nil
	})
	if !found {
		return obj
	}
	return append(out, '}')
}
