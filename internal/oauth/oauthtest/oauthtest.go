// Package oauthtest is an in-process OAuth 2.1 authorization server and a
// bearer-token guard for an MCP handler, for tests: protected-resource
// metadata, authorization-server metadata, dynamic registration, an
// authorization endpoint that redirects straight back with a code, and a
// token endpoint with PKCE checks, refresh-token rotation and client
// credentials. Everything listens on 127.0.0.1.
package oauthtest

import (
	"cmp"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/testkit"
)

// Server is an authorization server and the resource it protects.
type Server struct {
	AS, RS *httptest.Server

	// Set before the first request:
	Scopes  []string          // the resource's scopes_supported
	Need    map[string]string // JSON-RPC method → the scope it needs (403 insufficient_scope without it)
	TTL     int               // expires_in of issued tokens (default 3600)
	Clients map[string]string // client_credentials: id → secret (HTTP Basic)
	// ChallengeScope, when set, is the scope a 401's challenge names (RFC
	// 6750 §3), as MCP servers should.
	ChallengeScope string
	// Assertions are the workload JWTs the jwt-bearer grant takes: JWT →
	// the client id it must come with.
	Assertions map[string]string
	ForbidAll  bool          // every authenticated request gets 403
	CIMD       bool          // advertise client ID metadata documents
	NoDCR      bool          // offer no registration endpoint
	Delay      time.Duration // how long the token endpoint takes to answer
	// DPoP makes the resource take only DPoP-bound tokens (RFC 9449): it
	// challenges with the DPoP scheme, and the token endpoint binds each
	// token to the key of the proof its request carried. DPoPNonce, when
	// set, is a nonce both demand in every proof.
	DPoP      bool
	DPoPNonce string
	// RefuseResource, when set, is asked about the resource parameter of
	// every authorization and token request (nil when none was sent); a
	// request it refuses gets invalid_target, as Microsoft Entra ID's v2
	// endpoints answer a resource they do not take.
	RefuseResource func(resource []string) bool
	// RedirectURIs are the redirect URIs of pre-registered clients: an
	// authorization request of such a client with any other redirect_uri
	// gets an error page, and the browser goes nowhere (RFC 6749 §4.1.2.1).
	RedirectURIs map[string][]string
	// RedirectTo, when set, is where the authorization endpoint sends the
	// browser with the code, whatever redirect_uri the request named: a
	// hostile or misconfigured authorization server.
	RedirectTo string
	// Grant, when set, is the scope granted for the scope asked (the
	// default grants what was asked).
	Grant func(asked string) string
	// TokenRedirect, when set, is where the token endpoint redirects every
	// request (307: the form, code and verifier included, would go along).
	TokenRedirect string
	// Broken names a requirement of MCP's authorization the servers
	// break: "no-challenge" (a 401 without WWW-Authenticate),
	// "no-metadata" (no resource_metadata and no document: a token of
	// the server's own, no OAuth), "metadata-gone" (a resource_metadata
	// that names no document),
	// "no-auth-servers" (a document without authorization_servers),
	// "no-s256" (metadata without S256 PKCE), "any-token" (any bearer
	// token taken), "offline-access" (offline_access among the resource's
	// scopes_supported, which a resource needs not), "scope-bare" (a 403
	// insufficient_scope naming no scope), "resource-slash" (the resource
	// named with a trailing slash its URL has not), "token-optional" (a
	// request without a token served).
	Broken string
	// Device offers the device authorization grant (RFC 8628) at
	// /device; the user's answer is Approve's or Deny's. SlowDown is how
	// many of each code's first polls are answered slow_down.
	Device   bool
	SlowDown int
	// DeviceAnswer, when set, changes each device authorization answer
	// (its members, as JSON values) before it is sent: a hostile
	// server's numbers and links.
	DeviceAnswer func(answer map[string]any)
	// TokenAnswer, when set, changes each token answer that grants a
	// token (its members, as JSON values) before it is sent: a hostile
	// server's tokens and numbers. The tokens it replaces stay valid.
	TokenAnswer func(answer map[string]any)
	// Hostile makes endpoints of the authorization server misbehave, by
	// path ("/device", "/token", "/register",
	// "/.well-known/oauth-authorization-server"): "stall" never answers
	// (until the client gives up or the test ends), "flood" answers 200
	// with a JSON object that never ends.
	Hostile map[string]string
	// AuthServer, when set, is the issuer of an authorization server
	// outside the test (a real one, started by the test): the resource's
	// metadata names it instead of AS, and the resource takes the bearer
	// tokens Verify takes (asking that server), not AS's.
	AuthServer string
	Verify     func(token string) bool

	ended   chan struct{}           // closed as the test ends: what stalls gives up
	devices map[string]*deviceGrant // device_code → its state; guarded by mu
	mu      sync.Mutex              // guards the fields below
	tokens  map[string]string       // access token → scope
	refresh map[string]string       // refresh token → scope
	codes   map[string]grant
	n       int
	counts  map[string]int
	clients []string          // the client_id of each authorization request
	bound   map[string]string // access token → the jkt it is bound to
	jtis    map[string]bool   // DPoP proof ids seen
	agents  map[string]string // "METHOD /path" → the last User-Agent it got
	seen    []Request
	targets map[string][]string // access token → the resource parameter of the grant that issued it
}

