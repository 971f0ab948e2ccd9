package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
)

// authorizeLocked runs the whole flow (m.mu held): discovery, client
// identity, the grant, and saving the result. keep are scopes already
// granted, kept on a step-up.
func (m *Manager) authorizeLocked(ctx context.Context, ch *Challenge, keep []string) error {
	if m.insecure != nil {
		return m.insecure
	}
	m.authorizations++
	hc := m.opts.HTTP
	resourceHTTPS := isHTTPS(m.server)

	// Discovery: protected-resource metadata, else a 2025-03-26 server whose
	// origin is its own authorization server.
	prm, err := DiscoverResource(ctx, hc, m.opts.ServerURL, ch)
	if err != nil {
		return err
	}
	var md *ServerMetadata
	resource := m.server
	if prm != nil {
		resource = prm.Resource
		if prev := m.rec; prev != nil && prev.Metadata != nil && slices.Contains(prm.AuthorizationServers, prev.Issuer) {
			md = prev.Metadata // a step-up, or a new grant at the same server: no need to discover it again
		} else if md, err = m.pickServer(ctx, prm); err != nil {
			return err
		}
	} else if md, err = LegacyServer(ctx, hc, m.opts.ServerURL); err != nil {
		return err
	} else if md.Legacy && ch == nil {
		// Nothing published, and no 401 led here (a login asked for in
		// advance): the default endpoints are a guess worth making only
		// for a server that does ask for authorization.
		asks, err := asksForAuthorization(ctx, hc, m.opts.ServerURL)
		if err != nil {
			return &Error{Step: StepMetadata, Err: err}
		}
		if !asks {
			return &Error{Step: StepMetadata, Description: m.server + " does not use OAuth: it publishes no OAuth metadata and answers without asking for authorization; nothing to log in to"}
		}
	}
	if err := checkSecure(md, resourceHTTPS); err != nil {
		return err
	}

	scopes := m.scopes(ch, prm, md, keep)
	client, redirect, finish, err := m.identify(ctx, md, scopes)
	var oe *Error
	if md.Legacy && errors.As(err, &oe) && oe.Step == StepRegistration && oe.Need == "" && oe.Code == "" && oe.Description == "" {
		// The default endpoints were a guess, and the first failed: the
		// server may take a token of its own rather than OAuth.
		oe.Description = m.server + " publishes no OAuth metadata, and the default registration endpoint of servers without it failed"
		oe.Need = NeedBearer
	}
	if err != nil {
		return err
	}
	defer finish()
	var dpop *DPoPKey
	if m.wantDPoP(ch, prm) {
		if !md.supportsES256() {
			return &Error{Step: StepToken, Description: fmt.Sprintf("the resource asks for DPoP-bound tokens and the authorization server %s accepts no ES256 proofs (it lists %s)",
				messageSafe(md.Issuer), messageSafe(strings.Join(md.DPoPSigningAlgs, ", ")))}
		}
		if dpop, err = NewDPoPKey(); err != nil {
			return &Error{Step: StepToken, Err: err}
		}
		dpop.keepNonces(m.dpop)
		c := *client
		c.DPoP = dpop
		client = &c
	}

	var tok *Token
	switch m.opts.Grant {
	case GrantClientCredentials:
		tok, err = ClientCredentials(ctx, hc, md, client, resource, strings.Join(scopes, " "))
	case GrantCrossApp:
		tok, err = m.crossApp(ctx, md, client, resource, strings.Join(scopes, " "))
	case GrantJWTBearer:
		tok, err = JWTBearer(ctx, hc, md, client, m.opts.Assertion, resource, strings.Join(scopes, " "))
	default:
		var code, verifier string
		code, verifier, err = Authorize(ctx, AuthorizeRequest{
			Metadata: md, Client: client, Scope: strings.Join(scopes, " "), Resource: resource,
			Listener: redirect.ln, RedirectURI: redirect.uri, Open: m.opts.Open, Log: m.opts.Log,
		})
		if err == nil {
			tok, err = ExchangeCode(ctx, hc, md, client, code, verifier, redirect.uri, resource)
		}
	}
	if err != nil {
		return err
	}
	if tok.Scope == "" {
		tok.Scope = strings.Join(scopes, " ")
	}
	stored := *client
	stored.Key = nil
	stored.DPoP = nil
	rec := &Record{Server: m.server, Issuer: md.Issuer, Resource: resource, Metadata: md, Client: stored,
		Token: *tok, Grant: m.opts.Grant, Updated: time.Now()}
	if dpop != nil && tok.TokenType == "DPoP" {
		rec.DPoPKey = dpop.String()
	}
	unlock, err := m.opts.Store.Lock(ctx, rec.Issuer, rec.Resource)
	if err != nil {
		return &Error{Step: StepToken, Err: err}
	}
	defer unlock()
	if err := m.opts.Store.Save(rec); err != nil {
		return &Error{Step: StepToken, Err: fmt.Errorf("saving the token: %w", err)}
	}
	m.use(rec)
	if m.dpop != nil {
		m.dpop.keepNonces(dpop) // what the token endpoint said during the grant
	}
	return nil
}

// wantDPoP reports whether to ask for a DPoP-bound token: always, never,
// or (auto) when the resource asks for one, by a DPoP challenge or its
// metadata's dpop_bound_access_tokens_required.
func (m *Manager) wantDPoP(ch *Challenge, prm *ResourceMetadata) bool {
	switch m.opts.DPoP {
	case DPoPAlways:
		return true
	case DPoPNever:
		return false
	}
	return ch != nil && strings.EqualFold(ch.Scheme, "DPoP") || prm != nil && prm.DPoPBoundAccessTokensRequired
}

