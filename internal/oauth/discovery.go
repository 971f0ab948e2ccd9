package oauth

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Discovery, MCP authorization 2025-11-25 "Authorization Server Discovery":
// the MCP server's protected resource metadata (RFC 9728) names its
// authorization servers, whose metadata (RFC 8414 or OpenID Connect
// Discovery) gives the endpoints. A 2025-03-26 server has no resource
// metadata; its origin is the authorization server (LegacyServer).
//
// Metadata documents are probed: a candidate URL that answers with a status
// other than 200, or with a body that is not a JSON object, is a miss and the
// next one is tried. A transport error, an oversized body or a document that
// fails validation ends discovery with an error.

// CanonicalResource returns the canonical URI of the MCP server at serverURL,
// the value of the RFC 8707 "resource" parameter (MCP authorization,
// "Canonical Server URI"): an absolute http or https URL with lowercase scheme
// and host, without userinfo, fragment or default port, and without a
// trailing slash ("http://h/mcp/" → "http://h/mcp", "http://h/" → "http://h").
// The query is kept as sent: RFC 8707 §2 discourages one but allows it where
// it identifies the resource, and dropping it could merge two servers.
// Percent-encoding and dot segments are left alone.
func CanonicalResource(serverURL string) (string, error) {
	origin, path, query, err := canonicalParts(serverURL)
	if err != nil {
		return "", err
	}
	return joinCanonical(origin, path, query), nil
}

func joinCanonical(origin, path, query string) string {
	if query != "" {
		return origin + path + "?" + query
	}
	return origin + path
}

// canonicalParts splits the canonical form of raw into its origin
// ("scheme://host[:port]"), escaped path without trailing slash and raw query.
func canonicalParts(raw string) (origin, path, query string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		if uerr, ok := errors.AsType[*url.Error](err); ok {
			err = uerr.Err // its message would repeat the URL, userinfo included
		}
		return "", "", "", fmt.Errorf("invalid url: %v", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		u.User = nil
		return "", "", "", fmt.Errorf("%s is not an absolute http or https url", messageSafe(u.String()))
	}
	host := strings.ToLower(u.Host)
	switch port := u.Port(); {
	case port == "":
		host = strings.TrimSuffix(host, ":") // an empty port is no port (RFC 3986 §6.2.3)
	case u.Scheme == "http" && port == "80", u.Scheme == "https" && port == "443":
		host = strings.TrimSuffix(host, ":"+port)
	}
	return u.Scheme + "://" + host, strings.TrimSuffix(u.EscapedPath(), "/"), u.RawQuery, nil
}

// DiscoverResource fetches the protected resource metadata of the MCP server
// at serverURL. When ch (the 401's Bearer challenge, or nil) has a
// resource_metadata parameter, that URL alone is fetched and any failure is
// an error (RFC 9728 §5.1). Otherwise the well-known URIs are tried in the
// order MCP prescribes: with the server's path inserted, then at the root
// (RFC 9728 §3.1). When none of them has a document it returns (nil, nil):
// the server predates RFC 9728 (MCP 2025-03-26), see LegacyServer.
func DiscoverResource(ctx context.Context, hc *http.Client, serverURL string, ch *Challenge) (*ResourceMetadata, error) {
	origin, path, query, err := canonicalParts(serverURL)
	if err != nil {
		return nil, &Error{Step: StepMetadata, Err: fmt.Errorf("server url: %w", err)}
	}
	server := joinCanonical(origin, path, query)
	var candidates []string
	fromHeader := ch != nil && ch.Params["resource_metadata"] != ""
	if fromHeader {
		ref, err := url.Parse(server)
		if err == nil {
			ref, err = ref.Parse(ch.Params["resource_metadata"])
		}
		if err != nil || !isAbsoluteHTTPURL(ref.String()) {
			return nil, stepErrorf(StepMetadata, "the server's resource_metadata %s is not an http or https url", messageSafe(ch.Params["resource_metadata"]))
		}
		if !secureURL(ref.String(), isHTTPS(server)) {
			return nil, insecureError("the server's resource_metadata", ref.String())
		}
		candidates = []string{ref.String()}
	} else {
		const wellKnown = "/.well-known/oauth-protected-resource"
		if path != "" {
			// RFC 9728 §3.1 inserts the well-known prefix before the path
			// and the query.
			candidates = append(candidates, joinCanonical(origin+wellKnown, path, query))
		}
		candidates = append(candidates, origin+wellKnown)
	}
	for _, c := range candidates {
		var md ResourceMetadata
		miss, err := fetchMetadataJSON(ctx, hc, c, &md)
		switch {
		case err != nil:
			return nil, err
		case miss != "" && fromHeader:
			return nil, stepErrorf(StepMetadata, "protected resource metadata at %s: %s", c, miss)
		case miss != "":
			continue
		}
		md.URL = c
		if err := checkResourceMetadata(&md, server); err != nil {
			return nil, err
		}
		return &md, nil
	}
	return nil, nil
}

