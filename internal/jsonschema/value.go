package jsonschema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
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
	return [...]string{kindNull: "null", kindFalse: "boolean", kindTrue: "boolean", kindNumber: "number",
		kindString: "string", kindArray: "array", kindObject: "object"}[v.kind]
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

// parse decodes one JSON value (with optional white space around it). Its
// tokens are read by rawjson's scanners, which check them as encoding/json
// does; what is wrong with text it refuses is encoding/json's word.
func parse(data []byte) (value, error) {
	p := parser{data: data}
	v, i := p.value(rawjson.SkipSpace(data, 0), 0)
	if i < 0 || rawjson.SkipSpace(data, i) != len(data) {
		offset, msg := rawjson.Problem(data)
		return value{}, &SyntaxError{Offset: max(offset, 0), msg: msg}
	}
	return v, nil
}

// parser builds the value of JSON text. Its methods take the index where
// a value starts and return the index just past it, or -1 where the text
// is not valid JSON.
type parser struct {
	data []byte
}

func (p *parser) value(i, depth int) (value, int) {
	if i >= len(p.data) {
		return value{}, -1
	}
	switch c := p.data[i]; {
	case c == '{':
		return p.object(i, depth+1)
	case c == '[':
		return p.array(i, depth+1)
	case c == '"':
		s, end := rawjson.ReadString(p.data, i)
		return value{kind: kindString, str: s}, end
	case c == '-' || c >= '0' && c <= '9':
		end := rawjson.ScanNumber(p.data, i)
		if end < 0 {
			return value{}, -1
		}
		return value{kind: kindNumber, str: string(p.data[i:end])}, end
	case c == 't':
		return value{kind: kindTrue}, rawjson.ScanLiteral(p.data, i, "true")
	case c == 'f':
		return value{kind: kindFalse}, rawjson.ScanLiteral(p.data, i, "false")
	case c == 'n':
		return value{kind: kindNull}, rawjson.ScanLiteral(p.data, i, "null")
	}
	return value{}, -1
}

func (p *parser) object(i, depth int) (value, int) {
	if depth > maxNesting {
		return value{}, -1
	}
	v := value{kind: kindObject}
	i = rawjson.SkipSpace(p.data, i+1)
	if i < len(p.data) && p.data[i] == '}' {
		return v, i + 1
	}
	var seen map[string]int // index by name, once the object is large
	for more := true; more; {
		if i >= len(p.data) || p.data[i] != '"' {
			return value{}, -1
		}
		key, end := rawjson.ReadString(p.data, i)
		if end < 0 {
			return value{}, -1
		}
		if i = rawjson.SkipSpace(p.data, end); i >= len(p.data) || p.data[i] != ':' {
			return value{}, -1
		}
		val, end := p.value(rawjson.SkipSpace(p.data, i+1), depth)
		if end < 0 {
			return value{}, -1
		}
		at, found := seen[key]
		for j := 0; seen == nil && !found && j < len(v.obj); j++ {
			at, found = j, v.obj[j].key == key
		}
		if found {
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
		i, more = rawjson.Next(p.data, end, '}')
	}
	return v, i
}

func (p *parser) array(i, depth int) (value, int) {
	if depth > maxNesting {
		return value{}, -1
	}
	v := value{kind: kindArray, arr: []value{}}
	i = rawjson.SkipSpace(p.data, i+1)
	if i < len(p.data) && p.data[i] == ']' {
		return v, i + 1
	}
	for more := true; more; {
		el, end := p.value(i, depth)
		if end < 0 {
			return value{}, -1
		}
		v.arr = append(v.arr, el)
		i, more = rawjson.Next(p.data, end, ']')
	}
	return v, i
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
			if o := b.member(m.key); o == nil || !equal(&m.val, o) {
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
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// unescapeToken reads a JSON pointer token.
func unescapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
