package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// jwtBearerAssertionType is client_assertion_type for a JWT (RFC 7523 §2.2).
const jwtBearerAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// assertionLifetime is how long a client assertion is valid: short, as
// RFC 7523 §3 asks of exp, and used once.
const assertionLifetime = 5 * time.Minute

// ParseECKey reads a P-256 private key for private_key_jwt from PEM: a
// PKCS#8 "PRIVATE KEY" or a SEC1 "EC PRIVATE KEY" block. Other blocks, such
// as the "EC PARAMETERS" openssl writes first, are skipped. Errors never
// quote the key.
func ParseECKey(pemData []byte) (*ecdsa.PrivateKey, error) {
	rest := pemData
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, errors.New(`no "PRIVATE KEY" or "EC PRIVATE KEY" PEM block found`)
		}
		var key any
		var err error
		switch block.Type {
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(block.Bytes)
		case "ENCRYPTED PRIVATE KEY":
			return nil, errors.New("the private key is encrypted; give it without a passphrase")
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the %s PEM block: %w", block.Type, err)
		}
		ec, ok := key.(*ecdsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("the private key is a %T, not an EC key; ES256 needs a P-256 key", key)
		}
		if ec.Curve != elliptic.P256() {
			return nil, fmt.Errorf("the EC key is on %s, not P-256; ES256 needs a P-256 key", ec.Curve.Params().Name)
		}
		return ec, nil
	}
}

// assertionClaims are the claims of a client assertion (RFC 7523 §3).
type assertionClaims struct {
	Iss string `json:"iss"`
	Sub string `json:"sub"`
	Aud string `json:"aud"`
	Iat int64  `json:"iat"`
	Exp int64  `json:"exp"`
	Jti string `json:"jti"`
}

// signClientAssertion makes the JWT with which clientID authenticates by
// private_key_jwt (RFC 7523 §2.2, §3): iss and sub are the client ID, aud
// identifies the authorization server, exp is near, jti is fresh. It is a
// JWS in compact serialisation signed with ES256 (RFC 7515, RFC 7518 §3.4).
func signClientAssertion(key *ecdsa.PrivateKey, clientID, audience string, now time.Time) (string, error) {
	if key == nil {
		return "", errors.New("private_key_jwt needs a private key")
	}
	if key.Curve != elliptic.P256() {
		return "", errors.New("ES256 needs a P-256 key")
	}
	jti, err := pkceRandom(16)
	if err != nil {
		return "", err
	}
	return signES256(key, `{"alg":"ES256","typ":"JWT"}`, assertionClaims{
		Iss: clientID, Sub: clientID, Aud: audience,
		Iat: now.Unix(), Exp: now.Add(assertionLifetime).Unix(), Jti: jti,
	})
}

// signES256 makes a JWS in compact serialisation of header and claims
// (a struct of strings and numbers, which JSON encodes without fail),
// signed with key (RFC 7515, RFC 7518 §3.4).
func signES256(key *ecdsa.PrivateKey, header string, claims any) (string, error) {
	payload, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding
	signingInput := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString(payload)
	digest := sha256.Sum256([]byte(signingInput))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return "", fmt.Errorf("signing a JWT: %w", err)
	}
	// RFC 7518 §3.4: the signature is R and S as 32-byte big-endian
	// integers, concatenated; not ASN.1.
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signingInput + "." + enc.EncodeToString(sig), nil
}
