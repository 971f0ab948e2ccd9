//go:build unix

package e2e

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/oauth"
	"github.com/mcpv/mcpv/oauth/oauthtest"
)

// TestTwoProcessesShareOneRefresh starts two mcpv processes at once with an
// expired stored token and a slow token endpoint: one refreshes, the other
// waits for the lock and takes the refreshed token. Without the lock both
// would spend the same (rotating) refresh token, and one would fail.
func TestTwoProcessesShareOneRefresh(t *testing.T) {
	t.Parallel()
	demo := demoserver.New()
	srv := oauthtest.New(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	srv.Delay = 500 * time.Millisecond
	state := t.TempDir()
	_, refresh := srv.Issue("mcp")
	store := storeToken(t, srv, state, oauth.Token{AccessToken: "long-expired", RefreshToken: refresh, ExpiresAt: time.Now().Add(-time.Hour), Scope: "mcp"})
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i := range outs {
		wg.Go(func() {
			cmd := exec.Command(mcpvBin, "-u", srv.URL(), "call", "echo", "message=hi", "-q", ".structuredContent.message")
			cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		})
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil || strings.TrimSpace(outs[i]) != `"hi"` {
			t.Errorf("process %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	if n := srv.Count("token:refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	recs, err := store.Find(srv.URL())
	if err != nil || len(recs) != 1 || recs[0].Token.RefreshToken == refresh || !srv.Valid(recs[0].Token.AccessToken) {
		t.Errorf("the store does not hold the refreshed, rotated token: %v", err)
	}
}

// storeToken stores token for srv in the state directory state, as a
// login would have, and returns the store.
func storeToken(t *testing.T, srv *oauthtest.Server, state string, token oauth.Token) *oauth.Store {
	t.Helper()
	store := &oauth.Store{Dir: state + "/mcpv/oauth"}
	err := store.Save(&oauth.Record{
		Server: srv.URL(), Issuer: srv.AS.URL, Resource: srv.URL(),
		Metadata: &oauth.ServerMetadata{Issuer: srv.AS.URL, TokenEndpoint: srv.AS.URL + "/token", CodeChallengeMethodsSupported: []string{"S256"}},
		Client:   oauth.Client{ID: "dynamic-client", AuthMethod: oauth.AuthNone},
		Token:    token,
		Updated:  time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return store
}