type grant struct {
	scope, challenge string
	resource         []string
}

// deviceGrant is a device code's state: asked, then approved or denied.
type deviceGrant struct {
	user, scope      string
	approved, denied bool
	polled           int
}

// Approve and Deny are the user's answer at the verification page to
// the device code whose user code is user.
func (s *Server) Approve(user string) { s.answerDevice(user, true) }
func (s *Server) Deny(user string)    { s.answerDevice(user, false) }

// device answers a device authorization request (RFC 8628 §3.2); s.mu
// is held.
func (s *Server) device(w http.ResponseWriter, r *http.Request) {
	if !s.Device {
		http.NotFound(w, r)
		return
	}
	r.ParseForm()
	s.counts["device"]++
	s.noteSeen("device", r.Form)
	s.n++
	code, user := fmt.Sprintf("device-%d", s.n), fmt.Sprintf("WDJB-%04d", s.n)
	if s.devices == nil {
		s.devices = map[string]*deviceGrant{}
	}
	s.devices[code] = &deviceGrant{user: user, scope: r.Form.Get("scope")}
	answer := map[string]any{"device_code": code, "user_code": user, "verification_uri": s.AS.URL + "/activate",
		"verification_uri_complete": s.AS.URL + "/activate?user_code=" + user, "expires_in": 600, "interval": 1}
	if s.DeviceAnswer != nil {
		s.DeviceAnswer(answer)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(answer)
}

// UserCodes are the user codes of the device codes not yet answered.
func (s *Server) UserCodes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, d := range s.devices {
		if !d.approved && !d.denied {
			out = append(out, d.user)
		}
	}
	return out
}

func (s *Server) answerDevice(user string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.devices {
		if d.user == user {
			d.approved, d.denied = ok, !ok
		}
	}
}

// Request is what one request to the authorization server carried: the
// authorization request's query, the token request's form, or the
// registration's redirect_uris (as redirect_uri values).
type Request struct {
	Endpoint string // "authorize", "register" or "token:<grant_type>"
	Params   url.Values
}

// Seen are the requests the authorization server got, in order.
func (s *Server) Seen() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.seen))
	for i, r := range s.seen {
		out[i] = Request{r.Endpoint, maps.Clone(r.Params)}
	}
	return out
}

