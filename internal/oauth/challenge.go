package oauth

import (
	"net/http"
	"strings"
)

// Parsing WWW-Authenticate (RFC 9110 §11.6.1):
//
//	WWW-Authenticate = #challenge
//	challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//	auth-param = token BWS "=" BWS ( token / quoted-string )
//	token68    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//
// The list separator of the challenges and the one of a challenge's
// parameters are the same comma. After a comma, a token followed by "=" is
// another parameter of the current challenge; a token that is not followed by
// "=" is the scheme of the next challenge (§11.6.1 points out this ambiguity
// and resolves it the same way).
//
// The parser is lenient and total: it never fails and never panics; what it
// cannot read is skipped up to the next comma outside a quoted string.
// Parameter names are lowercased (they are case-insensitive, §11.2); a
// parameter given twice keeps its first value; a token68 is kept under the
// empty name.

// ParseChallenges parses WWW-Authenticate header values, each of which may
// hold several challenges, in order.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		p := challengeParser{s: v}
		out = p.challenges(out)
	}
	return out
}

// AuthChallenge returns the challenge a client of an OAuth resource
// answers: the first DPoP challenge (RFC 9449 §7.1), which asks for a
// DPoP-bound token, else the first Bearer one.
func AuthChallenge(h http.Header) (Challenge, bool) {
	if c, ok := FirstChallenge(h, "DPoP"); ok {
		return c, true
	}
	return FirstChallenge(h, "Bearer")
}

// FirstChallenge is the first of h's WWW-Authenticate challenges of scheme, in any case.
func FirstChallenge(h http.Header, scheme string) (Challenge, bool) {
	for _, c := range ParseChallenges(h.Values("WWW-Authenticate")) {
		if strings.EqualFold(c.Scheme, scheme) {
			return c, true
		}
	}
	return Challenge{}, false
}

// challengeParser reads one header value; i is the read position.
type challengeParser struct {
	s string
	i int
}

func (p *challengeParser) challenges(out []Challenge) []Challenge {
	for {
		p.separators()
		if p.i >= len(p.s) {
			return out
		}
		scheme := p.token()
		// The scheme must end the element or be followed by whitespace.
		if scheme == "" || (p.i < len(p.s) && !isChallengeSpace(p.s[p.i]) && p.s[p.i] != ',') {
			p.skipElement()
			continue
		}
		c := Challenge{Scheme: scheme, Params: map[string]string{}}
		p.spaces()
		if t68, ok := p.token68(); ok {
			c.Params[""] = t68
		} else {
			p.params(c.Params)
		}
		out = append(out, c)
	}
}

// params reads auth-params into m until the input ends or a token that is
// not followed by "=" (the next challenge's scheme) comes after a comma.
func (p *challengeParser) params(m map[string]string) {
	for {
		afterComma := p.separators()
		if p.i >= len(p.s) {
			return
		}
		start := p.i
		name := p.token()
		p.spaces()
		if name == "" || p.i >= len(p.s) || p.s[p.i] != '=' {
			if name != "" && afterComma {
				p.i = start // the next challenge
				return
			}
			p.skipElement()
			continue
		}
		p.i++ // "="
		p.spaces()
		value, ok := p.value()
		if !ok {
			p.skipElement()
			continue
		}
		name = strings.ToLower(name)
		if _, seen := m[name]; !seen {
			m[name] = value
		}
		p.spaces()
		if p.i < len(p.s) && p.s[p.i] != ',' {
			p.skipElement() // junk after the value
		}
	}
}

// separators skips whitespace and commas (empty list elements are allowed,
// RFC 9110 §5.6.1) and reports whether it saw a comma.
func (p *challengeParser) separators() bool {
	comma := false
	for p.i < len(p.s) && (isChallengeSpace(p.s[p.i]) || p.s[p.i] == ',') {
		comma = comma || p.s[p.i] == ','
		p.i++
	}
	return comma
}

func (p *challengeParser) spaces() {
	for p.i < len(p.s) && isChallengeSpace(p.s[p.i]) {
		p.i++
	}
}

func (p *challengeParser) token() string {
	start := p.i
	for p.i < len(p.s) && isChallengeChar(p.s[p.i], tchars) {
		p.i++
	}
	return p.s[start:p.i]
}

// token68 reads a token68 if one makes up the rest of the element; otherwise
// it consumes nothing.
func (p *challengeParser) token68() (string, bool) {
	j := p.i
	for j < len(p.s) && isChallengeChar(p.s[j], token68Chars) {
		j++
	}
	if j == p.i {
		return "", false
	}
	for j < len(p.s) && p.s[j] == '=' {
		j++
	}
	end := j
	for j < len(p.s) && isChallengeSpace(p.s[j]) {
		j++
	}
	if j < len(p.s) && p.s[j] != ',' {
		return "", false
	}
	t := p.s[p.i:end]
	p.i = j
	return t, true
}

// value reads a token or a quoted-string (RFC 9110 §5.6.4), unescaping
// quoted-pairs. An empty or unterminated value is not ok.
func (p *challengeParser) value() (string, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		t := p.token()
		return t, t != ""
	}
	var b strings.Builder
	for j := p.i + 1; j < len(p.s); j++ {
		switch c := p.s[j]; c {
		case '"':
			p.i = j + 1
			return b.String(), true
		case '\\':
			if j+1 >= len(p.s) {
				return "", false
			}
			j++
			b.WriteByte(p.s[j])
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// skipElement moves to the next comma that is not inside a quoted string,
// or to the end.
func (p *challengeParser) skipElement() {
	quoted := false
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case quoted && c == '\\':
			p.i++ // the escaped byte, if any, is skipped below
		case c == '"':
			quoted = !quoted
		case !quoted && c == ',':
			return
		}
		p.i = min(p.i+1, len(p.s))
	}
}

func isChallengeSpace(c byte) bool { return c == ' ' || c == '\t' }

// tchars and token68Chars are the characters of a tchar (RFC 9110
// §5.6.2) and of a token68 (§11.2) beside letters and digits.
const tchars, token68Chars = "!#$%&'*+-.^_`|~", "-._~+/"

// isChallengeChar reports whether c is a letter, a digit or one of more.
func isChallengeChar(c byte, more string) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(more, c) >= 0
}
