package redact

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// JSONForms are values as they may appear in a JSON message: as they are,
// escaped as a JSON string holds them, and escaped twice, as a JSON
// document held in a string (a tool's text that is JSON) holds them. A
// string is escaped as the common encoders do (jsonEncoders).
func JSONForms(values []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) bool {
		if seen[v] {
			return false
		}
		seen[v] = true
		out = append(out, v)
		return true
	}
	for _, v := range values {
		add(v)
		for _, once := range escapes(v) {
			if once == v || !add(once) {
				continue
			}
			// Held in a document that is itself a string: escaped
			// again, by any of the encoders (PHP escapes a slash at
			// both levels: a/b is a\\\/b there).
			for _, twice := range escapes(once) {
				if twice != once {
					add(twice)
				}
			}
		}
	}
	return out
}

// jsonEncoder is how an encoder escapes a string past the least: <, >
// and & (html), / (slash), + ' and ` (plus), every character past ASCII
// as \uXXXX (ascii), its hex in upper case (upper).
type jsonEncoder struct{ html, slash, plus, ascii, upper bool }

// jsonEncoders are the common JSON encoders' ways: the least escaping
// (JavaScript's JSON.stringify, Python's json.dumps(ensure_ascii=False),
// Java's), Go's, PHP's, Python's by default, .NET's System.Text.Json,
// and everything at once.
var jsonEncoders = []jsonEncoder{{}, {html: true}, {slash: true, ascii: true}, {ascii: true},
	{html: true, plus: true, ascii: true, upper: true}, {html: true, slash: true, ascii: true}}

// escapes is v inside a JSON string, quotes left out, as each of
// jsonEncoders writes it.
func escapes(v string) []string {
	if rawjson.Plain(v) && !strings.ContainsAny(v, "/+'`") {
		return []string{v} // as every one writes it
	}
	q, _ := rawjson.Encode(v) // a string always encodes
	least := string(q[1 : len(q)-1])
	out := make([]string, 0, len(jsonEncoders))
	for _, e := range jsonEncoders {
		var w strings.Builder
		hex := "\\u%04x"
		if e.upper {
			hex = "\\u%04X"
		}
		for _, r := range least {
			switch {
			case e.html && strings.ContainsRune("<>&", r), e.plus && strings.ContainsRune("+'`", r):
				fmt.Fprintf(&w, hex, r)
			case e.slash && r == '/':
				w.WriteString(`\/`)
			case e.ascii && r > 0xffff:
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&w, hex+hex, r1, r2)
			case e.ascii && r >= utf8.RuneSelf:
				fmt.Fprintf(&w, hex, r)
			default:
				w.WriteRune(r)
			}
		}
		out = append(out, w.String())
	}
	return out
}

// Sent are the secrets a message mcpv sends holds by name, however the
// command was given them (key=value, --args, a file, stdin, a batch
// line, a test's step): each string, at any depth, of a member of its
// params' arguments (a tool's, a prompt's) or of its result's content
// (an answer to a server's question) whose name says it holds a secret
// (ArgName), or that is inside one.
func Sent(msg []byte) []string {
	var out []string
	for _, f := range rawjson.ScanFields(nil, msg) {
		inside := ""
		switch {
		case f.KeyIs("params"):
			inside = "arguments"
		case f.KeyIs("result"):
			inside = "content"
		default:
			continue
		}
		for _, g := range rawjson.ScanFields(nil, f.Value) {
			if g.KeyIs(inside) {
				out = append(out, JSONSecrets(g.Value)...)
			}
		}
	}
	return out
}

// JSONSecrets are the strings of a JSON document (its arguments) that a
// member whose name says it holds a secret (ArgName) holds, at any depth,
// read in one pass over its bytes, however deep it nests: only names and
// what such members hold are decoded, so that a long text sent goes by at
// the speed of a scan, and nothing is copied of it. It ends at the first
// byte that begins no JSON value.
func JSONSecrets(doc []byte) []string {
	type level struct{ object, secret bool }
	stack := []level{{}}
	var out []string
	named, keyNext := false, false // the member now read is named like a secret; an object's name comes next
	for i := rawjson.SkipSpace(doc, 0); i < len(doc); i = rawjson.SkipSpace(doc, i) {
		l := stack[len(stack)-1]
		inside := l.secret || l.object && named
		switch c := doc[i]; c {
		case '{', '[':
			stack = append(stack, level{object: c == '{', secret: inside})
			keyNext = c == '{'
		case '}', ']':
			if stack = stack[:len(stack)-1]; len(stack) == 0 {
				return out
			}
		case ',':
			keyNext = l.object
		case ':':
		case '"':
			end, escapes, nonASCII := rawjson.ScanString(doc, i)
			if end < 0 {
				return out
			}
			switch {
			case l.object && keyNext:
				named, keyNext = ArgName(rawjson.Unquote(doc[i:end], escapes, nonASCII)), false
			case inside:
				out = append(out, rawjson.Unquote(doc[i:end], escapes, nonASCII))
			}
			i = end
			continue
		default:
			end := rawjson.ValueEnd(doc, i) // a number, true, false, null
			if end < 0 {
				return out
			}
			i = end
			continue
		}
		i++
	}
	return out
}

// ArgName reports whether an argument, or a member of one, called name
// holds a secret: password, db_pass, apiKey, client_secret, auth_token,
// credentials. Narrower than Name, whose "key", "auth" and "session"
// are ordinary words of arguments (a lookup's key, keyword, author,
// session_name), and without what is about a secret rather than one
// (token_type, max_tokens, secret_name) and MCP's progressToken.
func ArgName(name string) bool {
	n := strings.ToLower(name)
	has := func(s string, parts []string) bool {
		return slices.ContainsFunc(parts, func(p string) bool { return strings.Contains(s, p) })
	}
	secret := n == "auth" || has(n, argSecretParts) ||
		strings.Contains(n, "key") && has(strings.NewReplacer("_", "", "-", "").Replace(n), argSecretKeys) ||
		strings.Contains(n, "p") && slices.ContainsFunc(nameWords(name), func(w string) bool { return slices.Contains(secretParts, w) }) // each has a p
	return secret && n != "progresstoken" && !aboutASecret(name)
}

// argSecretParts are what an argument's name holds, in a word or as one,
// that says it holds a secret; argSecretKeys are the kinds of key that
// do, in the name with its _ and - left out (api_key, accessKey).
var (
	argSecretParts = []string{"token", "secret", "passw", "passphrase", "authorization", "credential", "cookie"}
	argSecretKeys  = []string{"apikey", "accesskey", "privatekey"}
)
