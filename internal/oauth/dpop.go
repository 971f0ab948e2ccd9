package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DPoP (RFC 9449) binds an access token to a key the client holds: every
// token request and every request to the resource carries a proof, a JWT
// signed with that key naming the request's method and URL (and, toward
// the resource, the token's hash). A stolen token is then useless without
// the key. mcpv uses ES256 on P-256.

// DPoP modes: when the Manager asks for DPoP-bound tokens.
const (
	DPoPAuto   = "auto"   // when the resource asks: a DPoP challenge, or dpop_bound_access_tokens_required
	DPoPAlways = "always" // whenever the authorization server supports ES256 proofs
	DPoPNever  = "never"
)

// DPoPKey is the key a DPoP-bound token is bound to, with the nonces
// servers handed out (RFC 9449 §8, §9), one per origin.
type DPoPKey struct {
	key *ecdsa.PrivateKey
	jwk []byte // the public key as a JWK, members in RFC 7638 order

	mu     sync.Mutex        // guards nonces
	nonces map[string]string // origin -> the latest DPoP-Nonce
}

// NewDPoPKey makes a fresh key.
func NewDPoPKey() (*DPoPKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return dpopKey(key)
}

// ParseDPoPKey reads a key written by String.
func ParseDPoPKey(s string) (*DPoPKey, error) {
	der, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("the stored DPoP key is not base64url")
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, errors.New("the stored DPoP key is not a PKCS#8 key")
	}
	key, ok := k.(*ecdsa.PrivateKey)
	if !ok || key.Curve != elliptic.P256() {
		return nil, errors.New("the stored DPoP key is not a P-256 key")
	}
	return dpopKey(key)
}

func dpopKey(key *ecdsa.PrivateKey) (*DPoPKey, error) {
	pub, err := key.PublicKey.ECDH()
	if err != nil {
		return nil, err
	}
	point := pub.Bytes() // 0x04 || X || Y
	enc := base64.RawURLEncoding
	// RFC 7638 §3.2: the required members, lexicographically ordered.
	jwk := `{"crv":"P-256","kty":"EC","x":"` + enc.EncodeToString(point[1:33]) + `","y":"` + enc.EncodeToString(point[33:]) + `"}`
	return &DPoPKey{key: key, jwk: []byte(jwk), nonces: map[string]string{}}, nil
}

// String is the private key, PKCS#8 in base64url, for the token store.
func (k *DPoPKey) String() string {
	der, err := x509.MarshalPKCS8PrivateKey(k.key)
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(der)
}

// Thumbprint is the key's JWK SHA-256 thumbprint (RFC 7638), the jkt a
// bound token's cnf claim carries.
func (k *DPoPKey) Thumbprint() string {
	return S256(string(k.jwk)) // base64url of the SHA-256, as PKCE's challenge
}

type dpopClaims struct {
	Jti   string `json:"jti"`
	Htm   string `json:"htm"`
	Htu   string `json:"htu"`
	Iat   int64  `json:"iat"`
	Ath   string `json:"ath,omitempty"`
	Nonce string `json:"nonce,omitempty"`
}

// Proof makes a fresh proof for a request (RFC 9449 §4.2): htu is the URL
// without query and fragment; ath, when accessToken is set, is its SHA-256;
// nonce is the latest the URL's origin handed out, if any.
func (k *DPoPKey) Proof(method string, u *url.URL, accessToken string) (string, error) {
	jti, err := pkceRandom(16)
	if err != nil {
		return "", err
	}
	c := dpopClaims{Jti: jti, Htm: method, Htu: htu(u), Iat: time.Now().Unix(), Nonce: k.nonce(u)}
	if accessToken != "" {
		c.Ath = S256(accessToken) // base64url of the SHA-256, as PKCE's challenge
	}
	return signES256(k.key, `{"typ":"dpop+jwt","alg":"ES256","jwk":`+string(k.jwk)+`}`, c)
}

func htu(u *url.URL) string {
	v := *u
	v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment, v.User = "", false, "", "", nil
	return v.String()
}

func origin(u *url.URL) string { return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) }

func (k *DPoPKey) nonce(u *url.URL) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.nonces[origin(u)]
}

// Observe keeps the DPoP-Nonce a response carries (RFC 9449 §8.2: a server
// may hand out the next nonce with any answer). It reports whether the
// nonce is new: a request refused for want of one is worth sending again.
func (k *DPoPKey) Observe(u *url.URL, h http.Header) bool {
	n := h.Get("DPoP-Nonce")
	if n == "" || !validNonce(n) {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	o := origin(u)
	if k.nonces[o] == n {
		return false
	}
	k.nonces[o] = n
	return true
}

// keepNonces takes over the nonces another key learnt: a nonce is the
// server's, not the key's, and a new key need not be refused once more.
func (k *DPoPKey) keepNonces(from *DPoPKey) {
	if from == nil || from == k {
		return
	}
	from.mu.Lock()
	defer from.mu.Unlock()
	k.mu.Lock()
	defer k.mu.Unlock()
	for o, n := range from.nonces {
		if _, ok := k.nonces[o]; !ok {
			k.nonces[o] = n
		}
	}
}

// validNonce: RFC 9449 §8.1, nonce = 1*NQCHAR (visible ASCII but " and \).
func validNonce(n string) bool {
	return plainASCII(n) && !strings.ContainsAny(n, `"\`) && len(n) <= 1024
}
