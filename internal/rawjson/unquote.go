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
