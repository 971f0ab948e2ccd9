package oauth

// The settings a user gives when the defaults do not fit an authorization
// server: the RFC 8707 resource indicator overridden or left out, the
// scopes asked for, a fixed redirect URI, and a bound on the wait for the
// browser. Each changes what a stored token is good for, so a record keeps
// what it was asked with, and a run uses only a record asked as it would ask
// (Wanted.Fits).

import (
	"cmp"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Where a record's resource came from (Record.ResourceParam).
const (
	// ResourceDiscovered: the resource of the server's metadata (or its
	// canonical URL), sent on every grant; "" in a record.
	ResourceDiscovered = ""
	// ResourceGiven: a resource the user gave, sent as given.
	ResourceGiven = "given"
	// ResourceOmitted: no resource parameter was sent; Record.Resource is
	// empty.
	ResourceOmitted = "omitted"
)

// Wanted is what a run wants of a token beyond the server: the resource it
// is for, and the scopes it was asked with.
type Wanted struct {
	// Resource, when set, is sent as the resource parameter (RFC 8707)
	// instead of the one discovered, exactly as given.
	Resource string
	// OmitResource sends no resource parameter at all, for authorization
	// servers that refuse one (Microsoft Entra ID's v2 endpoints).
	OmitResource bool
	// Scopes, when set, are exactly the scopes asked for, instead of the
	// challenge's or the resource's (no offline_access is added, and a 403
	// insufficient_scope is not stepped up past them).
	Scopes []string
}

// param is how w sets the resource parameter (Record.ResourceParam).
func (w Wanted) param() string {
	switch {
	case w.OmitResource:
		return ResourceOmitted
	case w.Resource != "":
		return ResourceGiven
	}
	return ResourceDiscovered
}

// Narrows reports whether w asks for anything of its own (a resource
// setting, scopes): only then does it tell some records from others.
func (w Wanted) Narrows() bool { return w.Resource != "" || w.OmitResource || len(w.Scopes) > 0 }

// Fits reports whether a run that wants w may use rec's token: it was
// granted for the same resource setting (and the same resource, when one was
// given), so that a token is never sent for another resource than it was
// granted for; and every scope w asks for was asked for or granted, so that
// a change of scopes asks again rather than using a token with fewer.
func (w Wanted) Fits(rec *Record) bool {
	if rec.ResourceParam != w.param() || (w.Resource != "" && rec.Resource != w.Resource) {
		return false
	}
	had := append(strings.Fields(rec.AskedScope), strings.Fields(rec.Token.Scope)...)
	return !slices.ContainsFunc(w.Scopes, func(s string) bool { return !slices.Contains(had, s) })
}

// CheckResource checks a resource indicator given by the user: an absolute
// URI (RFC 8707 §2) without a fragment, https or http to a loopback host (a
// resource of anything else would take a token mcpv sends only over
// https), and without credentials, which the authorization URL would show.
func CheckResource(resource string) error {
	u, err := url.Parse(resource)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("%s is not an absolute https URL", messageSafe(resource))
	case u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname())):
		return fmt.Errorf("%s is not an https URL (http only to a loopback host)", messageSafe(resource))
	case u.User != nil:
		return fmt.Errorf("a resource must not hold credentials (%s@)", messageSafe(u.User.Username()))
	case strings.Contains(resource, "#"):
		return fmt.Errorf("%s has a fragment, which RFC 8707 does not allow in a resource", messageSafe(resource))
	}
	return nil
}

// Redirect is the redirect URI of the code flow, for one registered with
// the authorization server beforehand: http://HOST:PORT/PATH. The zero
// value is mcpv's own choice, http://127.0.0.1:FREE-PORT/callback. mcpv
// always listens on the loopback interface: a host name that is not a
// loopback one must lead the browser back to this machine (a hosts entry,
// a forwarded port), or the code goes wherever it leads.
type Redirect struct {
	Host string // "" is 127.0.0.1
	Port int    // 0 is any free port
	Path string // "" is /callback
}

const defaultRedirectPath = "/callback"

// Fixed reports whether any part of the redirect URI was chosen.
func (r Redirect) Fixed() bool { return r != Redirect{} }

// uri is the redirect URI with port; an IPv6 host goes in brackets
// whether or not it was given in them.
func (r Redirect) uri(port int) string {
	host := strings.Trim(cmp.Or(r.Host, "127.0.0.1"), "[]")
	return "http://" + net.JoinHostPort(host, strconv.Itoa(port)) + cmp.Or(r.Path, defaultRedirectPath)
}

// CheckRedirect checks the parts of a redirect URI given by the user: a
// host name or IP address (no scheme, port or path), a port from 1 to 65535
// (0: any free one), a path that starts with a slash and has no query,
// fragment, space or control character.
func CheckRedirect(r Redirect) error {
	if r.Port < 0 || r.Port > 65535 {
		return fmt.Errorf("redirect port %d is out of range (1-65535)", r.Port)
	}
	if p := r.Path; p != "" {
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("redirect path %s does not start with /", messageSafe(p))
		}
		if strings.ContainsAny(p, "?#") || strings.IndexFunc(p, func(c rune) bool { return c <= ' ' || c == 0x7f }) >= 0 {
			return fmt.Errorf("redirect path %s has a query, a fragment, a space or a control character", messageSafe(p))
		}
		if u, err := url.Parse("http://h" + p); err != nil || u.EscapedPath() != p {
			return fmt.Errorf("redirect path %s is not a URL path as it would be sent", messageSafe(p))
		}
	}
	if h := r.Host; h != "" {
		bare := strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		if ip := net.ParseIP(bare); ip != nil {
			if bare != h && ip.To4() != nil {
				return fmt.Errorf("redirect host %s: only an IPv6 address goes in brackets", messageSafe(h))
			}
			return nil
		}
		if !validHostName(h) {
			return fmt.Errorf("redirect host %s is not a host name or IP address", messageSafe(h))
		}
	}
	return nil
}

// validHostName reports a DNS name of letters, digits, hyphens and dots.
func validHostName(h string) bool {
	if h == "" || len(h) > 253 || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	return !strings.ContainsFunc(h, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.')
	})
}

// IsLoopbackRedirectHost reports a redirect host that brings the browser
// back to this machine whatever the network says: localhost and its
// subdomains (RFC 6761 §6.3; browsers resolve them to loopback themselves),
// 127.0.0.0/8 and ::1.
func IsLoopbackRedirectHost(host string) bool {
	return host == "" || isLoopbackHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// LoginTimeoutError ends a wait for the browser, or for a device code to
// be approved at the authorization server Host, that took longer than the
// bound set for it.
type LoginTimeoutError struct {
	Timeout time.Duration
	Host    string // a device login's; no browser comes back to it
}

func (e *LoginTimeoutError) Error() string {
	if e.Host != "" {
		return fmt.Sprintf("the code was not approved at %s within %s", e.Host, e.Timeout)
	}
	return fmt.Sprintf("no answer came from the browser within %s", e.Timeout)
}

// PortInUseError is a fixed redirect port that another program holds: the
// redirect URI registered with it cannot be served, and another port would
// not be the registered one.
type PortInUseError struct{ Addr string }

func (e *PortInUseError) Error() string {
	return fmt.Sprintf("the redirect address %s is in use by another program", e.Addr)
}
