package output

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
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// decodeExact decodes JSON for gojq keeping numbers exact: integers of any
// size stay integers and every number keeps its text until jq changes it.
// Text that is not one valid JSON value gets what a json.Decoder makes of
// it (its first value, or its error).
func decodeExact(raw []byte) (any, error) {
	if v, ok := decodeValue(raw); ok {
		return v, nil
	}
	return decodeStream(raw)
}

// decodeStream decodes the first JSON value in raw through a json.Decoder.
func decodeStream(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
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
	keys map[string]string // keys seen, so that an array of objects shares them
}

func (d *decoder) value(i, depth int) (any, int) {
	if i >= len(d.data) {
		return nil, -1
	}
	switch c := d.data[i]; {
	case c == '"':
		s, end := d.string(i)
		if end < 0 {
			return nil, -1
		}
		return s, end
	case c == '{':
		return d.object(i, depth+1)
	case c == '[':
		return d.array(i, depth+1)
	case c == 't':
		return true, d.literal(i, "true")
	case c == 'f':
		return false, d.literal(i, "false")
	case c == 'n':
		return nil, d.literal(i, "null")
	case c == '-' || '0' <= c && c <= '9':
		end := rawjson.ScanNumber(d.data, i)
		if end < 0 {
			return nil, -1
		}
		return json.Number(d.data[i:end]), end
	}
	return nil, -1
}

func (d *decoder) literal(i int, lit string) int {
	if !bytes.HasPrefix(d.data[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// string decodes the string literal that starts with the quote data[i].
func (d *decoder) string(i int) (string, int) {
	end, escapes, nonASCII := rawjson.ScanString(d.data, i)
	if end < 0 {
		return "", -1
	}
	body := d.data[i+1 : end-1]
	if !escapes && (!nonASCII || utf8.Valid(body)) {
		return string(body), end
	}
	return unquote(body, nonASCII), end
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
		return d.string(i)
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
	for {
		v, end := d.value(i, depth)
		if end < 0 {
			return nil, -1
		}
		arr = append(arr, v)
		if i = rawjson.SkipSpace(d.data, end); i >= len(d.data) {
			return nil, -1
		}
		switch d.data[i] {
		case ',':
			i = rawjson.SkipSpace(d.data, i+1)
		case ']':
			return arr, i + 1
		default:
			return nil, -1
		}
	}
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
	for {
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
		if i = rawjson.SkipSpace(d.data, end); i >= len(d.data) {
			return nil, -1
		}
		switch d.data[i] {
		case ',':
			i = rawjson.SkipSpace(d.data, i+1)
		case '}':
			return obj, i + 1
		default:
			return nil, -1
		}
	}
}

// unquote decodes the body of a valid string literal that has escapes or
// bytes that may not be UTF-8 (nonASCII), as encoding/json does: an
// invalid byte, or an escaped surrogate that is not half of a pair, becomes
// U+FFFD.
func unquote(body []byte, nonASCII bool) string {
	var b strings.Builder
	b.Grow(len(body))
	for len(body) > 0 {
		run := body
		if j := bytes.IndexByte(body, '\\'); j >= 0 {
			run = body[:j]
		}
		if nonASCII {
			writeUTF8(&b, run)
		} else {
			b.Write(run)
		}
		if body = body[len(run):]; len(body) == 0 {
			break
		}
		switch c := body[1]; c {
		case 'u':
			r := hex4(body[2:6])
			body = body[6:]
			if utf16.IsSurrogate(r) {
				if len(body) >= 6 && body[0] == '\\' && body[1] == 'u' {
					if pair := utf16.DecodeRune(r, hex4(body[2:6])); pair != unicode.ReplacementChar {
						b.WriteRune(pair)
						body = body[6:]
						continue
					}
				}
				r = unicode.ReplacementChar
			}
			b.WriteRune(r)
			continue
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default: // '"', '\\', '/'
			b.WriteByte(c)
		}
		body = body[2:]
	}
	return b.String()
}

// writeUTF8 writes run with each byte that is not part of valid UTF-8
// replaced by U+FFFD.
func writeUTF8(b *strings.Builder, run []byte) {
	if utf8.Valid(run) {
		b.Write(run)
		return
	}
	for len(run) > 0 {
		r, size := utf8.DecodeRune(run)
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.Write(run[:size])
		}
		run = run[size:]
	}
}

// hex4 reads four hexadecimal digits (already checked).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
