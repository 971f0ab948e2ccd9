package oauth

// The Manager is an http.RoundTripper between mcpv's MCP transport and the
// network. It puts the bearer token on every request; when the server answers
// 401 it refreshes the token or (in ModeAuto) runs the whole flow, and when it
// answers 403 insufficient_scope it re-authorizes with the union of scopes,
// then retries the request once. The MCP transport never sees OAuth.
//
// Invariants:
//   - mu serialises authorization and refresh within the process; the
//     store's file lock does the same across processes. A request that waited
//     for another's authorization retries with the new token instead of
//     starting a flow of its own (gen tells it one happened).
//   - at most MaxAuthorizations flows run per Manager (one mcpv operation).
//   - a request body is replayed through GetBody; a request without one is
//     sent once and its 401 returned as is.

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Modes: what the Manager may do when it has no usable token.
const (
	ModeAuto   = "auto"   // run the authorization flow (a browser, or client credentials)
	ModeStored = "stored" // use stored or refreshable tokens only; never start a browser flow
)

// Grants.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	GrantCrossApp          = "cross_app" // SEP-990: an identity provider's ID-JAG, then a JWT bearer grant
	// GrantJWTBearer trades a workload's own JWT (a CI job's OIDC token,
	// say) for an access token (RFC 7523; workload identity federation).
	GrantJWTBearer = "jwt_bearer"
)

// refreshLeeway is how long before expiry a token is refreshed.
const refreshLeeway = time.Minute

// Options configure a Manager.
type Options struct {
	ServerURL string       // the MCP endpoint
	HTTP      *http.Client // for metadata, registration and token requests
	Store     *Store
	Mode      string // ModeAuto or ModeStored
	Grant     string // GrantAuthorizationCode (default), GrantDevice, GrantClientCredentials...

	ClientID          string // pre-registered
	ClientSecret      string
	ClientKey         *ecdsa.PrivateKey // private_key_jwt instead of a secret
	ClientMetadataURL string            // a client ID metadata document URL
	ClientName        string
	IdentityProvider  *IdentityProvider // for GrantCrossApp
	Assertion         string            // for GrantJWTBearer: the workload's JWT
	DPoP              string            // DPoPAuto (default), DPoPAlways or DPoPNever

	// Want is the resource and scopes tokens are asked for, when the user
	// chose them; a stored token is used only when it fits (Wanted.Fits).
	Want Wanted
	// Redirect is the redirect URI of the code flow, when it was
	// registered beforehand; the zero value lets mcpv choose.
	Redirect Redirect
	// LoginTimeout bounds the wait for the browser; 0 leaves it to the
	// request's context.
	LoginTimeout time.Duration
	// Waiting: see AuthorizeRequest.Waiting.
	Waiting func() (done func())

	Open func(url string) error // opens a browser
	Log  *slog.Logger           // what the user should know; nil discards it
	// Secret, if set, is told every secret the Manager comes to hold
	// (tokens, a registered client's secret), so that the caller can keep
	// them out of what it prints.
	Secret            func(values ...string)
	MaxAuthorizations int // per Manager; default 3
	// HandOff, when set, takes a login a run in ModeStored finds needed
	// (the code flow, at a server with OAuth metadata) to a process that
	// waits for it: the request fails at once with a LoginPendingError.
	// It must take ln's socket for itself before it returns; ln is closed
	// after.
	HandOff func(h *HandOff, ln net.Listener) error
	// ShowDevice is given the link and the code of a device grant
	// (GrantDevice), for the user.
	ShowDevice func(DeviceCode)
	// NoBrowser: no browser can be opened here. A login that would open
	// one takes the device grant instead, where the authorization server
	// offers it and ShowDevice is set.
	NoBrowser bool
}

