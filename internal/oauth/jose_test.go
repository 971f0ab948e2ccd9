package oauth

// mcpv signs its JWTs by hand (signES256); here a JOSE library that shares
// none of that code reads them, as an authorization server would.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// joseParse verifies token as ES256 with the key keyOf gives, and the
// claims' times as of now.
func joseParse(token string, now time.Time, keyOf func(*jwt.Token) (any, error), opts ...jwt.ParserOption) (*jwt.Token, jwt.MapClaims, error) {
	claims := jwt.MapClaims{}
	opts = append(opts, jwt.WithValidMethods([]string{"ES256"}), jwt.WithTimeFunc(func() time.Time { return now }), jwt.WithIssuedAt())
	tok, err := jwt.ParseWithClaims(token, claims, keyOf, opts...)
	return tok, claims, err
}

func TestClientAssertionVerifiesWithJOSE(t *testing.T) {
	t.Parallel()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	byKey := func(*jwt.Token) (any, error) { return &key.PublicKey, nil }
	for range 20 { // R and S sometimes have leading zero bytes
		assertion, err := signClientAssertion(key, "my-client", "https://as.example/tenant1", now)
		if err != nil {
			t.Fatal(err)
		}
		tok, claims, err := joseParse(assertion, now, byKey, jwt.WithIssuer("my-client"), jwt.WithSubject("my-client"),
			jwt.WithAudience("https://as.example/tenant1"), jwt.WithExpirationRequired())
		if err != nil {
			t.Fatalf("the assertion does not verify: %v", err)
		}
		if tok.Header["typ"] != "JWT" {
			t.Errorf("typ %v", tok.Header["typ"])
		}
		if jti, _ := claims["jti"].(string); len(jti) < 22 {
			t.Errorf("jti %q", jti)
		}
		exp, _ := claims.GetExpirationTime()
		if life := exp.Sub(now); life <= 0 || life > 5*time.Minute+time.Second {
			t.Errorf("the assertion lives %v", life)
		}
	}
	assertion, _ := signClientAssertion(key, "my-client", "https://as.example/tenant1", now)
	// Past its exp, or signed by another key, it is refused.
	if _, _, err := joseParse(assertion, now.Add(time.Hour), byKey); !errors.Is(err, jwt.ErrTokenExpired) {
		t.Errorf("an hour later: %v, want expired", err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if _, _, err := joseParse(assertion, now, func(*jwt.Token) (any, error) { return &other.PublicKey, nil }); !errors.Is(err, jwt.ErrTokenSignatureInvalid) {
		t.Errorf("another key: %v, want an invalid signature", err)
	}
}

// jwkKey is the public key a DPoP proof's jwk header carries (RFC 9449
// §4.2), and its RFC 7638 thumbprint.
func jwkKey(tok *jwt.Token) (*ecdsa.PublicKey, string, error) {
	m, ok := tok.Header["jwk"].(map[string]any)
	if !ok {
		return nil, "", errors.New("no jwk header")
	}
	if _, private := m["d"]; private || m["kty"] != "EC" || m["crv"] != "P-256" {
		return nil, "", fmt.Errorf("jwk %v", m)
	}
	point := []byte{4} // uncompressed: 0x04 || X || Y
	for _, name := range []string{"x", "y"} {
		s, _ := m[name].(string)
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || len(b) != 32 {
			return nil, "", fmt.Errorf("jwk %s %q", name, s)
		}
		point = append(point, b...)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
	if err != nil {
		return nil, "", err
	}
	canon, _ := json.Marshal(map[string]any{"crv": m["crv"], "kty": m["kty"], "x": m["x"], "y": m["y"]}) // sorted keys: RFC 7638 §3.2
	sum := sha256.Sum256(canon)
	return pub, base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

func TestDPoPProofVerifiesWithJOSE(t *testing.T) {
	t.Parallel()
	k, err := NewDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://mcp.example.com/mcp?session=1")
	var thumb string
	fromHeader := func(tok *jwt.Token) (any, error) {
		if tok.Header["typ"] != "dpop+jwt" {
			return nil, fmt.Errorf("typ %v", tok.Header["typ"])
		}
		pub, tp, err := jwkKey(tok)
		thumb = tp
		return pub, err
	}
	for range 20 {
		proof, err := k.Proof("GET", u, "the-token")
		if err != nil {
			t.Fatal(err)
		}
		_, claims, err := joseParse(proof, time.Now(), fromHeader)
		if err != nil {
			t.Fatalf("the proof does not verify: %v", err)
		}
		if !k.key.PublicKey.Equal(mustKey(t, proof)) {
			t.Error("the jwk header is not the key's public key")
		}
		if thumb != k.Thumbprint() {
			t.Errorf("thumbprint %s, the jwk's is %s", k.Thumbprint(), thumb)
		}
		ath := sha256.Sum256([]byte("the-token"))
		if claims["htm"] != "GET" || claims["htu"] != "https://mcp.example.com/mcp" || claims["ath"] != base64.RawURLEncoding.EncodeToString(ath[:]) {
			t.Errorf("claims %v", claims)
		}
		if jti, _ := claims["jti"].(string); jti == "" {
			t.Error("no jti")
		}
		if _, ok := claims["iat"].(float64); !ok {
			t.Errorf("iat %v", claims["iat"])
		}
	}
	// A proof whose claims were changed after signing is refused.
	proof, _ := k.Proof("GET", u, "")
	parts := strings.Split(proof, ".")
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(`{"htm":"POST","htu":"https://mcp.example.com/mcp","iat":1,"jti":"x"}`))
	if _, _, err := joseParse(strings.Join(parts, "."), time.Now(), fromHeader); !errors.Is(err, jwt.ErrTokenSignatureInvalid) {
		t.Errorf("a changed proof: %v, want an invalid signature", err)
	}
}

// mustKey is the public key proof's jwk header carries.
func mustKey(t *testing.T, proof string) *ecdsa.PublicKey {
	t.Helper()
	tok, _, err := jwt.NewParser().ParseUnverified(proof, jwt.MapClaims{})
	if err != nil {
		t.Fatal(err)
	}
	pub, _, err := jwkKey(tok)
	if err != nil {
		t.Fatal(err)
	}
	return pub
}
