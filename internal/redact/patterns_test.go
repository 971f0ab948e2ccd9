package redact

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/canon"
)

func TestFindSecrets(t *testing.T) {
	tests := []struct {
		text, kind, secret string
	}{
		{"use ghp_" + strings.Repeat("aB3", 12) + " to call", "a GitHub token", "ghp_" + strings.Repeat("aB3", 12)},
		{"token github_pat_11ABCDEFG0123456789_abcdefghijKLMNOP", "a GitHub token", "github_pat_11ABCDEFG0123456789_abcdefghijKLMNOP"},
		{"key: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv", "an Anthropic key", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv"},
		{"OPENAI=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl", "an OpenAI key", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl"},
		{"slack xoxb-1234567890-abcdefghij", "a Slack token", "xoxb-1234567890-abcdefghij"},
		{"AKIAIOSFODNN7EXAMPL3 is the id", "an AWS access key", "AKIAIOSFODNN7EXAMPL3"},
		{"https://bob:hunter2pass@db.example.org/x", "a password in a URL", "hunter2pass"},
		{"https://api.acme.io/v1?api_key=a8f3k2m9q1z7&x=1", "a secret in a URL", "a8f3k2m9q1z7"},
		{"Authorization: Bearer abcdef0123456789ABCDEF.xyz", "a bearer token", "abcdef0123456789ABCDEF.xyz"},
		{"api_key = 'f9a8b7c6d5e4f3a2b1c0'", "a secret assigned", "f9a8b7c6d5e4f3a2b1c0"},
		{"set aws_secret_access_key=wJalrXUtnFEMIK7MDENGbPxRfiCYq2Lz9 first", "a secret assigned", "wJalrXUtnFEMIK7MDENGbPxRfiCYq2Lz9"},
		{"AWS_SECRET_ACCESS_KEY: wJalrXUtnFEMIK7MDENGbPxRfiCYq2Lz9", "a secret assigned", "wJalrXUtnFEMIK7MDENGbPxRfiCYq2Lz9"},
		{"log in with password=hunter2hunter", "a secret assigned", "hunter2hunter"},
		{"password: s3cr3tPass", "a secret assigned", "s3cr3tPass"},
		{`$env:DB_PASSWORD="Zq8rT2vX9mK4"`, "a secret assigned", "Zq8rT2vX9mK4"},
		{"//registry.example.org/:_authToken=Zq8rT2vX9mK4wP", "a secret assigned", "Zq8rT2vX9mK4wP"},
		{"send token=abc123def456 along", "a secret assigned", "abc123def456"},
		{`{"api_key": "k7Hq2Zp9Lm4Xw8Rt"}`, "a secret assigned", "k7Hq2Zp9Lm4Xw8Rt"},
		{`{\"token\": \"k7Hq2Zp9Lm4Xw8Rt\"}`, "a secret assigned", "k7Hq2Zp9Lm4Xw8Rt"},
		{"https://s3.example.org/b?aws_secret_access_key=wJalrXUtnFEMIK7MDENG&x=1", "a secret assigned", "wJalrXUtnFEMIK7MDENG"},
		{"db_password='Tr0ub4dor&3'", "a secret assigned", "Tr0ub4dor"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7v3Zk9Q2mX5pL8nR4tY1wB6cD0eF\nq9rS2tU3vW4xY5zA6bC7dE8fG9hI0jK1lM2nO3pQ==\n-----END RSA PRIVATE KEY-----", "a private key", "MIIEowIBAAKCAQEA7v3Zk9Q2mX5pL8nR4tY1wB6cD0eF\nq9rS2tU3vW4xY5zA6bC7dE8fG9hI0jK1lM2nO3pQ==\n"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "a JSON Web Token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
	}
	for _, tt := range tests {
		found := FindSecrets(tt.text)
		if len(found) != 1 {
			t.Errorf("FindSecrets(%q) found %d, want 1: %+v", tt.text, len(found), found)
			continue
		}
		f := found[0]
		if f.Kind != tt.kind || !strings.HasSuffix(tt.text[f.Start:f.End], tt.secret) {
			t.Errorf("FindSecrets(%q) = %s %q, want %s %q", tt.text, f.Kind, tt.text[f.Start:f.End], tt.kind, tt.secret)
			continue
		}
		kept := f.Keep - (f.End - len(tt.secret) - f.Start) // of the secret itself
		if masked := MaskFound(tt.text, found); strings.Contains(masked, tt.secret[kept:]) || !strings.Contains(masked, Mask) {
			t.Errorf("MaskFound(%q) = %q: the secret shows", tt.text, masked)
		}
	}
}

func TestFindSecretsLeavesOrdinaryTextAlone(t *testing.T) {
	for _, text := range []string{
		"The GitHub token to use is read from GITHUB_TOKEN.",
		"Pass your API key as api_key=<your key>.",
		"api_key: ${API_KEY}",
		"grant types: `urn:auth0:params:oauth:grant-type:token-exchange:federated-connection-access-token`",
		"password: xxxxxxxxxxxxxxxxxxxx",
		"Connect with postgres://user@localhost/db, no password.",
		"Searches the web. Returns a list of URLs such as https://example.com/search?q=mcp&page=2.",
		"Creates a task (task ids look like task-0123456789abcdef).",
		"sk-learn is a library; risk-free",
		"A bearer token, sent as Authorization: Bearer <token>.",
		"max_tokens: 4096 limits the answer; maxTokens=100000000",
		"token_type: Bearer2024, tokenType: access_token",
		"password: required",
		"secret_name: prod-db-password-2024",
		"token: the token to use, as the login tool returned it",
		"api_key: string (required)",
		"password_hint=Favourite2Pet",
		"Set token=YOUR_TOKEN_HERE and secret=<secret>.",
		"The access token expires after 3600 seconds: token_expires=3600s",
	} {
		if found := FindSecrets(text); len(found) > 0 {
			t.Errorf("FindSecrets(%q) = %+v, want nothing", text, found)
		}
	}
}

// Of a secret two shapes find, the one that knows it best is kept with
// the prefix that tells its kind; what names a secret that lies in the
// one before is not masked twice.
func TestFindSecretsOverlapping(t *testing.T) {
	token := "ghp_" + strings.Repeat("Qw3", 12)
	if got := MaskSecrets("Token: " + token); got != "Token: ghp_***" {
		t.Errorf("a GitHub token given to Token: = %q", got)
	}
	text := "password=s3cr3t_api_key=Zx9Qw2Er7Ty5 next"
	if got := MaskSecrets(text); strings.Contains(got, "Zx9Qw2Er7Ty5") || strings.Contains(got, "s3cr3t") {
		t.Errorf("MaskSecrets(%q) = %q", text, got)
	}
}

func FuzzMaskSecrets(f *testing.F) {
	for _, s := range []string{"Token: ghp_" + strings.Repeat("Qw3", 12), "password=s3cr3t_api_key=Zx9Qw2Er7Ty5", `{"api_key": "k7Hq2Zp9Lm4Xw8Rt"}`, "https://u:p4ssw0rd@h/?token=abcdef123456"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		found := FindSecrets(text)
		last := 0
		for _, s := range found {
			if s.Start < last || s.Start+s.Keep > s.End || s.End > len(text) {
				t.Fatalf("FindSecrets(%q): %+v overlaps or runs past the text", text, found)
			}
			last = s.End
		}
		MaskFound(text, found)
	})
}

// assignedPattern is what assigned finds, as a pattern: slower, as its
// first class of characters starts at every word.
var assignedPattern = regexp.MustCompile(`(?i:\b([a-z0-9_.-]*(?:` + secretKeyWords + `)[a-z0-9_.-]*)\\?["']?\s*[:=]\s*\\?["']?)([^\s"'<>&,;()\[\]{}\\]{8,})`)

// FuzzAssigned holds assigned to the pattern it stands for: each secret
// the pattern finds, assigned finds.
func FuzzAssigned(f *testing.F) {
	for _, s := range []string{"aws_secret_access_key=wJalrXUtnFEMIK7MDENG", `{\"token\": \"k7Hq2Zp9Lm4Xw8Rt\"}`, "x-api-key: Ab12Cd34Ef", ".token=Ab12Cd34Ef56", "é_password=Ab12Cd34Ef56", "max_tokens: 4096"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var got [][]int
		for _, m := range findAssigned(text, canon.LowerASCII(text)) {
			got = append(got, m[4:6])
		}
		for _, m := range assignedPattern.FindAllStringSubmatchIndex(text, -1) {
			if strings.ContainsFunc(text[m[2]:m[3]], func(r rune) bool { return r >= 0x80 }) {
				continue // a letter that folds to an ASCII one (the Kelvin sign): the pattern's, not a name's
			}
			if m[2] > 0 && text[m[2]-1] == ':' && m[3] < len(text) && text[m[3]] == ':' {
				continue // a part between a URN's colons, which assigned leaves (":token:00000000")
			}
			if !slices.ContainsFunc(got, func(g []int) bool { return g[0] == m[4] && g[1] == m[5] }) {
				t.Fatalf("%q: the pattern finds %q, assigned does not (%v)", text, text[m[4]:m[5]], got)
			}
		}
	})
}
