package jsonschema

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// formatCheck returns the check for a format name, nil for a name with
// none. The checks apply in draft-04, -06 and -07, whose validators
// commonly assert formats; from 2019-09 on "format" is an annotation.
func formatCheck(name string) func(string) error {
	for _, f := range [...]struct {
		name  string
		check func(string) error
	}{
		{"date-time", formatDateTime}, {"date", formatDate}, {"time", formatTime}, {"duration", formatDuration},
		{"period", formatPeriod}, {"email", formatEmail}, {"hostname", formatHostname}, {"ipv4", formatIPv4},
		{"ipv6", formatIPv6}, {"uri", formatURI}, {"uri-reference", formatURIReference}, {"iri", formatIRI},
		{"iri-reference", formatIRIReference}, {"uri-template", formatURITemplate}, {"json-pointer", formatJSONPointer},
		{"relative-json-pointer", formatRelativeJSONPointer}, {"uuid", formatUUID}, {"regex", formatRegex},
		{"semver", formatSemver},
	} {
		if f.name == name {
			return f.check
		}
	}
	return nil
}

// IsEmail reports whether s is an email address, as format "email" reads one.
func IsEmail(s string) bool { return formatEmail(s) == nil }

// IsUUID reports whether s is a UUID as format "uuid" reads one.
func IsUUID(s string) bool { return formatUUID(s) == nil }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitsValue reads s as a decimal number, false when it is empty or has
// anything but digits.
func digitsValue(s string) (int, bool) {
	if s == "" || !allDigits(s) {
		return 0, false
	}
	n, _ := strconv.Atoi(s) // past an int, no caller reads the number
	return n, true
}

// formatHostname is an RFC 1123 host name: dot-separated labels of 1 to 63
// letters, digits and inner hyphens, 253 characters in all, with no dot at
// the end. A label that starts with "xn--" is an A-label (RFC 5890
// section 2.3.2.1): Punycode that decodes to a label IDNA2008 allows for
// registration (RFC 5891 section 4).
func formatHostname(s string) error {
	if len(s) > 253 {
		return errors.New("longer than 253 characters")
	}
	for label := range strings.SplitSeq(s, ".") {
		if len(label) == 0 || len(label) > 63 {
			return errors.New("a label not 1 to 63 characters long")
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return errors.New("a label that starts or ends with a hyphen")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '-') {
				return fmt.Errorf("invalid character %q", c)
			}
		}
		if len(label) >= 4 && strings.EqualFold(label[:4], "xn--") {
			if _, err := idna.Registration.ToUnicode(strings.ToLower(label)); err != nil {
				return fmt.Errorf("label %q is not a valid A-label: %v", label, err)
			}
		}
	}
	return nil
}

// formatEmail is an address as RFC 5321 writes one: a dot-atom or quoted
// local part, @, a host name or a bracketed IP address.
func formatEmail(s string) error {
	if len(s) > 254 {
		return errors.New("longer than 254 characters")
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return errors.New("missing @")
	}
	local, domain := s[:at], s[at+1:]
	if local == "" {
		return errors.New("no local part")
	}
	if len(local) > 64 {
		return errors.New("local part longer than 64 characters")
	}
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `"\`) {
			return errors.New(`a quote or backslash in the quoted local part`)
		}
	} else {
		if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
			return errors.New("a misplaced dot in the local part")
		}
		for _, c := range local {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".!#$%&'*+-/=?^_`{|}~", c)) {
				return fmt.Errorf("invalid character %q in the local part", c)
			}
		}
	}
	if len(domain) > 1 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		ip := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(ip, "IPv6:"); ok {
			return formatIPv6(v6)
		}
		return formatIPv4(ip)
	}
	if err := formatHostname(domain); err != nil {
		return fmt.Errorf("domain: %v", err)
	}
	return nil
}

// formatIPv4 is dotted-quad notation without leading zeros.
func formatIPv4(s string) error {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return errors.New("want four decimal numbers")
	}
	for _, p := range parts {
		n, ok := digitsValue(p)
		if !ok || len(p) > 3 {
			return errors.New("want four decimal numbers")
		}
		if len(p) > 1 && p[0] == '0' {
			return errors.New("a leading zero")
		}
		if n > 255 {
			return errors.New("a number above 255")
		}
	}
	return nil
}

