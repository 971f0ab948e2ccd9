package connect

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/oauth"
)

// AuthMode is the OAuth mode of the run: the one asked for, else auto when
// there is a user at a terminal to run a browser flow, else stored.
func (s *Settings) AuthMode(h Hooks) string {
	if s.Auth.Mode != "" {
		return s.Auth.Mode
	}
	if h.Interactive && !s.Auth.NoWait {
		return oauth.ModeAuto
	}
	return oauth.ModeStored
}

// RequireHTTP refuses a stdio target for what only HTTP servers have.
func (s *Settings) RequireHTTP() error {
	if s.URL == "" {
		return errkind.Usagef("auth is for HTTP servers: give --url URL or --server NAME of an HTTP server")
	}
	return nil
}

// AuthManager is the OAuth layer for the target, which must be an HTTP
// server, in mode.
func AuthManager(s *Settings, mode string, env Env, h Hooks) (*oauth.Manager, error) {
	if err := s.RequireHTTP(); err != nil {
		return nil, err
	}
	plain, err := httpClient(s.CACert, userAgent(s, h))
	if err != nil {
		return nil, err
	}
	return oauthManager(s, plain, mode, env, h)
}

// HTTPClients are the HTTP clients of the target: one with the user's
// credentials, as a session's (the OAuth layer, unless its mode is none
// or the user sends an Authorization header), and one without any, for a
// caller that asks the server what it answers to no credentials.
func HTTPClients(s *Settings, env Env, h Hooks) (authorized, plain *http.Client, err error) {
	h = h.withDefaults()
	if plain, err = httpClient(s.CACert, userAgent(s, h)); err != nil {
		return nil, nil, err
	}
	if authorized, err = authorizedClient(s, env, h); err != nil {
		return nil, nil, err
	}
	return authorized, plain, nil
}

// authorizedClient is the HTTP client for the server: with the OAuth layer
// unless its mode is none or the user sends an Authorization header.
func authorizedClient(s *Settings, env Env, h Hooks) (*http.Client, error) {
	plain, err := httpClient(s.CACert, userAgent(s, h))
	if err != nil {
		return nil, err
	}
	mode := s.AuthMode(h)
	if mode == "none" || s.Header.Get("Authorization") != "" {
		return plain, nil
	}
	m, err := oauthManager(s, plain, mode, env, h)
	if errors.Is(err, oauth.ErrBadServerURL) {
		return plain, nil // the transport says what is wrong with the URL
	}
	if err != nil {
		return nil, err
	}
	authorized := *plain
	authorized.Transport = m
	return &authorized, nil
}

