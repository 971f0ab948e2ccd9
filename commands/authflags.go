package commands

import (
	"crypto/ecdsa"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcpv/mcpv/config"
	"github.com/mcpv/mcpv/oauth"
	"github.com/mcpv/mcpv/output"
	"github.com/mcpv/mcpv/trust"
)

// authFlags shape OAuth for HTTP servers.
type authFlags struct {
	Auth              string `name:"auth" enum:",auto,stored,none" default:"" placeholder:"MODE" help:"OAuth for HTTP servers: auto (authorize in a browser when needed), stored (only stored or refreshable tokens; exit 5 otherwise) or none. Default: auto when stdin and stderr are terminals, else stored." group:"Authorization"`
	ClientID          string `name:"client-id" placeholder:"ID" help:"A pre-registered OAuth client id." group:"Authorization"`
	ClientSecret      string `name:"client-secret" placeholder:"SECRET" help:"Its secret; @FILE reads it from FILE (default: MCPV_CLIENT_SECRET)." group:"Authorization"`
	ClientKey         string `name:"client-key" placeholder:"FILE" type:"existingfile" help:"Authenticate the client with a JWT signed by the EC P-256 key in FILE (PEM) instead of a secret." group:"Authorization"`
	ClientMetadataURL string `name:"client-metadata-url" placeholder:"URL" help:"Use this client ID metadata document URL as the client id where the server supports them." group:"Authorization"`
	Grant             string `name:"grant" enum:"authorization-code,client-credentials,cross-app" default:"authorization-code" help:"authorization-code (a user in a browser), client-credentials (a machine, e.g. CI) or cross-app (an identity provider's ID token, SEP-990)." group:"Authorization"`
	IDPTokenEndpoint  string `name:"idp-token-endpoint" placeholder:"URL" help:"For --grant cross-app: the identity provider's token endpoint." group:"Authorization"`
	IDPClientID       string `name:"idp-client-id" placeholder:"ID" help:"For --grant cross-app: mcpv's client id at the identity provider." group:"Authorization"`
	IDToken           string `name:"id-token" placeholder:"TOKEN" help:"For --grant cross-app: the user's ID token; @FILE reads it from FILE (default: MCPV_ID_TOKEN)." group:"Authorization"`
}

// authMode is --auth, or its default for this run.
func (a *app) authMode() string {
	if m := a.flags.Auth; m != "" {
		return m
	}
	if a.ios.InTTY && a.ios.ErrTTY {
		return oauth.ModeAuto
	}
	return oauth.ModeStored
}

// oauthStore is where tokens are kept: the oauth directory of mcpv's state directory.
func (a *app) oauthStore() *oauth.Store {
	return &oauth.Store{Dir: filepath.Join(trust.StateDir(a.getenv, a.home()), "oauth")}
}

// oauthManager builds the authorization layer for the target's URL: the
// flags first, then the config entry's oauth settings.
func (a *app) oauthManager(plain *http.Client, mode string) (*oauth.Manager, error) {
	f := &a.flags.authFlags
	var conf config.OAuth
	if x := a.target.entry; x != nil {
		conf = x.OAuth
	}
	pick := func(flag, fromConf string) string {
		if flag != "" {
			return flag
		}
		return fromConf
	}
	secret, err := a.clientSecret()
	if err != nil {
		return nil, err
	}
	opts := oauth.Options{
		ServerURL:         a.target.url,
		HTTP:              plain,
		Mode:              mode,
		Grant:             strings.ReplaceAll(f.Grant, "-", "_"),
		ClientID:          pick(f.ClientID, conf.ClientID),
		ClientSecret:      pick(secret, conf.ClientSecret),
		ClientMetadataURL: pick(f.ClientMetadataURL, conf.ClientMetadataURL),
		Open:              a.openBrowser,
		Log:               output.NewLogger(a.ios.Err),
	}
	if !a.explicit["grant"] && conf.Grant != "" {
		opts.Grant = conf.Grant
	}
	if keyFile := pick(f.ClientKey, conf.ClientKey); keyFile != "" {
		key, err := readClientKey(keyFile)
		if err != nil {
			return nil, err
		}
		opts.ClientKey = key
	}
	if opts.Grant != oauth.GrantAuthorizationCode && (opts.ClientID == "" || (opts.ClientSecret == "" && opts.ClientKey == nil)) {
		return nil, usageErrorf("--grant %s needs --client-id and --client-secret or --client-key", f.Grant)
	}
	if opts.Grant == oauth.GrantCrossApp {
		idToken, err := a.secretFlag("--id-token", f.IDToken, "MCPV_ID_TOKEN")
		if err != nil {
			return nil, err
		}
		if f.IDPTokenEndpoint == "" || f.IDPClientID == "" || idToken == "" {
			return nil, usageErrorf("--grant cross-app needs --idp-token-endpoint, --idp-client-id and --id-token")
		}
		opts.IdentityProvider = &oauth.IdentityProvider{TokenEndpoint: f.IDPTokenEndpoint, ClientID: f.IDPClientID, IDToken: idToken}
	}
	opts.Store = a.oauthStore()
	return oauth.NewManager(opts, plain.Transport)
}

// clientSecret is --client-secret (or @FILE), else MCPV_CLIENT_SECRET.
func (a *app) clientSecret() (string, error) {
	return a.secretFlag("--client-secret", a.flags.ClientSecret, "MCPV_CLIENT_SECRET")
}

// secretFlag is a secret given as a flag's value, @FILE, or an environment variable.
func (a *app) secretFlag(name, value, env string) (string, error) {
	if a.untrusted {
		return "", nil // an untrusted file's server gets nothing of the user's
	}
	if path, ok := strings.CutPrefix(value, "@"); ok {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", usageErrorf("%s: %v", name, err)
		}
		return strings.TrimSpace(string(data)), nil
	}
	if value == "" {
		value = a.getenv(env)
	}
	return value, nil
}

func readClientKey(path string) (*ecdsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("--client-key: %v", err)
	}
	key, err := oauth.ParseECKey(data)
	if err != nil {
		return nil, usageErrorf("--client-key %s: %v", path, err)
	}
	return key, nil
}

// openBrowser opens url with $BROWSER, else the platform's opener. It does
// not wait for the browser; the URL is printed on stderr either way.
func (a *app) openBrowser(url string) error {
	var cmd *exec.Cmd
	switch b := a.getenv("BROWSER"); {
	case b != "":
		cmd = exec.Command("sh", "-c", b+` "$1"`, "browser", url)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	cmd.Env = a.environ
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reaps the opener; it ends on its own, mcpv does not wait for it
	return nil
}
