// Package origin judges who may use a local HTTP endpoint from a web
// page: the origins it admits (loopback ones, and those its user names),
// the host names it answers to (a defence against DNS rebinding), and the
// CORS answers an admitted page gets
// (https://fetch.spec.whatwg.org/#http-cors-protocol).
//
// A page of an origin not admitted gets no CORS header at all, so its
// browser lets it neither send a request that needs a preflight nor read
// any answer. The answers never say "*" and never allow credentials
// (cookies): an admitted page sends what it has to send, a bearer token
// above all, in headers it names.
package origin

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Parse reads an origin as a browser serializes it in an Origin header
// (RFC 6454 §6.2): scheme://host, with a port when it is not the
// scheme's default, and nothing more (one slash after it is let pass).
// It returns the origin's one form: scheme and host in lower case, a
// default port left out. "null" and "*" are refused, each saying why.
func Parse(s string) (string, error) {
	switch s {
	case "null":
		return "", errors.New(`"null" is the origin of every sandboxed frame and file:// page, which any web site can make: it cannot be admitted (serve the page from a loopback address instead)`)
	case "*":
		return "", errors.New(`"*" would admit every web page: name each origin`)
	}
	u, err := url.Parse(s)
	if err != nil || strings.ContainsAny(s, " \t\\") {
		return "", fmt.Errorf("%q is not an origin (scheme://host[:port])", s)
	}
	if u.Scheme == "" || u.Opaque != "" || u.Host == "" || u.Hostname() == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#") {
		return "", fmt.Errorf("%q is not an origin: give scheme://host[:port], with no path, query or user", s)
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%q is not an origin: its port is out of range", s)
		}
		if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
			port = ""
		} else {
			port = strconv.Itoa(n)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("%q is not an origin: its port is empty", s)
	}
	if port != "" {
		return scheme + "://" + host + ":" + port, nil
	}
	return scheme + "://" + host, nil
}

// Loopback reports whether host (a name or an address, without a port)
// names this machine: localhost, or a loopback address.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// LoopbackHost reports whether a Host header (host, or host:port) names
// this machine. A page whose own name was made to point at 127.0.0.1 (DNS
// rebinding) sends that name, which is not loopback.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return Loopback(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// Policy is which web origins an endpoint admits: loopback ones (a page
// served from this machine), and those named. The zero Policy admits
// loopback origins alone.
type Policy struct {
	named map[string]bool // origins admitted besides loopback ones, in their one form
}

// NewPolicy admits loopback origins and those named (each as Parse reads
// it).
func NewPolicy(named []string) (Policy, error) {
	p := Policy{named: map[string]bool{}}
	for _, n := range named {
		o, err := Parse(n)
		if err != nil {
			return Policy{}, err
		}
		p.named[o] = true
	}
	return p, nil
}

// Admits reports whether a request whose Origin header is origin may be
// served: one without (not a browser's), a loopback origin, or one
// named. A browser's page of any other origin is refused, as the
// transport requires
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning):
// a MUST, against DNS rebinding and pages that reach for loopback.
func (p Policy) Admits(origin string) bool {
	if origin == "" {
		return true
	}
	o, err := Parse(origin)
	if err != nil {
		return false
	}
	u, _ := url.Parse(o)
	return Loopback(u.Hostname()) || p.named[o]
}

// SameHost reports whether a page of origin was served under host (a
// Host header): a page that whatever fronts the endpoint under its own
// name served, whose requests are same-origin ones. A default port is
// the same as none.
func SameHost(origin, host string) bool {
	o, err := Parse(origin)
	if err != nil || host == "" {
		return false
	}
	scheme, hostport, _ := strings.Cut(o, "://")
	host = strings.ToLower(host)
	switch {
	case scheme == "http":
		host = strings.TrimSuffix(host, ":80")
	case scheme == "https":
		host = strings.TrimSuffix(host, ":443")
	}
	return hostport == host
}
