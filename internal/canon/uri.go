package canon

import (
	"net/netip"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// URI is the normal form of a URI (RFC 3986, section 6.2.2, and the
// file scheme's rules, RFC 8089): the scheme and host in lower case;
// percent-encodings of unreserved characters decoded, the others in
// upper case; "." and ".." segments removed from the path; file: URIs
// by their path alone, file:/// whatever their authority (localhost,
// another host, a user, a port: see normalise); a default port and an
// empty port dropped, an empty http(s) path "/".
//
// A URI whose reading would be a guess is refused (an *AmbiguousError):
// one that holds an encoded slash or backslash, an encoded "%" (encoded
// twice), a control character, a backslash, white space at an end, a
// character that folds into a delimiter ("．", "／"...), an empty path
// segment ("//", which a file server reads as "/"), or a ".." that
// normalising did not remove (in a query, a fragment, an opaque path).
func URI(raw string) (string, error) {
	out, err := uriForm(raw, false)
	if err != nil {
		return "", err
	}
	// A normal form is its own: one that reads otherwise a second time
	// (an encoded "." that, decoded, makes the start a scheme) is a
	// guess.
	if again, err := uriForm(out, false); err != nil || again != out {
		return "", ambiguous(raw, "its normal form reads otherwise when read again")
	}
	return out, nil
}

// Literal is URI's normal form with an address that URI writes as
// localhost (a loopback or unspecified one) kept the address it is
// (127.0.0.5, [::1]), for a pattern that names addresses by a glob
// (http://127.0.0.*/): a guard matches both forms. "" where URI
// refuses raw.
func Literal(raw string) string {
	if _, err := URI(raw); err != nil {
		return ""
	}
	out, _ := uriForm(raw, true)
	return out
}

// uriForm is one pass of URI's normalising; literal keeps a loopback
// address an address (Literal).
func uriForm(raw string, literal bool) (string, error) {
	if err := screen(raw); err != nil {
		return "", err
	}
	u := split(raw, false)
	u.literal = literal
	var err error
	if u.path, err = pathForm(raw, u.path, u.hasAuthority || strings.HasPrefix(u.path, "/"), u.hasAuthority && u.authority != ""); err != nil {
		return "", err
	}
	u.query = encodingForm(u.query)
	u.fragment = encodingForm(u.fragment)
	u.normalise()
	out := u.String()
	if dotDotSegment(decodeAll(out)) {
		return "", ambiguous(raw, `".." is left after normalising`)
	}
	if dotSegmentLeft(u.path) {
		return "", ambiguous(raw, `a dot segment is left after normalising (a path with no root keeps them)`)
	}
	return out, nil
}

// Pattern is a guard's URI pattern in the normal form URI gives, as far
// as a pattern has one: its scheme and host in lower case, unreserved
// characters decoded, the file scheme's empty authority. Its * and ?
// are kept as they are.
func Pattern(p string) string {
	u := split(p, true)
	u.path = encodingForm(u.path)
	u.query = encodingForm(u.query)
	u.fragment = encodingForm(u.fragment)
	u.normalise()
	return u.String()
}

// screen refuses what is ambiguous in the URI as a whole, encoded or not.
func screen(raw string) error {
	if !utf8.ValidString(raw) {
		return ambiguous(raw, "it is not valid UTF-8")
	}
	if strings.TrimSpace(raw) != raw {
		return ambiguous(raw, "it has white space at an end")
	}
	for i := 0; i+2 < len(raw); i++ {
		if raw[i] != '%' || !isHex(raw[i+1]) || !isHex(raw[i+2]) {
			continue
		}
		switch c := unhex(raw[i+1])<<4 | unhex(raw[i+2]); {
		case c == '/':
			return ambiguous(raw, "it holds an encoded slash (%%2F)")
		case c == '\\':
			return ambiguous(raw, "it holds an encoded backslash (%%5C)")
		case c == '%':
			return ambiguous(raw, "it holds an encoded %% (%%25): encoded twice")
		}
	}
	decoded := decodeAll(raw)
	if !utf8.ValidString(decoded) {
		return ambiguous(raw, "it decodes to invalid UTF-8")
	}
	for _, r := range decoded {
		switch {
		case r == '\\':
			return ambiguous(raw, "it holds a backslash")
		case odd(r) != "":
			return ambiguous(raw, "it holds %s %U", odd(r), r)
		case r >= utf8.RuneSelf && strings.ContainsAny(norm.NFKC.String(string(r)), `./\%?#;:@&=`):
			return ambiguous(raw, "it holds %q, which a server may read as %q", r, norm.NFKC.String(string(r)))
		}
	}
	return nil
}

// parts is a URI split as RFC 3986 (appendix B) splits one; a pattern is
// split at its scheme and authority alone.
type parts struct {
	pattern      bool // a guard's pattern, whose * and ? are kept
	literal      bool // a loopback address kept an address (Literal)
	scheme       string
	hasAuthority bool
	authority    string
	path         string
	query        string // without its "?"; hasQuery says whether there is one
	hasQuery     bool
	fragment     string
	hasFragment  bool
}

func split(s string, pattern bool) parts {
	u := parts{pattern: pattern}
	if i := strings.IndexByte(s, ':'); i > 0 && isScheme(s[:i]) {
		u.scheme, s = s[:i], s[i+1:]
	}
	// A pattern's ? stands for a character: what follows its authority
	// is its path, whatever it holds.
	if i := strings.IndexByte(s, '#'); !pattern && i >= 0 {
		u.fragment, u.hasFragment, s = s[i+1:], true, s[:i]
	}
	if i := strings.IndexByte(s, '?'); !pattern && i >= 0 {
		u.query, u.hasQuery, s = s[i+1:], true, s[:i]
	}
	if rest, ok := strings.CutPrefix(s, "//"); ok {
		u.hasAuthority = true
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			i = len(rest)
		}
		u.authority, s = rest[:i], rest[i:]
	}
	u.path = s
	return u
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// normalise puts the scheme and authority in their normal form: lower
// case, a file URI's authority (user, host, port) dropped and a missing
// one empty, a default or empty port dropped, an empty path after an
// authority "/".
//
// A file URI is read by its path alone: a server that opens a file URI's
// path opens /private/key for file://anyhost/private/key, so a pattern
// that names /private matches it whatever host it names, and a pattern's
// own host is dropped alike (an allow pattern does not admit by host). A
// pattern's host written with * or ? is kept, to match the empty one.
func (u *parts) normalise() {
	u.scheme = strings.ToLower(u.scheme)
	if u.hasAuthority {
		u.authority = authorityForm(u.authority, u.scheme, u.literal)
	}
	switch u.scheme {
	case "file":
		if !u.hasAuthority && strings.HasPrefix(u.path, "/") {
			u.hasAuthority = true // file:/x is file:///x
		}
		if !u.pattern || !strings.ContainsAny(u.authority, "*?") {
			u.authority = ""
		}
	}
	if u.hasAuthority && u.path == "" && !strings.ContainsAny(u.authority, "*?") {
		u.path = "/" // RFC 3986 6.2.3: demo://readme is demo://readme/ (a pattern's demo://* is left to match both)
	}
}

func authorityForm(a, scheme string, literal bool) string {
	userinfo, host := "", a
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		userinfo, host = a[:i+1], a[i+1:]
	}
	port := ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host, port = host[:i], host[i+1:]
	}
	host = strings.ToLower(encodingForm(host))
	if network(scheme) {
		host = hostForm(host, literal)
	}
	switch {
	case strings.Contains(host, ":") && !strings.HasPrefix(host, "["):
		port = ":" + port // no port of a host that holds a colon: kept as written, so the form is steady
	case port == "":
	case port == "80" && (scheme == "http" || scheme == "ws"), port == "443" && (scheme == "https" || scheme == "wss"), port == "21" && scheme == "ftp":
		port = ""
	default:
		port = ":" + port
	}
	return encodingForm(userinfo) + host + port
}

