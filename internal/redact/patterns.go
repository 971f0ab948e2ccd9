package redact

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/lazy"
)

// Found is a secret found in a text by its shape: where it is, what kind
// it looks like, and how long a prefix of it names the kind without
// giving anything away (ghp_, sk-ant-, AKIA, the scheme and user of a URL).
type Found struct {
	Start, End int // bytes of the text: the secret, and what names it before it
	Kind       string
	Keep       int // bytes from Start that may be shown: what names it, and the secret's prefix that names its kind
	secret     int // where the secret itself starts
}

// Value is the secret itself, without what names it: its bytes' start
// and end in the text.
func (f Found) Value() (start, end int) { return f.secret, f.End }

// shapes are the secrets known by their shape, each with the part of a
// match that is the secret (the first group, or the whole match) and how
// much of it names the kind.
type shape struct {
	kind string
	pre  string // words one of which every match holds ("a|b"): a text without any is not read with re
	re   string
	keep int // bytes of the secret that may be shown
	// find, when set, finds the matches instead of re, each as a
	// pattern's submatches: faster than a pattern that starts with a
	// class of characters every word of a text may begin; lower is text
	// in lower case.
	find func(text, lower string) [][]int
}

var shapeList = []shape{
	{"a private key", "PRIVATE KEY", `-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----\s*([A-Za-z0-9+/=\s]{40,})`, 0, nil},
	{"a GitHub token", "ghp_|gho_|ghu_|ghs_|ghr_", `\b(gh[pousr]_[A-Za-z0-9]{30,})`, 4, nil},
	{"a GitHub token", "github_pat_", `\b(github_pat_[A-Za-z0-9_]{22,})`, 11, nil},
	{"an Anthropic key", "sk-ant-", `\b(sk-ant-[A-Za-z0-9_-]{20,})`, 7, nil},
	{"an OpenAI key", "sk-", `\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})`, 3, nil},
	{"a Slack token", "xox", `\b(xox[abposre]-[A-Za-z0-9-]{10,})`, 5, nil},
	{"an AWS access key", "AKIA|ASIA", `\b((?:AKIA|ASIA)[0-9A-Z]{16})\b`, 4, nil},
	{"a Google API key", "AIza", `\b(AIza[0-9A-Za-z_-]{35})`, 4, nil},
	{"a GitLab token", "glpat-", `\b(glpat-[A-Za-z0-9_-]{20,})`, 6, nil},
	{"an npm token", "npm_", `\b(npm_[A-Za-z0-9]{36})`, 4, nil},
	{"a Hugging Face token", "hf_", `\b(hf_[A-Za-z0-9]{30,})`, 3, nil},
	{"a Stripe key", "_live_|_test_", `\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})`, 8, nil},
	{"a JSON Web Token", "eyJ", `\b(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})`, 3, nil},
	{"a bearer token", "bearer", `(?i:\bbearer\s+)([A-Za-z0-9._~+/-]{20,}=*)`, 0, nil},
	{"a password in a URL", "://", `\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@"'<>]+:([^/\s@"'<>]+)@`, 0, nil},
	{"a secret in a URL", "=", `[?&](?i:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd|sig|signature)=([^&#\s"'<>]{8,})`, 0, nil},
	// A value given to a name that says it is a secret, in prose
	// (aws_secret_access_key=..., password: ...), in JSON ("api_key":
	// "...") and in JSON written inside a string (\"token\": \"...\").
	{"a secret assigned", "key|secret|token|passw|passphrase|credential", `(?i:` + secretKeyWords + `)`, 0, findAssigned},
}

// keyWords are the pieces of secretKeyWords a text is searched for: every
// name secretKeyWords matches holds one.
var keyWords = []string{"key", "secret", "token", "passw", "passphrase", "credential"}

