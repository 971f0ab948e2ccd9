package connect

import (
	"cmp"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/duration"
	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/mcp"
)

// Settings is everything that shapes one session: the server, how to reach
// it, and how mcpv behaves toward it. Merge builds it from the flags, a
// config entry and the environment; it is data only, and Open acts on it.
type Settings struct {
	// Name is how questions to the user name the server: its config name,
	// its URL's host, or its program.
	Name string

	// Session, when set, is the running session the command goes through
	// (--session): nothing is started and no server is named.
	Session string
	// ResumeSession is an HTTP session id kept by call --detach, resumed
	// instead of initializing (--session-id).
	ResumeSession string

	// A stdio server (Command set) or an HTTP one (URL set), never both.
	Command []string // the program and its arguments
	Env     []string // the server's whole environment
	Dir     string   // its working directory; "" is mcpv's

	URL    string
	Header http.Header // sent with every request: the entry's, then -H
	Mode   string      // HTTP transport: auto, streamable-http or sse
	CACert string      // a PEM file of more roots to trust

	Timeout         time.Duration // per request; 0 waits forever
	ConnectTimeout  time.Duration // start-up and initialize
	MaxTimeout      time.Duration // the cap progress cannot extend a request past
	ProtocolVersion string        // offer this one and accept no other
	ProtocolEra     string        // legacy, auto or modern
	Framing         string        // a stdio server's: auto, lines or content-length
	Quiet           bool          // hide the server's stderr
	Verbose         bool          // trace the JSON-RPC traffic
	// MaxMessage bounds each message the server sends (mcp's
	// MaxMessage); 0 reads any. No flag sets it: mcpv check does.
	MaxMessage int64
	// Fresh asks the server for every list, none answered from what was
	// kept of it between runs (--fresh); ListTTL is how long a list that
	// gives no hints of its own is kept between runs (MCPV_LIST_TTL; 0:
	// not at all).
	Fresh   bool
	ListTTL time.Duration

	Auth    Auth
	Answers Answers

	// Untrusted is an untrusted project file's HTTP entry: nothing of the
	// user's (credentials, tokens, a browser flow) may reach it.
	Untrusted bool
	// Secrets are values never to be written out.
	Secrets []string
	// Guard is the config entry's guard for mcpv serve; nil without one.
	Guard *config.Guard
	// IfDeclared is the config entry's if_declared: a list command of a
	// capability the server does not declare prints the empty list.
	IfDeclared bool
	// NoExtensions are the extensions the session does not declare
	// (--no-extension, the entry's extensions: {NAME: false}), by id.
	NoExtensions []string

	// ConfigFile and ConfigLine are where the server's config entry is,
	// when it has one.
	ConfigFile string
	ConfigLine int

	// Pin is the pin file the server's items are held to (mcpv pin),
	// absolute; "" holds them to none. PinLabel is the file as the user
	// named it, for messages; PinEntry the name of the server's entry in
	// it (its config name), "" when the server has no config name;
	// PinTree, when set, is the directory the file must stay inside (a
	// project config file's own tree).
	Pin, PinLabel, PinEntry, PinTree string
	// PinStrict refuses every item while the server's instructions are
	// not those pinned (--pin-strict, MCPV_PIN_STRICT, the entry's
	// pinStrict); else they are said once on stderr.
	PinStrict bool
}

// Auth is how to authorize at an HTTP server: the flags, over the config
// entry's oauth block.
type Auth struct {
	Mode              string // auto, stored, none, or "" for the default of the run
	Grant             string // authorization_code, client_credentials or cross_app
	ClientID          string
	ClientSecret      string // the value, read from @FILE or the environment
	ClientKey         string // a PEM file
	ClientMetadataURL string
	IDPTokenEndpoint  string
	IDPClientID       string
	IDToken           string // the value
	Assertion         string // --assertion's value, for --grant jwt-bearer
	DPoP              string // auto, always, never, or "" for auto
	Resource          string // a resource URL, ResourceNone, or "" for the server's
	Scopes            []string
	Redirect          oauth.Redirect
	LoginTimeout      time.Duration // 0 waits until interrupted
	// NoWait hands a login off even at a terminal (--no-wait).
	NoWait bool
}

