package commands

import (
	"context"
	"errors"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/toolcall"
)

type authCmd struct {
	Login  authLoginCmd  `cmd:"" help:"Authorize mcpv at the server now (a browser flow, or client credentials)."`
	Status authStatusCmd `cmd:"" help:"Show what is stored for the server (never the tokens); exit 5 when nothing usable is."`
	Logout authLogoutCmd `cmd:"" help:"Forget the server's stored tokens and client; with --resource or --scope, only the records a command with them would use."`
	Token  authTokenCmd  `cmd:"" help:"Print a valid access token for the server, refreshing it if needed."`
	Wait   authWaitCmd   `cmd:"" help:"Wait for a login handed off (no terminal, or --no-wait) to complete; exit 5 when it fails or its time passes."`
}

func (c *authCmd) Help() string {
	return `mcpv authorizes itself at HTTP servers that answer 401, following MCP's authorization spec (OAuth 2.1 with PKCE, protected-resource and authorization-server discovery, client ID metadata documents or dynamic registration). Tokens are kept per authorization server and resource in oauth/ under the state directory (on Linux $XDG_STATE_HOME/mcpv, default ~/.local/state/mcpv; on macOS ~/Library/Application Support/mcpv; on Windows %LOCALAPPDATA%\mcpv; 'mcpv help config-files' shows it on this system), readable by you alone (or in the system's keychain), and refreshed before they expire.

Without a terminal, or with --no-wait, a command that needs a login exits 5 at once with a sign-in link that a process of mcpv's waits on; 'mcpv auth wait' returns once the login is complete. In CI use --grant client-credentials.

For an authorization server that needs them: --resource (or none), --scope, --redirect-host, --redirect-port and --redirect-path (a pre-registered redirect URI) and --login-timeout; a token is used only with the --resource and no more --scope than it was got with.

Examples:

    $ mcpv auth login -u https://mcp.example.com/mcp
    $ mcpv auth status -u https://mcp.example.com/mcp -q .logged_in
    $ curl -H "Authorization: Bearer $(mcpv auth token -u $URL)" $API
    $ mcpv --grant client-credentials --client-id ci --client-secret @s \
        list-tools -u $URL
    $ mcpv auth login -u $URL --resource none --client-id ID --redirect-port 80`
}

// authSub is what every auth subcommand is: it needs the server's
// settings but opens no session, and a batch line cannot run it.
type authSub struct{}

func (authSub) notInBatch() {}

type authLoginCmd struct {
	authSub
	Device bool `name:"device" help:"Log in with a code entered on another device (RFC 8628): for a machine with no browser."`
}

func (c *authLoginCmd) Run(ctx context.Context, s *session, out *console) error {
	if c.Device {
		s.settings.Auth.Grant = oauth.GrantDevice
	}
	m, err := connect.AuthManager(s.settings, oauth.ModeAuto, s.env, s.hooks)
	if err != nil {
		return err
	}
	rec, err := m.Login(ctx)
	if err != nil {
		return err
	}
	kept := map[bool]string{true: "the system's keychain", false: "a file readable by you alone"}[rec.Secrets == oauth.SecretsKeychain]
	out.notef("authorized at %s; tokens kept in %s", safetext.Line(rec.Issuer), kept)
	return out.print(mustJSON(describeAuth(rec, s.settings.Auth.Want())))
}

type authStatusCmd struct{ authSub }

// errNotLoggedIn is the exit 5 of auth status; the status was printed.
var errNotLoggedIn = &oauth.Error{Step: oauth.StepToken, Description: "no usable token is stored"}

func (c *authStatusCmd) Run(ctx context.Context, s *session, out *console) error {
	server, _, recs, err := s.storedTokens(ctx)
	if err != nil {
		return err
	}
	views := []authView{}
	usable := false
	for _, r := range recs {
		v := describeAuth(r, s.settings.Auth.Want())
		usable = usable || v.Usable && v.Matches
		views = append(views, v)
	}
	if err := out.print(mustJSON(map[string]any{"server": redact.URL(server), "logged_in": usable, "records": views})); err != nil || usable {
		return err
	}
	return silentAuthError{errNotLoggedIn}
}

