package jsonschema

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// kind is the JSON type of a value.
type kind uint8

const (
	kindNull kind = iota
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindArray
	kindObject
)

// value is a decoded JSON value. Objects keep their members in the order
// they were written (a repeated name keeps its first place and its last
// value, as encoding/json keeps the last), and numbers keep their text, so
// that no precision is lost on the way to a comparison.
type value struct {
	kind   kind
	visits uint32   // schemas applied to it in a validation, up to run.often+1
	str    string   // a string's text, or a number's literal
	arr    []value  // an array's elements
	obj    []member // an object's members
}

type member struct {
	key string
	val value
}

// member returns the value of the member named key, nil when there is none.
func (v *value) member(key string) *value {
	for i := range v.obj {
		if v.obj[i].key == key {
			return &v.obj[i].val
		}
	}
	return nil
}

// typeName is the JSON type as a schema names it; every number is a
// "number" here ("integer" is a question the type keyword asks).
func (v *value) typeName() string {
	switch v.kind {
	case kindNull:
		return "null"
	case kindFalse, kindTrue:
		return "boolean"
	case kindNumber:
		return "number"
	case kindString:
		return "string"
	case kindArray:
		return "array"
	}
	return "object"
}

// maxNesting is how deeply arrays and objects may nest in a document, as
// encoding/json allows: validation recurses along the value, and a stack
// that deep is still small.
const maxNesting = 10000

// SyntaxError is JSON text that is not one valid JSON value.
type SyntaxError struct {
	Offset int // the byte where the text went wrong
	msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.msg)
}

// parse decodes one JSON value (with optional white space around it).
func parse(data []byte) (value, error) {
	p := parser{data: data}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return value{}, err
	}
	p.space()
	if p.i < len(p.data) {
		return value{}, p.fail("data after the value")
	}
	return v, nil
}

type parser struct {
	data []byte
	i    int
}

func (p *parser) fail(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, msg: fmt.Sprintf(format, args...)}
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (value, error) {
	if p.i >= len(p.data) {
		return value{}, p.fail("unexpected end of JSON")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.string()
		return value{kind: kindString, str: s}, err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return value{kind: kindTrue}, p.literal("true")
	case c == 'f':
		return value{kind: kindFalse}, p.literal("false")
	case c == 'n':
		return value{kind: kindNull}, p.literal("null")
	default:
		return value{}, p.fail("unexpected %q", c)
	}
}

func (p *parser) literal(word string) error {
	if !strings.HasPrefix(string(p.data[p.i:min(len(p.data), p.i+len(word))]), word) {
		return p.fail("invalid literal, want %s", word)
	}
	p.i += len(word)
	return nil
}

func (p *parser) object(depth int) (value, error) {
	if depth > maxNesting {
		return value{}, p.fail("nested more than %d levels deep", maxNesting)
	}
	p.i++ // {
	v := value{kind: kindObject}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return v, nil
	}
	var seen map[string]int // index by name, once the object is large
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return value{}, p.fail("want a member name")
		}
		key, err := p.string()
		if err != nil {
			return value{}, err
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return value{}, p.fail("want ':' after a member name")
		}
		p.i++
		p.space()
		val, err := p.value(depth)
		if err != nil {
			return value{}, err
		}
		at := -1
		if seen != nil {
			if j, ok := seen[key]; ok {
				at = j
			}
		} else {
			for j := range v.obj {
				if v.obj[j].key == key {
					at = j
					break
				}
			}
		}
		if at >= 0 {
			v.obj[at].val = val
		} else {
			v.obj = append(v.obj, member{key, val})
			if seen == nil && len(v.obj) > 16 {
				seen = make(map[string]int, 2*len(v.obj))
				for j := range v.obj {
					seen[v.obj[j].key] = j
				}
			} else if seen != nil {
				seen[key] = len(v.obj) - 1
			}
		}
		p.space()
		if p.i >= len(p.data) {
			return value{}, p.fail("unexpected end of JSON")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return v, nil
		default:
			return value{}, p.fail("want ',' or '}' in an object")
		}
	}
}

