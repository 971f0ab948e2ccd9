package pin

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Canonical is JSON text in the one form a pin digests and writes: keys
// sorted, no space, numbers as written, strings as Go writes them (no
// HTML escapes). Two texts of one value give one form, whatever their key
// order or spacing; an object that holds a key twice keeps the last, as
// Go's decoder and most others read it.
//
// It is written as it is read, without building the value: a schema of
// a hundred thousand properties costs its own size and a slice of its
// widest object's members, where decoding it into maps cost twenty
// times its size (the form is that of decoding with UseNumber and
// encoding again, which FuzzCanonical holds it to).
func Canonical(raw []byte) ([]byte, error) {
	if !rawjson.Valid(raw) {
		return nil, invalidJSON(raw)
	}
	return validCanonical(raw), nil
}

// validCanonical is Canonical of text known to be one valid JSON value
// (a part of a file checked whole).
func validCanonical(raw []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(raw))
	writeCanonical(&b, raw[rawjson.SkipSpace(raw, 0):])
	return b.Bytes()
}

// invalidJSON says why raw, which rawjson.Valid refused, is no JSON
// value: the decoder's words.
func invalidJSON(raw []byte) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	var v json.RawMessage
	if err := d.Decode(&v); err != nil {
		return err
	}
	return errors.New("more than one JSON value")
}

// canonMember is a member of an object being written.
type canonMember struct {
	key   string
	value []byte
}

// canonWriter writes canonical JSON; stack holds the members of the
// objects being written, an object's above its parent's, so that a
// document of many small objects does not allocate a slice for each.
type canonWriter struct {
	b     *bytes.Buffer
	stack []canonMember
}

func writeCanonical(b *bytes.Buffer, v []byte) { (&canonWriter{b: b}).value(v) }

// value writes the valid JSON value that starts at v[0].
func (w *canonWriter) value(v []byte) {
	b := w.b
	switch v[0] {
	case '{':
		start := len(w.stack)
		rawjson.ForEachValidMember(v, func(key string, value []byte) error {
			w.stack = append(w.stack, canonMember{key, value})
			return nil
		})
		members := w.stack[start:] // stays valid when the stack grows below
		slices.SortStableFunc(members, func(x, y canonMember) int { return strings.Compare(x.key, y.key) })
		b.WriteByte('{')
		first := true
		for i, m := range members {
			if i+1 < len(members) && members[i+1].key == m.key {
				continue // the last of a key written twice, as a decoder keeps it
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			writeString(b, m.key)
			b.WriteByte(':')
			w.value(m.value)
		}
		b.WriteByte('}')
		clear(w.stack[start:])
		w.stack = w.stack[:start]
	case '[':
		b.WriteByte('[')
		rawjson.ForEachElement(v, func(i int, el []byte) {
			if i > 0 {
				b.WriteByte(',')
			}
			w.value(el)
		})
		b.WriteByte(']')
	case '"':
		end, escapes, nonASCII := rawjson.ScanString(v, 0)
		lit := v[:end]
		if !escapes && (!nonASCII || plainUTF8(lit)) {
			b.Write(lit) // as Go would write it again: most strings
			return
		}
		writeString(b, rawjson.Unquote(lit, escapes, nonASCII))
	default: // a number as written, true, false, null
		end := len(v)
		for i, c := range v {
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				end = i
				break
			}
		}
		b.Write(v[:end])
	}
}

// plainUTF8 reports whether a string literal without escapes is valid
// UTF-8 without U+2028 or U+2029, which Go's encoder escapes.
func plainUTF8(lit []byte) bool {
	return utf8.Valid(lit) && !bytes.Contains(lit, []byte("\u2028")) && !bytes.Contains(lit, []byte("\u2029"))
}

// writeString writes s as a JSON string, as Go's encoder writes it
// without HTML escapes.
func writeString(b *bytes.Buffer, s string) {
	plain := utf8.ValidString(s) && !strings.ContainsAny(s, "\"\\\u2028\u2029")
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20
	}
	if plain {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	b.Truncate(b.Len() - 1)
}
