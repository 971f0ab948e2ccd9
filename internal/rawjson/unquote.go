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
		switch c := body[1]; c {
		case 'u':
			r := hex4(body[2:6])
			body = body[6:]
			if utf16.IsSurrogate(r) {
				// A pair decodes to one rune; anything else leaves the
				// first half U+FFFD and the next escape to itself.
				if len(body) >= 6 && body[0] == '\\' && body[1] == 'u' {
					if pair := utf16.DecodeRune(r, hex4(body[2:6])); pair != utf8.RuneError {
						b.WriteRune(pair)
						body = body[6:]
						continue
					}
				}
				r = utf8.RuneError
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

// hex4 reads four hexadecimal digits, which ScanString has checked.
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
		switch c := body[r+1]; c {
		case 'u':
			u := hex4(body[r+2 : r+6])
			r += 6
			if utf16.IsSurrogate(u) {
				if r+6 <= len(body) && body[r] == '\\' && body[r+1] == 'u' {
					if pair := utf16.DecodeRune(u, hex4(body[r+2:r+6])); pair != utf8.RuneError {
						w += utf8.EncodeRune(lit[w:], pair)
						r += 6
						continue
					}
				}
				u = utf8.RuneError
			}
			w += utf8.EncodeRune(lit[w:], u)
			continue
		case 'b':
			lit[w] = '\b'
		case 'f':
			lit[w] = '\f'
		case 'n':
			lit[w] = '\n'
		case 'r':
			lit[w] = '\r'
		case 't':
			lit[w] = '\t'
		default: // '"', '\\', '/'
			lit[w] = c
		}
		w++
		r += 2
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
				if v := hex4(body[i+2 : i+6]); v < 0x20 && !strings.ContainsRune("\b\f\n\r\t", v) && h == strings.ToLower(h) {
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