// storedTokens is what the token store holds for the session's server
// (an HTTP one): its canonical URL, the store and the records.
func (s *session) storedTokens(ctx context.Context) (string, *oauth.Store, []*oauth.Record, error) {
	if err := s.settings.RequireHTTP(); err != nil {
		return "", nil, nil, err
	}
	store := s.env.OAuthStore()
	server, recs, err := storedAuth(ctx, s.settings.URL, store)
	return server, store, recs, err
}

type authLogoutCmd struct{ authSub }

// Run forgets every record of the server; given a resource setting or
// scopes (on the command line or in the config entry), only the records a
// command with them would use (auth status's "matches"), saying how many
// it kept.
func (c *authLogoutCmd) Run(ctx context.Context, s *session, out *console) error {
	server, store, recs, err := s.storedTokens(ctx)
	if err != nil {
		return err
	}
	want := s.settings.Auth.Want()
	narrowed := want.Narrows()
	removed := 0
	for _, r := range recs {
		if narrowed && !want.Fits(r) {
			continue
		}
		if err := store.Delete(ctx, r); err != nil {
			left, ok := errors.AsType[*oauth.ItemLeft](err)
			if !ok {
				return err
			}
			out.warnf("%s", safetext.Line(left.Error())) // the record is gone, its secrets not
		}
		removed++
	}
	said := map[string]any{"server": redact.URL(server), "removed": removed}
	if narrowed {
		said["kept"] = len(recs) - removed
	}
	return out.print(mustJSON(said))
}

type authTokenCmd struct{ authSub }

func (c *authTokenCmd) Run(ctx context.Context, s *session, out *console) error {
	m, err := connect.AuthManager(s.settings, oauth.ModeStored, s.env, s.hooks)
	if err != nil {
		return err
	}
	rec, err := m.Current(ctx)
	if err != nil && s.settings.AuthMode(s.hooks) == oauth.ModeAuto {
		rec, err = m.Login(ctx)
	}
	if err != nil {
		return err
	}
	return out.write(rec.Token.AccessToken + "\n")
}

// silentAuthError exits 5 without a message: the output said it.
type silentAuthError struct{ error }

func (e silentAuthError) Unwrap() error { return e.error }

type authWaitCmd struct{ authSub }

// pendingGrace is how long after a hand-off's end auth wait still waits
// for its process to say how it ended.
const pendingGrace = 30 * time.Second

// Run waits for the login handed off for the server: until its process
// says it is done (the token saved) or failed, or its time passes.
func (c *authWaitCmd) Run(ctx context.Context, s *session, out *console) error {
	server, store, _, err := s.storedTokens(ctx)
	if err != nil {
		return err
	}
	// --timeout bounds the wait, as it bounds a request.
	ctx, cancel := toolcall.Checker{Timeout: s.settings.Timeout}.Bounded(ctx, "auth wait")
	defer cancel()
	for {
		p, err := store.LoadPending(server)
		if err != nil {
			return err
		}
		switch {
		case p == nil:
			return &oauth.Error{Step: oauth.StepAuthorization, Need: oauth.NeedLogin, Description: "no login is waited for at " + redact.URL(server)}
		case p.Done:
			_, _, recs, err := s.storedTokens(ctx)
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				return errNotLoggedIn
			}
			return out.print(mustJSON(describeAuth(recs[0], s.settings.Auth.Want())))
		case p.Error != "":
			return &oauth.Error{Step: oauth.StepAuthorization, Description: p.Error}
		case time.Now().After(p.Expires.Add(pendingGrace)):
			return &oauth.Error{Step: oauth.StepAuthorization, Description: "the login was not completed by " + p.Expires.UTC().Format("15:04:05 UTC")}
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
