package oauth

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/mcpv/mcpv/internal/safetext"
)

// RegistrationRequest is the client metadata mcpv sends to a registration
// endpoint (RFC 7591 §2); empty fields are left out.
type RegistrationRequest struct {
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	// ApplicationType is "native" for a client on the user's machine with a
	// loopback redirect, as mcpv is (OpenID Connect Registration; MCP
	// 2026-07-28 asks clients to say it).
	ApplicationType string `json:"application_type,omitempty"`
}

// registrationResponse is the part of a client information response (RFC
// 7591 §3.2.1) or error response (§3.2.2) that mcpv reads.
type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	RedirectURIs            []string `json:"redirect_uris"`

	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// Register obtains a client identity by dynamic client registration (RFC
// 7591) at md's registration endpoint. The server's answer wins over what was
// asked: it may assign another authentication method or redirect URIs
// (§3.2.1); what it leaves out is taken from req.
//
// The response carries the client secret, so no error of Register quotes a
// response body.
func Register(ctx context.Context, hc *http.Client, md *ServerMetadata, req RegistrationRequest) (*Client, error) {
	if md == nil || md.RegistrationEndpoint == "" {
		issuer := "the authorization server"
		if md != nil && md.Issuer != "" {
			issuer = "authorization server " + messageSafe(md.Issuer)
		}
		err := stepErrorf(StepRegistration, "%s offers no dynamic client registration; register mcpv there", issuer)
		err.Need = NeedClient
		return nil, err
	}
	endpoint := md.RegistrationEndpoint
	body, _ := json.Marshal(req) // strings alone: it cannot fail
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Step: StepRegistration, Err: err}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	resp, raw, err := exchange(hc, hreq, StepRegistration)
	if err != nil {
		return nil, err
	}
	var r registrationResponse
	// A decoding error could quote the body, hence the fixed messages.
	decoded := isMetadataObject(raw) && json.Unmarshal(raw, &r) == nil

	switch {
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusCreated:
		// RFC 7591 §3.2.1 says 201; some servers answer 200.
	case decoded && r.Error != "":
		// RFC 7591 §3.2.2: an error response, normally a 400.
		return nil, &Error{Step: StepRegistration, Code: messageSafeText(r.Error), Description: messageSafeText(r.ErrorDescription)}
	default:
		return nil, stepErrorf(StepRegistration, "%s answered %s", endpoint, messageSafeText(resp.Status))
	}
	if !decoded {
		return nil, stepErrorf(StepRegistration, "the answer of %s is not a client information json object", endpoint)
	}
	if r.ClientID == "" {
		return nil, stepErrorf(StepRegistration, "the answer of %s has no client_id", endpoint)
	}
	c := &Client{
		ID:           r.ClientID,
		Secret:       r.ClientSecret,
		AuthMethod:   cmp.Or(r.TokenEndpointAuthMethod, req.TokenEndpointAuthMethod),
		RedirectURIs: r.RedirectURIs,
	}
	if c.RedirectURIs == nil {
		c.RedirectURIs = req.RedirectURIs
	}
	if c.Secret == "" && (c.AuthMethod == AuthClientSecretBasic || c.AuthMethod == AuthClientSecretPost) {
		return nil, stepErrorf(StepRegistration, "%s assigned token endpoint auth method %s but no client_secret", endpoint, messageSafe(c.AuthMethod))
	}
	return c, nil
}

// messageSafeText keeps a server's error code or description on one line,
// unquoted, with what a terminal would act on shown escaped.
func messageSafeText(s string) string { return safetext.Prose(s) }

// ChooseAuthMethod picks the token endpoint authentication method (RFC 7591
// §2, RFC 8414 §2) to register with or use, from those md advertises:
//
//   - without a client secret: "none" when it is listed or the list is
//     absent. RFC 8414's default for an absent list is client_secret_basic,
//     but MCP clients are public clients and servers that say nothing expect
//     "none". When "none" is not listed, a secret method is returned anyway:
//     registering with it yields a secret.
//   - with a secret: client_secret_basic, then client_secret_post, then none;
//     an absent list means RFC 8414's default, client_secret_basic.
//
// It returns "" when the server lists none of these (private_key_jwt is
// chosen by the caller, which knows whether it holds a key); the caller fails.
func ChooseAuthMethod(md *ServerMetadata, haveSecret bool) string {
	var listed []string
	if md != nil {
		listed = md.TokenEndpointAuthMethodsSupported
	}
	prefs := []string{AuthNone, AuthClientSecretBasic, AuthClientSecretPost}
	if haveSecret {
		prefs = []string{AuthClientSecretBasic, AuthClientSecretPost, AuthNone}
	}
	if len(listed) == 0 {
		return prefs[0]
	}
	for _, p := range prefs {
		if slices.Contains(listed, p) {
			return p
		}
	}
	return ""
}