// SeenAt are the requests to endpoint ("authorize", "register",
// "token:authorization_code"...), in order.
func (s *Server) SeenAt(endpoint string) []url.Values {
	var out []url.Values
	for _, r := range s.Seen() {
		if r.Endpoint == endpoint {
			out = append(out, r.Params)
		}
	}
	return out
}

// ResourceOf is the resource parameter of the grant that issued an access
// token (nil when it had none): what the token is for.
func (s *Server) ResourceOf(token string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.targets[token]
}

// noteSeen records a request; s.mu is held.
func (s *Server) noteSeen(endpoint string, params url.Values) {
	s.seen = append(s.seen, Request{endpoint, maps.Clone(params)})
}

// New starts the servers; mcp is the MCP handler behind the guard, at /mcp.
func New(t testing.TB, mcp http.Handler) *Server {
	s := &Server{TTL: 3600, Need: map[string]string{}, Clients: map[string]string{}, Assertions: map[string]string{},
		tokens: map[string]string{}, refresh: map[string]string{}, codes: map[string]grant{}, counts: map[string]int{},
		bound: map[string]string{}, jtis: map[string]bool{}, agents: map[string]string{}, targets: map[string][]string{}, ended: make(chan struct{})}
	// Both servers are made before either starts: their handlers read
	// s.AS and s.RS, which must be set before the first request's goroutine.
	s.AS = httptest.NewUnstartedServer(testkit.FailOnPanic(t, s.noteAgent(http.HandlerFunc(s.serveAS))))
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		md := map[string]any{"resource": s.RS.URL + "/mcp", "authorization_servers": []string{cmp.Or(s.AuthServer, s.AS.URL)}, "scopes_supported": s.Scopes,
			"dpop_bound_access_tokens_required": s.DPoP}
		switch s.Broken {
		case "no-metadata":
			http.NotFound(w, r)
			return
		case "no-auth-servers":
			delete(md, "authorization_servers")
		case "offline-access":
			md["scopes_supported"] = slices.Concat(s.Scopes, []string{"offline_access"})
		case "resource-slash":
			md["resource"] = s.URL() + "/"
		}
		json.NewEncoder(w).Encode(md)
	})
	mux.Handle("/mcp", s.guard(mcp))
	s.RS = httptest.NewUnstartedServer(testkit.FailOnPanic(t, s.noteAgent(mux)))
	s.AS.Start()
	s.RS.Start()
	t.Cleanup(s.RS.Close)
	t.Cleanup(s.AS.Close)
	t.Cleanup(func() { close(s.ended) }) // first: a stalled answer ends, so that AS.Close need not wait for it
	return s
}

// noteAgent records each request's User-Agent.
func (s *Server) noteAgent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.agents[r.Method+" "+r.URL.Path] = r.Header.Get("User-Agent")
		s.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// Agents is the last User-Agent of each "METHOD /path" both servers got.
func (s *Server) Agents() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.agents)
}

// URL is the MCP endpoint.
func (s *Server) URL() string { return s.RS.URL + "/mcp" }

// Count reports how often an endpoint was used: "authorize", "register",
// "token:<grant_type>".
func (s *Server) Count(what string) int { s.mu.Lock(); defer s.mu.Unlock(); return s.counts[what] }

// Valid reports whether token is a live access token.
func (s *Server) Valid(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.tokens[token]
	return ok
}

// ClientIDs are the client ids of the authorization requests so far.
func (s *Server) ClientIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.clients...)
}

// Issue mints an access token and a refresh token for scope, as if a flow
// had run.
func (s *Server) Issue(scope string) (access, refresh string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	access, refresh = fmt.Sprintf("issued-access-%d", s.n), fmt.Sprintf("issued-refresh-%d", s.n)
	s.tokens[access] = scope
	s.refresh[refresh] = scope
	return access, refresh
}

// ScopeOf is the scope granted to an access token.
func (s *Server) ScopeOf(token string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens[token]
}

