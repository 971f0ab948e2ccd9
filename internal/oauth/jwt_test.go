package oauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func pemBlock(typ string, der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

func TestParseECKey(t *testing.T) {
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return der
	}
	sec1 := func(k *ecdsa.PrivateKey) []byte {
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return der
	}
	for _, tc := range []struct {
		name, pem, wantErr string
	}{
		{name: "PKCS#8", pem: pemBlock("PRIVATE KEY", pkcs8(p256))},
		{name: "SEC1", pem: pemBlock("EC PRIVATE KEY", sec1(p256))},
		{name: "openssl ecparam output", pem: pemBlock("EC PARAMETERS", []byte{6, 8, 42, 134, 72, 206, 61, 3, 1, 7}) + pemBlock("EC PRIVATE KEY", sec1(p256))},
		{name: "P-384", pem: pemBlock("PRIVATE KEY", pkcs8(p384)), wantErr: "the EC key is on P-384, not P-256"},
		{name: "Ed25519", pem: pemBlock("PRIVATE KEY", pkcs8(edKey)), wantErr: "not an EC key"},
		{name: "public key only", pem: pemBlock("PUBLIC KEY", []byte{1}), wantErr: `no "PRIVATE KEY" or "EC PRIVATE KEY" PEM block`},
		{name: "not PEM", pem: "hello", wantErr: "no \"PRIVATE KEY\""},
		{name: "bad DER", pem: pemBlock("EC PRIVATE KEY", []byte{1, 2, 3}), wantErr: "reading the EC PRIVATE KEY PEM block"},
		{name: "encrypted", pem: pemBlock("ENCRYPTED PRIVATE KEY", []byte{1}), wantErr: "encrypted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, err := ParseECKey([]byte(tc.pem))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !key.Equal(p256) {
				t.Error("a different key came back")
			}
		})
	}
}

// verifyES256 checks a compact JWS signed with ES256 by key and returns its
// header and claims.
func verifyES256(t *testing.T, jwt string, key *ecdsa.PublicKey) (header map[string]any, claims assertionClaims) {
	t.Helper()
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("%d parts in the JWT, want 3", len(parts))
	}
	dec := func(s string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("not base64url without padding: %v", err)
		}
		return b
	}
	sig := dec(parts[2])
	if len(sig) != 64 {
		t.Fatalf("signature of %d bytes, want 64 (R||S)", len(sig))
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(key, digest[:], r, s) {
		t.Fatal("the ES256 signature does not verify")
	}
	if err := json.Unmarshal(dec(parts[0]), &header); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(dec(parts[1]), &claims); err != nil {
		t.Fatal(err)
	}
	return header, claims
}

func TestSignClientAssertion(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	seen := map[string]bool{}
	for range 20 { // R and S sometimes have leading zero bytes; padding must hold
		jwt, err := signClientAssertion(key, "my-client", "https://as.example/tenant1", now)
		if err != nil {
			t.Fatal(err)
		}
		header, claims := verifyES256(t, jwt, &key.PublicKey)
		if diff := cmp.Diff(map[string]any{"alg": "ES256", "typ": "JWT"}, header); diff != "" {
			t.Errorf("header (-want +got):\n%s", diff)
		}
		if seen[claims.Jti] || len(claims.Jti) < 22 {
			t.Errorf("jti %q is not fresh", claims.Jti)
		}
		seen[claims.Jti] = true
		claims.Jti = ""
		want := assertionClaims{Iss: "my-client", Sub: "my-client", Aud: "https://as.example/tenant1", Iat: 1_700_000_000, Exp: 1_700_000_300}
		if diff := cmp.Diff(want, claims); diff != "" {
			t.Errorf("claims (-want +got):\n%s", diff)
		}
	}

	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []*ecdsa.PrivateKey{nil, p384} {
		if _, err := signClientAssertion(k, "c", "a", now); err == nil {
			t.Errorf("key %v: no error", k)
		}
	}
}
