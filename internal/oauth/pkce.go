package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// NewVerifier makes a PKCE code verifier (RFC 7636 §4.1): 32 bytes from
// crypto/rand in base64url without padding, 43 characters, which the RFC
// recommends and which lies within its 43–128 bounds.
func NewVerifier() (string, error) { return pkceRandom(32) }

// S256 is the code challenge of a verifier (RFC 7636 §4.2):
// BASE64URL(SHA256(ASCII(verifier))), without padding.
func S256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// NewState makes the state parameter that binds the authorization response
// to this request (RFC 6749 §10.12): 128 random bits, base64url.
func NewState() (string, error) { return pkceRandom(16) }

// pkceRandom returns n random bytes from crypto/rand in base64url without
// padding.
func pkceRandom(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("reading random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