// Revoke makes every access token invalid (refresh tokens stay).
func (s *Server) Revoke() { s.mu.Lock(); defer s.mu.Unlock(); s.tokens = map[string]string{} }

func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prm := fmt.Sprintf(`resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, s.RS.URL)
		switch s.Broken {
		case "no-metadata":
			prm = `realm="mcp"`
		case "metadata-gone":
			prm = fmt.Sprintf(`resource_metadata="%s/.well-known/oauth-protected-resource/gone"`, s.RS.URL)
		}
		scheme := "Bearer"
		if s.DPoP {
			scheme = "DPoP"
		}
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), scheme+" ")
		verified := s.Verify != nil && tok != "" && s.Verify(tok) // asked outside the lock: it is a request
		s.mu.Lock()
		scope, ok := s.tokens[tok]
		if s.Verify != nil {
			ok = verified
		}
		if s.Broken == "any-token" && tok != "" || s.Broken == "token-optional" && tok == "" {
			ok = true
		}
		if ok && s.DPoP {
			jkt, nonce, err := s.checkProof(r, s.RS.URL+"/mcp", tok)
			switch {
			case err != nil || jkt != s.bound[tok]:
				ok = false
			case s.DPoPNonce != "" && nonce != s.DPoPNonce:
				s.counts["dpop-nonce:rs"]++
				s.mu.Unlock()
				w.Header().Set("DPoP-Nonce", s.DPoPNonce)
				w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", `+prm)
				http.Error(w, "nonce", http.StatusUnauthorized)
				return
			}
		}
		s.mu.Unlock()
		if !ok {
			if s.ChallengeScope != "" {
				prm = fmt.Sprintf(`scope="%s", %s`, s.ChallengeScope, prm)
			}
			if s.Broken != "no-challenge" {
				w.Header().Set("WWW-Authenticate", scheme+` error="invalid_token", error_description="no valid token", `+prm)
			}
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		var msg struct{ Method string }
		rawjson.DecodeLoose(body, &msg) // a body that does not decode names no method, which needs no scope: the server behind says what it is
		need := s.Need[msg.Method]
		if s.ForbidAll || (need != "" && !strings.Contains(" "+scope+" ", " "+need+" ")) {
			if s.Broken != "scope-bare" {
				prm = fmt.Sprintf(`scope="%s", %s`, need, prm)
			}
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", `+prm)
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) serveAS(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/token" {
		time.Sleep(s.Delay)
	}
	if s.misbehave(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		md := map[string]any{"issuer": s.AS.URL, "authorization_endpoint": s.AS.URL + "/authorize",
			"token_endpoint": s.AS.URL + "/token", "registration_endpoint": s.AS.URL + "/register",
			"code_challenge_methods_supported": []string{"S256"}, "scopes_supported": append([]string{"offline_access"}, s.Scopes...),
			"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic"},
			"client_id_metadata_document_supported": s.CIMD}
		if s.DPoP {
			md["dpop_signing_alg_values_supported"] = []string{"ES256"}
		}
		if s.NoDCR {
			delete(md, "registration_endpoint")
		}
		if s.Broken == "no-s256" {
			md["code_challenge_methods_supported"] = []string{"plain"}
		}
		if s.Device {
			md["device_authorization_endpoint"] = s.AS.URL + "/device"
		}
		json.NewEncoder(w).Encode(md)
	case "/register":
		s.counts["register"]++
		var reg struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&reg)
		s.noteSeen("register", url.Values{"redirect_uri": reg.RedirectURIs})
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"client_id":"dynamic-client","token_endpoint_auth_method":"none"}`)
	case "/authorize":
		s.counts["authorize"]++
		q := r.URL.Query()
		s.noteSeen("authorize", q)
		s.clients = append(s.clients, q.Get("client_id"))
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			http.Error(w, "PKCE S256 required", http.StatusBadRequest)
			return
		}
		if uris, ok := s.RedirectURIs[q.Get("client_id")]; ok && !slices.Contains(uris, q.Get("redirect_uri")) {
			http.Error(w, "redirect_uri is not registered for this client", http.StatusBadRequest)
			return
		}
		redirect := cmp.Or(s.RedirectTo, q.Get("redirect_uri"))
		if s.RefuseResource != nil && s.RefuseResource(q["resource"]) {
			http.Redirect(w, r, redirect+"?error=invalid_target&error_description=the+resource+parameter+is+not+accepted&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
			return
		}
		s.n++
		code := fmt.Sprintf("code-%d", s.n)
		s.codes[code] = grant{q.Get("scope"), q.Get("code_challenge"), q["resource"]}
		http.Redirect(w, r, redirect+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	case "/device":
		s.device(w, r)
	case "/token":
		if s.TokenRedirect != "" {
			http.Redirect(w, r, s.TokenRedirect, http.StatusTemporaryRedirect)
			return
		}
		s.token(w, r)
	default:
		http.NotFound(w, r)
	}
}

// misbehave answers r as Hostile says, if it says anything of its path.
func (s *Server) misbehave(w http.ResponseWriter, r *http.Request) bool {
	switch s.Hostile[r.URL.Path] {
	case "stall":
		select {
		case <-r.Context().Done():
		case <-s.ended:
		}
	case "flood":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"`))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for {
			select {
			case <-s.ended:
				return true
			default:
			}
			if _, err := w.Write(chunk); err != nil {
				return true // the client has gone
			}
		}
	default:
		return false
	}
	return true
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	g := r.Form.Get("grant_type")
	s.counts["token:"+g]++
	s.noteSeen("token:"+g, r.Form)
	fail := func(code, desc string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":%q,"error_description":%q}`, code, desc)
	}
	var jkt string
	if s.DPoP && r.Header.Get("DPoP") != "" {
		var nonce string
		var err error
		if jkt, nonce, err = s.checkProof(r, s.AS.URL+"/token", ""); err != nil {
			fail("invalid_dpop_proof", err.Error())
			return
		}
		if s.DPoPNonce != "" && nonce != s.DPoPNonce {
			s.counts["dpop-nonce:as"]++
			w.Header().Set("DPoP-Nonce", s.DPoPNonce)
			fail("use_dpop_nonce", "a nonce is required")
			return
		}
	}
	if s.RefuseResource != nil && s.RefuseResource(r.Form["resource"]) {
		fail("invalid_target", "the resource parameter is not accepted")
		return
	}
	var scope string
	resource := r.Form["resource"]
	switch g {
	case "authorization_code":
		gr, ok := s.codes[r.Form.Get("code")]
		delete(s.codes, r.Form.Get("code"))
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != gr.challenge {
			fail("invalid_grant", "bad code or verifier")
			return
		}
		scope = gr.scope
		if resource == nil {
			resource = gr.resource
		}
	case "refresh_token":
		sc, ok := s.refresh[r.Form.Get("refresh_token")]
		if !ok {
			fail("invalid_grant", "unknown refresh token")
			return
		}
		delete(s.refresh, r.Form.Get("refresh_token")) // rotation
		scope = sc
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if id, ok := s.Assertions[r.Form.Get("assertion")]; !ok || id != r.Form.Get("client_id") {
			fail("invalid_grant", "bad assertion")
			return
		}
		scope = r.Form.Get("scope")
	case "urn:ietf:params:oauth:grant-type:device_code":
		d := s.devices[r.Form.Get("device_code")]
		if d != nil {
			d.polled++
		}
		switch {
		case d == nil:
			fail("invalid_grant", "unknown device code")
			return
		case d.polled <= s.SlowDown:
			fail("slow_down", "poll less often")
			return
		case d.denied:
			fail("access_denied", "the user said no")
			return
		case !d.approved:
			fail("authorization_pending", "not yet")
			return
		}
		delete(s.devices, r.Form.Get("device_code"))
		scope = d.scope
	case "client_credentials":
		id, secret, _ := r.BasicAuth()
		if want, ok := s.Clients[id]; !ok || want != secret {
			fail("invalid_client", "bad client credentials")
			return
		}
		scope = r.Form.Get("scope")
	default:
		fail("unsupported_grant_type", g)
		return
	}
	s.n++
	access, refresh := fmt.Sprintf("access-%d-%x", s.n, sha256.Sum256(fmt.Append(nil, s.n))), fmt.Sprintf("refresh-%d", s.n)
	if s.Grant != nil {
		scope = s.Grant(scope)
	}
	s.tokens[access] = scope
	s.refresh[refresh] = scope
	s.targets[access] = resource
	typ := "Bearer"
	if jkt != "" {
		typ = "DPoP"
		s.bound[access] = jkt
	}
	answer := map[string]any{"access_token": access, "token_type": typ, "expires_in": s.TTL, "refresh_token": refresh, "scope": scope}
	if s.TokenAnswer != nil {
		s.TokenAnswer(answer)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(answer)
}

