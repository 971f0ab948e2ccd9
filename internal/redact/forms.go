package redact

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
)

// EnvSecrets are the secrets in an environment (NAME=value entries): the
// values of the variables whose names say they hold one (Name), and the
// credentials in any value that is a URL (DATABASE_URL=postgres://u:pw@h).
func EnvSecrets(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if Name(k) && !settingValue(k, v) {
			out = append(out, v)
		}
		if strings.Contains(v, "://") {
			out = append(out, URLSecrets(v)...)
		}
	}
	return out
}

// settingValue reports whether the value of a variable whose name says
// it holds a secret reads as a setting instead: a word that turns
// something on or off (FEATURE_TOKEN_CHECK=true), or, under a name whose
// last word is not the secret's but something about one
// (SECRETS_BACKEND=vault, API_KEY_ID=12345678, MCPV_SESSION=ci), shorter
// than 8 bytes, all digits or one word of lowercase letters and hyphens.
// Masked wherever it shows, such a word would leave every text mcpv
// writes, a trace's JSON with it ("isError":***). A variable whose last
// word is the secret's (DB_PASSWORD, API_TOKEN, MYSQL_PWD) holds one,
// however short (MinLength aside) or plain; a variable the user names as
// a secret (--env, a header) is masked whatever it holds.
func settingValue(name, v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "null", "none", "enabled", "disabled":
		return true
	}
	words := nameWords(name)
	if last := words[len(words)-1]; last != "session" && (Name(last) || slices.Contains(secretParts, last)) {
		return false
	}
	word := strings.Trim(v, "abcdefghijklmnopqrstuvwxyz-") == ""
	digits := strings.Trim(v, "0123456789") == ""
	return len(v) < 8 || word || digits
}

// minEncoded is the shortest encoded form Forms gives: the core a secret
// of MinLength bytes has at its worst offset (4 characters, its first 3
// bytes). A run this short turns up by chance in a long encoded blob (an
// image, once in 16 MiB for each form), and is masked there: only a
// secret of 4 or 5 bytes has one, and a blob in a log that loses four
// characters costs less than a password that shows.
const minEncoded = 4

// Forms are values as a server may echo them back: as they are,
// URL-encoded (a query's and a path's way, and every reserved byte
// escaped, its hex in either case), and base64-encoded (the
// standard and the URL alphabet, padded or not), each also escaped as
// JSON holds it (JSONForms). A value inside a longer text that is
// encoded whole is encoded differently at each of the three offsets it
// may have in a group of three bytes: for each, the characters of the
// encoding that come from the value's bytes alone are a form too.
func Forms(values []string) []string {
	var all []string
	for _, v := range values {
		if len(v) < MinLength {
			continue
		}
		all = append(all, v, url.QueryEscape(v), url.PathEscape(v), percentEscaped(v, upperHex), percentEscaped(v, lowerHex))
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			all = append(all, enc.EncodeToString([]byte(v)), enc.WithPadding(base64.NoPadding).EncodeToString([]byte(v)))
			for offset := range 3 {
				if core := encodedCore(enc, v, offset); len(core) >= minEncoded {
					all = append(all, core)
				}
			}
		}
	}
	return JSONForms(all)
}

// encodedCore is the part of the base64 encoding of v, when v begins
// offset bytes into a group of three, that v's bytes alone decide: the
// characters whose six bits all come from v.
func encodedCore(enc *base64.Encoding, v string, offset int) string {
	data := make([]byte, offset+len(v)+2)
	copy(data[offset:], v)
	encoded := enc.WithPadding(base64.NoPadding).EncodeToString(data)
	from := (8*offset + 5) / 6      // the first character that starts within v
	to := 8 * (offset + len(v)) / 6 // the first that does not end within it
	if to <= from {
		return ""
	}
	return encoded[from:to]
}

const (
	upperHex = "0123456789ABCDEF"
	lowerHex = "0123456789abcdef"
)

// percentEscaped is v with every byte but the unreserved ones (letters,
// digits, - . _ ~) written %XX in the hex digits given: Python's
// quote(v, safe=""), where Go's escapers keep + = : @ in a path or write
// a space as + in a query.
func percentEscaped(v, hex string) string {
	var b strings.Builder
	for i := range len(v) {
		switch c := v[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
