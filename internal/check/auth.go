package check

// Authorization, where the server asks for it (a request without
// credentials answered 401): the challenge, the scope it names and where
// it points, the protected resource metadata (without offline_access, its
// resource without a trailing slash the server's URL has not), the
// authorization server's metadata, and a token the server never issued
// refused. Nothing here logs in: the documents are public, fetched
// without credentials.

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/rawjson"
)

func authChecks() []*Check {
	return []*Check{
		authCheck("auth.challenge", func(t *T) {
			x := t.r.facts.auth
			t.Sent(x.sent + " without credentials")
			t.Got("WWW-Authenticate: " + clip(x.header.Get("WWW-Authenticate"), 200))
			t.failIf(len(oauth.ParseChallenges(x.header.Values("WWW-Authenticate"))) == 0, "the 401 has no WWW-Authenticate challenge")
			if _, ok := oauth.AuthChallenge(x.header); !ok {
				t.Fail("the 401's challenges have no Bearer (or DPoP) one")
			}
		}),
		authCheck("auth.resource-metadata", func(t *T) {
			md := resourceMetadata(t, "auth.resource-metadata")
			t.Got(md.URL + ": authorization_servers " + clip(string(rawjson.Marshal(md.AuthorizationServers)), 200))
		}),
		authCheck("auth.metadata-location", func(t *T) {
			if ch, _ := oauth.AuthChallenge(t.r.facts.auth.header); ch.Params["resource_metadata"] != "" {
				t.Note("WWW-Authenticate names resource_metadata %s", clip(ch.Params["resource_metadata"], 200))
			}
			resourceMetadata(t, "auth.metadata-location")
		}),
		authCheck("auth.server-metadata", func(t *T) {
			md := resourceMetadata(t, "auth.server-metadata")
			issuer := md.AuthorizationServers[0]
			t.Sent("the metadata of authorization server " + issuer)
			as, err := oauth.DiscoverServer(t.ctx, t.r.target.Plain, issuer)
			t.must("authorization server metadata", err)
			t.failGotIf(!slices.Contains(as.CodeChallengeMethodsSupported, "S256"), "code_challenge_methods_supported "+string(rawjson.Marshal(as.CodeChallengeMethodsSupported)), "the metadata does not list S256 in code_challenge_methods_supported, without which clients MUST refuse to proceed")
		}),
		authCheck("auth.resource-slash", func(t *T) {
			md := resourceMetadata(t, "auth.resource-slash")
			t.Got(md.URL + ": resource " + clip(md.Resource, 200))
			// A slash the path answered at ends with (given, or redirected
			// to) is the server's own; an origin's "/" is not: RFC 3986
			// makes it the empty path. A resource that ends with a slash
			// and names more than the server (a prefix of its path) may
			// mean it: judged is the server named with a slash added.
			u, err := url.Parse(md.Resource)
			if err != nil || !strings.HasSuffix(u.EscapedPath(), "/") || strings.HasSuffix(t.r.facts.auth.path, "/") {
				return
			}
			if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != strings.TrimSuffix(t.r.facts.auth.path, "/") {
				t.Note("the resource ends with a slash and names a path (%s) other than the one that answered (%s): a slash may mean a prefix there, not judged", clip(u.EscapedPath(), 80), clip(t.r.facts.auth.path, 80))
				return
			}
			t.Fail("the resource ends with a slash the server's URL has not: the spec asks for the form without it, which a client names the server by")
		}),
		exercised("auth.insufficient-scope", needs{transport: "http", auth: true}, spotSaid(func(_ *watchCtx, s seen) bool { return s.scoped != "" }, func(s seen) string { return s.scoped })),
		authCheck("auth.challenge-scope", func(t *T) {
			ch, ok := oauth.AuthChallenge(t.r.facts.auth.header)
			t.skipIf(!t.r.oauthOffered(t.ctx).offered, noOAuth)
			t.blockIf(!ok, "auth.challenge", "the 401 has no Bearer (or DPoP) challenge")
			t.Got("WWW-Authenticate: " + clip(t.r.facts.auth.header.Get("WWW-Authenticate"), 200))
			t.failIf(ch.Params["scope"] == "", "the 401's challenge names no scope: a client learns there which scopes to ask for")
		}),
		authCheck("auth.offline-access", func(t *T) {
			t.skipIf(t.r.facts.era != "modern", "2025-11-25 says nothing of offline_access; 2026-07-28 asks a resource not to ask for it")
			ch, _ := oauth.AuthChallenge(t.r.facts.auth.header)
			md := resourceMetadata(t, "auth.offline-access")
			t.Got("the challenge's scope " + clip(ch.Params["scope"], 100) + "; scopes_supported " + clip(string(rawjson.Marshal(md.ScopesSupported)), 200))
			t.failIf(slices.Contains(strings.Fields(ch.Params["scope"]), "offline_access") || slices.Contains(md.ScopesSupported, "offline_access"), "the resource asks for offline_access, a scope of refresh tokens, which no resource needs: the client asks for it where the authorization server offers it")
		}),
		authCheck("auth.invalid-token", func(t *T) {
			t.skipIf(!t.r.oauthOffered(t.ctx).offered, noOAuth)
			wantStatus(t, firstRequest(t, httpReq{plain: true, header: http.Header{"Authorization": {"Bearer mcpv-check-not-a-token"}}}, " with Authorization: Bearer mcpv-check-not-a-token"), http.StatusUnauthorized)
		}),
	}
}

