package rawjson

// A validating reader of JSON text. It accepts exactly what encoding/json's
// Valid accepts (RFC 8259, any bytes of 0x20 and above inside strings, at
// most maxDepth nested arrays and objects), in one pass that also finds
// where each value ends, so that checking a message and walking it cost one
// read of its bytes instead of two. It is several times faster than
// json.Valid, whose scanner takes a step function call per byte; a long
// string, which is most of a large message, goes by eight bytes at a time.

import (
	"encoding/binary"
	"math/bits"
)

// maxDepth is how deeply arrays and objects may nest: encoding/json's limit.
const maxDepth = 10000

// Byte classes inside a string.
const (
	plainByte   = iota // nothing to do
	quoteByte          // the string ends
	escapeByte         // a backslash escape follows
	controlByte        // below 0x20: not allowed raw
	htmlByte           // <, > and &, which json.Marshal escapes
	lineSepByte        // 0xE2, which starts U+2028 and U+2029, also escaped
)

var stringClass = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = controlByte
	}
	t['"'] = quoteByte
	t['\\'] = escapeByte
	t['<'], t['>'], t['&'] = htmlByte, htmlByte, htmlByte
	t[0xe2] = lineSepByte
	return t
}()

// validator reads one JSON text. Its methods take the index where a token
// starts and return the index just past it, or -1 when the text is not
// valid there.
type validator struct {
	data []byte
	// marshaled stays true while the text is as json.Marshal writes a
	// json.RawMessage: no whitespace between tokens and nothing it escapes.
	marshaled bool
}

// Valid reports whether data is one valid JSON value: the same answer as
// json.Valid, in a faster single pass.
func Valid(data []byte) bool {
	v := validator{data: data}
	return v.document() >= 0
}

// Marshaled reports whether data is valid JSON that json.Marshal would
// write unchanged as a json.RawMessage: compact (no whitespace between
// tokens) and without <, >, &, U+2028 or U+2029, which it escapes. valid
// is json.Valid's answer; both come from one pass.
func Marshaled(data []byte) (valid, marshaled bool) {
	v := validator{data: data, marshaled: true}
	valid = v.document() >= 0
	return valid, valid && v.marshaled
}

// document reads the whole of data as one value with optional whitespace
// around it.
func (v *validator) document() int {
	i := v.space(0)
	if i >= len(v.data) {
		return -1
	}
	i = v.value(i, 0)
	if i < 0 {
		return -1
	}
	if i = v.space(i); i != len(v.data) {
		return -1
	}
	return i
}

// space skips whitespace.
func (v *validator) space(i int) int {
	j := SkipSpace(v.data, i)
	if j != i {
		v.marshaled = false
	}
	return j
}

