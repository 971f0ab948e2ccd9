package oauth

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// OAuth 2.1 §1.5 requires TLS for every endpoint: codes, PKCE verifiers,
// client secrets and tokens never travel in cleartext. mcpv allows plain
// http only to a loopback host (a server under development or in a test),
// and never for a resource that is itself https: an https resource does not
// fall back to cleartext for its metadata or its authorization server.

// secureURL reports whether OAuth traffic may go to rawURL.
func secureURL(rawURL string, resourceHTTPS bool) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		return !resourceHTTPS && isLoopbackHost(u.Hostname())
	}
	return false
}

// isLoopbackHost reports a host name or address of this machine's loopback
// interface: "localhost" (RFC 6761 §6.3), 127.0.0.0/8 or ::1.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isHTTPS(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && u.Scheme == "https"
}

// insecureError says why OAuth may not go to rawURL, named by what.
func insecureError(what, rawURL string) *Error {
	return stepErrorf(StepMetadata, "%s %s is not https; mcpv sends OAuth credentials only over https (or to a loopback host, for an http server)",
		what, messageSafe(rawURL))
}

// checkSecure refuses authorization server metadata that would send a
// credential in cleartext: its issuer and every endpoint must be secure for
// the resource, and an https issuer must not name http endpoints.
func checkSecure(md *ServerMetadata, resourceHTTPS bool) error {
	strict := resourceHTTPS || isHTTPS(md.Issuer)
	if md.Issuer != "" && !secureURL(md.Issuer, resourceHTTPS) {
		return insecureError("authorization server", md.Issuer)
	}
	for _, e := range []struct{ what, url string }{
		{"authorization endpoint", md.AuthorizationEndpoint},
		{"token endpoint", md.TokenEndpoint},
		{"registration endpoint", md.RegistrationEndpoint},
		{"device authorization endpoint", md.DeviceAuthorizationEndpoint},
	} {
		if e.url != "" && !secureURL(e.url, strict) {
			return insecureError(fmt.Sprintf("the %s of %s", e.what, messageSafe(md.Issuer)), e.url)
		}
	}
	return nil
}