// Answers are how mcpv answers the server's requests and shows what it reports.
type Answers struct {
	Roots       []string // directories offered as roots
	SamplingCmd string
	// SamplingDir is where SamplingCmd runs: the session's directory for
	// a command through a session; "" for the command's own (Env.Cwd).
	// It runs in the command's environment either way.
	SamplingDir string
	Answer      []string // KEY=VALUE
	AnswersFile string
	Elicitation string // prompt, accept, decline, cancel, or "" for the default of the run
	LogLevel    string
	Events      string // the --events file
}

// Source is what Resolve found before merging: the target, and the values
// it read from files and the environment.
type Source struct {
	Session string           // --session or MCPV_SESSION
	URL     string           // --url or MCPV_URL
	Command []string         // the words after --
	Entry   *config.Expanded // --server or MCPV_SERVER, expanded
	// Untrusted: Entry is an untrusted project file's HTTP entry.
	Untrusted bool
	// Headers are -H, with @FILE read: name and value pairs in order.
	Headers      [][2]string
	ClientSecret string // --client-secret, its @FILE or MCPV_CLIENT_SECRET
	IDToken      string // --id-token, its @FILE or MCPV_ID_TOKEN
	Assertion    string // --assertion, its @FILE or MCPV_ASSERTION
}

// Merge builds the settings of a session from the flags (explicit says
// which were given on the command line rather than defaulted), what Resolve
// found and the environment. It does no I/O. Flags beat the config entry:
// --timeout, --protocol-version, --transport and --cwd replace the entry's
// values; -H and --env add to them (-H replaces a header of the same name).
func Merge(f Flags, explicit map[string]bool, src Source, env Env) (s *Settings, err error) {
	s = &Settings{
		Timeout:         f.Timeout,
		ConnectTimeout:  f.ConnectTimeout,
		MaxTimeout:      f.MaxTimeout,
		ProtocolVersion: f.ProtocolVersion,
		ProtocolEra:     f.ProtocolEra,
		Framing:         cmp.Or(f.Framing, mcp.FramingAuto), // "" is auto, spelt one way from here on
		Quiet:           f.Quiet,
		Verbose:         f.Verbose,
		Fresh:           f.Fresh,
		ListTTL:         DefaultListTTL,
		Untrusted:       src.Untrusted,
		Answers: Answers{
			Roots:       f.Root,
			SamplingCmd: f.SamplingCmd,
			Answer:      f.Answer,
			AnswersFile: f.Answers,
			Elicitation: f.Elicitation,
			LogLevel:    f.LogLevel,
			Events:      f.Events,
		},
	}
	x := src.Entry
	switch {
	case src.Session != "":
		s.Session, s.Name = src.Session, src.Session
		for _, f := range sessionShaping {
			if explicit[f] {
				return nil, errkind.Usagef("--%s shapes the session: give it to 'mcpv session start', not with --session", f)
			}
		}
	case src.URL != "":
		s.URL, s.Mode, s.Name = src.URL, f.Transport, src.URL
		if u, err := url.Parse(src.URL); err == nil && u.Host != "" {
			s.Name = u.Host
		}
	case x != nil:
		s.Name = x.Name
		mergeEntry(s, f, explicit, x, env)
	case len(src.Command) > 0:
		s.Command = src.Command
		s.Env = setVars(env.Environ, f.Env, env.GOOS)
		s.Name = filepath.Base(src.Command[0])
	default:
		return nil, errkind.Usagef("no server given: add -- COMMAND [ARGS...] after the command, --url URL or --server NAME")
	}
	switch {
	case s.URL == "" && (len(f.Header) > 0 || f.CACert != ""):
		return nil, errkind.Usagef("--header and --cacert are for HTTP servers")
	case s.URL != "" && (len(f.Env) > 0 || f.Cwd != ""):
		return nil, errkind.Usagef("--env and --cwd are for stdio servers")
	case s.URL != "" && explicit["framing"]:
		return nil, errkind.Usagef("--framing is for stdio servers")
	case f.SessionID != "" && s.URL == "":
		return nil, errkind.Usagef("--session-id resumes an HTTP session: give the server's --url (or an HTTP --server)")
	}
	s.ResumeSession = f.SessionID
	if v := env.Getenv("MCPV_LIST_TTL"); v != "" {
		if s.ListTTL, err = duration.Parse(v); err != nil || s.ListTTL < 0 {
			return nil, errkind.Usagef("MCPV_LIST_TTL=%q: give how long a list that says nothing of its own may be kept between runs, as a duration such as 10m (0: not at all)", v)
		}
	}
	if s.NoExtensions, err = noExtensions(f.NoExtension, x); err != nil {
		return nil, err
	}
	s.Pin, s.PinLabel, s.PinTree = pinOf(f.Pin, x, env)
	s.PinStrict = f.PinStrict || env.Getenv("MCPV_PIN_STRICT") == "1" || env.Getenv("MCPV_PIN_STRICT") == "true" || x != nil && x.PinStrict
	if x != nil {
		s.PinEntry, s.ConfigFile, s.ConfigLine = x.Name, x.File.Path, x.Line
		s.Secrets = append(s.Secrets, x.Secrets...)
	}
	if f.Cwd != "" {
		s.Dir = env.Path(f.Cwd)
	}
	if s.URL != "" {
		s.CACert = env.Path(f.CACert)
		if s.Header == nil {
			s.Header = http.Header{}
		}
		for _, h := range src.Headers {
			s.Header.Del(h[0]) // -H replaces the entry's header of that name
		}
		for _, h := range src.Headers {
			s.Header.Add(h[0], h[1])
		}
	}
	if s.Auth, err = mergeAuth(f.AuthFlags, explicit, src); err != nil {
		return nil, err
	}
	s.Secrets = uniq(append(s.Secrets, flagSecrets(f, src)...))
	return s, nil
}