// value reads the value starting at data[i] (not whitespace); depth is how
// many arrays and objects enclose it.
func (v *validator) value(i, depth int) int {
	if i >= len(v.data) {
		return -1
	}
	switch c := v.data[i]; {
	case c == '"':
		return v.string(i)
	case c == '{':
		return v.container(i, depth+1, '}', nil)
	case c == '[':
		return v.container(i, depth+1, ']', nil)
	case c == 't':
		return v.literal(i, "true")
	case c == 'f':
		return v.literal(i, "false")
	case c == 'n':
		return v.literal(i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return v.number(i)
	}
	return -1
}

func (v *validator) literal(i int, lit string) int { return ScanLiteral(v.data, i, lit) }

// ScanLiteral reads the literal lit (true, false or null) at data[i]: the
// index just past it, or -1 when data does not hold it there.
func ScanLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (v *validator) number(i int) int {
	d := v.data
	if d[i] == '-' {
		i++
	}
	switch {
	case i >= len(d):
		return -1
	case d[i] == '0':
		i++
	case '1' <= d[i] && d[i] <= '9':
		i = digits(d, i+1)
	default:
		return -1
	}
	if i < len(d) && d[i] == '.' {
		if j := digits(d, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if j := digits(d, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

// ScanNumber reads the number that starts at data[i] (a '-' or a digit)
// as Valid does, and returns the index just past it, or -1 when it is not a
// valid number. What follows it is not looked at.
func ScanNumber(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	v := validator{data: data}
	return v.number(i)
}

func digits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}

// string reads a string literal starting at the quote data[i].
func (v *validator) string(i int) int {
	end, flags := scanString(v.data, i, v.marshaled)
	if flags&stringHTML != 0 {
		v.marshaled = false
	}
	return end
}

// What a string literal holds, as scanString reports it.
const (
	stringEscapes = 1 << iota // backslash escapes
	stringHigh                // bytes of 0x80 and above
	stringHTML                // what json.Marshal escapes (looked for only when asked)
)

// Constants for reading eight bytes at a time.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// anyZero has the top bit of each zero byte of x set (and perhaps of the
// bytes above it): zero exactly when no byte of x is zero.
func anyZero(x uint64) uint64 { return (x - ones) &^ x & highs }

// needsLook marks the bytes of w (eight bytes of a string, the first in
// the lowest byte) that need a look: a quote, a backslash, a control byte;
// and with html, what json.Marshal escapes. The lowest byte marked is
// exactly the first such byte; zero means none.
func needsLook(w uint64, html bool) uint64 {
	t := (w - ones*0x20) &^ w & highs // bytes below 0x20
	t |= anyZero(w^ones*'"') | anyZero(w^ones*'\\')
	if html {
		t |= anyZero(w^ones*'<') | anyZero(w^ones*'>') | anyZero(w^ones*'&') | anyZero(w^ones*0xe2)
	}
	return t
}

// PlainRun is how many of data's first bytes a JSON string holds as they
// are: those before its first quote, backslash or control byte, read eight
// at a time (a reader of a string in pieces, such as a data file's row).
func PlainRun(data []byte) int {
	i := 0
	for ; i+8 <= len(data); i += 8 {
		if look := needsLook(binary.LittleEndian.Uint64(data[i:]), false); look != 0 {
			return i + bits.TrailingZeros64(look)/8
		}
	}
	for i < len(data) && stringClass[data[i]] != quoteByte && stringClass[data[i]] != escapeByte && stringClass[data[i]] != controlByte {
		i++
	}
	return i
}

// scanString reads the string literal that starts with the quote d[i],
// checking it as encoding/json does, and returns the index just past its
// closing quote (-1 when it is not valid) and what it holds. Plain bytes go
// by eight at a time.
func scanString(d []byte, i int, html bool) (end int, flags uint8) {
	i++
	var high uint64 // the plain bytes skipped, or-ed together
	for {
		for i+8 <= len(d) {
			w := binary.LittleEndian.Uint64(d[i:])
			look := needsLook(w, html)
			if look == 0 {
				high |= w
				i += 8
				continue
			}
			n := bits.TrailingZeros64(look) / 8 // plain bytes before it
			high |= w & (1<<(8*n) - 1)
			i += n
			break
		}
		if i >= len(d) {
			return -1, 0
		}
		c := d[i]
		switch stringClass[c] {
		case plainByte:
			i++
		case quoteByte:
			if high&highs != 0 {
				flags |= stringHigh
			}
			return i + 1, flags
		case escapeByte:
			flags |= stringEscapes
			if i++; i >= len(d) {
				return -1, 0
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(d)-i < 5 || !isHex(d[i+1]) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) {
					return -1, 0
				}
				i += 5
			default:
				return -1, 0
			}
			continue
		case controlByte:
			return -1, 0
		case htmlByte:
			if html {
				flags |= stringHTML
			}
			i++
		case lineSepByte:
			if html && i+2 < len(d) && d[i+1] == 0x80 && d[i+2]&^1 == 0xa8 {
				flags |= stringHTML
			}
			i++
		}
		if c >= 0x80 {
			flags |= stringHigh
		}
	}
}

// ScanString reads the string literal that starts with the quote at
// data[i], checking it as Valid does. It returns the index just past its
// closing quote, or -1 when it is not a valid string; escapes says that it
// holds backslash escapes, and nonASCII that it holds bytes of 0x80 and
// above (which may not be valid UTF-8). Without either, the bytes between
// the quotes are the string.
func ScanString(data []byte, i int) (end int, escapes, nonASCII bool) {
	end, flags := scanString(data, i, false)
	return end, flags&stringEscapes != 0, flags&stringHigh != 0
}

// ReadString reads the string literal that starts with the quote at
// data[i], as ScanString checks it, and decodes it as Unquote does: the
// string and the index just past its closing quote, or -1.
func ReadString(data []byte, i int) (string, int) {
	end, escapes, nonASCII := ScanString(data, i)
	if end < 0 {
		return "", -1
	}
	return Unquote(data[i:end], escapes, nonASCII), end
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// container reads the array or the object that starts at data[i] and
// ends with the byte end (']' or '}'): elements, or members, parted by
// commas. each, when not nil, is called with where each one starts, where
// its key ends (an element's: where it starts) and where its value starts
// and ends.
func (v *validator) container(i, depth int, end byte, each func(i, keyEnd, start, end int)) int {
	if depth > maxDepth {
		return -1
	}
	i = v.space(i + 1)
	if i < len(v.data) && v.data[i] == end {
		return i + 1
	}
	for {
		from, keyEnd, start, stop := i, i, i, 0
		if end == ']' {
			stop = v.value(i, depth)
		} else {
			keyEnd, start, stop = v.member(i, depth)
		}
		if i = stop; i < 0 {
			return -1
		}
		if each != nil {
			each(from, keyEnd, start, stop)
		}
		if i = v.space(i); i >= len(v.data) {
			return -1
		}
		switch v.data[i] {
		case ',':
			i = v.space(i + 1)
		case end:
			return i + 1
		default:
			return -1
		}
	}
}

// member reads `"key" : value` from data[i] and returns where the key
// ends and where the value starts and ends.
func (v *validator) member(i, depth int) (keyEnd, start, end int) {
	if i >= len(v.data) || v.data[i] != '"' {
		return 0, 0, -1
	}
	if keyEnd = v.string(i); keyEnd < 0 {
		return 0, 0, -1
	}
	if i = v.space(keyEnd); i >= len(v.data) || v.data[i] != ':' {
		return 0, 0, -1
	}
	start = v.space(i + 1)
	return keyEnd, start, v.value(start, depth)
}

// Field is one member of a JSON object: its key as written (quotes and
// escapes included) and its value, both sub-slices of the object's text.
type Field struct {
	RawKey, Value []byte
}

// Key decodes the member's key.
func (m Field) Key() (string, error) { return String(m.RawKey) }

// KeyIs reports whether the member's key is name, without decoding a key
// written without escapes (nearly all).
func (m Field) KeyIs(name string) bool {
	k := m.RawKey
	if len(k) == len(name)+2 && string(k[1:len(k)-1]) == name {
		return true
	}
	for _, c := range k {
		if c == '\\' {
			key, err := String(k)
			return err == nil && key == name
		}
	}
	return false
}

// Fields checks that data is one valid JSON object (what ForEachMember
// accepts) and appends its members to dst, in order; one pass over data.
// The error is ForEachMember's: where the JSON is invalid, or that it is
// not an object.
func Fields(dst []Field, data []byte) ([]Field, error) {
	v := validator{data: data}
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		if v.document() < 0 {
			return dst, invalid(data)
		}
		return dst, errNotObject
	}
	n := len(dst)
	end := v.container(i, 1, '}', func(i, keyEnd, start, end int) {
		dst = append(dst, Field{RawKey: data[i:keyEnd], Value: data[start:end]})
	})
	if end < 0 || SkipSpace(data, end) != len(data) {
		return dst[:n], invalid(data)
	}
	return dst, nil
}

// ValidFields is Fields for data already known to be valid JSON (an
// element of an array Elements handed out, say): it appends the members of
// the object without checking them again; anything but an object appends
// nothing.
func ValidFields(dst []Field, data []byte) []Field {
	walkMembers(data, func(rawKey, value []byte) error {
		dst = append(dst, Field{RawKey: rawKey, Value: value})
		return nil
	})
	return dst
}

// Elements checks that data is one valid JSON array and appends its
// elements to dst, in order, as sub-slices of data; one pass over data.
// ok is false when data is not valid JSON or not an array.
func Elements(dst [][]byte, data []byte) (_ [][]byte, ok bool) {
	v := validator{data: data}
	n := len(dst)
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return dst, false
	}
	end := v.container(i, 1, ']', func(_, _, start, end int) { dst = append(dst, data[start:end]) })
	if end < 0 || SkipSpace(data, end) != len(data) {
		return dst[:n], false
	}
	return dst, true
}

// ValueEnd reads the JSON value that starts at data[i] (not whitespace):
// the index just past it, or -1 when data does not hold a valid value
// there. What follows the value is not read.
func ValueEnd(data []byte, i int) int {
	v := validator{data: data}
	return v.value(i, 0)
}