func (p *parser) array(depth int) (value, error) {
	if depth > maxNesting {
		return value{}, p.fail("nested more than %d levels deep", maxNesting)
	}
	p.i++ // [
	v := value{kind: kindArray, arr: []value{}}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		p.space()
		el, err := p.value(depth)
		if err != nil {
			return value{}, err
		}
		v.arr = append(v.arr, el)
		p.space()
		if p.i >= len(p.data) {
			return value{}, p.fail("unexpected end of JSON")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return v, nil
		default:
			return value{}, p.fail("want ',' or ']' in an array")
		}
	}
}

// number reads a number as RFC 8259 writes it, keeping its text.
func (p *parser) number() (value, error) {
	start := p.i
	if p.data[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	switch {
	case p.i < len(p.data) && p.data[p.i] == '0':
		p.i++
	case digits() == 0:
		return value{}, p.fail("invalid number")
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return value{}, p.fail("invalid number")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return value{}, p.fail("invalid number")
		}
	}
	return value{kind: kindNumber, str: string(p.data[start:p.i])}, nil
}

// string reads a quoted string. Invalid UTF-8 and lone surrogates become
// U+FFFD, as encoding/json decodes them.
func (p *parser) string() (string, error) {
	p.i++ // "
	start := p.i
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			s := string(p.data[start:p.i])
			p.i++
			return s, nil
		case c == '\\' || c >= utf8.RuneSelf:
			return p.slowString(start)
		case c < 0x20:
			return "", p.fail("control character in a string")
		}
		p.i++
	}
	return "", p.fail("unterminated string")
}

func (p *parser) slowString(start int) (string, error) {
	b := make([]byte, 0, p.i-start+16)
	b = append(b, p.data[start:p.i]...)
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), nil
		case c < 0x20:
			return "", p.fail("control character in a string")
		case c == '\\':
			if p.i+1 >= len(p.data) {
				return "", p.fail("unterminated string")
			}
			e := p.data[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.fail("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					if save := p.i; p.i+1 < len(p.data) && p.data[p.i] == '\\' && p.data[p.i+1] == 'u' {
						p.i += 2
						if lo, ok := p.hex4(); ok && utf16.DecodeRune(r, lo) != utf8.RuneError {
							r2 = utf16.DecodeRune(r, lo)
						} else {
							p.i = save
						}
					}
					r = r2
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", p.fail("invalid escape \\%c", e)
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.data[p.i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, p.data[p.i:p.i+size]...)
			}
			p.i += size
		}
	}
	return "", p.fail("unterminated string")
}

func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.data[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

// equal is JSON equality: numbers by value (1 == 1.0), objects whatever
// the order of their members.
func equal(a, b *value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kindNumber:
		return a.str == b.str || compareNumbers(a.str, b.str) == 0
	case kindString:
		return a.str == b.str
	case kindArray:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !equal(&a.arr[i], &b.arr[i]) {
				return false
			}
		}
		return true
	case kindObject:
		if len(a.obj) != len(b.obj) {
			return false
		}
		for i := range a.obj {
			m := &a.obj[i]
			if i < len(b.obj) && b.obj[i].key == m.key { // the same order, usually
				if !equal(&m.val, &b.obj[i].val) {
					return false
				}
				continue
			}
			o := b.member(m.key)
			if o == nil || !equal(&m.val, o) {
				return false
			}
		}
		return true
	}
	return true
}

// hash is a hash of v consistent with equal, for finding duplicates in
// long arrays.
func hash(v *value) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037) ^ uint64(v.kind)
	mix := func(s string) {
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= prime
		}
	}
	switch v.kind {
	case kindNumber:
		d, _ := parseDecimal(v.str)
		if d.neg {
			mix("-")
		}
		mix(d.digits)
		mix(strconv.FormatInt(d.exp, 10))
	case kindString:
		mix(v.str)
	case kindArray:
		for i := range v.arr {
			h = (h ^ hash(&v.arr[i])) * prime
		}
	case kindObject:
		var sum uint64 // members in any order
		for i := range v.obj {
			k := uint64(14695981039346656037)
			for j := 0; j < len(v.obj[i].key); j++ {
				k = (k ^ uint64(v.obj[i].key[j])) * prime
			}
			sum += (k ^ hash(&v.obj[i].val)) * prime
		}
		h ^= sum
	}
	return h
}

// escapeToken writes a name as a JSON pointer token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// unescapeToken reads a JSON pointer token.
func unescapeToken(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