// oauthManager builds the authorization layer for the target's URL.
func oauthManager(s *Settings, plain *http.Client, mode string, env Env, h Hooks) (*oauth.Manager, error) {
	a := s.Auth
	bounded := *plain
	bounded.Timeout = s.Timeout // each request to the authorization server, as each to the server
	opts := oauth.Options{
		ServerURL:         s.URL,
		HTTP:              &bounded,
		Mode:              mode,
		Grant:             a.Grant,
		ClientID:          a.ClientID,
		ClientSecret:      a.ClientSecret,
		ClientMetadataURL: a.ClientMetadataURL,
		Open:              h.OpenURL,
		Log:               h.Log,
		Secret:            h.Secret,
		Store:             env.OAuthStore(),
		DPoP:              a.DPoP,
		Want:              a.Want(),
		Redirect:          a.Redirect,
		LoginTimeout:      a.LoginTimeout,
		Waiting:           h.waiting,
		ShowDevice:        h.ShowDevice,
		NoBrowser:         h.NoBrowser,
	}
	if a.Mode == "" && mode == oauth.ModeStored {
		opts.HandOff = h.HandOff // the default of a run that does not wait: hand the login off
	}
	if a.ClientKey != "" {
		path := env.Path(a.ClientKey)
		data, err := env.readFile(path)
		if err != nil {
			return nil, errkind.Usagef("--client-key: %v", err)
		}
		if opts.ClientKey, err = oauth.ParseECKey(data); err != nil {
			return nil, errkind.Usagef("--client-key %s: %v", path, err)
		}
	}
	if opts.Grant == oauth.GrantJWTBearer {
		if opts.ClientID == "" || a.Assertion == "" {
			return nil, errkind.Usagef("--grant jwt-bearer needs --client-id and --assertion")
		}
		opts.Assertion = a.Assertion
	} else if opts.Grant != oauth.GrantAuthorizationCode && opts.Grant != oauth.GrantDevice && (opts.ClientID == "" || (opts.ClientSecret == "" && opts.ClientKey == nil)) {
		return nil, errkind.Usagef("--grant %s needs --client-id and --client-secret or --client-key", strings.ReplaceAll(opts.Grant, "_", "-"))
	}
	if opts.Grant == oauth.GrantCrossApp {
		if a.IDPTokenEndpoint == "" || a.IDPClientID == "" || a.IDToken == "" {
			return nil, errkind.Usagef("--grant cross-app needs --idp-token-endpoint, --idp-client-id and --id-token")
		}
		opts.IdentityProvider = &oauth.IdentityProvider{TokenEndpoint: a.IDPTokenEndpoint, ClientID: a.IDPClientID, IDToken: a.IDToken}
	}
	return oauth.NewManager(opts, plain.Transport)
}

// ResourceNone is the --resource (and oauth.resource) that sends no
// resource parameter.
const ResourceNone = "none"

// Want is what the run wants of a token: the resource and the scopes.
func (a Auth) Want() oauth.Wanted {
	if a.Resource == ResourceNone {
		return oauth.Wanted{OmitResource: true, Scopes: a.Scopes}
	}
	return oauth.Wanted{Resource: a.Resource, Scopes: a.Scopes}
}

// checkScope checks a scope value: scope tokens are printable ASCII other
// than the double quote and the backslash, separated by spaces (RFC 6749
// §3.3).
func checkScope(scope string) error {
	for _, c := range scope {
		if c != ' ' && (c < 0x21 || c > 0x7e || c == '"' || c == '\\') {
			return fmt.Errorf("%q holds a character no scope may have (RFC 6749 §3.3)", scope)
		}
	}
	return nil
}

// checkEntryAuth checks the values of an entry's oauth block as the flags
// are checked (they may come from variables), and refuses a redirect host
// that is not a loopback one: a config file, perhaps a cloned
// repository's, cannot send the login's code to another machine.
func checkEntryAuth(conf config.OAuth, f AuthFlags, x *config.Expanded) error {
	bad := func(key string, err error) error {
		return errkind.Configf("%s: server %q: oauth.%s: %v", x.Where(), x.Name, key, err)
	}
	if conf.Resource != "" && conf.Resource != ResourceNone {
		if err := oauth.CheckResource(conf.Resource); err != nil {
			return bad("resource", err)
		}
	}
	if err := checkScope(conf.Scope); err != nil {
		return bad("scope", err)
	}
	if err := oauth.CheckRedirect(oauth.Redirect{Host: conf.RedirectHost, Port: conf.RedirectPort, Path: conf.RedirectPath}); err != nil {
		return errkind.Configf("%s: server %q: oauth.%s", x.Where(), x.Name, strings.Replace(err.Error(), "redirect ", "redirect_", 1))
	}
	if f.RedirectHost == "" && !oauth.IsLoopbackRedirectHost(conf.RedirectHost) {
		return bad("redirect_host", fmt.Errorf("%s is not a loopback host (127.0.0.1, localhost, ::1); "+
			"a config file cannot send the login's code to another machine: give it with --redirect-host", conf.RedirectHost))
	}
	if conf.LoginTimeout < 0 {
		return bad("login_timeout", errors.New("cannot be negative"))
	}
	return nil
}
