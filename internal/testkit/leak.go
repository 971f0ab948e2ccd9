package testkit

import (
	"bytes"
	"encoding/base64"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Leak says in which encoding text holds secret, or "" when it holds it
// in none: as it is, JSON-escaped (once or twice: \", \\, \/, \uXXXX),
// URL-encoded (percent-encoded, + for a space), base64 (the standard and
// the URL alphabet, padded or not, alone or at any of the three
// alignments inside a longer base64 text), XML-escaped (a JUnit
// report), or any of these inside another. It decodes what text holds rather than encoding the secret,
// so that it finds an encoding the masker was never told of.
func Leak(text, secret string) string {
	type form struct{ name, text string }
	forms := []form{{"as is", text}, {"XML-escaped", html.UnescapeString(text)}}
	for _, f := range forms[:1] {
		once := jsonUnescape(f.text)
		forms = append(forms, form{"JSON-escaped", once}, form{"JSON-escaped twice", jsonUnescape(once)})
	}
	for _, f := range forms[:4] {
		if q, err := url.QueryUnescape(lenientPercent(f.text)); err == nil {
			forms = append(forms, form{f.name + ", URL-encoded", q})
		}
		if p, err := url.PathUnescape(lenientPercent(f.text)); err == nil {
			forms = append(forms, form{f.name + ", percent-encoded", p})
		}
	}
	for _, f := range forms {
		if strings.Contains(f.text, secret) {
			return f.name
		}
		if base64Holds(f.text, secret) {
			return f.name + ", base64"
		}
	}
	return ""
}

// jsonUnescape is text with every JSON string escape decoded, wherever
// it is: a text that holds JSON holds its strings' escapes anywhere.
func jsonUnescape(text string) string {
	if !strings.Contains(text, `\`) {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '\\' || i+1 == len(text) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := text[i]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, n := unicodeEscape(text[i-1:])
			if n == 0 {
				b.WriteString(`\u`)
				continue
			}
			b.WriteRune(r)
			i += n - 2
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

// unicodeEscape reads \uXXXX (and a low surrogate's \uXXXX after a high
// one) at the start of s: the rune, and the bytes read (0: none).
func unicodeEscape(s string) (rune, int) {
	hex := func(s string) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(s[2:6], 16, 16)
		return rune(n), err == nil
	}
	r, ok := hex(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex(s[6:]); ok {
			return utf16.DecodeRune(r, r2), 12
		}
	}
	return r, 6
}

// lenientPercent is text with each % that begins no escape written %25,
// so that one stray % does not stop the rest from decoding.
func lenientPercent(text string) string {
	strayPercent := regexp.MustCompile(`%(?:[^0-9A-Fa-f]|[0-9A-Fa-f][^0-9A-Fa-f]|[0-9A-Fa-f]?$)`)
	return strayPercent.ReplaceAllStringFunc(text, func(m string) string { return "%25" + m[1:] })
}

// base64Holds reports whether a run of base64 in text, read from any of
// its first four characters on, decodes to bytes that hold secret.
func base64Holds(text, secret string) bool {
	base64Run := regexp.MustCompile(`[A-Za-z0-9+/_-]{6,}=*`) // either alphabet
	for _, run := range base64Run.FindAllString(text, -1) {
		run = strings.NewReplacer("-", "+", "_", "/").Replace(strings.TrimRight(run, "="))
		for from := range min(4, len(run)) {
			r := run[from:]
			if len(r)%4 == 1 {
				r = r[:len(r)-1] // no whole byte
			}
			if dec, err := base64.RawStdEncoding.DecodeString(r); err == nil && bytes.Contains(dec, []byte(secret)) {
				return true
			}
		}
	}
	return false
}
