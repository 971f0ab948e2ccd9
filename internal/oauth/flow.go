package oauth

import (
	"cmp"
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
	prm, md, err := m.discover(ctx, ch)
	if err != nil {
		return err
	}
	resource := m.resourceFor(prm)
	scopes := m.scopes(ch, prm, md, keep)
	if m.opts.Grant == GrantAuthorizationCode && m.opts.NoBrowser && md.DeviceAuthorizationEndpoint != "" &&
		(m.opts.Mode == ModeAuto && m.opts.ShowDevice != nil || m.opts.Mode != ModeAuto && m.opts.HandOff != nil) {
		m.opts.Grant = GrantDevice // no browser here: the user signs in on another device
	}
	if m.opts.Mode != ModeAuto && m.opts.HandOff != nil && m.needsUser() {
		if err := m.waitedFor(); err != nil {
			return err // a login of the server already waited for: its link again, nothing registered
		}
	}
	client, cb, finish, err := m.identify(ctx, md, scopes)
	if oe, ok := errors.AsType[*Error](err); md.Legacy && ok && oe.Step == StepRegistration && oe.Need == "" && oe.Code == "" && oe.Description == "" {
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
		if dpop, err = newDPoPFor(md, m.dpop); err != nil {
			return err
		}
		c := *client
		c.DPoP = dpop
		client = &c
	}
	tok, err := m.grant(ctx, md, client, scopes, resource, cb, dpop != nil)
	if err != nil {
		return err
	}
	return m.save(ctx, md, client, tok, scopes, resource, dpop)
}

// discover finds the authorization server: from the resource's
// protected-resource metadata, else (a 2025-03-26 server) the server's
// origin as its own; and checks that both are reached securely.
func (m *Manager) discover(ctx context.Context, ch *Challenge) (*ResourceMetadata, *ServerMetadata, error) {
	hc := m.opts.HTTP
	prm, err := DiscoverResource(ctx, hc, m.opts.ServerURL, ch)
	if err != nil {
		return nil, nil, err
	}
	var md *ServerMetadata
	if prm != nil {
		if prev := m.rec; prev != nil && prev.Metadata != nil && slices.Contains(prm.AuthorizationServers, prev.Issuer) {
			md = prev.Metadata // a step-up, or a new grant at the same server: no need to discover it again
		} else if md, err = m.pickServer(ctx, prm); err != nil {
			return nil, nil, err
		}
	} else if md, err = LegacyServer(ctx, hc, m.opts.ServerURL); err != nil {
		return nil, nil, err
	} else if md.Legacy && ch == nil {
		// Nothing published, and no 401 led here (a login asked for in
		// advance): the default endpoints are a guess worth making only
		// for a server that does ask for authorization.
		asks, err := asksForAuthorization(ctx, hc, m.opts.ServerURL)
		if err != nil {
			return nil, nil, &Error{Step: StepMetadata, Err: err}
		}
		if !asks {
			return nil, nil, &Error{Step: StepMetadata, Description: m.server + " does not use OAuth: it publishes no OAuth metadata and answers without asking for authorization; nothing to log in to"}
		}
	}
	if err := checkSecure(md, isHTTPS(m.server)); err != nil {
		return nil, nil, err
	}
	return prm, md, nil
}

// newDPoPFor is a new DPoP key for a token of md, which must take ES256
// proofs (a server that publishes no list of algorithms may), with the
// nonces prev (the session's key) was given.
func newDPoPFor(md *ServerMetadata, prev *DPoPKey) (*DPoPKey, error) {
	if len(md.DPoPSigningAlgs) > 0 && !slices.Contains(md.DPoPSigningAlgs, "ES256") {
		return nil, &Error{Step: StepToken, Description: fmt.Sprintf("the resource asks for DPoP-bound tokens and the authorization server %s accepts no ES256 proofs (it lists %s)",
			messageSafe(md.Issuer), messageSafe(strings.Join(md.DPoPSigningAlgs, ", ")))}
	}
	dpop, err := NewDPoPKey()
	if err != nil {
		return nil, &Error{Step: StepToken, Err: err}
	}
	dpop.keepNonces(prev)
	return dpop, nil
}