// pinOf is the pin file a session is held to: --pin, else MCPV_PIN, else
// the config entry's pin (relative to its file, and inside its tree for
// a project's file); with the label to name it by and the tree it must
// stay in.
func pinOf(flag string, x *config.Expanded, env Env) (path, label, tree string) {
	flag = cmp.Or(flag, env.Getenv("MCPV_PIN"))
	if flag != "" {
		return env.Path(flag), flag, ""
	}
	if x == nil || x.Pin == "" {
		return "", "", ""
	}
	path = x.Pin
	if !filepath.IsAbs(path) {
		path = filepath.Join(x.File.Folder, path)
	}
	if x.File.Kind == config.Project {
		tree = x.File.Folder
	}
	return path, x.Pin, tree
}

// sessionShaping are the flags that shape a session: they are given to
// 'mcpv session start', not to a command that goes through the session.
var sessionShaping = []string{"header", "env", "cwd", "cacert", "transport", "inherit-env", "config", "root",
	"protocol-version", "protocol-era", "framing", "connect-timeout", "log-level", "auth", "client-id", "client-secret",
	"client-key", "client-metadata-url", "grant", "idp-token-endpoint", "idp-client-id", "id-token", "assertion", "dpop", "session-id",
	"resource", "scope", "redirect-host", "redirect-port", "redirect-path", "login-timeout", "no-extension"}