// network reports whether a client reaches a URI of scheme by
// connecting to its host, which its URL parser reads as the WHATWG URL
// standard reads a special scheme's host.
func network(scheme string) bool {
	switch scheme {
	case "http", "https", "ws", "wss", "ftp":
		return true
	}
	return false
}

// lookup maps a host's name as a URL parser does (UTS 46: full-width, case,
// punycode), refusing no name DNS would; made at use, not at start-up
// (TestStartupInitCost holds those allocations).
func lookup() *idna.Profile { return idna.New(idna.MapForLookup(), idna.StrictDomainName(false)) }

// hostForm is the host of a network URI in the form a client connects
// to: its name mapped as a URL parser maps it and without a final dot;
// an IP address written in its usual form whatever the form it came in
// (127.1, 0x7f.0.0.1, 2130706433, [0:0::1], [::ffff:7f00:1]); and this
// machine, a loopback address (127.0.0.0/8, [::1]), the unspecified
// one (0.0.0.0, [::], which connect here) or localhost and a name under
// it (RFC 6761), written localhost (an address kept, literal). A host
// with a glob's * or ? is a pattern's, and kept.
func hostForm(host string, literal bool) string {
	if host == "" || strings.ContainsAny(host, "*?") {
		return host
	}
	if inner, ok := strings.CutPrefix(host, "["); ok {
		a, err := netip.ParseAddr(strings.TrimSuffix(inner, "]"))
		if err != nil || !strings.HasSuffix(inner, "]") || a.Zone() != "" {
			return host
		}
		return addrForm(a, literal)
	}
	if a, err := lookup().ToASCII(host); err == nil && a != "" {
		host = a
	}
	if h := strings.TrimSuffix(host, "."); h != "" {
		host = h
	}
	if a, ok := ipv4(host); ok {
		return addrForm(a, literal)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "localhost"
	}
	return host
}