// Manager authorizes the requests of one mcpv run to one server.
type Manager struct {
	opts     Options
	base     http.RoundTripper
	server   string // canonical
	insecure error  // set when the server is plain http to another host: no OAuth at all

	mu             sync.Mutex // guards the fields below and serialises flows
	rec            *Record    // the record in use; nil before the first token
	dpop           *DPoPKey   // the key rec's token is bound to; nil for a bearer token
	loaded         bool       // the store has been consulted
	unfit          int        // records of the server the store holds for other settings
	gen            int        // bumped whenever rec's token changes
	authorizations int
}

// ErrBadServerURL is NewManager's answer to a URL that is not an absolute
// http(s) URL; it does not repeat the URL, which may hold credentials.
var ErrBadServerURL = errors.New("the server URL is not an absolute http or https URL")

// NewManager returns a Manager sending requests through base.
func NewManager(opts Options, base http.RoundTripper) (*Manager, error) {
	server, err := CanonicalResource(opts.ServerURL)
	if err != nil {
		return nil, ErrBadServerURL
	}
	opts.MaxAuthorizations = cmp.Or(max(opts.MaxAuthorizations, 0), 3) // none, or fewer: 3
	opts.Grant = cmp.Or(opts.Grant, GrantAuthorizationCode)
	opts.DPoP = cmp.Or(opts.DPoP, DPoPAuto)
	opts.ClientName = cmp.Or(opts.ClientName, "mcpv")
	opts.Log = cmp.Or(opts.Log, slog.New(slog.DiscardHandler))
	if opts.Secret == nil {
		opts.Secret = func(...string) {}
	}
	opts.Secret(opts.ClientSecret)
	m := &Manager{opts: opts, base: base, server: server}
	if !secureURL(server, false) {
		m.insecure = insecureError("the server", server)
	}
	return m, nil
}

// credential is what authorizes a request: a token, and the key it is
// bound to when it is a DPoP token.
type credential struct {
	token string
	dpop  *DPoPKey
}

// RoundTrip implements http.RoundTripper.
func (m *Manager) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return m.base.RoundTrip(req) // the caller brought its own credentials
	}
	ctx := req.Context()
	cred, gen, err := m.token(ctx)
	if err != nil {
		return nil, err
	}
	nonceRetried := false
	for attempt := 0; ; attempt++ {
		r, err := withCredential(req, cred)
		if err != nil {
			return nil, err
		}
		resp, err := m.base.RoundTrip(r)
		if err != nil {
			return resp, err
		}
		newNonce := cred.dpop != nil && cred.dpop.Observe(req.URL, resp.Header)
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			return resp, nil
		}
		ch, _ := AuthChallenge(resp.Header)
		if resp.StatusCode == http.StatusForbidden && !strings.EqualFold(ch.Params["error"], "insufficient_scope") {
			return resp, nil // refused for another reason: not ours to fix
		}
		// RFC 9449 §9: the resource wants its nonce in the proof; once.
		useNonce := newNonce && !nonceRetried && strings.EqualFold(ch.Scheme, "DPoP") && ch.Params["error"] == "use_dpop_nonce"
		if !useNonce && attempt > 0 && gen == m.generation() && resp.StatusCode == http.StatusUnauthorized {
			return resp, nil // a fresh token was refused too
		}
		if req.Body != nil && req.GetBody == nil {
			return resp, nil // cannot send it again
		}
		drainClose(resp)
		if useNonce {
			nonceRetried = true
			attempt--
		} else if cred, gen, err = m.recover(ctx, resp, &ch, gen); err != nil {
			return nil, err
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(ctx)
			req.Body = body
		}
	}
}

func (m *Manager) generation() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen
}

