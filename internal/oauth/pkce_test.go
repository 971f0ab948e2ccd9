package oauth

import (
	"regexp"
	"testing"
)

// RFC 7636 Appendix B.
func TestS256Vector(t *testing.T) {
	const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	if got, want := S256(verifier), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"; got != want {
		t.Errorf("S256(%q) = %q, want %q", verifier, got, want)
	}
}

func TestRandomValues(t *testing.T) {
	urlSafe := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	for _, tc := range []struct {
		name   string
		make   func() (string, error)
		length int
	}{
		{"verifier", NewVerifier, 43}, // RFC 7636 §4.1: 32 octets, 43 characters
		{"state", NewState, 22},       // 128 bits
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[string]bool{}
			for range 100 {
				v, err := tc.make()
				if err != nil {
					t.Fatal(err)
				}
				if len(v) != tc.length || !urlSafe.MatchString(v) {
					t.Fatalf("%q: want %d base64url characters", v, tc.length)
				}
				if seen[v] {
					t.Fatalf("%q came twice", v)
				}
				seen[v] = true
			}
		})
	}
}