// uniq drops empty and repeated strings, keeping the first of each.
func uniq(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range list {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// mergeEntry takes the server from a config entry.
func mergeEntry(s *Settings, f Flags, explicit map[string]bool, x *config.Expanded, env Env) {
	s.Guard, s.IfDeclared = x.Guard, x.IfDeclared
	if x.Timeout > 0 && !explicit["timeout"] {
		s.Timeout = x.Timeout
	}
	if x.ProtocolVersion != "" && !explicit["protocol-version"] {
		s.ProtocolVersion = x.ProtocolVersion
	}
	if x.Transport != "stdio" {
		s.URL, s.Mode = x.URL, x.Transport
		if explicit["transport"] {
			s.Mode = f.Transport
		}
		s.Header = http.Header{}
		for _, h := range x.Headers {
			s.Header.Add(h.Name, h.Value)
		}
		return
	}
	if x.Framing != "" && !explicit["framing"] {
		s.Framing = x.Framing
	}
	s.Command = append([]string{x.Command}, x.Args...)
	base := MinimalEnv(env.Environ, env.GOOS)
	if f.InheritEnv {
		base = env.Environ
	}
	vars := make([]string, 0, len(x.Env)+len(f.Env))
	for _, v := range x.Env {
		vars = append(vars, v.Name+"="+v.Value)
	}
	s.Env = setVars(base, append(vars, f.Env...), env.GOOS)
	s.Dir = x.Cwd
	if s.Dir == "" && x.File.Kind == config.Project {
		s.Dir = x.File.Folder // the programs the user trusted, not those of wherever mcpv runs
	}
}

// mergeAuth puts the flags over the entry's oauth block. An untrusted
// entry gets nothing of the user's.
func mergeAuth(f AuthFlags, explicit map[string]bool, src Source) (Auth, error) {
	var conf config.OAuth
	if src.Entry != nil {
		conf = src.Entry.OAuth
	}
	a := Auth{
		Mode:              f.Auth,
		Grant:             strings.ReplaceAll(f.Grant, "-", "_"),
		ClientID:          cmp.Or(f.ClientID, conf.ClientID),
		ClientSecret:      cmp.Or(src.ClientSecret, conf.ClientSecret),
		ClientKey:         cmp.Or(f.ClientKey, conf.ClientKey),
		ClientMetadataURL: cmp.Or(f.ClientMetadataURL, conf.ClientMetadataURL),
		IDPTokenEndpoint:  f.IDPTokenEndpoint,
		IDPClientID:       f.IDPClientID,
		IDToken:           src.IDToken,
		Assertion:         cmp.Or(src.Assertion, conf.Assertion),
		DPoP:              cmp.Or(f.DPoP, conf.DPoP),
		Resource:          cmp.Or(f.Resource, conf.Resource),
		Scopes:            scopesOf(cmp.Or(strings.Join(f.Scope, " "), conf.Scope)),
		Redirect: oauth.Redirect{
			Host: cmp.Or(f.RedirectHost, conf.RedirectHost),
			Port: cmp.Or(f.RedirectPort, conf.RedirectPort),
			Path: cmp.Or(f.RedirectPath, conf.RedirectPath),
		},
		LoginTimeout: f.LoginTimeout,
		NoWait:       f.NoWait,
	}
	if !explicit["grant"] && conf.Grant != "" {
		a.Grant = conf.Grant
	}
	if !explicit["login-timeout"] && conf.LoginTimeout > 0 {
		a.LoginTimeout = conf.LoginTimeout
	}
	if src.Entry != nil {
		if err := checkEntryAuth(conf, f, src.Entry); err != nil {
			return Auth{}, err
		}
	}
	if src.Untrusted {
		// Nothing of the user's reaches an untrusted entry: no secret, no
		// stored token, no browser flow that could show a look-alike page.
		a.Mode, a.ClientSecret, a.IDToken, a.Assertion = "none", "", "", ""
	}
	return a, nil
}

// scopesOf splits a space-separated scope value; nil when it has none.
func scopesOf(scope string) []string {
	if s := strings.Fields(scope); len(s) > 0 {
		return s
	}
	return nil
}

// MinimalEnv is the environment a server from config starts with: enough
// to find programs and behave like a login shell, nothing of the user's
// tokens. On Windows names are compared without regard to case (Windows
// spells it Path) and the list is what Windows programs need to start,
// find their profile and temporary directory, and run .cmd shims: the MCP
// TypeScript SDK's default list for win32 (APPDATA ... USERPROFILE), plus
// PATHEXT, COMSPEC and the like, without which npx.cmd and node fail.
func MinimalEnv(environ []string, goos string) []string {
	keep := []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR"}
	switch goos {
	case "darwin":
		keep = append(keep, "__CF_USER_TEXT_ENCODING")
	case "windows":
		keep = append(keep, windowsEnv...)
	}
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if goos == "windows" {
			k = strings.ToUpper(k)
		}
		if slices.Contains(keep, k) || strings.HasPrefix(k, "LC_") {
			out = append(out, kv)
		}
	}
	return out
}

// setVars is environ with each NAME=value of vars set in turn: an earlier
// entry of the same name is removed and the new one added at the end. On
// Windows names match without regard to case, so an entry's PATH replaces
// the inherited Path instead of standing beside it. environ is not changed.
func setVars(environ, vars []string, goos string) []string {
	out := slices.Clone(environ)
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		out = slices.DeleteFunc(out, func(e string) bool {
			k, _, _ := strings.Cut(e, "=")
			return sameVar(k, name, goos)
		})
		out = append(out, kv)
	}
	return out
}

