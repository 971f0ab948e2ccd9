// Package oauth is mcpv's OAuth 2.1 client for HTTP servers (MCP
// authorization, 2025-11-25): it reads WWW-Authenticate challenges, discovers
// the protected resource and its authorization server, obtains a client
// identity (pre-registered, a client ID metadata document, or dynamic
// registration), runs the authorization code flow with PKCE through a
// loopback listener or the client-credentials grant, and keeps tokens,
// refreshing them under a cross-process lock.
//
// It never reads the process environment and never prints: the caller
// passes an *http.Client, a *slog.Logger for what the user should know (the
// URL to open, a refresh that failed) and a function that opens a browser. Tokens, codes, verifiers and secrets are never written
// anywhere but the token store and the wire.
package oauth

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
)

// plainClient serves a caller that gives none, over connections of its own
// (TestNoRequestThroughTheSharedPool says why).
var plainClient = &lazy.Value[*http.Client]{New: func() *http.Client { return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()} }}

// The steps a failure is named after.
const (
	StepMetadata      = "metadata"
	StepRegistration  = "registration"
	StepAuthorization = "authorization"
	StepToken         = "token"
)

// What a failure needs from the user, when that is known (Error.Need), so
// that the caller can say how to give it.
const (
	// NeedClient: a pre-registered client id (with a secret or a key for a
	// machine grant): the server offers no other way to identify mcpv.
	NeedClient = "client"
	// NeedLogin: an interactive authorization, which ModeStored never starts.
	NeedLogin = "login"
	// NeedScope: a scope the user did not give, which mcpv does not ask
	// for on its own when the scopes were given.
	NeedScope = "scope"

	// NeedBearer: the server asks for a bearer token and shows no sign of
	// OAuth (its challenge names no resource metadata; or it publishes
	// no metadata and its default registration endpoint is not there): a
	// token of its own (an API key, mcpv serve's) may be what it wants,
	// or an authorization.
	NeedBearer = "bearer"
)

// Error is a failure of one step of the flow, with the server's OAuth error
// code and description when it sent them.
type Error struct {
	Step        string // StepMetadata, StepRegistration, StepAuthorization, StepToken
	Code        string // the server's "error", if any
	Description string // the server's "error_description", if any
	Err         error  // the underlying cause, if any
	Need        string // NeedClient, NeedLogin, NeedBearer, or "" when nothing is known to help
}

func (e *Error) Error() string {
	msg := "oauth " + e.Step
	if e.Code != "" {
		msg += ": " + e.Code
		if e.Description != "" {
			msg += " (" + e.Description + ")"
		}
	} else if e.Description != "" {
		msg += ": " + e.Description
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

func stepErrorf(step, format string, args ...any) *Error {
	return &Error{Step: step, Err: fmt.Errorf(format, args...)}
}

// Challenge is one challenge of a WWW-Authenticate header.
type Challenge struct {
	Scheme string            // as sent; compare case-insensitively
	Params map[string]string // auth-params, names lowercased, values unquoted
}

// ResourceMetadata is an OAuth 2.0 Protected Resource Metadata document
// (RFC 9728), as far as mcpv uses it.
type ResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
	// RFC 9449 §5.2: the resource accepts only DPoP-bound tokens.
	DPoPBoundAccessTokensRequired bool `json:"dpop_bound_access_tokens_required,omitempty"`

	URL string `json:"-"` // where it was fetched from
}

// ServerMetadata is an authorization server's metadata (RFC 8414 or OpenID
// Connect Discovery), as far as mcpv uses it.
type ServerMetadata struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	RegistrationEndpoint  string `json:"registration_endpoint,omitempty"`
	// RFC 8628 §4: where a device asks for a code a user enters elsewhere.
	DeviceAuthorizationEndpoint       string   `json:"device_authorization_endpoint,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported            []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported               []string `json:"grant_types_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported,omitempty"`
	// RFC 9207: the server puts iss in its authorization responses.
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// RFC 9449 §5.1: the algorithms the server accepts in DPoP proofs.
	DPoPSigningAlgs []string `json:"dpop_signing_alg_values_supported,omitempty"`

	// Legacy is set for a 2025-03-26 server without metadata, whose
	// endpoints were taken to be /authorize, /token and /register.
	Legacy bool `json:"-"`
	// IssuerUnverified is set for a 2025-03-26 server's document, whose
	// issuer nothing vouches for (LegacyServer): it is not used as an
	// audience, and no grant that would hand a credential for it to another
	// party is run.
	IssuerUnverified bool `json:"mcpv_issuer_unverified,omitempty"`
}

// Client authentication methods at the token endpoint.
const (
	AuthNone              = "none"
	AuthClientSecretBasic = "client_secret_basic"
	AuthClientSecretPost  = "client_secret_post"
	AuthPrivateKeyJWT     = "private_key_jwt"
)

// Client is mcpv's identity at one authorization server.
type Client struct {
	ID         string `json:"client_id"`
	Secret     string `json:"client_secret,omitempty"`
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"` // "" means none

	// Key signs private_key_jwt assertions (ES256); it is never stored.
	Key *ecdsa.PrivateKey `json:"-"`
	// DPoP, when set, proves possession of the key the tokens this client
	// asks for are bound to (RFC 9449 §5); the record keeps it.
	DPoP *DPoPKey `json:"-"`

	RedirectURIs []string `json:"redirect_uris,omitempty"` // as registered
}

// kept is c as a record or a hand-off keeps it: without its key, which is
// never stored, and its DPoP key, kept apart.
func (c Client) kept() Client {
	c.Key, c.DPoP = nil, nil
	return c
}

// Token is what a token endpoint granted.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Scope        string    `json:"scope,omitempty"` // as granted, or as asked when the server did not say
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
}

// Expired reports whether the token expires within leeway of now.
func (t *Token) Expired(now time.Time, leeway time.Duration) bool {
	return !t.ExpiresAt.IsZero() && !now.Add(leeway).Before(t.ExpiresAt)
}

// maxAnswer bounds every answer this package reads from a server.
const maxAnswer = 1 << 20

// exchange sends req by hc and reads its answer whole: every request this
// package makes of an authorization server or a resource's metadata goes
// through it, so that each is bounded in time by hc's Timeout (the
// caller's per-request bound) and in size by maxAnswer, whatever the
// server sends. No error it returns quotes the answer.
func exchange(hc *http.Client, req *http.Request, step string) (*http.Response, []byte, error) {
	if hc == nil {
		hc = plainClient.Get()
	}
	resp, err := hc.Do(req)
	if err == nil {
		defer resp.Body.Close()
		var body []byte
		body, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
		if err == nil && len(body) > maxAnswer {
			return nil, nil, stepErrorf(step, "the answer of %s is larger than %d bytes", messageSafe(req.URL.Redacted()), maxAnswer)
		}
		if err == nil {
			return resp, body, nil
		}
		err = fmt.Errorf("reading the answer of %s: %w", messageSafe(req.URL.Redacted()), err)
	}
	if hc.Timeout > 0 && req.Context().Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		err = &TimeoutError{URL: req.URL.Redacted(), Timeout: hc.Timeout}
	}
	return nil, nil, &Error{Step: step, Err: err} // a *url.Error names the endpoint, never the body
}

// TimeoutError is a request to an authorization server (or for a
// resource's metadata) not answered within its bound.
type TimeoutError struct {
	URL     string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s did not answer within %s", messageSafe(e.URL), e.Timeout)
}