// pickServer fetches the metadata of the first authorization server the
// resource names that answers (RFC 9728 §7.6 leaves the choice to the client).
func (m *Manager) pickServer(ctx context.Context, prm *ResourceMetadata) (*ServerMetadata, error) {
	var firstErr error
	for _, issuer := range prm.AuthorizationServers {
		if !secureURL(issuer, isHTTPS(m.server)) {
			if firstErr == nil {
				firstErr = insecureError("authorization server", issuer)
			}
			continue // its metadata is not even fetched
		}
		md, err := DiscoverServer(ctx, m.opts.HTTP, issuer)
		if err == nil {
			return md, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// scopes chooses what to ask for: the challenge's scope, else everything the
// resource supports, else nothing (MCP 2025-11-25, scope selection); plus
// what was already granted on a step-up, and offline_access when the
// authorization server offers it and a refresh token is of use.
func (m *Manager) scopes(ch *Challenge, prm *ResourceMetadata, md *ServerMetadata, keep []string) []string {
	var base []string
	switch {
	case ch != nil && ch.Params["scope"] != "":
		base = strings.Fields(ch.Params["scope"])
	case prm != nil:
		base = prm.ScopesSupported
	}
	out := unionScopes(keep, base)
	if m.needsUser() && slices.Contains(md.ScopesSupported, "offline_access") && len(out) > 0 {
		out = unionScopes(out, []string{"offline_access"})
	}
	return out
}

// reusable reports whether the stored record holds a client mcpv registered
// itself at md (not a pre-registered or metadata-document one) that can be
// used again for the code flow.
func (m *Manager) reusable(md *ServerMetadata) bool {
	prev := m.rec
	return prev != nil && prev.Issuer == md.Issuer && (prev.Grant == "" || prev.Grant == GrantAuthorizationCode) &&
		prev.Client.ID != "" && prev.Client.ID != m.opts.ClientMetadataURL && len(prev.Client.RedirectURIs) > 0
}

// redirect is the loopback listener of a code flow and its URI.
type redirect struct {
	ln  net.Listener
	uri string
}

// identify settles mcpv's client at the authorization server, in the order
// the spec gives: pre-registered credentials, a client ID metadata document,
// dynamic registration. For the code flow it also opens the loopback
// listener, whose address the registration needs; finish closes it.
func (m *Manager) identify(ctx context.Context, md *ServerMetadata, scopes []string) (*Client, redirect, func(), error) {
	var r redirect
	finish := func() {}
	if m.needsUser() {
		ln, uri, err := Listen()
		if err != nil {
			return nil, r, finish, &Error{Step: StepAuthorization, Err: err}
		}
		r = redirect{ln: ln, uri: uri}
		finish = func() { ln.Close() }
	}
	switch {
	case m.opts.ClientID != "":
		c := &Client{ID: m.opts.ClientID, Secret: m.opts.ClientSecret, Key: m.opts.ClientKey}
		switch {
		case m.opts.ClientKey != nil:
			c.AuthMethod = AuthPrivateKeyJWT
		default:
			c.AuthMethod = ChooseAuthMethod(md, c.Secret != "")
		}
		return c, r, finish, nil
	case !m.needsUser():
		finish()
		return nil, r, func() {}, &Error{Step: StepRegistration, Need: NeedClient, Description: "this grant needs a pre-registered client id with a secret or a key"}
	case m.opts.ClientMetadataURL != "" && md.ClientIDMetadataDocumentSupported:
		return &Client{ID: m.opts.ClientMetadataURL, AuthMethod: AuthNone}, r, finish, nil
	case m.reusable(md):
		// The client registered last time, at the redirect URI it registered.
		if ln, err := ListenAt(m.rec.Client.RedirectURIs[0]); err == nil {
			finish()
			c := m.rec.Client
			return &c, redirect{ln: ln, uri: c.RedirectURIs[0]}, func() { ln.Close() }, nil
		}
		fallthrough // its port is taken: register anew
	case md.RegistrationEndpoint != "":
		grants := []string{GrantAuthorizationCode}
		if slices.Contains(scopes, "offline_access") {
			grants = append(grants, "refresh_token")
		}
		c, err := Register(ctx, m.opts.HTTP, md, RegistrationRequest{
			ClientName:              m.opts.ClientName,
			RedirectURIs:            []string{r.uri},
			GrantTypes:              grants,
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: ChooseAuthMethod(md, false),
			Scope:                   strings.Join(scopes, " "),
			ApplicationType:         "native",
		})
		if err != nil {
			finish()
			return nil, r, func() {}, err
		}
		return c, r, finish, nil
	}
	finish()
	return nil, r, func() {}, &Error{Step: StepRegistration, Need: NeedClient, Description: md.Issuer +
		" offers no dynamic registration and no client ID metadata documents"}
}

// probeDeleteWait bounds the ending of the session a probe opened.
const probeDeleteWait = 2 * time.Second

// probeInitialize is the request that asks a server whether it wants
// authorization: what any client would send first.
const probeInitialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpv","version":"oauth-probe"}}}`

// asksForAuthorization reports whether the MCP server at serverURL answers
// an unauthenticated initialize with 401. A session the probe opened is
// ended at once.
func asksForAuthorization(ctx context.Context, hc *http.Client, serverURL string) (bool, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(probeInitialize))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return false, err
	}
	resp.Body.Close() // an event stream may not end: the status says enough
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		dctx, cancel := context.WithTimeout(ctx, probeDeleteWait)
		defer cancel()
		if del, err := http.NewRequestWithContext(dctx, http.MethodDelete, serverURL, nil); err == nil {
			del.Header.Set("Mcp-Session-Id", sid)
			if resp, err := hc.Do(del); err == nil {
				drainClose(resp)
			}
		}
	}
	return resp.StatusCode == http.StatusUnauthorized, nil
}
