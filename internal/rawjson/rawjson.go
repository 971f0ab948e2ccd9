// Package rawjson reads and writes JSON text without decoding it: checking
// it (valid.go), the top level of an object or array, compaction, a string
// or a value written as encoding/json writes it (quote.go); and
// the scanners of its tokens (strings, numbers) and the one decoder of its
// string escapes (unquote.go), which the value readers of jq filters and of
// the JSON Schema validator are built on.
// Results travel through mcpv as the bytes the server sent; a 100 MB result
// must not be copied or re-encoded just to find the "id" next to it, nor
// read twice to check it and then find it.
package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

var errNotObject = errors.New("not a JSON object")

// ForEachMember calls fn for each member of the JSON object in data, in the order
// the members appear, with the decoded key and the raw value (a sub-slice of data).
// It checks that data is one valid JSON object and nothing else.
func ForEachMember(data []byte, fn func(key string, value []byte) error) error {
	return ForEachRawMember(data, func(key string, _, value []byte) error { return fn(key, value) })
}

// ForEachRawMember is ForEachMember that also passes each key as written
// (quotes and escapes included), for code that must copy it unchanged.
func ForEachRawMember(data []byte, fn func(key string, rawKey, value []byte) error) error {
	var buf [16]Field // enough for nearly every object, without a heap allocation
	fields, err := Fields(buf[:0], data)
	if err != nil {
		return err
	}
	for _, f := range fields {
		key, err := f.Key()
		if err != nil {
			return fmt.Errorf("object key: %w", err)
		}
		if err := fn(key, f.RawKey, f.Value); err != nil {
			return err
		}
	}
	return nil
}

// invalid says what is wrong with data, which Valid refused: the
// decoder's syntax error, with its offset.
func invalid(data []byte) error {
	offset, msg := Problem(data)
	if offset < 0 {
		return fmt.Errorf("invalid JSON: %s", msg)
	}
	return fmt.Errorf("invalid JSON at byte %d: %s", offset, msg)
}

// Problem says what is wrong with data, which Valid refuses, as
// encoding/json says it: the offset of the byte where it goes wrong (-1
// when it gives none) and the message.
func Problem(data []byte) (offset int, msg string) {
	var v json.RawMessage
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return int(se.Offset), se.Error()
	case err != nil:
		return -1, err.Error()
	}
	return -1, "invalid JSON"
}

// ForEachValidMember is ForEachMember for data already known to be valid
// JSON (a value handed out by ForEachMember, or a document the caller has
// checked): it skips the validation, which would read each member whole
// again. It still reads each member to its end to find where the next
// begins, so a walk that calls it again on each member's value reads a
// document once for each level it nests: one that must cost a deep
// document's size only reads each value as it walks (pin's canonical form).
func ForEachValidMember(data []byte, fn func(key string, value []byte) error) error {
	return ForEachValidRawMember(data, func(key string, _, value []byte) error { return fn(key, value) })
}

// errFound stops a walk once the member sought is found.
var errFound = errors.New("found")

// Member returns the value of the member key of a valid JSON object, nil
// when there is none; the walk stops at it.
func Member(obj []byte, key string) []byte {
	var v []byte
	ForEachValidMember(obj, func(k string, value []byte) error {
		if k == key {
			v = value
			return errFound
		}
		return nil
	})
	return v
}

// ForEachValidRawMember is ForEachRawMember for data already known to be
// valid JSON.
func ForEachValidRawMember(data []byte, fn func(key string, rawKey, value []byte) error) error {
	return walkMembers(data, func(rawKey, value []byte) error {
		key, err := String(rawKey)
		if err != nil {
			return fmt.Errorf("object key: %w", err)
		}
		return fn(key, rawKey, value)
	})
}

// walkMembers calls fn with the raw key and value of each member of the
// object in data, which must be known to be valid JSON.
func walkMembers(data []byte, fn func(rawKey, value []byte) error) error {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errNotObject
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for i < len(data) {
		end := valueEnd(data, i)
		rawKey := data[i:end]
		i = SkipSpace(data, end)
		i = SkipSpace(data, i+1) // the ':'
		if i >= len(data) {
			break // data was not valid after all: no panic, no member
		}
		end = valueEnd(data, i)
		if err := fn(rawKey, data[i:end]); err != nil {
			return err
		}
		i = SkipSpace(data, end)
		if i < len(data) && data[i] == '}' {
			return nil
		}
		i = SkipSpace(data, i+1) // the ','
	}
	return errNotObject
}

// ForEachElement calls fn with the index and raw text (a sub-slice of arr)
// of each element of the JSON array arr. arr must already be known to be
// valid JSON (a value ForEachMember handed out, say); anything but an array
// calls fn for nothing.
func ForEachElement(arr []byte, fn func(i int, el []byte)) {
	i := SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = SkipSpace(arr, i+1)
	for n := 0; i < len(arr) && arr[i] != ']'; n++ {
		end := valueEnd(arr, i)
		if end <= i {
			return // arr was not valid after all (a '}' where an element starts): no element, and no loop
		}
		fn(n, arr[i:end])
		i = SkipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = SkipSpace(arr, i+1)
		}
	}
}

