package oauth

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

func TestDPoPProof(t *testing.T) {
	t.Parallel()
	k, err := NewDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseDPoPKey(k.String())
	if err != nil || again.Thumbprint() != k.Thumbprint() {
		t.Fatalf("the stored key reads back as another: %v", err)
	}
	u, _ := url.Parse("https://MCP.example.com:8443/mcp?session=1#frag")
	if k.Observe(u, http.Header{"Dpop-Nonce": {`bad"nonce`}}) {
		t.Error("a nonce with a quote was kept")
	}
	if !k.Observe(u, http.Header{"Dpop-Nonce": {"n-1"}}) || k.Observe(u, http.Header{"Dpop-Nonce": {"n-1"}}) {
		t.Error("Observe does not report a new nonce once")
	}
	decode := func(proof string) (header, claims map[string]any) {
		parts := strings.Split(proof, ".")
		if len(parts) != 3 {
			t.Fatalf("proof %q is not a JWS", proof)
		}
		hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
		cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
		json.Unmarshal(hb, &header)
		json.Unmarshal(cb, &claims)
		return header, claims
	}
	p1, err := k.Proof("POST", u, "tok")
	if err != nil {
		t.Fatal(err)
	}
	h, c := decode(p1)
	jwk, _ := h["jwk"].(map[string]any)
	if h["typ"] != "dpop+jwt" || h["alg"] != "ES256" || jwk["kty"] != "EC" || jwk["crv"] != "P-256" || jwk["d"] != nil {
		t.Errorf("header %v", h)
	}
	// ath is base64url(SHA-256("tok")), computed once by hand.
	if c["htm"] != "POST" || c["htu"] != "https://MCP.example.com:8443/mcp" || c["ath"] != "GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI" || c["nonce"] != "n-1" {
		t.Errorf("claims %v", c)
	}
	if iat, _ := c["iat"].(float64); time.Since(time.Unix(int64(iat), 0)).Abs() > time.Minute {
		t.Errorf("iat %v", c["iat"])
	}
	p2, _ := k.Proof("POST", u, "")
	_, c2 := decode(p2)
	if c2["jti"] == c["jti"] || c2["ath"] != nil {
		t.Errorf("a second proof: jti %v (first %v), ath %v", c2["jti"], c["jti"], c2["ath"])
	}
	other, _ := url.Parse("https://as.example.com/token")
	p3, _ := k.Proof("POST", other, "")
	if _, c3 := decode(p3); c3["nonce"] != nil {
		t.Errorf("another origin's proof carries nonce %v", c3["nonce"])
	}
}

// dpopWorld is a resource that takes only DPoP-bound tokens, behind an
// authorization server and resource that both demand a nonce.
func dpopWorld(t *testing.T) *world {
	w := newWorld(t)
	w.DPoP, w.DPoPNonce = true, "nonce-1"
	return w
}

