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
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	Grant     string // GrantAuthorizationCode (default) or GrantClientCredentials

	ClientID          string // pre-registered
	ClientSecret      string
	ClientKey         *ecdsa.PrivateKey // private_key_jwt instead of a secret
	ClientMetadataURL string            // a client ID metadata document URL
	ClientName        string
	IdentityProvider  *IdentityProvider // for GrantCrossApp
	Assertion         string            // for GrantJWTBearer: the workload's JWT

	Open func(url string) error // opens a browser
	Log  *slog.Logger           // what the user should know; nil discards it
	// Secret, if set, is told every secret the Manager comes to hold
	// (tokens, a registered client's secret), so that the caller can keep
	// them out of what it prints.
	Secret            func(values ...string)
	MaxAuthorizations int // per Manager; default 3
}

// Manager authorizes the requests of one mcpv run to one server.
type Manager struct {
	opts     Options
	base     http.RoundTripper
	server   string // canonical
	insecure error  // set when the server is plain http to another host: no OAuth at all

	mu             sync.Mutex // guards the fields below and serialises flows
	rec            *Record    // the record in use; nil before the first token
	loaded         bool       // the store has been consulted
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
	if opts.MaxAuthorizations <= 0 {
		opts.MaxAuthorizations = 3
	}
	if opts.Grant == "" {
		opts.Grant = GrantAuthorizationCode
	}
	if opts.ClientName == "" {
		opts.ClientName = "mcpv"
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
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

// Server is the canonical URL of the server the Manager authorizes for.
func (m *Manager) Server() string { return m.server }

// RoundTrip implements http.RoundTripper.
func (m *Manager) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return m.base.RoundTrip(req) // the caller brought its own credentials
	}
	ctx := req.Context()
	token, gen, err := m.token(ctx)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		resp, err := m.base.RoundTrip(withToken(req, token))
		if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
			return resp, err
		}
		ch, _ := BearerChallenge(resp.Header)
		if resp.StatusCode == http.StatusForbidden && !strings.EqualFold(ch.Params["error"], "insufficient_scope") {
			return resp, nil // refused for another reason: not ours to fix
		}
		if attempt > 0 && gen == m.generation() && resp.StatusCode == http.StatusUnauthorized {
			return resp, nil // a fresh token was refused too
		}
		if req.Body != nil && req.GetBody == nil {
			return resp, nil // cannot send it again
		}
		drainClose(resp)
		token, gen, err = m.recover(ctx, resp, &ch, gen)
		if err != nil {
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

// token returns the access token to send now (refreshed if about to expire),
// or "" when there is none yet.
func (m *Manager) token(ctx context.Context) (string, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.insecure != nil {
		return "", m.gen, nil // never a token in cleartext; a 401 says why
	}
	if !m.loaded {
		m.loaded = true
		recs, err := m.opts.Store.Find(m.server)
		if err != nil {
			return "", 0, &Error{Step: StepToken, Err: err}
		}
		if len(recs) > 0 {
			m.use(recs[0])
		}
	}
	if m.rec == nil {
		return "", m.gen, nil
	}
	if m.rec.Token.Expired(time.Now(), refreshLeeway) {
		if err := m.refreshLocked(ctx); err != nil {
			m.opts.Log.Warn(fmt.Sprintf("could not refresh the stored token: %v", err))
			return "", m.gen, nil // the server's 401 decides what happens next
		}
	}
	return m.rec.Token.AccessToken, m.gen, nil
}

// recover gets a token that may succeed where the last one (of generation
// gen) got status: a newer one another request obtained, a refreshed one, or
// a new authorization.
func (m *Manager) recover(ctx context.Context, resp *http.Response, ch *Challenge, gen int) (string, int, error) {
	status := resp.StatusCode
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.insecure != nil {
		return "", 0, m.insecure
	}
	if m.gen != gen && m.rec != nil {
		return m.rec.Token.AccessToken, m.gen, nil
	}
	if status == http.StatusUnauthorized && m.rec != nil && m.rec.Token.RefreshToken != "" {
		if err := m.refreshLocked(ctx); err == nil {
			return m.rec.Token.AccessToken, m.gen, nil
		} else {
			m.opts.Log.Warn(fmt.Sprintf("could not refresh the stored token: %v", err))
		}
	}
	if m.opts.Mode != ModeAuto && m.needsUser() {
		what := "needs authorization"
		if status == http.StatusForbidden {
			what = "needs more scopes"
		}
		if c := resp.Header.Values("WWW-Authenticate"); len(c) > 0 {
			what += " (" + messageSafeText(strings.Join(c, ", ")) + ")"
		}
		return "", 0, &Error{Step: StepAuthorization, Need: NeedLogin,
			Description: fmt.Sprintf("the server %s (HTTP %d) and mode %q does not start a browser flow", what, status, m.opts.Mode)}
	}
	if m.authorizations >= m.opts.MaxAuthorizations {
		return "", 0, &Error{Step: StepAuthorization, Description: fmt.Sprintf("the server still refuses after %d authorizations; giving up", m.authorizations)}
	}
	var scopes []string
	if status == http.StatusForbidden && m.rec != nil {
		scopes = strings.Fields(m.rec.Token.Scope) // step up: keep what was granted
	}
	if err := m.authorizeLocked(ctx, ch, scopes); err != nil {
		return "", 0, err
	}
	return m.rec.Token.AccessToken, m.gen, nil
}

// refreshLocked refreshes m.rec's token under the store lock. Another
// process may have refreshed it meanwhile: then its token is taken instead.
func (m *Manager) refreshLocked(ctx context.Context) error {
	rec := m.rec
	unlock, err := m.opts.Store.Lock(ctx, rec.Issuer, rec.Resource)
	if err != nil {
		return err
	}
	defer unlock()
	if cur, err := m.opts.Store.Load(rec.Issuer, rec.Resource); err == nil && cur != nil &&
		cur.Token.AccessToken != rec.Token.AccessToken && !cur.Token.Expired(time.Now(), refreshLeeway) {
		m.use(cur)
		return nil
	}
	if rec.Metadata == nil {
		return errors.New("the stored record has no authorization server metadata")
	}
	if err := checkSecure(rec.Metadata, isHTTPS(rec.Resource)); err != nil {
		return err // a record stored before mcpv checked, or edited by hand
	}
	var tok *Token
	switch {
	case rec.Grant == GrantClientCredentials:
		client := rec.Client
		m.applyKey(&client)
		tok, err = ClientCredentials(ctx, m.opts.HTTP, rec.Metadata, &client, rec.Resource, rec.Token.Scope)
	case rec.Grant == GrantCrossApp && m.opts.IdentityProvider != nil:
		client := rec.Client
		tok, err = m.crossApp(ctx, rec.Metadata, &client, rec.Resource, rec.Token.Scope)
	case rec.Grant == GrantJWTBearer && m.opts.Assertion != "":
		client := rec.Client
		tok, err = JWTBearer(ctx, m.opts.HTTP, rec.Metadata, &client, m.opts.Assertion, rec.Resource, rec.Token.Scope)
	case rec.Token.RefreshToken != "":
		client := rec.Client
		m.applyKey(&client)
		tok, err = Refresh(ctx, m.opts.HTTP, rec.Metadata, &client, rec.Token.RefreshToken, rec.Resource, "")
	default:
		return errors.New("no refresh token")
	}
	if err != nil {
		return err
	}
	if tok.Scope == "" {
		tok.Scope = rec.Token.Scope
	}
	next := *rec
	next.Token, next.Updated = *tok, time.Now()
	if err := m.opts.Store.Save(&next); err != nil {
		return &Error{Step: StepToken, Err: fmt.Errorf("saving the refreshed token: %w", err)}
	}
	m.use(&next)
	return nil
}

// use makes rec the record in use (m.mu held), telling Secret what it holds.
func (m *Manager) use(rec *Record) {
	m.opts.Secret(rec.Token.AccessToken, rec.Token.RefreshToken, rec.Client.Secret)
	m.rec = rec
	m.gen++
}

// needsUser reports whether the grant needs a user in a browser.
func (m *Manager) needsUser() bool { return m.opts.Grant == GrantAuthorizationCode }

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
	if tok == "" || m.rec.Token.Expired(time.Now(), 0) {
		return nil, &Error{Step: StepToken, Description: "no valid token is stored for " + m.server + "; run 'mcpv auth login'"}
	}
	return m.rec, nil
}

func withToken(req *http.Request, token string) *http.Request {
	if token == "" {
		return req
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return r
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