// grant gets a token by the run's grant; a login without a browser here
// is handed off (a *LoginPendingError), which a DPoP-bound token cannot be.
func (m *Manager) grant(ctx context.Context, md *ServerMetadata, client *Client, scopes []string, resource string, cb callback, bound bool) (*Token, error) {
	hc, scope := m.opts.HTTP, strings.Join(scopes, " ")
	switch m.opts.Grant {
	case GrantClientCredentials:
		return ClientCredentials(ctx, hc, md, client, resource, scope)
	case GrantCrossApp:
		return m.crossApp(ctx, md, client, resource, scope)
	case GrantJWTBearer:
		return JWTBearer(ctx, hc, md, client, m.opts.Assertion, resource, scope)
	case GrantDevice:
		if m.opts.Mode != ModeAuto { // no one waits here: a process of its own polls
			if m.opts.HandOff == nil {
				return nil, &Error{Step: StepAuthorization, Need: NeedLogin, Description: "a device login needs a terminal, or one handed off"}
			}
			return nil, m.handOffDevice(ctx, md, client, scopes, resource)
		}
		return m.device(ctx, md, client, scope, resource)
	}
	if m.opts.Mode != ModeAuto { // only a hand-off brings a run without a browser here
		if bound {
			return nil, &Error{Step: StepAuthorization, Need: NeedLogin, Description: "the server asks for DPoP-bound tokens, whose key a login handed to another process does not take along"}
		}
		return nil, m.handOff(md, client, scopes, resource, cb)
	}
	code, verifier, err := Authorize(ctx, AuthorizeRequest{
		Metadata: md, Client: client, Scope: scope, Resource: resource,
		Listener: cb.ln, RedirectURI: cb.uri, Open: m.opts.Open, Log: m.opts.Log,
		Timeout: m.opts.LoginTimeout, Waiting: m.opts.Waiting,
	})
	if err != nil {
		return nil, err
	}
	return ExchangeCode(ctx, hc, md, client, code, verifier, cb.uri, resource)
}

// save keeps the token (and the DPoP key it is bound to) in the store,
// under the record's lock, and uses it.
func (m *Manager) save(ctx context.Context, md *ServerMetadata, client *Client, tok *Token, scopes []string, resource string, dpop *DPoPKey) error {
	rec := &Record{Server: m.server, Issuer: md.Issuer, Resource: resource, ResourceParam: m.opts.Want.param(),
		AskedScope: strings.Join(scopes, " "), Metadata: md, Client: client.kept(), Grant: m.opts.Grant}
	if dpop != nil && tok.TokenType == "DPoP" {
		rec.DPoPKey = dpop.String()
	}
	if err := m.opts.Store.saveToken(ctx, rec, tok); err != nil {
		return err
	}
	m.use(rec)
	if m.dpop != nil {
		m.dpop.keepNonces(dpop) // what the token endpoint said during the grant
	}
	return nil
}

// resourceFor is the resource parameter of the run's grants (RFC 8707):
// the one the user gave, as given; none, when the user said so; else the
// resource of the server's metadata, or its canonical URL without any.
func (m *Manager) resourceFor(prm *ResourceMetadata) string {
	switch want := m.opts.Want; {
	case want.OmitResource:
		return ""
	case want.Resource != "":
		return want.Resource
	case prm != nil:
		return prm.Resource
	}
	return m.server
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
			firstErr = cmp.Or[error](firstErr, insecureError("authorization server", issuer))
			continue // its metadata is not even fetched
		}
		md, err := DiscoverServer(ctx, m.opts.HTTP, issuer)
		if err == nil {
			return md, nil
		}
		firstErr = cmp.Or(firstErr, err)
	}
	return nil, firstErr
}

