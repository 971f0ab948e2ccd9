// The token store as mcpv auth sees it: the records
// kept for a server, found by its canonical URL, and each described
// without a token or a secret, with whether it can still be used and
// whether a command with the same settings would use it.

package commands

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/redact"
)

// storedAuth finds what store holds for the server at url: its canonical URL
// and its records. It needs no client credentials: a server whose key
// file is gone can still be looked at or logged out of.
func storedAuth(ctx context.Context, url string, store *oauth.Store) (server string, recs []*oauth.Record, err error) {
	if server, err = oauth.CanonicalResource(url); err != nil {
		return "", nil, errkind.Usage(err)
	}
	recs, err = store.Find(ctx, server)
	return server, recs, err
}

// authView is what auth login and status show of a record: never a token or
// a secret, and URLs with their credentials masked.
type authView struct {
	Issuer   string `json:"issuer"`
	Resource string `json:"resource"`
	// ResourceParameter says where Resource came from: discovered, given
	// (--resource) or omitted (--resource none; Resource is "").
	ResourceParameter string   `json:"resource_parameter"`
	ClientID          string   `json:"client_id"`
	Grant             string   `json:"grant"`
	Scopes            []string `json:"scopes"`
	AskedScopes       []string `json:"asked_scopes,omitempty"`
	// Matches: a command with the settings of this one (--resource,
	// --scope) would use the record.
	Matches       bool   `json:"matches"`
	ExpiresAt     string `json:"expires_at,omitempty"`
	Expired       bool   `json:"expired"`
	Refreshable   bool   `json:"refreshable"`
	Usable        bool   `json:"usable"`
	Updated       string `json:"updated"`
	TokenEndpoint string `json:"token_endpoint,omitempty"`
	// Store is where the tokens and the client secret are: keychain (the
	// system's) or file; StoreError why those in the keychain could not be
	// read (then the record is not usable).
	Store      string `json:"store"`
	StoreError string `json:"store_error,omitempty"`
}

// describeAuth shows a record as of now, to a command that wants what want
// says.
func describeAuth(r *oauth.Record, want oauth.Wanted) authView {
	grant := cmp.Or(r.Grant, oauth.GrantAuthorizationCode)
	v := authView{
		Issuer:            r.Issuer,
		Resource:          redact.URL(r.Resource),
		ResourceParameter: cmp.Or(r.ResourceParam, "discovered"),
		ClientID:          r.Client.ID,
		Grant:             grant,
		Scopes:            strings.Fields(r.Token.Scope),
		AskedScopes:       strings.Fields(r.AskedScope),
		Matches:           want.Fits(r),
		Expired:           r.Token.Expired(time.Now(), 0),
		Refreshable:       r.Token.RefreshToken != "" || grant == oauth.GrantClientCredentials,
		Updated:           r.Updated.UTC().Format(time.RFC3339),
	}
	if v.Scopes == nil {
		v.Scopes = []string{}
	}
	if !r.Token.ExpiresAt.IsZero() {
		v.ExpiresAt = r.Token.ExpiresAt.UTC().Format(time.RFC3339)
	}
	if r.Metadata != nil {
		v.TokenEndpoint = redact.URL(r.Metadata.TokenEndpoint)
	}
	v.Store = cmp.Or(r.Secrets, "file")
	if r.Unread != nil {
		v.StoreError = r.Unread.Error()
	}
	v.Usable = (!v.Expired || v.Refreshable) && r.Unread == nil
	return v
}