// token returns the credential to send now (refreshed if about to expire),
// or none when there is none yet.
func (m *Manager) token(ctx context.Context) (credential, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.insecure != nil {
		return credential{}, m.gen, nil // never a token in cleartext; a 401 says why
	}
	if !m.loaded {
		m.loaded = true
		recs, err := m.opts.Store.Find(ctx, m.server)
		if err != nil {
			return credential{}, 0, &Error{Step: StepToken, Err: err}
		}
		for _, r := range recs {
			if r.Unread != nil {
				continue // its secrets could not be read: as if it were not there
			}
			if m.opts.Want.Fits(r) {
				m.use(r)
				break
			}
			m.unfit++
		}
	}
	if m.rec == nil {
		return credential{}, m.gen, nil
	}
	if m.rec.Token.Expired(time.Now(), refreshLeeway) {
		if err := m.refreshLocked(ctx); err != nil {
			m.opts.Log.Warn(fmt.Sprintf("could not refresh the stored token: %v", err))
			return credential{}, m.gen, nil // the server's 401 decides what happens next
		}
	}
	return m.current(), m.gen, nil
}

// current is the credential of the record in use (m.mu held).
func (m *Manager) current() credential {
	return credential{token: m.rec.Token.AccessToken, dpop: m.dpop}
}

// recover gets a token that may succeed where the last one (of generation
// gen) got status: a newer one another request obtained, a refreshed one, or
// a new authorization.
func (m *Manager) recover(ctx context.Context, resp *http.Response, ch *Challenge, gen int) (credential, int, error) {
	status := resp.StatusCode
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.insecure != nil {
		return credential{}, 0, m.insecure
	}
	if m.gen != gen && m.rec != nil {
		return m.current(), m.gen, nil
	}
	if status == http.StatusForbidden && len(m.opts.Want.Scopes) > 0 {
		return credential{}, 0, m.beyondScopes(ch)
	}
	if status == http.StatusUnauthorized && m.rec != nil && m.rec.Token.RefreshToken != "" {
		err := m.refreshLocked(ctx)
		if err == nil {
			return m.current(), m.gen, nil
		}
		m.opts.Log.Warn(fmt.Sprintf("could not refresh the stored token: %v", err))
	}
	if m.opts.Mode != ModeAuto && m.needsUser() {
		what := "needs authorization"
		if status == http.StatusForbidden {
			what = "needs more scopes"
		}
		if c := resp.Header.Values("WWW-Authenticate"); len(c) > 0 {
			what += " (" + messageSafeText(strings.Join(c, ", ")) + ")"
		}
		need := NeedLogin
		if ch == nil || ch.Params["resource_metadata"] == "" {
			need = NeedBearer // no sign of OAuth: perhaps a token of its own
		}
		desc := fmt.Sprintf("the server %s (HTTP %d) and mode %q does not start a browser flow", what, status, m.opts.Mode)
		if m.rec == nil && m.unfit > 0 {
			desc += "; " + unfitNote
		}
		if need == NeedLogin && m.opts.HandOff != nil && m.authorizations < m.opts.MaxAuthorizations {
			err := m.authorizeLocked(ctx, ch, nil)
			pending, ok := errors.AsType[*LoginPendingError](err)
			if !ok {
				// What stopped the hand-off (the metadata, the
				// registration) comes after what the server asked.
				return credential{}, 0, &Error{Step: StepAuthorization, Need: need, Description: desc + "; the login could not be handed off: " + messageSafeText(err.Error())}
			}
			if m.rec == nil && m.unfit > 0 {
				pending.Note = strings.TrimPrefix(pending.Note+"; "+unfitNote, "; ")
			}
			return credential{}, 0, err
		}
		return credential{}, 0, &Error{Step: StepAuthorization, Need: need, Description: desc}
	}
	if m.authorizations >= m.opts.MaxAuthorizations {
		return credential{}, 0, &Error{Step: StepAuthorization, Description: fmt.Sprintf("the server still refuses after %d authorizations; giving up", m.authorizations)}
	}
	var scopes []string
	if status == http.StatusForbidden && m.rec != nil {
		scopes = strings.Fields(m.rec.Token.Scope) // step up: keep what was granted
	}
	if err := m.authorizeLocked(ctx, ch, scopes); err != nil {
		return credential{}, 0, err
	}
	return m.current(), m.gen, nil
}

// unfitNote says why a token stored for the server was not used.
const unfitNote = "the token stored for it was asked for another resource or fewer scopes than this run asks for"

