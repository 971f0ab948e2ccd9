package oauth

// Cross-app access (SEP-990, "enterprise-managed authorization"): the user
// has signed in to an identity provider, which exchanges their ID token for
// an identity assertion grant (ID-JAG) aimed at the MCP server's
// authorization server (RFC 8693 token exchange); that server then issues
// an access token for the grant (RFC 7523 JWT bearer grant). No browser is
// involved.

import (
	"context"
	"net/http"
	"net/url"
)

const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// IdentityProvider is where a cross-app access flow gets its grant.
type IdentityProvider struct {
	TokenEndpoint string
	ClientID      string // mcpv's client at the identity provider
	IDToken       string // the user's ID token there
}

// ExchangeIDToken asks the identity provider for an ID-JAG for resource at
// the authorization server audience (RFC 8693 §2.1).
func ExchangeIDToken(ctx context.Context, hc *http.Client, idp IdentityProvider, audience, resource, scope string) (string, error) {
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"subject_token":        {idp.IDToken},
		"subject_token_type":   {tokenTypeIDToken},
		"audience":             {audience},
	}
	setParamsIfSet(form, "resource", resource, "scope", scope)
	md := &ServerMetadata{Issuer: idp.TokenEndpoint, TokenEndpoint: idp.TokenEndpoint}
	tok, err := postTokenForm(ctx, hc, md, &Client{ID: idp.ClientID, AuthMethod: AuthNone}, form, scope, false)
	if err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// JWTBearer trades an assertion (an ID-JAG) for an access token at the
// authorization server (RFC 7523 §2.1), authenticating the client as
// registered.
func JWTBearer(ctx context.Context, hc *http.Client, md *ServerMetadata, c *Client, assertion, resource, scope string) (*Token, error) {
	form := url.Values{"grant_type": {grantJWTBearer}, "assertion": {assertion}}
	setParamsIfSet(form, "resource", resource, "scope", scope)
	return postTokenForm(ctx, hc, md, c, form, scope, true)
}