// Depth is how deeply the arrays and objects of valid JSON data nest: 0 for
// a scalar, 1 for [] or {}, 2 for [[]]. It reads data once.
func Depth(data []byte) int {
	deepest := 0
	nesting(data, 0, func(depth int) bool {
		deepest = max(deepest, depth)
		return false
	})
	return deepest
}

// nesting reads valid JSON data from i, skipping strings, and calls step
// after each bracket with the depth it leaves (1 after the first opening
// one). It returns the index just past the bracket where step reported
// true, or len(data).
func nesting(data []byte, i int, step func(depth int) bool) int {
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '"':
			i = stringEnd(data, i)
			continue
		case '{', '[':
			depth++
			if step(depth) {
				return i + 1
			}
		case '}', ']':
			depth--
			if step(depth) {
				return i + 1
			}
		}
		i++
	}
	return i
}

// IsObject reports whether data holds a JSON object (it does not validate it).
func IsObject(data []byte) bool {
	i := SkipSpace(data, 0)
	return i < len(data) && data[i] == '{'
}

// SkipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func SkipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// Next reads on from end, just past an element of an array or a member of
// an object that close ends: after a comma, the start of the next one and
// true; else the index just past close, or -1 where the text is not valid
// JSON there, and false.
func Next(data []byte, end int, close byte) (int, bool) {
	i := SkipSpace(data, end)
	switch {
	case i < len(data) && data[i] == ',':
		return SkipSpace(data, i+1), true
	case i < len(data) && data[i] == close:
		return i + 1, false
	}
	return -1, false
}

// valueEnd returns the index just past the JSON value that starts at data[i].
// The input must already be known to be valid JSON; in any other, the
// index is still within data.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return len(data)
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		return nesting(data, i, func(depth int) bool { return depth == 0 })
	default:
		for i < len(data) {
			switch data[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
			i++
		}
		return i
	}
}

// stringEnd returns the index just past the string literal starting at data[i].
func stringEnd(data []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return len(data)
		}
		q := i + j
		escapes := 0 // backslashes right before the quote
		for k := q - 1; k >= i && data[k] == '\\'; k-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// WriteCompact writes src without insignificant whitespace, in runs, so a
// large value is never copied whole. Strings, numbers and key order are kept
// byte for byte.
func WriteCompact(w io.Writer, src []byte) error {
	start := 0
	for i := 0; i < len(src); {
		switch src[i] {
		case '"':
			i = stringEnd(src, i)
		case ' ', '\t', '\r', '\n':
			if start < i {
				if _, err := w.Write(src[start:i]); err != nil {
					return err
				}
			}
			i++
			start = i
		default:
			i++
		}
	}
	_, err := w.Write(src[start:])
	return err
}

// ScanFields appends what looks like the members of the object in data,
// which may be any bytes at all: for a valid JSON object they are its
// members, as Fields finds them, and for anything else some sub-slices of
// data, or none. It reads no more than the top level (a long string goes
// by at the speed of bytes.IndexByte), never fails and always ends, so that
// a message can be looked into before it is checked, by the one pass that
// decodes it.
func ScanFields(dst []Field, data []byte) []Field {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return dst
	}
	for i = SkipSpace(data, i+1); i < len(data) && data[i] != '}'; {
		keyEnd := skipValue(data, i)
		key := data[i:keyEnd]
		if i = SkipSpace(data, keyEnd); i < len(data) && data[i] == ':' {
			i = SkipSpace(data, i+1)
		}
		if i >= len(data) {
			break
		}
		end := skipValue(data, i)
		dst = append(dst, Field{RawKey: key, Value: data[i:end]})
		if i = SkipSpace(data, end); i < len(data) && data[i] == ',' {
			i = SkipSpace(data, i+1)
		}
	}
	return dst
}

// ScanElements calls fn with what looks like each element of the array in
// data, which may be any bytes at all, as ScanFields does for an object.
func ScanElements(data []byte, fn func(el []byte)) {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return
	}
	for i = SkipSpace(data, i+1); i < len(data) && data[i] != ']'; {
		end := skipValue(data, i)
		fn(data[i:end])
		if i = SkipSpace(data, end); i < len(data) && data[i] == ',' {
			i = SkipSpace(data, i+1)
		}
	}
}

// skipValue returns the index just past what looks like the value at
// data[i] (i < len(data)) in text that may be invalid: at least i+1, and no
// more than len(data).
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		return nesting(data, i, func(depth int) bool { return depth == 0 })
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case ',', '}', ']', ':', ' ', '\t', '\r', '\n':
			return j
		}
	}
	return len(data)
}
