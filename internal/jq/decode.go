package jq

// Decoding a result for gojq. A result can be a hundred megabytes, most of
// it one string: it is decoded straight from the bytes mcpv holds, in one
// pass that also checks them, with each string copied once into the value
// gojq gets (a json.Decoder would first copy the whole text into its own
// buffer, then scan it twice). The values are those of a json.Decoder with
// UseNumber: map[string]any, []any, string, json.Number (the number's text,
// so that integers of any size stay exact), bool and nil.

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Decode decodes a result for a filter, keeping numbers exact: integers of
// any size stay integers and every number keeps its text until jq changes
// it. Text that is not one valid JSON value gets what a json.Decoder makes
// of it (its first value, or its error).
func Decode(raw []byte) (any, error) {
	if v, ok := decodeValue(raw); ok {
		return v, nil
	}
	return decodeStream(raw)
}

// DecodeString is Decode of text, each string of the value that needs no
// unescaping a part of text rather than a copy of it: a data file's row of
// 100 MiB, most of it one string, is held once, as its text.
func DecodeString(text string) (any, error) {
	// The text's bytes, read and never written: a string cannot change.
	raw := unsafe.Slice(unsafe.StringData(text), len(text))
	d := decoder{data: raw, text: text}
	v, end := d.value(rawjson.SkipSpace(raw, 0), 0)
	if end < 0 || rawjson.SkipSpace(raw, end) != len(raw) {
		return decodeStream(raw)
	}
	return v, nil
}

// decodeStream decodes the first JSON value in raw through a json.Decoder.
func decodeStream(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v) // a value that fails to decode leaves v nil
	return v, err
}

// decodeValue decodes data when it is exactly one valid JSON value (with
// whitespace around it); ok is false otherwise.
func decodeValue(data []byte) (v any, ok bool) {
	d := decoder{data: data}
	v, end := d.value(rawjson.SkipSpace(data, 0), 0)
	if end < 0 || rawjson.SkipSpace(data, end) != len(data) {
		return nil, false
	}
	return v, true
}

// maxDepth is how deeply arrays and objects may nest (encoding/json's
// limit): deeper text is left to the json.Decoder, which refuses it.
const maxDepth = 10000

// maxKeys bounds the object keys a decoder keeps to share among objects.
const maxKeys = 256

// decoder decodes one JSON text. Its methods take the index where a value
// starts and return the value and the index just past it, or -1 when the
// text is not valid there.
type decoder struct {
	data []byte
	text string            // data as a string, whose parts the strings are; "" when data is not one
	keys map[string]string // keys seen, so that an array of objects shares them
}

func (d *decoder) value(i, depth int) (any, int) {
	if i >= len(d.data) {
		return nil, -1
	}
	switch c := d.data[i]; {
	case c == '"':
		end, escapes, nonASCII := rawjson.ScanString(d.data, i)
		switch {
		case end < 0:
			return nil, -1
		case d.text != "" && !escapes && (!nonASCII || utf8.Valid(d.data[i+1:end-1])):
			return d.text[i+1 : end-1], end
		}
		return rawjson.Unquote(d.data[i:end], escapes, nonASCII), end
	case c == '{':
		return d.object(i, depth+1)
	case c == '[':
		return d.array(i, depth+1)
	case c == 't':
		return true, rawjson.ScanLiteral(d.data, i, "true")
	case c == 'f':
		return false, rawjson.ScanLiteral(d.data, i, "false")
	case c == 'n':
		return nil, rawjson.ScanLiteral(d.data, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		end := rawjson.ScanNumber(d.data, i)
		if end < 0 {
			return nil, -1
		}
		return json.Number(d.data[i:end]), end
	}
	return nil, -1
}

// key decodes an object key, sharing the string with earlier objects
// that have the same key.
func (d *decoder) key(i int) (string, int) {
	end, escapes, nonASCII := rawjson.ScanString(d.data, i)
	if end < 0 {
		return "", -1
	}
	body := d.data[i+1 : end-1]
	if escapes || nonASCII {
		return rawjson.Unquote(d.data[i:end], escapes, nonASCII), end
	}
	if k, ok := d.keys[string(body)]; ok {
		return k, end
	}
	k := string(body)
	if d.keys == nil {
		d.keys = make(map[string]string)
	}
	if len(d.keys) < maxKeys {
		d.keys[k] = k
	}
	return k, end
}

func (d *decoder) array(i, depth int) (any, int) {
	if depth > maxDepth {
		return nil, -1
	}
	arr := make([]any, 0)
	i = rawjson.SkipSpace(d.data, i+1)
	if i < len(d.data) && d.data[i] == ']' {
		return arr, i + 1
	}
	for more := true; more; {
		v, end := d.value(i, depth)
		if end < 0 {
			return nil, -1
		}
		arr = append(arr, v)
		i, more = rawjson.Next(d.data, end, ']')
	}
	return arr, i
}

func (d *decoder) object(i, depth int) (any, int) {
	if depth > maxDepth {
		return nil, -1
	}
	obj := make(map[string]any)
	i = rawjson.SkipSpace(d.data, i+1)
	if i < len(d.data) && d.data[i] == '}' {
		return obj, i + 1
	}
	for more := true; more; {
		if i >= len(d.data) || d.data[i] != '"' {
			return nil, -1
		}
		k, end := d.key(i)
		if end < 0 {
			return nil, -1
		}
		if i = rawjson.SkipSpace(d.data, end); i >= len(d.data) || d.data[i] != ':' {
			return nil, -1
		}
		v, end := d.value(rawjson.SkipSpace(d.data, i+1), depth)
		if end < 0 {
			return nil, -1
		}
		obj[k] = v // a repeated key: the last one counts, as in encoding/json
		i, more = rawjson.Next(d.data, end, '}')
	}
	return obj, i
}