// scopes chooses what to ask for: the scopes given, exactly; else the
// challenge's scope, else everything the resource supports, else nothing
// (MCP 2025-11-25, scope selection); plus what was already granted on a
// step-up, and offline_access when the authorization server offers it and a
// refresh token is of use.
func (m *Manager) scopes(ch *Challenge, prm *ResourceMetadata, md *ServerMetadata, keep []string) []string {
	if len(m.opts.Want.Scopes) > 0 {
		return m.opts.Want.Scopes
	}
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
// used again for the code flow: at the redirect URI given, when one was.
func (m *Manager) reusable(md *ServerMetadata) bool {
	prev := m.rec
	if prev == nil || prev.Issuer != md.Issuer || (prev.Grant != "" && prev.Grant != GrantAuthorizationCode) ||
		prev.Client.ID == "" || prev.Client.ID == m.opts.ClientMetadataURL || len(prev.Client.RedirectURIs) == 0 {
		return false
	}
	if r := m.opts.Redirect; r.Fixed() {
		return r.Port != 0 && prev.Client.RedirectURIs[0] == r.uri(r.Port)
	}
	registered, ok := parseRedirect(prev.Client.RedirectURIs[0])
	return ok && registered.Host == "127.0.0.1" // mcpv's own choice, not a URI the server assigned
}

// callback is the loopback listener of a code flow and its URI.
type callback struct {
	ln  net.Listener
	uri string
}

// identify settles mcpv's client at the authorization server, in the order
// the spec gives: pre-registered credentials, a client ID metadata document,
// dynamic registration. For the code flow it also opens the loopback
// listener, whose address the registration needs; finish closes it.
func (m *Manager) identify(ctx context.Context, md *ServerMetadata, scopes []string) (*Client, callback, func(), error) {
	var cb callback
	var c *Client // nil: registered below, at the listener's URI
	finish := func() {}
	switch {
	case m.opts.ClientID != "":
		c = &Client{ID: m.opts.ClientID, Secret: m.opts.ClientSecret, Key: m.opts.ClientKey}
		if m.opts.ClientKey != nil {
			c.AuthMethod = AuthPrivateKeyJWT
		} else {
			c.AuthMethod = ChooseAuthMethod(md, c.Secret != "")
		}
	case !m.needsUser():
		return nil, cb, finish, &Error{Step: StepRegistration, Need: NeedClient, Description: "this grant needs a pre-registered client id with a secret or a key"}
	case m.opts.ClientMetadataURL != "" && md.ClientIDMetadataDocumentSupported:
		c = &Client{ID: m.opts.ClientMetadataURL, AuthMethod: AuthNone}
	case m.reusable(md) && m.opts.Grant != GrantDevice:
		// The client registered last time, at the redirect URI it registered.
		ln, err := ListenAt(m.rec.Client.RedirectURIs[0])
		if err == nil {
			c := m.rec.Client
			return &c, callback{ln: ln, uri: c.RedirectURIs[0]}, func() { ln.Close() }, nil
		}
		if m.opts.Redirect.Fixed() {
			return nil, cb, finish, &Error{Step: StepAuthorization, Err: err} // the port given is taken: no other will do
		}
		fallthrough // its port is taken: register anew, at a free one
	case md.RegistrationEndpoint != "":
	default:
		return nil, cb, finish, &Error{Step: StepRegistration, Need: NeedClient, Description: md.Issuer +
			" offers no dynamic registration and no client ID metadata documents"}
	}
	if m.needsUser() && m.opts.Grant != GrantDevice { // no browser comes back to a device
		ln, uri, err := ListenRedirect(m.opts.Redirect)
		if err != nil {
			return nil, cb, finish, &Error{Step: StepAuthorization, Err: err}
		}
		if h := m.opts.Redirect.Host; !IsLoopbackRedirectHost(h) {
			m.opts.Log.Warn(fmt.Sprintf("the browser takes the authorization code to %s, wherever that name leads; mcpv listens on this machine's loopback addresses only", messageSafe(h)))
		}
		cb, finish = callback{ln: ln, uri: uri}, func() { ln.Close() }
	}
	if c != nil {
		return c, cb, finish, nil
	}
	grants, redirects, responses := []string{GrantAuthorizationCode}, []string{cb.uri}, []string{"code"}
	if m.opts.Grant == GrantDevice { // no browser comes back: no redirect
		grants, redirects, responses = []string{GrantTypeDeviceCode}, nil, nil
	}
	if slices.Contains(scopes, "offline_access") {
		grants = append(grants, "refresh_token")
	}
	c, err := Register(ctx, m.opts.HTTP, md, RegistrationRequest{
		ClientName:              m.opts.ClientName,
		RedirectURIs:            redirects,
		GrantTypes:              grants,
		ResponseTypes:           responses,
		TokenEndpointAuthMethod: ChooseAuthMethod(md, false),
		Scope:                   strings.Join(scopes, " "),
		ApplicationType:         "native",
	})
	if err != nil {
		finish()
		return nil, cb, func() {}, err
	}
	return c, cb, finish, nil
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
		hc = plainClient.Get()
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
