package jsonschema

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A schema's patterns (pattern, patternProperties, format "regex") are
// ECMA-262 regular expressions (JSON Schema 2020-12, section 6.4), and Go's
// regexp is RE2. Most of what servers write means the same in both, once
// ECMA's escapes are written as RE2 spells them (\uXXXX, \u{X}, \cX, \0,
// [^] and []). What RE2 cannot evaluate at all (lookahead, lookbehind,
// backreferences) is valid ECMA-262: such a pattern is not enforced, and
// said so (Schema.Unchecked), never taken for a broken schema.

// compilePattern compiles an ECMA-262 pattern. unsupported is the reason
// a valid pattern cannot be evaluated here (re is then nil); err is set
// when the pattern is not a regular expression at all.
func compilePattern(src string) (re *regexp.Regexp, unsupported string, err error) {
	re, err = regexp.Compile(ecmaToRE2(src))
	if err == nil {
		return re, "", nil
	}
	// What RE2 lacks, written as what it has (a group for a lookaround,
	// an empty group for a backreference): a pattern that then compiles
	// is a regular expression, which RE2 cannot evaluate; one that does
	// not is none.
	if what, stand := ecmaOnly(src); what != "" {
		if _, err2 := regexp.Compile(ecmaToRE2(stand)); err2 == nil {
			return nil, what, nil
		}
	}
	return nil, "", err
}

// ecmaOnly names the first construct of src that ECMA-262 has and RE2
// lacks ("" for none), and src with each such construct replaced by one
// RE2 has that stands in its place.
func ecmaOnly(src string) (what, stand string) {
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\\' && i+1 < len(src):
			c := src[i+1]
			if c >= '1' && c <= '9' {
				what = cmp.Or(what, "a backreference")
				b.WriteString("(?:)")
				for i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9' {
					i++
				}
				continue
			}
			if c == 'k' && strings.HasPrefix(src[i+2:], "<") {
				if end := strings.IndexByte(src[i:], '>'); end > 0 {
					what = cmp.Or(what, "a backreference")
					b.WriteString("(?:)")
					i += end
					continue
				}
			}
			b.WriteString(src[i : i+2])
			i++
		case strings.HasPrefix(src[i:], "(?="), strings.HasPrefix(src[i:], "(?!"):
			what = cmp.Or(what, "a lookahead")
			b.WriteString("(?:")
			i += 2
		case strings.HasPrefix(src[i:], "(?<="), strings.HasPrefix(src[i:], "(?<!"):
			what = cmp.Or(what, "a lookbehind")
			b.WriteString("(?:")
			i += 3
		default:
			b.WriteByte(src[i])
		}
	}
	return what, b.String()
}

// ecmaToRE2 writes ECMA-262's escapes as RE2 spells them; everything else
// is left as it is, for RE2 to accept or refuse.
func ecmaToRE2(src string) string {
	if !strings.Contains(src, `\`) && !strings.Contains(src, "[^]") && !strings.Contains(src, "[]") {
		return src
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && i+1 < len(src):
			if s, n := ecmaEscape(src[i+1:]); n > 0 {
				b.WriteString(s)
				i += n
				continue
			}
			b.WriteString(src[i : i+2])
			i++
			continue
		case !inClass && strings.HasPrefix(src[i:], "[^]"):
			b.WriteString(`[\x{0}-\x{10FFFF}]`) // ECMA: any character
			i += 2
			continue
		case !inClass && strings.HasPrefix(src[i:], "[]"):
			b.WriteString(`[^\x{0}-\x{10FFFF}]`) // ECMA: no character
			i++
			continue
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			if i+1 < len(src) && src[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			continue
		case c == ']' && inClass:
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ecmaEscape reads the escape after a backslash (rest starts after it):
// what RE2 writes for it and how many bytes of rest it took, or 0 for an
// escape RE2 reads as ECMA does.
func ecmaEscape(rest string) (string, int) {
	switch rest[0] {
	case 'u':
		if len(rest) >= 3 && rest[1] == '{' {
			if end := strings.IndexByte(rest, '}'); end > 2 && hexDigits(rest[2:end]) {
				return `\x{` + rest[2:end] + `}`, end + 1
			}
		}
		if len(rest) >= 5 && hexDigits(rest[1:5]) {
			return `\x{` + rest[1:5] + `}`, 5
		}
	case 'c':
		if len(rest) >= 2 && (rest[1]|0x20) >= 'a' && (rest[1]|0x20) <= 'z' {
			return fmt.Sprintf(`\x{%x}`, rest[1]%32), 2
		}
	case '0':
		if len(rest) == 1 || rest[1] < '0' || rest[1] > '9' {
			return `\x{0}`, 1
		}
	case '/':
		return "/", 1
	}
	return "", 0
}

func hexDigits(s string) bool {
	_, err := strconv.ParseUint(s, 16, 32)
	return err == nil && s != ""
}