// checkResourceMetadata applies the MUSTs a document must meet before it is
// used: MCP requires at least one authorization server, and RFC 9728 §3.3
// requires its resource to be the server's. MCP lets one document cover the
// resources below its own, so the resource may be a path prefix of the
// server URL, ending on a segment boundary.
func checkResourceMetadata(md *ResourceMetadata, server string) error {
	if len(md.AuthorizationServers) == 0 || md.AuthorizationServers[0] == "" {
		return stepErrorf(StepMetadata, "protected resource metadata at %s lists no authorization_servers", md.URL)
	}
	if !resourceCovers(md.Resource, server) {
		return stepErrorf(StepMetadata, "protected resource metadata is for %s, not %s; refusing to authorize", messageSafe(md.Resource), server)
	}
	return nil
}

// resourceCovers reports whether the resource identifier covers server (both
// compared in canonical form): same origin, a path that is server's or one of
// its ancestors, and no query or the same query.
func resourceCovers(resource, server string) bool {
	ro, rp, rq, err := canonicalParts(resource)
	if err != nil {
		return false
	}
	so, sp, sq, err := canonicalParts(server)
	if err != nil || ro != so || (rq != "" && rq != sq) {
		return false
	}
	return rp == sp || rp == "" || strings.HasPrefix(sp, rp+"/")
}

// DiscoverServer fetches the metadata of the authorization server issuer,
// trying RFC 8414 and OpenID Connect Discovery URLs in the order of MCP
// 2025-11-25: for "https://as/tenant1", the well-known prefixes inserted
// before the path (RFC 8414 §3.1) and then OpenID's appended after it; for a
// path-less issuer, the two well-known URLs at the root.
func DiscoverServer(ctx context.Context, hc *http.Client, issuer string) (*ServerMetadata, error) {
	u, err := url.Parse(issuer)
	if err != nil || !isAbsoluteHTTPURL(issuer) {
		return nil, stepErrorf(StepMetadata, "authorization server %s is not an absolute http or https url", messageSafe(issuer))
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	candidates := []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
	}
	if path != "" {
		candidates = append(candidates, origin+path+"/.well-known/openid-configuration")
	}
	var tried []string
	for _, c := range candidates {
		var md ServerMetadata
		miss, err := fetchMetadataJSON(ctx, hc, c, &md)
		if err != nil {
			return nil, err
		}
		if miss != "" {
			tried = append(tried, c+" ("+miss+")")
			continue
		}
		// RFC 8414 §3.3: the issuer MUST be identical to the one asked
		// for, or the metadata MUST NOT be used. A trailing slash is
		// forgiven.
		if strings.TrimSuffix(md.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, stepErrorf(StepMetadata, "authorization server metadata at %s is for issuer %s, not %s", c, messageSafe(md.Issuer), messageSafe(issuer))
		}
		if err := checkServerMetadata(&md, c); err != nil {
			return nil, err
		}
		return &md, nil
	}
	return nil, stepErrorf(StepMetadata, "no authorization server metadata for %s; tried %s", messageSafe(issuer), strings.Join(tried, ", "))
}