// findAssigned finds each name that holds a secret word and is given a
// value (assigned), searching for the words' pieces (keyWords) rather
// than running a pattern over every word of the text.
func findAssigned(text, lower string) [][]int {
	var out [][]int
	last := -1 // the start of the last name found: a name of two words is one
	for _, w := range keyWords {
		for from := 0; ; {
			i := strings.Index(lower[from:], w)
			if i < 0 {
				break
			}
			at := from + i
			from = at + len(w)
			if m := assigned(text, []int{at, at + len(w)}); m != nil && m[0] != last && keyPattern.Get().MatchString(text[m[2]:m[3]]) {
				last = m[0]
				out = append(out, m)
			}
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return slices.CompactFunc(out, func(a, b []int) bool { return a[0] == b[0] })
}

var keyPattern = &lazy.Regexp{Pattern: `(?i:` + secretKeyWords + `)`}

// assigned is the pattern
//
//	(?i:\b([a-z0-9_.-]*WORD[a-z0-9_.-]*)\\?["']?\s*[:=]\s*\\?["']?)([^\s"'<>&,;()\[\]{}\\]{8,})
//
// around a secret word found at at: the name that holds it, given a
// value; nil when none is.
func assigned(text string, at []int) []int {
	keyChar := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
	}
	space := func(i int) int {
		for i < len(text) && strings.IndexByte(" \t\n\r\f", text[i]) >= 0 {
			i++
		}
		return i
	}
	ks, ke := at[0], at[1]
	for ks > 0 && keyChar(text[ks-1]) {
		ks--
	}
	for ke < len(text) && keyChar(text[ke]) {
		ke++
	}
	for ks < at[0] && (text[ks] == '.' || text[ks] == '-') {
		ks++ // a name starts at a word's boundary: at a letter, a digit or _
	}
	if ks > 0 && text[ks-1] == ':' && ke < len(text) && text[ke] == ':' {
		return nil // a part between a URN's colons (urn:x:grant-type:token-exchange:…), not a name given a value ($env:TOKEN=… is)
	}
	i := ke
	if i < len(text) && text[i] == '\\' {
		i++
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	if i = space(i); i >= len(text) || text[i] != ':' && text[i] != '=' {
		return nil
	}
	i = space(i + 1)
	if i < len(text) && text[i] == '\\' {
		i++
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	vs, n := i, 0
	for i < len(text) && !strings.ContainsRune(" \t\n\r\f\"'<>&,;()[]{}\\", rune(text[i])) {
		_, size := utf8.DecodeRuneInString(text[i:])
		i, n = i+size, n+1
	}
	if n < 8 {
		return nil
	}
	return []int{ks, i, ks, ke, vs, i}
}

// secretKeyWords are the words of a name that says its value is a
// secret, as a pattern: api_key, aws_secret_access_key, GITHUB_TOKEN,
// db_password.
const secretKeyWords = `api[_-]?key|access[_-]?key|private[_-]?key|secret|token|password|passwd|passphrase|credentials?`

// notSecretKeys are the endings of names that have a secret word but
// name something about a secret, not the secret itself: token_type,
// secret_name, max_tokens, password_hint.
var notSecretKeys = []string{"name", "names", "id", "ids", "type", "types", "count", "length", "len", "limit", "limits", "url", "uri",
	"path", "file", "hint", "field", "prefix", "format", "kind", "ref", "tokens", "usage", "policy", "header", "param", "expiry", "expires", "ttl"}

// aboutASecret reports whether a name that has a secret word names
// something about a secret rather than the secret: it ends in one of
// notSecretKeys, as a word of its own (token_type, secretName, max_tokens).
func aboutASecret(key string) bool {
	k := strings.ToLower(key)
	for _, end := range notSecretKeys {
		at := len(k) - len(end)
		if at > 0 && strings.HasSuffix(k, end) && (strings.ContainsRune("_-.", rune(k[at-1])) || key[at] >= 'A' && key[at] <= 'Z' || end == "tokens") {
			return true
		}
	}
	return false
}

// assignedSecret reports whether value, given to key, is a secret by
// its look: not a word of prose nor a number, but a value of letters
// and digits, or a long one of mixed characters.
func assignedSecret(key, value string) bool {
	if aboutASecret(key) {
		return false
	}
	var letter, digit, upper, lower, other bool
	for _, r := range value {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z':
			letter, lower = true, true
		case r >= 'A' && r <= 'Z':
			letter, upper = true, true
		case r != '_' && r != '-' && r != '.':
			other = true
		}
	}
	return letter && digit || len(value) >= 16 && letter && (upper && lower || other)
}

var shapes = &lazy.Value[[]*regexp.Regexp]{New: func() []*regexp.Regexp {
	res := make([]*regexp.Regexp, len(shapeList))
	for i, s := range shapeList {
		res[i] = regexp.MustCompile(s.re)
	}
	return res
}}

// FindSecrets finds the secrets in text that are known by their shape:
// private keys, the tokens of the common services (GitHub, OpenAI,
// Anthropic, Slack, AWS, Google, GitLab, npm, Hugging Face, Stripe), JSON
// Web Tokens, bearer tokens, URLs with a password or a secret parameter,
// and a secret-named value assigned (api_key=...). What it finds does not
// overlap, and comes in the order of the text. A placeholder (xxxx,
// <token>, ${VAR}, a run of one character) is not a secret.
func FindSecrets(text string) []Found {
	var found []Found
	lower := canon.LowerASCII(text)
	for i, re := range shapes.Get() {
		if !HoldsAny(lower, strings.ToLower(shapeList[i].pre)) {
			continue
		}
		var matches [][]int
		if find := shapeList[i].find; find != nil {
			matches = find(text, lower)
		} else {
			matches = re.FindAllStringSubmatchIndex(text, -1)
		}
		for _, m := range matches {
			secret, end := m[0], m[1]
			if g := len(m) - 2; g >= 2 && m[g] >= 0 {
				secret, end = m[g], m[g+1] // the last group is the secret
			}
			if placeholder(text[secret:end]) {
				continue
			}
			if len(m) == 6 && !assignedSecret(text[m[2]:m[3]], text[secret:end]) {
				continue
			}
			// What names it (api_key=, Bearer, the URL's scheme and user)
			// is found with it and kept: a window of the text that holds
			// the secret holds what tells it is one.
			found = append(found, Found{Start: m[0], End: end, Kind: shapeList[i].kind, Keep: secret - m[0] + shapeList[i].keep, secret: secret})
		}
	}
	// By where each secret starts, not what names it: of one secret found
	// twice (a GitHub token given to Token:), the shape that knows it
	// best, earlier in the list, is kept, with the prefix that tells its
	// kind.
	sort.SliceStable(found, func(i, j int) bool { return found[i].secret < found[j].secret })
	out := found[:0]
	for _, f := range found {
		if len(out) > 0 && f.secret < out[len(out)-1].End {
			continue // inside one found before, by an earlier shape or an earlier start
		}
		if len(out) > 0 && f.Start < out[len(out)-1].End { // what names it is in the one before
			cut := out[len(out)-1].End - f.Start
			f.Start, f.Keep = f.Start+cut, max(0, f.Keep-cut)
		}
		out = append(out, f)
	}
	return out
}

// HoldsAny reports whether text holds one of the words of pre ("a|b"),
// both in lower case.
func HoldsAny(text, pre string) bool {
	for w := range strings.SplitSeq(pre, "|") {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// placeholder reports a value that stands for a secret rather than being
// one: x's or stars, one character over and over, <...>, ${...}, {{...}}.
func placeholder(v string) bool {
	l := strings.ToLower(v)
	if strings.ContainsAny(l, "<>{}$*") || strings.Contains(l, "xxxx") || strings.Contains(l, "your") || strings.Contains(l, "example") {
		return true
	}
	distinct := map[rune]bool{}
	for _, r := range l {
		distinct[r] = true
	}
	return len(distinct) < 5
}

// MaskSecrets is text with the secrets FindSecrets finds in it masked.
func MaskSecrets(text string) string { return MaskFound(text, FindSecrets(text)) }

// MaskFound is text with each secret found masked: the prefix that names
// its kind kept, the rest replaced with Mask.
func MaskFound(text string, found []Found) string {
	if len(found) == 0 {
		return text
	}
	var b strings.Builder
	last := 0
	for _, f := range found {
		b.WriteString(text[last : f.Start+f.Keep])
		b.WriteString(Mask)
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String()
}
