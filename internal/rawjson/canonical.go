package rawjson

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"
)

// Canonical is JSON text in the one form that says what it means, which a
// pin digests and writes and a kept document is compared in: keys
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
	if !Valid(raw) {
		return nil, invalid(raw)
	}
	return ValidCanonical(raw), nil
}

// ValidCanonical is Canonical of text known to be one valid JSON value
// (a part of a file checked whole).
func ValidCanonical(raw []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(raw))
	WriteCanonical(&b, raw)
	return b.Bytes()
}

// Same reports whether a and b are texts of one JSON value: the same
// document written with other spacing, key order or escapes. Text that
// is no JSON value is taken for none.
func Same(a, b []byte) bool {
	ca, _ := Canonical(a)
	cb, _ := Canonical(b)
	return bytes.Equal(ca, cb)
}

// canonMember is a member of an object being written: its key, and where
// its value stands in the output.
type canonMember struct {
	key     string
	at, end int
}

// canonWriter writes canonical JSON in one pass over its input, each value
// read as it is written, so that a document nested ten thousand deep is
// read once, as a wide one is. stack holds the members of the objects
// being written, an object's above its parent's, so that a document of many
// small objects does not allocate a slice for each. An object whose keys
// came out of order is copied to moved and written again in order: a
// memory move of what it holds, which an object nested deep pays at each
// level.
type canonWriter struct {
	b     *bytes.Buffer
	stack []canonMember
	moved []byte
}

// WriteCanonical writes the canonical form of v, one valid JSON value, to
// b.
func WriteCanonical(b *bytes.Buffer, v []byte) { (&canonWriter{b: b}).value(v, SkipSpace(v, 0)) }

// value writes the valid JSON value that starts at v[i] and returns the
// index just past it.
func (w *canonWriter) value(v []byte, i int) int {
	b := w.b
	switch v[i] {
	case '{':
		return w.object(v, i)
	case '[':
		b.WriteByte('[')
		i = SkipSpace(v, i+1)
		for n := 0; v[i] != ']'; n++ {
			if n > 0 {
				b.WriteByte(',')
			}
			i = SkipSpace(v, w.value(v, i))
			if v[i] == ',' {
				i = SkipSpace(v, i+1)
			}
		}
		b.WriteByte(']')
		return i + 1
	case '"':
		end, escapes, nonASCII := ScanString(v, i)
		if lit := v[i:end]; !escapes && !nonASCII || Encoded(lit) {
			b.Write(lit) // as Go would write it again: most strings, and every one a pin file holds
		} else {
			writeString(b, Unquote(lit, escapes, nonASCII))
		}
		return end
	default: // a number as written, true, false, null
		end := i
	scan:
		for ; end < len(v); end++ {
			switch v[end] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				break scan
			}
		}
		b.Write(v[i:end])
		return end
	}
}

// object writes the valid JSON object that starts at v[i] and returns the
// index just past it. Its members are written as they come; when their
// keys do not come in order, once each, they are written again in order
// (the last of a key written twice, as a decoder keeps it).
func (w *canonWriter) object(v []byte, i int) int {
	b := w.b
	start, from := len(w.stack), b.Len()
	inOrder := true
	b.WriteByte('{')
	i = SkipSpace(v, i+1)
	for v[i] != '}' {
		var m canonMember
		if len(w.stack) > start {
			b.WriteByte(',')
		}
		end, escapes, nonASCII := ScanString(v, i)
		m.key = Unquote(v[i:end], escapes, nonASCII)
		writeString(b, m.key)
		b.WriteByte(':')
		m.at = b.Len()
		i = SkipSpace(v, SkipSpace(v, end)+1) // past the ':'
		i = SkipSpace(v, w.value(v, i))
		m.end = b.Len()
		if len(w.stack) > start && w.stack[len(w.stack)-1].key >= m.key {
			inOrder = false
		}
		w.stack = append(w.stack, m)
		if v[i] == ',' {
			i = SkipSpace(v, i+1)
		}
	}
	if members := w.stack[start:]; !inOrder {
		w.moved = append(w.moved[:0], b.Bytes()[from:]...)
		b.Truncate(from)
		b.WriteByte('{')
		slices.SortStableFunc(members, func(x, y canonMember) int { return strings.Compare(x.key, y.key) })
		first := true
		for n, m := range members {
			if n+1 < len(members) && members[n+1].key == m.key {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			writeString(b, m.key)
			b.WriteByte(':')
			b.Write(w.moved[m.at-from : m.end-from])
		}
	}
	b.WriteByte('}')
	clear(w.stack[start:])
	w.stack = w.stack[:start]
	return i + 1
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
	q, _ := Encode(s) // a string always encodes
	b.Write(q)
}
