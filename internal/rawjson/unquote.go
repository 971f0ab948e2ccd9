package rawjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// String unquotes a JSON string literal (its quotes included) as
// encoding/json does. One without escapes that is valid UTF-8 (nearly all)
// is taken as it is; text that is not one string literal gets
// encoding/json's error.
func String(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return unmarshalString(raw)
	}
	end, escapes, nonASCII := ScanString(raw, 0)
	if end != len(raw) {
		return unmarshalString(raw)
	}
	return Unquote(raw, escapes, nonASCII), nil
}

// unmarshalString is String for what is not exactly one string literal
// (white space around it, or not a string): encoding/json's answer.
func unmarshalString(raw []byte) (string, error) {
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// Unquote decodes the string literal lit (its quotes included), which
// ScanString has accepted, saying whether it holds escapes and bytes of
// 0x80 and above: as encoding/json decodes it, an invalid byte, or an
// escaped surrogate that is not half of a pair, becomes U+FFFD. A literal
// without escapes that is valid UTF-8 is copied as it is; otherwise each
// run between escapes goes at once, so that a long string is copied once.
func Unquote(lit []byte, escapes, nonASCII bool) string {
	body := lit[1 : len(lit)-1]
	if !escapes && (!nonASCII || utf8.Valid(body)) {
		return string(body)
	}
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
		r, n := Escape(body)
		b.WriteRune(r)
		body = body[n:]
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

// Escape reads the escape b begins with: the character it stands for and
// the escape's length, or 0 where b begins none (no backslash, a letter no
// escape has, a \u without four hexadecimal digits). A \u pair of
// surrogates is one character; half of one alone is U+FFFD, as
// encoding/json reads it.
func Escape(b []byte) (rune, int) {
	if len(b) < 2 || b[0] != '\\' {
		return 0, 0
	}
	if i := bytes.IndexByte([]byte(`"\/bfnrt`), b[1]); i >= 0 {
		return rune("\"\\/\b\f\n\r\t"[i]), 2
	}
	r, ok := hex4(b[1:])
	switch {
	case !ok:
		return 0, 0
	case !utf16.IsSurrogate(r):
		return r, 6
	}
	if len(b) >= 12 && b[6] == '\\' {
		if r2, ok := hex4(b[7:]); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
			return utf16.DecodeRune(r, r2), 12
		}
	}
	return utf8.RuneError, 6
}

// hex4 is the character of the u and four hexadecimal digits b begins with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 5 || b[0] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[1:5] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// UnquoteInPlace decodes the string literal lit (its quotes included),
// which ScanString has accepted and which is valid UTF-8, into lit's own
// bytes, as Unquote decodes it, and returns the decoded bytes: a prefix
// of lit. No escape is shorter than what it stands for, so that what is
// written never overtakes what is read: a long string is decoded with no
// copy of it made.
func UnquoteInPlace(lit []byte) []byte {
	body := lit[1 : len(lit)-1]
	w := 0 // bytes of lit written
	for r := 0; r < len(body); {
		j := bytes.IndexByte(body[r:], '\\')
		if j < 0 {
			j = len(body) - r
		}
		w += copy(lit[w:], body[r:r+j])
		if r += j; r == len(body) {
			break
		}
		u, n := Escape(body[r:])
		w += utf8.EncodeRune(lit[w:], u)
		r += n
	}
	return lit[:w]
}

// Encoded reports whether the string literal lit (its quotes included),
// which ScanString has accepted, is written as encoding/json writes its
// value with HTML left as it is (json.Encoder.SetEscapeHTML(false), as
// JSON.stringify writes it but for U+2028 and U+2029): valid UTF-8, and
// escaped only where that writer escapes, as it does. Such a literal can
// be copied where its value would be encoded.
func Encoded(lit []byte) bool {
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			switch body[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
				continue
			case 'u':
				h := string(body[i+2 : i+6])
				if h == "2028" || h == "2029" {
					i += 6
					continue
				}
				if v, _ := hex4(body[i+1:]); v < 0x20 && !strings.ContainsRune("\b\f\n\r\t", v) && h == strings.ToLower(h) {
					i += 6
					continue
				}
			}
			return false
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
				return false
			}
			i += n
		}
	}
	return true
}
