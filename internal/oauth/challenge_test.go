package oauth

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

type challengeParams = map[string]string

func TestParseChallenges(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   []Challenge
	}{
		{
			name: "conformance 401",
			values: []string{`Bearer error="invalid_token", error_description="Missing Authorization header", ` +
				`resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp"`},
			want: []Challenge{{Scheme: "Bearer", Params: challengeParams{
				"error":             "invalid_token",
				"error_description": "Missing Authorization header",
				"resource_metadata": "http://localhost:1/.well-known/oauth-protected-resource/mcp",
			}}},
		},
		{
			name:   "two challenges in one value",
			values: []string{`Basic realm="x", Bearer scope="a b", error="insufficient_scope"`},
			want: []Challenge{
				{Scheme: "Basic", Params: challengeParams{"realm": "x"}},
				{Scheme: "Bearer", Params: challengeParams{"scope": "a b", "error": "insufficient_scope"}},
			},
		},
		{
			name:   "several header lines",
			values: []string{`Basic realm="x"`, `Bearer realm="y"`, `DPoP algs="ES256"`},
			want: []Challenge{
				{Scheme: "Basic", Params: challengeParams{"realm": "x"}},
				{Scheme: "Bearer", Params: challengeParams{"realm": "y"}},
				{Scheme: "DPoP", Params: challengeParams{"algs": "ES256"}},
			},
		},
		{
			name:   "escaped quotes and backslashes",
			values: []string{`Bearer realm="say \"hi\"", error_description="a\\b, c", x="\q"`},
			want:   []Challenge{{Scheme: "Bearer", Params: challengeParams{"realm": `say "hi"`, "error_description": `a\b, c`, "x": "q"}}},
		},
		{
			name:   "token68",
			values: []string{`Negotiate abc==, Basic YWxh/+Zg`},
			want: []Challenge{
				{Scheme: "Negotiate", Params: challengeParams{"": "abc=="}},
				{Scheme: "Basic", Params: challengeParams{"": "YWxh/+Zg"}},
			},
		},
		{
			name:   "bare schemes",
			values: []string{`Negotiate, NTLM`, `Bearer`},
			want:   []Challenge{{Scheme: "Negotiate"}, {Scheme: "NTLM"}, {Scheme: "Bearer"}},
		},
		{
			name:   "whitespace around equals, tokens, case of names",
			values: []string{"Bearer  Realm = \"r\" ,\tERROR=invalid_token , , Scope =\"a\""},
			want:   []Challenge{{Scheme: "Bearer", Params: challengeParams{"realm": "r", "error": "invalid_token", "scope": "a"}}},
		},
		{
			name:   "empty list elements and a comma after the scheme",
			values: []string{`, ,Bearer , realm="r",, Basic`},
			want:   []Challenge{{Scheme: "Bearer", Params: challengeParams{"realm": "r"}}, {Scheme: "Basic"}},
		},
		{
			name:   "duplicate parameter keeps the first",
			values: []string{`Bearer scope="a", scope="b"`},
			want:   []Challenge{{Scheme: "Bearer", Params: challengeParams{"scope": "a"}}},
		},
		{
			name:   "empty values",
			values: []string{"", "   ", ",,,"},
			want:   nil,
		},
		{
			name:   "unterminated quoted string drops the parameter",
			values: []string{`Bearer realm="r", error="invalid`},
			want:   []Challenge{{Scheme: "Bearer", Params: challengeParams{"realm": "r"}}},
		},
		{
			name:   "parameter without a scheme is skipped",
			values: []string{`realm="r", Bearer error="e"`},
			want:   []Challenge{{Scheme: "Bearer", Params: challengeParams{"error": "e"}}},
		},
		{
			name:   "junk between parameters is skipped up to the next comma",
			values: []string{`Bearer a=b c=d, e=@, f=, "q,x", g="h", @@ ,Basic`},
			want:   []Challenge{{Scheme: "Bearer", Params: challengeParams{"a": "b", "g": "h"}}, {Scheme: "Basic"}},
		},
		{
			name:   "garbage",
			values: []string{`"`, `=`, `\`, `"unterminated, Bearer x="y"`, "@@@ ###", "Bearer\x00x=y", "@@@ ###, Basic"},
			want:   []Challenge{{Scheme: "Basic"}},
		},
		{
			name:   "scheme glued to junk",
			values: []string{`Bearer="x", Basic realm="r"`},
			want:   []Challenge{{Scheme: "Basic", Params: challengeParams{"realm": "r"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseChallenges(tt.values)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ParseChallenges(%q) mismatch (-want +got):\n%s", tt.values, diff)
			}
		})
	}
}

// TestBearerChallenge: the first Bearer challenge (RFC 6750 §3) of the
// WWW-Authenticate fields, its scheme compared case-insensitively.
func TestBearerChallenge(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   Challenge
		ok     bool
	}{
		{"none", nil, Challenge{}, false},
		{"only basic", []string{`Basic realm="x"`}, Challenge{}, false},
		{"second line", []string{`Basic realm="x"`, `bearer scope="s"`}, Challenge{Scheme: "bearer", Params: challengeParams{"scope": "s"}}, true},
		{"first of two", []string{`Bearer scope="a", BEARER scope="b"`}, Challenge{Scheme: "Bearer", Params: challengeParams{"scope": "a"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tt.values {
				h.Add("WWW-Authenticate", v)
			}
			got, ok := FirstChallenge(h, "Bearer")
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// renderChallenges writes challenges back in a canonical form: every value
// quoted, parameters sorted.
func renderChallenges(cs []Challenge) string {
	var parts []string
	for _, c := range cs {
		if t68, ok := c.Params[""]; ok {
			parts = append(parts, c.Scheme+" "+t68)
			continue
		}
		var ps []string
		for k, v := range c.Params {
			v = strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`)
			ps = append(ps, k+`="`+v+`"`)
		}
		sort.Strings(ps)
		parts = append(parts, strings.TrimSpace(c.Scheme+" "+strings.Join(ps, ", ")))
	}
	return strings.Join(parts, ", ")
}

// FuzzParseChallenges checks that parsing never panics, yields well-formed
// challenges, and that their canonical rendering parses back to the same.
func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{
		`Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="http://localhost:1/x"`,
		`Basic realm="x", Bearer scope="a b", error="insufficient_scope"`,
		`Negotiate abc==, Basic`,
		`Bearer realm="say \"hi\""`,
		`Bearer a=b c=d, e=@, "q,x"`,
		`"\`,
		``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ParseChallenges([]string{s})
		for _, c := range got {
			if c.Scheme == "" || strings.IndexFunc(c.Scheme, func(r rune) bool { return r > 0x7f || !isChallengeChar(byte(r), tchars) }) >= 0 {
				t.Fatalf("scheme %q is not a token", c.Scheme)
			}
			for k := range c.Params {
				if k != strings.ToLower(k) {
					t.Fatalf("parameter name %q is not lowercase", k)
				}
			}
		}
		again := ParseChallenges([]string{renderChallenges(got)})
		if diff := cmp.Diff(got, again, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("rendering %q does not parse back (-first +second):\n%s", renderChallenges(got), diff)
		}
	})
}