// formatIPv6 is an RFC 4291 address, without a zone.
func formatIPv6(s string) error {
	if !strings.Contains(s, ":") {
		return errors.New("missing colon")
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return err
	}
	if a.Zone() != "" {
		return errors.New("a zone is not part of an address")
	}
	return nil
}

// parseURI parses a URI reference, checking an IPv6 host too.
func parseURI(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") {
			return nil, errors.New("an IPv6 host not in brackets")
		}
		if err := formatIPv6(host); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// idURI is the check of an absolute URI that a schema's own identifiers get
// ($schema, $vocabulary's keys): what url.Parse reads, as validators
// commonly take them, looser than the uri format, so that a schema found in
// the wild still compiles.
func idURI(s string) error {
	u, err := parseURI(s)
	if err != nil {
		return err
	}
	if !u.IsAbs() {
		return errors.New("not absolute")
	}
	return nil
}

// idURIReference is idURI for a reference ($id, $ref).
func idURIReference(s string) error {
	if strings.Contains(s, `\`) {
		return errors.New(`contains \`)
	}
	_, err := parseURI(s)
	return err
}

// formatJSONPointer is an RFC 6901 JSON pointer.
func formatJSONPointer(s string) error {
	if s == "" {
		return nil
	}
	if s[0] != '/' {
		return errors.New("does not start with /")
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1') {
			return errors.New("~ not followed by 0 or 1")
		}
	}
	return nil
}

// formatRelativeJSONPointer is a non-negative integer, then # or a JSON
// pointer.
func formatRelativeJSONPointer(s string) error {
	i := len(s) - len(strings.TrimLeft(s, "0123456789"))
	if i == 0 {
		return errors.New("does not start with a number")
	}
	if i > 1 && s[0] == '0' {
		return errors.New("a leading zero")
	}
	if s[i:] == "#" {
		return nil
	}
	return formatJSONPointer(s[i:])
}

// formatUUID is RFC 4122's 8-4-4-4-12 hexadecimal digits.
func formatUUID(s string) error {
	if len(s) != 36 {
		return errors.New("want 8-4-4-4-12 hexadecimal digits")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return errors.New("want 8-4-4-4-12 hexadecimal digits")
			}
			continue
		}
		if !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return fmt.Errorf("non-hexadecimal character %q", c)
		}
	}
	return nil
}

// formatRegex is an ECMA-262 regular expression, as pattern is: one that
// only Go's regular expressions cannot evaluate is one all the same.
func formatRegex(s string) error {
	_, _, err := compilePattern(s)
	return err
}

// formatSemver is a semantic version (semver.org 2.0.0).
func formatSemver(s string) error {
	ident := func(id string, numericNoZero bool) error {
		if id == "" {
			return errors.New("an empty identifier")
		}
		numeric := true
		for i := 0; i < len(id); i++ {
			c := id[i]
			switch {
			case isDigit(c):
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-':
				numeric = false
			default:
				return fmt.Errorf("invalid character %q", c)
			}
		}
		if numericNoZero && numeric && len(id) > 1 && id[0] == '0' {
			return errors.New("a numeric identifier with a leading zero")
		}
		return nil
	}
	core, build, hasBuild := strings.Cut(s, "+")
	if hasBuild {
		for id := range strings.SplitSeq(build, ".") {
			if err := ident(id, false); err != nil {
				return fmt.Errorf("build: %v", err)
			}
		}
	}
	core, pre, hasPre := strings.Cut(core, "-")
	if hasPre {
		for id := range strings.SplitSeq(pre, ".") {
			if err := ident(id, true); err != nil {
				return fmt.Errorf("pre-release: %v", err)
			}
		}
	}
	nums := strings.Split(core, ".")
	if len(nums) != 3 {
		return errors.New("want major.minor.patch")
	}
	for _, p := range nums {
		if _, ok := digitsValue(p); !ok {
			return errors.New("want major.minor.patch")
		}
		if len(p) > 1 && p[0] == '0' {
			return errors.New("a version number with a leading zero")
		}
	}
	return nil
}