// sameVar reports whether a and b name the same environment variable on
// goos. Windows' hidden per-drive entries (=C:=C:\dir) have an empty name
// here and match nothing.
func sameVar(a, b, goos string) bool {
	return a != "" && b != "" && (a == b || goos == "windows" && strings.EqualFold(a, b))
}

// windowsEnv is what MinimalEnv keeps on Windows besides the common names,
// in upper case.
var windowsEnv = []string{
	// The TypeScript SDK's default inherited variables for win32.
	"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PROCESSOR_ARCHITECTURE",
	"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES",
	// What programs and shims also look for.
	"PATHEXT", "COMSPEC", "WINDIR", "TMP", "PROGRAMFILES(X86)", "PROGRAMW6432", "PROGRAMDATA",
	"COMMONPROGRAMFILES", "COMMONPROGRAMFILES(X86)", "ALLUSERSPROFILE", "PUBLIC",
	"NUMBER_OF_PROCESSORS", "OS", "USERDOMAIN", "COMPUTERNAME",
}

// MaskLine is a line of the server's (its stderr) with every secret of
// the session masked, in every form, for mcp.CommandOptions.Mask where
// the run gives no masker of its own (Hooks.Mask).
func (s *Settings) MaskLine(line string) string {
	known := redact.NewScrubber(nil)
	known.Add(s.Secrets...)
	return known.String(line)
}

// flagSecrets are the secrets given on the command line or read for it:
// secret-named --env values, -H values of secret-named headers, the client
// secret and the ID token.
func flagSecrets(f Flags, src Source) []string {
	out := append(envSecrets(f.Env), src.ClientSecret, src.IDToken, src.Assertion) // Merge's uniq drops those not given
	for _, h := range src.Headers {
		out = append(out, headerSecrets(h[0], h[1])...)
	}
	out = append(out, redact.URLSecrets(src.URL)...)
	out = append(out, redact.ArgSecrets(src.Command)...) // --api-key=…, env GITHUB_TOKEN=…
	return append(out, redact.URLSecrets(f.Resource)...) // https://tenant/?api_key=...
}

// Secrets are the secrets f holds as the command line gave them, known
// before anything is read: secret-named --env values, -H values of
// secret-named headers, --client-secret, --id-token and --assertion
// unless they name a file, and the credentials of --url and --resource.
// What -H @FILE and a config entry hold is known once the session's
// settings are (Settings.Secrets).
func (f Flags) Secrets() []string {
	out := envSecrets(f.Env)
	for _, s := range []string{f.ClientSecret, f.IDToken, f.Assertion} {
		if s != "" && !strings.HasPrefix(s, "@") {
			out = append(out, s)
		}
	}
	for _, h := range f.Header {
		if hv, err := parseHeader(h); err == nil && !strings.HasPrefix(h, "@") {
			out = append(out, headerSecrets(hv[0], hv[1])...)
		}
	}
	out = append(out, redact.URLSecrets(f.URL)...)
	return append(out, redact.URLSecrets(f.Resource)...)
}

// envSecrets are the values of secret-named --env variables, and the
// credentials of URLs among them (DATABASE_URL=postgres://u:pw@h/db).
func envSecrets(env []string) []string {
	var out []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if redact.Name(k) {
			out = append(out, v)
		}
		out = append(out, redact.URLSecrets(v)...)
	}
	return out
}

// headerSecrets are a secret-named header's value, and its credential
// without the scheme ("Bearer TOKEN" gives TOKEN too).
func headerSecrets(name, value string) []string {
	if !redact.Name(name) {
		return nil
	}
	if _, cred, ok := strings.Cut(value, " "); ok {
		return []string{value, cred}
	}
	return []string{value}
}
