package origin

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// CORS is what a page of an admitted origin may do: the methods it may
// use, the request headers it may send, the response headers it may
// read.
type CORS struct {
	Methods []string
	// Headers are the request headers allowed by name; Prefixes allow
	// every header whose name starts with one and goes on (Mcp-Param-
	// allows Mcp-Param-Region, not Mcp-Param-).
	Headers, Prefixes []string
	// Expose are the response headers a page may read beyond those any
	// page may (Content-Type...).
	Expose []string
	// MaxAge is how long, in seconds, a browser may keep a preflight's
	// answer.
	MaxAge int
}

// IsPreflight reports whether r is a CORS preflight: OPTIONS, from a
// page (Origin), asking for a method.
func IsPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// Actual sets the headers of an answer to a request from a page of an
// admitted origin (origin, as the request sent it): the origin echoed,
// never "*", and the headers it may read.
func (c CORS) Actual(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if len(c.Expose) > 0 {
		h.Set("Access-Control-Expose-Headers", strings.Join(c.Expose, ", "))
	}
}

// Preflight answers the preflight r of a page of an admitted origin: the
// methods allowed, and the request headers allowed, those it asked for
// under an allowed prefix included; a header it asked for that is not
// allowed is left out, and the browser then refuses the request. A page
// that asks to reach the private network from a public one
// (Access-Control-Request-Private-Network) is let, since its origin is
// admitted.
func (c CORS) Preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
	h.Set("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
	h.Set("Access-Control-Allow-Methods", strings.Join(c.Methods, ", "))
	if allowed := c.allowedHeaders(r.Header.Values("Access-Control-Request-Headers")); len(allowed) > 0 {
		h.Set("Access-Control-Allow-Headers", strings.Join(allowed, ", "))
	}
	if c.MaxAge > 0 {
		h.Set("Access-Control-Max-Age", strconv.Itoa(c.MaxAge))
	}
	if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
		h.Set("Access-Control-Allow-Private-Network", "true")
	}
	w.WriteHeader(http.StatusNoContent)
}

// allowedHeaders are the headers a preflight may be answered with: every
// one allowed by name, and each one asked for (in the comma-separated
// lists asked) that an allowed prefix allows, once. A name that is not an
// HTTP token is not a header: it is left out.
func (c CORS) allowedHeaders(asked []string) []string {
	allowed := slices.Clone(c.Headers)
	for _, list := range asked {
		for name := range strings.SplitSeq(list, ",") {
			name = strings.ToLower(strings.Trim(name, " \t"))
			if !isToken(name) || slices.Contains(allowed, name) {
				continue
			}
			for _, p := range c.Prefixes {
				if len(name) > len(p) && strings.EqualFold(name[:len(p)], p) {
					allowed = append(allowed, name)
					break
				}
			}
		}
	}
	return allowed
}

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2), as a
// header's name must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
