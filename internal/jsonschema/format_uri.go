package jsonschema

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/uritemplate"
)

// The formats uri, uri-reference, iri, iri-reference and uri-template, read
// by the grammars of RFC 3986 (section 3 and 4.1), RFC 3987 (section 2.2)
// and RFC 6570 (section 2), character by character: a value asserted as a
// URI holds only what the grammar allows where it is, which url.Parse does
// not check.

func formatURI(s string) error          { return checkURI(s, true, false) }
func formatURIReference(s string) error { return checkURI(s, false, false) }
func formatIRI(s string) error          { return checkURI(s, true, true) }
func formatIRIReference(s string) error { return checkURI(s, false, true) }

// checkURI reads s as a URI (abs) or URI-reference, or their IRI forms,
// which also allow the UCS characters of RFC 3987 (and its private-use
// ones in the query).
func checkURI(s string, abs, iri bool) error {
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	rest, fragment, _ := strings.Cut(s, "#")
	rest, query, _ := strings.Cut(rest, "?") // none is empty, and so allowed
	hier, hasScheme := rest, false
	if i := strings.IndexByte(rest, ':'); i >= 0 && !strings.Contains(rest[:i], "/") && isScheme(rest[:i]) {
		hier, hasScheme = rest[i+1:], true
	}
	if abs && !hasScheme {
		if scheme, _, ok := strings.Cut(rest, ":"); ok && !strings.Contains(scheme, "/") {
			return fmt.Errorf("invalid scheme %q", scheme)
		}
		return errors.New("not absolute: no scheme")
	}
	path := hier
	if authority, ok := strings.CutPrefix(hier, "//"); ok {
		end := strings.IndexByte(authority, '/')
		if end < 0 {
			end = len(authority)
		}
		if err := checkAuthority(authority[:end], iri); err != nil {
			return err
		}
		path = authority[end:]
	} else if !hasScheme {
		// path-noscheme: the first segment of a relative path has no colon
		first, _, _ := strings.Cut(path, "/")
		if strings.Contains(first, ":") {
			return errors.New("a colon in the first segment of a relative reference")
		}
	}
	if err := checkChars(path, "/:@", iri, false); err != nil {
		return fmt.Errorf("path: %v", err)
	}
	if err := checkChars(query, "/?:@", iri, true); err != nil {
		return fmt.Errorf("query: %v", err)
	}
	if err := checkChars(fragment, "/?:@", iri, false); err != nil {
		return fmt.Errorf("fragment: %v", err)
	}
	return nil
}

// isScheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
func isScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// checkAuthority reads [ userinfo "@" ] host [ ":" port ], where host is an
// IP literal in brackets (an IPv6 address or an IPvFuture), or a name.
func checkAuthority(a string, iri bool) error {
	if userinfo, host, ok := strings.Cut(a, "@"); ok {
		if err := checkChars(userinfo, ":", iri, false); err != nil {
			return fmt.Errorf("userinfo: %v", err)
		}
		a = host
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return errors.New("an IP literal without its closing bracket")
		}
		host, port = a[:end+1], a[end+1:]
		if port != "" && port[0] != ':' {
			return fmt.Errorf("%q after an IP literal", port)
		}
		if err := checkIPLiteral(host[1:end]); err != nil {
			return err
		}
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i:]
	}
	if _, ok := digitsValue(strings.TrimPrefix(port, ":")); len(port) > 1 && !ok { // port is "" or starts with ":"
		return fmt.Errorf("port %q is not a number", port[1:])
	}
	if !strings.HasPrefix(host, "[") {
		if err := checkChars(host, "", iri, false); err != nil {
			return fmt.Errorf("host: %v", err)
		}
	}
	return nil
}

// checkIPLiteral reads what is between the brackets of an IP literal:
// IPv6address, or IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ).
func checkIPLiteral(s string) error {
	if s == "" || s[0] != 'v' && s[0] != 'V' {
		return formatIPv6(s)
	}
	version, rest, ok := strings.Cut(s[1:], ".")
	if !ok || version == "" || rest == "" || strings.Trim(version, "0123456789abcdefABCDEF") != "" {
		return fmt.Errorf("invalid IP literal %q", s)
	}
	if err := checkChars(rest, ":", false, false); err != nil || strings.Contains(rest, "%") {
		return fmt.Errorf("invalid IP literal %q", s)
	}
	return nil
}

// checkChars checks that s holds only unreserved characters, sub-delims,
// percent-encoded octets and the characters of extra; with iri also the UCS
// characters of RFC 3987, and with private those of its private-use ranges.
func checkChars(s, extra string, iri, private bool) error {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return errors.New("a % not followed by two hexadecimal digits")
			}
			i += 3
			continue
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !iri || !(isUCS(r) || private && isPrivateUse(r)) {
				return fmt.Errorf("character %q is not allowed", r)
			}
			i += size
			continue
		case isAlpha(c) || isDigit(c) || strings.IndexByte("-._~!$&'()*+,;=", c) >= 0 || strings.IndexByte(extra, c) >= 0:
		default:
			return fmt.Errorf("character %q is not allowed", c)
		}
		i++
	}
	return nil
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// isUCS is ucschar (RFC 3987): the characters beyond ASCII an IRI may hold
// anywhere.
func isUCS(r rune) bool {
	switch {
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFEF:
		return true
	case r >= 0x10000 && r <= 0xEFFFD:
		return r&0xFFFF <= 0xFFFD && !(r >= 0xE0000 && r < 0xE1000)
	}
	return false
}

// isPrivateUse is iprivate (RFC 3987), allowed in an IRI's query.
func isPrivateUse(r rune) bool {
	return r >= 0xE000 && r <= 0xF8FF || r >= 0xF0000 && r <= 0xFFFFD || r >= 0x100000 && r <= 0x10FFFD
}

// formatURITemplate is an RFC 6570 template (internal/uritemplate reads
// it).
func formatURITemplate(s string) error {
	_, err := uritemplate.Parse(s)
	return err
}
