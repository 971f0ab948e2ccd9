package check

import (
	"strings"
	"testing"
)

// edgeCase is a correct server at the edge of a MUST check's scope: what
// the requirement's sentence does not cover, which the check must not
// fail.
type edgeCase struct {
	name   string
	fake   fake
	change map[string]string
	id     string
	want   Status
}

var edgeCases = []edgeCase{
	// The rule is about methods a server does not implement: one of the
	// 2026-07-28 era that still serves ping (and the era's other former
	// methods) breaks nothing.
	{name: "a modern server answering ping", fake: httpModern, change: faults("removed-methods-served"), id: "modern.removed-methods", want: Passed},
	// MCP's authorization is OAuth: a server whose 401 asks for a token of
	// its own offers none, and its checks do not apply (RFC 9110's
	// challenge still does).
	{name: "a bearer token of the server's own", fake: fake{transport: "http", auth: "no-metadata"}, id: "auth.resource-metadata", want: Skipped},
	{name: "a bearer token of the server's own: the location", fake: fake{transport: "http", auth: "no-metadata"}, id: "auth.metadata-location", want: Skipped},
	{name: "a bearer token of the server's own: the authorization server", fake: fake{transport: "http", auth: "no-metadata"}, id: "auth.server-metadata", want: Skipped},
	{name: "a bearer token of the server's own: a token never issued", fake: fake{transport: "http", auth: "no-metadata"}, id: "auth.invalid-token", want: Skipped},
	// server/discover answers with the versions a client is to learn:
	// answering it whatever version it is stamped with is not sure to
	// break the rule, which the lists keep.
	{name: "server/discover answered whatever its version", fake: stdioModern, change: faults("discover-any-version"), id: "modern.unsupported-version", want: Passed},
	// A card that lists the versions the server speaks agrees with it,
	// whichever the run negotiated.
	{name: "a card listing an older version the server speaks", fake: fake{transport: "http", change: map[string]string{"card": cardWithRemote(`["2025-06-18"]`)}}, id: "card.agrees", want: Passed},
	{name: "a bearer token of the server's own: its challenge", fake: fake{transport: "http", auth: "no-metadata"}, id: "auth.challenge", want: Passed},
}

// A correct server at the edge of a MUST's scope is not failed by it.
func TestEdgesOfMusts(t *testing.T) {
	for _, tc := range edgeCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.fake
			f.change = merge(f.change, tc.change)
			r := runChecks(t, f, tc.id)[tc.id]
			if r.Status != tc.want {
				t.Errorf("want %s: %s", tc.want, describeResult(r))
			}
		})
	}
}

// cardWithRemote is goodCard with a remote at the endpoint listing the
// versions given (a JSON array).
func cardWithRemote(versions string) string {
	return strings.Replace(goodCard, `"description"`, `"remotes":[{"type":"streamable-http","url":"{{endpoint}}","supportedProtocolVersions":`+versions+`}],"description"`, 1)
}