// authCheck is a check of a server over HTTP that asks for authorization.
func authCheck(id string, run func(*T)) *Check {
	return needs{transport: "http", auth: true}.check(id, run)
}

// oauthOffer is what the server's 401 offers of OAuth, found once a run:
// the protected resource metadata it names (resource_metadata) or that is
// at a well-known URI. A 401 that offers neither asks for a token of the
// server's own, which MCP's authorization does not cover.
type oauthOffer struct {
	once       sync.Once
	offered    bool
	fromHeader bool // the 401's challenge names resource_metadata
	md         *oauth.ResourceMetadata
	err        error
}

// oauthOffered finds what the server's 401 offers of OAuth, once.
func (r *runner) oauthOffered(ctx context.Context) *oauthOffer {
	o := &r.oauth
	o.once.Do(func() {
		var chp *oauth.Challenge
		if ch, ok := oauth.AuthChallenge(r.facts.auth.header); ok {
			chp = &ch
			o.fromHeader = ch.Params["resource_metadata"] != ""
		}
		dctx, cancel := context.WithTimeout(ctx, r.opts.CheckTimeout)
		defer cancel()
		o.md, o.err = oauth.DiscoverResource(dctx, r.target.Plain, r.target.URL, chp)
		o.offered = o.fromHeader || o.md != nil || o.err != nil
	})
	return o
}

// noOAuth is why the checks of MCP's authorization do not apply to a
// server whose 401 offers no OAuth.
const noOAuth = "the server's 401 offers no OAuth (its challenge names no resource_metadata, and no protected resource metadata is at the well-known URIs): it asks for a token of its own, which MCP's authorization does not cover"

// resourceMetadata finds the protected resource metadata as a client
// must (the 401's resource_metadata, else the well-known URIs). t, one of
// the checks by, fails on the defect it names, and is blocked by the one
// that names another: where the document is not found is
// auth.metadata-location's, a document without an authorization server
// or for another resource auth.resource-metadata's.
func resourceMetadata(t *T, by string) *oauth.ResourceMetadata {
	o := t.r.oauthOffered(t.ctx)
	t.skipIf(!o.offered, noOAuth)
	t.Sent("the protected resource metadata of " + t.r.target.URL)
	var oe *oauth.Error
	owner := "auth.metadata-location"
	if o.err != nil && errors.As(o.err, &oe) && (strings.Contains(oe.Error(), "lists no authorization_servers") || strings.Contains(oe.Error(), "refusing to authorize")) {
		owner = "auth.resource-metadata"
	}
	switch {
	case o.err == nil:
	case !errors.As(o.err, &oe):
		t.failErr("protected resource metadata", o.err)
	case by == owner:
		t.Fail("%v", oe)
	case by != "auth.metadata-location":
		t.Block(owner, "%v", oe)
	}
	return o.md // nil only for auth.metadata-location, whose defect this is not
}