// beyondScopes is the refusal of a 403 insufficient_scope when the scopes
// were given: mcpv asks for those and no more.
func (m *Manager) beyondScopes(ch *Challenge) error {
	given := strings.Join(m.opts.Want.Scopes, " ")
	var missing []string
	for _, s := range strings.Fields(ch.Params["scope"]) {
		if !slices.Contains(m.opts.Want.Scopes, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return &Error{Step: StepAuthorization, Description: fmt.Sprintf("the server refuses the token for want of scope (HTTP 403 insufficient_scope), "+
			"though it was asked for %s; the authorization server may have granted less", messageSafe(given))}
	}
	return &Error{Step: StepAuthorization, Need: NeedScope, Description: fmt.Sprintf("the server asks for scope %s (HTTP 403 insufficient_scope), "+
		"beyond the scopes given (%s)", messageSafe(strings.Join(missing, " ")), messageSafe(given))}
}

// refreshLocked refreshes m.rec's token under the store lock. Another
// process may have refreshed it meanwhile: then its token is taken instead.
func (m *Manager) refreshLocked(ctx context.Context) error {
	rec := m.rec
	unlock, err := m.opts.Store.Lock(ctx, rec)
	if err != nil {
		return err
	}
	defer unlock()
	if cur, err := m.opts.Store.Load(rec); err == nil && cur != nil && cur.Unread == nil && m.opts.Want.Fits(cur) &&
		cur.Token.AccessToken != rec.Token.AccessToken && !cur.Token.Expired(time.Now(), refreshLeeway) {
		m.use(cur)
		return nil
	}
	if rec.Metadata == nil {
		return errors.New("the stored record has no authorization server metadata")
	}
	if err := checkSecure(rec.Metadata, isHTTPS(cmp.Or(rec.Server, rec.Resource))); err != nil {
		return err // a record stored before mcpv checked, or edited by hand
	}
	var tok *Token
	client := rec.Client
	client.DPoP = m.dpop // a bound token's refresh is bound to the same key (RFC 9449 §5)
	switch {
	case rec.Grant == GrantClientCredentials:
		m.applyKey(&client)
		tok, err = ClientCredentials(ctx, m.opts.HTTP, rec.Metadata, &client, rec.Resource, rec.Token.Scope)
	case rec.Grant == GrantCrossApp && m.opts.IdentityProvider != nil:
		tok, err = m.crossApp(ctx, rec.Metadata, &client, rec.Resource, rec.Token.Scope)
	case rec.Grant == GrantJWTBearer && m.opts.Assertion != "":
		tok, err = JWTBearer(ctx, m.opts.HTTP, rec.Metadata, &client, m.opts.Assertion, rec.Resource, rec.Token.Scope)
	case rec.Token.RefreshToken != "":
		m.applyKey(&client)
		tok, err = Refresh(ctx, m.opts.HTTP, rec.Metadata, &client, rec.Token.RefreshToken, rec.Resource, m.refreshScope(rec))
	default:
		return errors.New("no refresh token")
	}
	if err != nil {
		return err
	}
	tok.Scope = cmp.Or(tok.Scope, rec.Token.Scope)
	next := *rec
	next.Token, next.Updated = *tok, time.Now()
	if tok.TokenType != "DPoP" {
		next.DPoPKey = "" // the server issued a bearer token after all
	}
	if err := m.opts.Store.Save(&next); err != nil {
		return &Error{Step: StepToken, Err: fmt.Errorf("saving the refreshed token: %w", err)}
	}
	m.use(&next)
	return nil
}

// refreshScope is the scope a refresh asks for: none (what was granted, RFC
// 6749 §6), unless the user gave the scopes or left the resource out. Then
// the scope is what tells the authorization server which resource and
// rights the token is for (Entra ID's v2 endpoints take the resource from
// it, and without it issue a token for another API), so the scope granted
// is asked for again, which §6 allows.
func (m *Manager) refreshScope(rec *Record) string {
	if len(m.opts.Want.Scopes) > 0 || m.opts.Want.OmitResource {
		return rec.Token.Scope
	}
	return ""
}

// use makes rec the record in use (m.mu held), telling Secret what it holds.
// A DPoP token whose key cannot be read is used as it is: the server's
// refusal leads to a new authorization.
func (m *Manager) use(rec *Record) {
	m.opts.Secret(rec.Token.AccessToken, rec.Token.RefreshToken, rec.Client.Secret, rec.DPoPKey)
	prev := m.dpop
	m.rec, m.dpop = rec, nil
	if rec.DPoPKey != "" && rec.Token.TokenType == "DPoP" {
		k, err := ParseDPoPKey(rec.DPoPKey)
		if err != nil {
			m.opts.Log.Warn(fmt.Sprintf("the stored token's %v", err))
		} else {
			k.keepNonces(prev)
		}
		m.dpop = k
	}
	m.gen++
}

// needsUser reports whether the grant needs a user in a browser.
func (m *Manager) needsUser() bool {
	return m.opts.Grant == GrantAuthorizationCode || m.opts.Grant == GrantDevice
}

// crossApp runs SEP-990: the identity provider's grant, traded for a token.
func (m *Manager) crossApp(ctx context.Context, md *ServerMetadata, c *Client, resource, scope string) (*Token, error) {
	if m.opts.IdentityProvider == nil {
		return nil, &Error{Step: StepToken, Description: "cross-app access needs an identity provider and an ID token"}
	}
	if md.IssuerUnverified {
		// The identity provider would issue an ID-JAG for that issuer, and
		// this document's token endpoint could replay it there.
		return nil, &Error{Step: StepToken, Description: fmt.Sprintf("cross-app access needs an authorization server whose issuer is verified; "+
			"this server has no protected resource metadata and its document names issuer %s, which nothing vouches for", messageSafe(md.Issuer))}
	}
	assertion, err := ExchangeIDToken(ctx, m.opts.HTTP, *m.opts.IdentityProvider, md.Issuer, resource, scope)
	if err != nil {
		return nil, err
	}
	return JWTBearer(ctx, m.opts.HTTP, md, c, assertion, resource, scope)
}

func (m *Manager) applyKey(c *Client) {
	if c.AuthMethod == AuthPrivateKeyJWT && c.Key == nil {
		c.Key = m.opts.ClientKey
	}
}

// Login runs the authorization flow now, without waiting for a 401.
func (m *Manager) Login(ctx context.Context) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loaded = true
	if err := m.authorizeLocked(ctx, nil, nil); err != nil {
		return nil, err
	}
	return m.rec, nil
}

// Current returns a valid token without starting a flow: the stored one,
// refreshed if needed.
func (m *Manager) Current(ctx context.Context) (*Record, error) {
	tok, _, err := m.token(ctx)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if tok.token == "" || m.rec.Token.Expired(time.Now(), 0) {
		return nil, &Error{Step: StepToken, Description: "no valid token is stored for " + m.server + "; run 'mcpv auth login'"}
	}
	return m.rec, nil
}

// withCredential is req with cred's Authorization: a bearer token, or a
// DPoP token with a fresh proof (RFC 9449 §7.1).
func withCredential(req *http.Request, cred credential) (*http.Request, error) {
	if cred.token == "" {
		return req, nil
	}
	r := req.Clone(req.Context())
	if cred.dpop == nil {
		r.Header.Set("Authorization", "Bearer "+cred.token)
		return r, nil
	}
	proof, err := cred.dpop.Proof(req.Method, req.URL, cred.token)
	if err != nil {
		return nil, &Error{Step: StepToken, Err: err}
	}
	r.Header.Set("Authorization", "DPoP "+cred.token)
	r.Header.Set("DPoP", proof)
	return r, nil
}

func drainClose(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// unionScopes joins scope lists without repeats, in order.
func unionScopes(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