// addrForm is an address as hostForm writes it.
func addrForm(a netip.Addr, literal bool) string {
	a = a.Unmap()
	switch {
	case !literal && (a.IsLoopback() || a.IsUnspecified()):
		return "localhost"
	case a.Is4():
		return a.String()
	}
	return "[" + a.String() + "]"
}

// ipv4 reads a host as the WHATWG URL standard's IPv4 parser does: one
// to four parts, each decimal, octal after a 0, or hex after 0x, the
// last filling the bytes that are left (127.1 is 127.0.0.1,
// 2130706433 too).
func ipv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var n [4]uint64
	for i, p := range parts {
		base := uint64(10)
		switch {
		case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, p = 16, p[2:]
		case len(p) >= 2 && p[0] == '0':
			base, p = 8, p[1:]
		}
		if p == "" && base != 16 {
			return netip.Addr{}, false
		}
		for j := 0; j < len(p); j++ {
			d := uint64(36)
			switch c := p[j]; {
			case '0' <= c && c <= '9':
				d = uint64(c - '0')
			case 'a' <= c && c <= 'f':
				d = uint64(c-'a') + 10
			}
			if d >= base || n[i] > 1<<32 {
				return netip.Addr{}, false
			}
			n[i] = n[i]*base + d
		}
	}
	last := len(parts) - 1
	if n[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	v := n[last]
	for i := 0; i < last; i++ {
		if n[i] > 255 {
			return netip.Addr{}, false
		}
		v |= n[i] << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func (u parts) String() string {
	var b strings.Builder
	if u.scheme != "" {
		b.WriteString(u.scheme)
		b.WriteByte(':')
	}
	if u.hasAuthority {
		b.WriteString("//")
		b.WriteString(u.authority)
	}
	b.WriteString(u.path)
	if u.hasQuery {
		b.WriteByte('?')
		b.WriteString(u.query)
	}
	if u.hasFragment {
		b.WriteByte('#')
		b.WriteString(u.fragment)
	}
	return b.String()
}

// pathForm is a path in its normal form: encodings as encodingForm puts
// them, and for a hierarchical path its dot segments removed (RFC 3986,
// section 5.2.4). An empty segment is refused: a file server reads "//"
// as "/", which the pattern, written with one, would not match. So is a
// ".." that climbs above the root of a URI with a host (demo://x/../y):
// RFC 3986 drops it, a server that reads what follows the scheme as a
// path climbs out of the host.
func pathForm(raw, path string, hierarchical, host bool) (string, error) {
	path = encodingForm(path)
	if !hierarchical {
		return path, nil
	}
	if strings.Contains(path, "//") {
		return "", ambiguous(raw, `its path holds an empty segment ("//")`)
	}
	p, climbed := removeDots(path)
	if climbed && host {
		return "", ambiguous(raw, `a ".." climbs above its path's root, out of its host`)
	}
	return p, nil
}

// removeDots is RFC 3986's remove_dot_segments (section 5.2.4); climbed
// says whether a ".." was dropped at the root.
func removeDots(path string) (p string, climbed bool) {
	var out []string
	segs := strings.Split(path, "/")
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 || len(out) == 1 && out[0] != "" {
				out = out[:len(out)-1]
			} else {
				climbed = true
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	p = strings.Join(out, "/")
	if strings.HasPrefix(path, "/") && !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p, climbed
}

// encodingForm decodes the percent-encodings of unreserved characters
// and writes the others' hex digits in upper case (RFC 3986, sections
// 6.2.2.1 and 6.2.2.2).
func encodingForm(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c := unhex(s[i+1])<<4 | unhex(s[i+2])
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' { // unreserved
				b.WriteByte(c)
			} else {
				b.WriteByte('%')
				b.WriteByte(upper(s[i+1]))
				b.WriteByte(upper(s[i+2]))
			}
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeAll decodes every percent-encoding, as a server that decodes
// the whole URI would.
func decodeAll(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// dotSegmentLeft reports a "." or ".." segment in a path normalising
// kept: a rootless path's, which is not resolved against any base ("."
// alone, "a:..", "a/./b" after a scheme with no authority).
func dotSegmentLeft(path string) bool {
	return slices.ContainsFunc(strings.Split(decodeAll(path), "/"), func(seg string) bool {
		return seg == "." || seg == ".."
	})
}

// dotDotSegment reports whether s holds ".." as a segment of anything a
// server may read as a path: between slashes, or beside a "?", "#", ";"
// (a path parameter: "..;/"), "=" or "&".
func dotDotSegment(s string) bool {
	for i := strings.Index(s, ".."); i >= 0; {
		before := i == 0 || strings.IndexByte("/?#;=&", s[i-1]) >= 0
		after := i+2 == len(s) || strings.IndexByte("/?#;=&", s[i+2]) >= 0
		if before && after {
			return true
		}
		next := strings.Index(s[i+1:], "..")
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}