// BoundTo is the JWK thumbprint an access token is bound to; "" for a
// bearer token.
func (s *Server) BoundTo(token string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bound[token]
}

// checkProof verifies the DPoP proof of r (RFC 9449 §4.3) for a request to
// htu, bound to token when it is set, and returns the thumbprint of its key
// and its nonce. s.mu is held.
func (s *Server) checkProof(r *http.Request, htu, token string) (jkt, nonce string, err error) {
	proofs := r.Header.Values("DPoP")
	if len(proofs) != 1 {
		return "", "", fmt.Errorf("%d DPoP headers", len(proofs))
	}
	parts := strings.Split(proofs[0], ".")
	if len(parts) != 3 {
		return "", "", errors.New("not a JWS")
	}
	dec := base64.RawURLEncoding
	var h struct {
		Typ, Alg string
		JWK      struct{ Kty, Crv, X, Y, D string }
	}
	var c struct {
		Jti, Htm, Htu, Ath, Nonce string
		Iat                       int64
	}
	hb, _ := dec.DecodeString(parts[0])
	cb, _ := dec.DecodeString(parts[1])
	sig, _ := dec.DecodeString(parts[2])
	if json.Unmarshal(hb, &h) != nil || json.Unmarshal(cb, &c) != nil {
		return "", "", errors.New("bad header or claims")
	}
	if h.Typ != "dpop+jwt" || h.Alg != "ES256" || h.JWK.Kty != "EC" || h.JWK.Crv != "P-256" || h.JWK.D != "" {
		return "", "", fmt.Errorf("bad header %s", hb)
	}
	x, _ := dec.DecodeString(h.JWK.X)
	y, _ := dec.DecodeString(h.JWK.Y)
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil || len(sig) != 64 {
		return "", "", errors.New("bad key or signature")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "", "", errors.New("the signature does not verify")
	}
	ath := ""
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		ath = dec.EncodeToString(sum[:])
	}
	switch {
	case c.Jti == "" || s.jtis[c.Jti]:
		return "", "", errors.New("jti missing or replayed")
	case c.Htm != r.Method || c.Htu != htu:
		return "", "", fmt.Errorf("htm %s htu %s", c.Htm, c.Htu)
	case c.Iat < time.Now().Add(-time.Minute).Unix() || c.Iat > time.Now().Add(time.Minute).Unix():
		return "", "", errors.New("iat out of range")
	case c.Ath != ath:
		return "", "", errors.New("ath does not match the token")
	}
	s.jtis[c.Jti] = true
	thumb := sha256.Sum256(fmt.Appendf(nil, `{"crv":"P-256","kty":"EC","x":%q,"y":%q}`, h.JWK.X, h.JWK.Y))
	return dec.EncodeToString(thumb[:]), c.Nonce, nil
}
