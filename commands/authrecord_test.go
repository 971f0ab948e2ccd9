package commands

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/oauth"
)

func TestDescribeAuth(t *testing.T) {
	t.Parallel()
	updated := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	r := &oauth.Record{Issuer: "https://as.example", Resource: "https://u:pw@mcp.example/mcp",
		Client:   oauth.Client{ID: "cid", Secret: "shh"},
		Token:    oauth.Token{AccessToken: "at-secret", RefreshToken: "rt-secret", Scope: "read write", ExpiresAt: time.Now().Add(-time.Hour)},
		Metadata: &oauth.ServerMetadata{TokenEndpoint: "https://as.example/token?key=k"},
		Updated:  updated}
	v := describeAuth(r, oauth.Wanted{})
	if v.Grant != oauth.GrantAuthorizationCode || !v.Expired || !v.Refreshable || !v.Usable || strings.Join(v.Scopes, " ") != "read write" || v.Updated != "2026-01-02T02:04:05Z" {
		t.Errorf("Describe = %+v", v)
	}
	b, _ := json.Marshal(v)
	for _, secret := range []string{"at-secret", "rt-secret", "shh", "pw@"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("%s shows %s", b, secret)
		}
	}

	// Expired with nothing to refresh with: not usable; no scope is [].
	v = describeAuth(&oauth.Record{Token: oauth.Token{ExpiresAt: time.Now().Add(-time.Minute)}}, oauth.Wanted{})
	if v.Usable || v.Refreshable || v.Scopes == nil || len(v.Scopes) != 0 {
		t.Errorf("an expired token alone: %+v", v)
	}
	// A machine grant gets a new token whenever it needs one.
	if v = describeAuth(&oauth.Record{Grant: oauth.GrantClientCredentials, Token: oauth.Token{ExpiresAt: time.Now().Add(-time.Minute)}}, oauth.Wanted{}); !v.Usable || v.Grant != oauth.GrantClientCredentials {
		t.Errorf("client credentials: %+v", v)
	}
	if v = describeAuth(&oauth.Record{}, oauth.Wanted{}); v.Expired || !v.Usable || v.ExpiresAt != "" {
		t.Errorf("a token that does not expire: %+v", v)
	}
	// What it was asked for, and whether a command with these settings
	// would use it.
	given := &oauth.Record{Resource: "https://tenant1.example/", ResourceParam: oauth.ResourceGiven, AskedScope: "read write", Token: oauth.Token{Scope: "read"}}
	for _, tc := range []struct {
		want    oauth.Wanted
		matches bool
	}{
		{oauth.Wanted{Resource: "https://tenant1.example/"}, true},
		{oauth.Wanted{Resource: "https://tenant1.example/", Scopes: []string{"write"}}, true},
		{oauth.Wanted{Resource: "https://tenant1.example/", Scopes: []string{"admin"}}, false},
		{oauth.Wanted{Resource: "https://tenant2.example/"}, false},
		{oauth.Wanted{}, false},
		{oauth.Wanted{OmitResource: true}, false},
	} {
		v = describeAuth(given, tc.want)
		if v.Matches != tc.matches || v.ResourceParameter != "given" || strings.Join(v.AskedScopes, " ") != "read write" {
			t.Errorf("for %+v: %+v", tc.want, v)
		}
	}
	if v = describeAuth(&oauth.Record{ResourceParam: oauth.ResourceOmitted}, oauth.Wanted{OmitResource: true}); !v.Matches || v.ResourceParameter != "omitted" || v.Resource != "" {
		t.Errorf("omitted: %+v", v)
	}
	if v = describeAuth(&oauth.Record{Resource: "https://mcp.example/mcp"}, oauth.Wanted{}); !v.Matches || v.ResourceParameter != "discovered" {
		t.Errorf("discovered: %+v", v)
	}
}

func TestStoredAuth(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	store := &oauth.Store{Dir: filepath.Join(state, "mcpv", "oauth"), Root: state}
	var ue *errkind.UsageError
	if _, _, err := storedAuth(t.Context(), "stdio", store); !errors.As(err, &ue) {
		t.Errorf("not a URL: %v, want a usage error", err)
	}
	server, recs, err := storedAuth(t.Context(), "https://MCP.example/mcp", store)
	if err != nil || server != "https://mcp.example/mcp" || len(recs) != 0 {
		t.Fatalf("nothing stored: %s, %v, %v", server, recs, err)
	}
	if err := store.Save(&oauth.Record{Server: server, Issuer: "https://as.example", Resource: server, Token: oauth.Token{AccessToken: "t"}}); err != nil {
		t.Fatal(err)
	}
	if _, recs, err = storedAuth(t.Context(), "https://mcp.example/mcp", store); err != nil || len(recs) != 1 || recs[0].Issuer != "https://as.example" {
		t.Errorf("one stored: %v, %v", recs, err)
	}
}