func TestDPoPClientCredentials(t *testing.T) {
	t.Parallel()
	w := dpopWorld(t)
	dir := t.TempDir()
	manager := func() *Manager {
		m, err := NewManager(Options{ServerURL: w.rs.URL + "/mcp", HTTP: testkit.HTTP(t), Store: &Store{Dir: dir},
			Mode: ModeAuto, Grant: GrantClientCredentials, ClientID: "bot", ClientSecret: "bot-secret", Open: noBrowser(t)}, testkit.Pool(t))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := manager()
	if status, body, err := call(t, m, w, "tools/list"); err != nil || status != 200 {
		t.Fatalf("%d %s %v", status, body, err)
	}
	if w.count("dpop-nonce:as") != 1 || w.count("dpop-nonce:rs") != 1 || w.count("token:client_credentials") != 2 {
		t.Errorf("nonce challenges: %d at the token endpoint, %d at the resource; %d token requests",
			w.count("dpop-nonce:as"), w.count("dpop-nonce:rs"), w.count("token:client_credentials"))
	}
	rec := m.rec
	if rec.Token.TokenType != "DPoP" || rec.DPoPKey == "" || m.dpop == nil || w.BoundTo(rec.Token.AccessToken) != m.dpop.Thumbprint() {
		t.Fatalf("record: type %q, key stored %v, bound to the key: %v", rec.Token.TokenType, rec.DPoPKey != "", m.dpop != nil && w.BoundTo(rec.Token.AccessToken) == m.dpop.Thumbprint())
	}
	thumb := m.dpop.Thumbprint()

	// Another run uses the stored token with the stored key.
	m2 := manager()
	if status, _, err := call(t, m2, w, "tools/list"); err != nil || status != 200 || w.count("token:client_credentials") != 2 {
		t.Fatalf("second run: %d %v, %d token requests", status, err, w.count("token:client_credentials"))
	}
	// A token renewed is bound to the same key.
	m2.rec.Token.ExpiresAt = time.Now().Add(-time.Hour)
	if status, _, err := call(t, m2, w, "tools/list"); err != nil || status != 200 {
		t.Fatalf("after expiry: %d %v", status, err)
	}
	// (The new run's first token request learns the nonce again.)
	if w.count("token:client_credentials") != 4 || w.count("dpop-nonce:as") != 2 || w.BoundTo(m2.rec.Token.AccessToken) != thumb {
		t.Errorf("renewal: %d token requests; bound to the first key: %v", w.count("token:client_credentials"), w.BoundTo(m2.rec.Token.AccessToken) == thumb)
	}
}

func TestDPoPAuthorizationCodeAndRefresh(t *testing.T) {
	t.Parallel()
	w := dpopWorld(t)
	m := w.manager(t, t.TempDir(), ModeAuto, browser(t))
	if status, body, err := call(t, m, w, "tools/list"); err != nil || status != 200 || body != `{"scope":"read offline_access"}` {
		t.Fatalf("%d %s %v", status, body, err)
	}
	thumb := m.dpop.Thumbprint()
	w.Revoke() // the next request is refused: the refresh token is used, with a proof of the same key
	if status, _, err := call(t, m, w, "tools/list"); err != nil || status != 200 {
		t.Fatalf("after revocation: %d %v", status, err)
	}
	if w.count("token:refresh_token") != 1 || w.count("authorize") != 1 || w.BoundTo(m.rec.Token.AccessToken) != thumb {
		t.Errorf("%d refreshes, %d authorizations; bound to the first key: %v", w.count("token:refresh_token"), w.count("authorize"), w.BoundTo(m.rec.Token.AccessToken) == thumb)
	}
}

func TestDPoPModes(t *testing.T) {
	t.Parallel()
	// auto against a bearer resource: bearer tokens, no key kept.
	w := newWorld(t)
	m := w.manager(t, t.TempDir(), ModeAuto, browser(t))
	if status, _, err := call(t, m, w, "tools/list"); err != nil || status != 200 {
		t.Fatalf("auto, bearer resource: %d %v", status, err)
	}
	if m.dpop != nil || m.rec.DPoPKey != "" || m.rec.Token.TokenType != "Bearer" {
		t.Errorf("auto, bearer resource: token type %q, key kept: %v", m.rec.Token.TokenType, m.dpop != nil || m.rec.DPoPKey != "")
	}
	// always: DPoP even where nothing asks (the server binds the token).
	w = newWorld(t)
	w.DPoP = true
	m, _ = NewManager(Options{ServerURL: w.rs.URL + "/mcp", HTTP: testkit.HTTP(t), Store: &Store{Dir: t.TempDir()}, Mode: ModeAuto,
		Open: browser(t), DPoP: DPoPAlways}, testkit.Pool(t))
	if status, _, err := call(t, m, w, "tools/list"); err != nil || status != 200 || m.rec == nil || m.rec.Token.TokenType != "DPoP" {
		t.Errorf("always: %d %v", status, err)
	}
	// never: a resource that takes only DPoP tokens keeps refusing.
	w = dpopWorld(t)
	m, _ = NewManager(Options{ServerURL: w.rs.URL + "/mcp", HTTP: testkit.HTTP(t), Store: &Store{Dir: t.TempDir()}, Mode: ModeAuto,
		Open: browser(t), DPoP: DPoPNever}, testkit.Pool(t))
	status, _, err := call(t, m, w, "tools/list")
	if err != nil || status != 401 || w.count("dpop-nonce:as") != 0 || m.rec == nil || m.rec.Token.TokenType != "Bearer" {
		t.Errorf("never: %d %v, %d nonce challenges", status, err, w.count("dpop-nonce:as"))
	}
}