// LegacyServer returns the authorization server of a 2025-03-26 MCP server
// that has no protected resource metadata: the origin of serverURL, described
// by <origin>/.well-known/oauth-authorization-server if that exists, and
// otherwise by the default endpoints /authorize, /token and /register
// (MCP 2025-03-26, "Fallbacks for Servers without Metadata Discovery").
//
// The document's issuer is not checked: in 2025-03-26 the MCP server's origin
// is the authorization server by definition, not by what the document claims,
// and such servers often publish an issuer with a path or another host. An
// empty issuer is taken to be the origin. Since nothing vouches for it, the
// metadata is marked IssuerUnverified: the issuer is never used as a JWT
// audience (an assertion for a real server's issuer, sent to this
// document's token endpoint, could be replayed there).
func LegacyServer(ctx context.Context, hc *http.Client, serverURL string) (*ServerMetadata, error) {
	origin, _, _, err := canonicalParts(serverURL)
	if err != nil {
		return nil, &Error{Step: StepMetadata, Err: fmt.Errorf("server url: %w", err)}
	}
	wellKnown := origin + "/.well-known/oauth-authorization-server"
	var md ServerMetadata
	miss, err := fetchMetadataJSON(ctx, hc, wellKnown, &md)
	if err != nil {
		return nil, err
	}
	if miss != "" {
		return &ServerMetadata{
			Issuer:                        origin,
			AuthorizationEndpoint:         origin + "/authorize",
			TokenEndpoint:                 origin + "/token",
			RegistrationEndpoint:          origin + "/register",
			CodeChallengeMethodsSupported: []string{"S256"},
			Legacy:                        true,
		}, nil
	}
	md.Issuer = cmp.Or(md.Issuer, origin)
	md.IssuerUnverified = md.Issuer != origin
	if err := checkServerMetadata(&md, wellKnown); err != nil {
		return nil, err
	}
	return &md, nil
}

// checkServerMetadata checks what the flow needs from an authorization
// server's metadata fetched from where.
func checkServerMetadata(md *ServerMetadata, where string) error {
	if md.AuthorizationEndpoint == "" || md.TokenEndpoint == "" {
		return stepErrorf(StepMetadata, "authorization server metadata at %s lacks authorization_endpoint or token_endpoint", where)
	}
	for _, e := range []string{md.AuthorizationEndpoint, md.TokenEndpoint, md.RegistrationEndpoint} {
		if e != "" && !isAbsoluteHTTPURL(e) {
			return stepErrorf(StepMetadata, "authorization server metadata at %s: endpoint %s is not an absolute http or https url", where, messageSafe(e))
		}
	}
	// MCP authorization, "Authorization Code Protection": clients MUST
	// verify PKCE support from the metadata and MUST refuse to proceed
	// when code_challenge_methods_supported is absent; mcpv only uses S256
	// (OAuth 2.1 §4.1.1), so it must be listed.
	if !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return stepErrorf(StepMetadata, "authorization server %s does not advertise PKCE S256 (code_challenge_methods_supported); mcpv refuses to go on without it", messageSafe(md.Issuer))
	}
	return nil
}

// fetchMetadataJSON GETs rawURL and decodes its body, a JSON object, into v.
// It returns a non-empty miss (why there is no document: the status, or "not
// a json object") when the answer is not a 200 with a JSON object; err is
// for transport failures, oversized bodies and objects that do not decode
// into v.
func fetchMetadataJSON(ctx context.Context, hc *http.Client, rawURL string, v any) (miss string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return "", &Error{Step: StepMetadata, Err: err}
	}
	req.Header.Set("Accept", "application/json")
	resp, body, err := exchange(hc, req, StepMetadata)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return messageSafeText(resp.Status), nil
	}
	if !isMetadataObject(body) {
		return "not a json object", nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return "", stepErrorf(StepMetadata, "malformed metadata at %s: %w", rawURL, err)
	}
	return "", nil
}

func isAbsoluteHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func isMetadataObject(body []byte) bool {
	body = bytes.TrimLeft(body, " \t\r\n")
	return len(body) > 0 && body[0] == '{' && json.Valid(body)
}

// messageSafe keeps a server-supplied string on one line: it is quoted when it
// is empty or holds spaces, control or non-ASCII characters.
func messageSafe(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
		return strconv.Quote(s)
	}
	return s
}
