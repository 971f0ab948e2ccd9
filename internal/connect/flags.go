package connect

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/mcp"
)

// The flags that shape a session, as the user gave them. commands embeds
// these groups in its grammar; their tags are kong's, and their help texts
// and placeholders are in the table after each group (see FlagDoc). Resolve and Merge
// turn them, with a config entry and the environment, into Settings. The
// durations are what internal/duration reads, as a config entry's timeout.

// ServerFlags choose and shape the server connection. Help shows them as
// one group; a grammar takes them in four (see Groups), each of the flags
// that go together, so that the one a command line names (--session, say)
// does not bring the others.
type ServerFlags struct {
	TargetFlags
	ReachFlags
	ProtocolFlags
	DisplayFlags
}

// TargetFlags say which server.
type TargetFlags struct {
	URL    string `short:"u" name:"url"`
	Server string `short:"s" name:"server" type:"servername"`
	// Servers are the names --server was given, in order (Server is the
	// last): serve puts them all behind one endpoint.
	Servers   []string `kong:"-"`
	Session   string   `name:"session"`
	SessionID string   `name:"session-id"`
	Config    string   `name:"config" type:"existingfile"`
	Pin       string   `name:"pin"`
	PinStrict bool     `name:"pin-strict"`
}

// ReachFlags say how to reach it: a stdio server's environment, an HTTP
// server's headers, certificates and transport.
type ReachFlags struct {
	InheritEnv bool     `name:"inherit-env"`
	Header     []string `short:"H" name:"header" sep:"none"`
	CACert     string   `name:"cacert" type:"existingfile"`
	Transport  string   `name:"transport" enum:"auto,streamable-http,sse" default:"auto"`
	Env        []string `name:"env" sep:"none"`
	Cwd        string   `name:"cwd" type:"existingdir"`
}

// DefaultConnectTimeout is --connect-timeout's default (its flag's
// default:"60s").
const DefaultConnectTimeout = 60 * time.Second

// DefaultListTTL is how long a list that gives no hints of its own (no
// ttlMs: every server of the initialize era) is kept between runs, to
// type a call's arguments without asking (MCPV_LIST_TTL sets another).
const DefaultListTTL = 5 * time.Minute

// ProtocolFlags bound the time and choose the protocol.
type ProtocolFlags struct {
	Timeout         time.Duration `name:"timeout" default:"10m"`
	ConnectTimeout  time.Duration `name:"connect-timeout" default:"60s"`
	ProtocolVersion string        `name:"protocol-version"`
	ProtocolEra     string        `name:"protocol-era" enum:"legacy,auto,modern" default:"auto"`
	Framing         string        `name:"framing" enum:"auto,lines,content-length" default:"auto"`
	Fresh           bool          `name:"fresh"`
}

// DisplayFlags say what to show of the server.
type DisplayFlags struct {
	Quiet   bool `name:"quiet"`
	Verbose bool `short:"v" name:"verbose"`
}

// The docs of ServerFlags, a table a group.
var (
	targetFlagDocs = []FlagDoc{
		{"url", "URL", "Talk to the server at this Streamable HTTP (or legacy SSE) URL instead of starting one (default: MCPV_URL)."},
		{"server", "NAME", "Use the server named NAME in a config file; see 'mcpv servers' (default: MCPV_SERVER)."},
		{"session", "NAME", "Go through the running session NAME (see 'mcpv session'); nothing is started (default: MCPV_SESSION)."},
		{"session-id", "ID", "Resume the HTTP session that 'call --detach' kept open, instead of starting one."},
		{"config", "FILE", "Look for --server names in FILE before the other config files (MCPV_CONFIG is next)."},
		{"pin", "FILE", "Hold the server to its pin in FILE (see 'mcpv pin'): a tool, prompt, resource or template that moved since it was pinned, or is new, is refused (exit 7) (default: MCPV_PIN, else the config entry's pin)."},
		{"pin-strict", "", "Held to a pin, refuse every item (exit 7) while the server's instructions are not those pinned, rather than say so on stderr (default: MCPV_PIN_STRICT=1, or the config entry's pinStrict: true)."},
	}
	reachFlagDocs = []FlagDoc{
		{"inherit-env", "", "Give a stdio server from config mcpv's whole environment, not a minimal one."},
		{"header", "'NAME: VALUE'", "Send this HTTP header (repeatable); @FILE reads one header per line."},
		{"cacert", "FILE", "Trust the PEM certificates in FILE as well as the system's."},
		{"transport", "", "HTTP transport: auto (Streamable HTTP, falling back to legacy SSE), streamable-http or sse."},
		{"env", "KEY=VAL", "Set a variable in the stdio server's environment (repeatable)."},
		{"cwd", "DIR", "Working directory of the stdio server."},
	}
	protocolFlagDocs = []FlagDoc{
		{"timeout", "", "Give up on a request after this long; 0 waits forever."},
		{"connect-timeout", "", "Give up if the server has not started and answered initialize within this long."},
		{"protocol-version", "VERSION", "Offer this protocol version and accept no other (default: offer {latest_version}, accept {supported_versions}); 2026-07-28 speaks the modern era (server/discover, no initialize)."},
		{"protocol-era", "", "auto: probe with server/discover (MCP 2026-07-28) and fall back to initialize for older servers; legacy: start with initialize (a server that shows it is of 2026-07-28 only is still spoken to in that era); modern: 2026-07-28 only."},
		{"framing", "", "How a stdio server's messages are delimited: auto (lines, switching to Content-Length headers when the server's first bytes are headers), lines, or content-length (for a server that frames them as LSP does and waits for the client)."},
		{"fresh", "", "Ask the server for its lists: none kept from an earlier run answers a call's lookup (see 'mcpv help arguments')."},
	}
	displayFlagDocs = []FlagDoc{
		{"quiet", "", "Do not show the server's stderr (its last lines still appear in errors)."},
		{"verbose", "", "Trace the JSON-RPC messages on stderr."},
	}
)

// SetDefaults gives each flag the default of its tag, as kong does to a
// flag not given: for a command line whose grammar leaves the group out.
func (f *TargetFlags) SetDefaults() {}

// SetDefaults: see TargetFlags.SetDefaults.
func (f *ReachFlags) SetDefaults() { f.Transport = "auto" }

// SetDefaults: see TargetFlags.SetDefaults.
func (f *ProtocolFlags) SetDefaults() {
	f.ProtocolEra, f.Framing = "auto", "auto"
	f.Timeout, f.ConnectTimeout = 10*time.Minute, DefaultConnectTimeout
}

// SetDefaults: see TargetFlags.SetDefaults.
func (f *DisplayFlags) SetDefaults() {}

// Validate checks what needs no I/O.
func (f *ServerFlags) Validate() error {
	if f.ProtocolEra == "modern" && f.ProtocolVersion != "" && !mcp.IsModern(f.ProtocolVersion) {
		return fmt.Errorf("--protocol-era modern and --protocol-version %s (a version of the initialize era) exclude each other", f.ProtocolVersion)
	}
	for _, kv := range f.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("--env %q: want KEY=VALUE", kv)
		}
	}
	for _, h := range f.Header {
		if _, err := parseHeader(h); err != nil && !strings.HasPrefix(h, "@") { // @FILE is read when the target is resolved
			return err
		}
	}
	return nil
}

// AuthFlags shape OAuth for HTTP servers.
type AuthFlags struct {
	Auth              string        `name:"auth" enum:",auto,stored,none" default:""`
	ClientID          string        `name:"client-id"`
	ClientSecret      string        `name:"client-secret"`
	ClientKey         string        `name:"client-key" type:"existingfile"`
	ClientMetadataURL string        `name:"client-metadata-url"`
	Grant             string        `name:"grant" enum:"authorization-code,client-credentials,cross-app,jwt-bearer" default:"authorization-code"`
	IDPTokenEndpoint  string        `name:"idp-token-endpoint"`
	IDPClientID       string        `name:"idp-client-id"`
	IDToken           string        `name:"id-token"`
	Assertion         string        `name:"assertion"`
	DPoP              string        `name:"dpop" enum:",auto,always,never" default:""`
	Resource          string        `name:"resource"`
	Scope             []string      `name:"scope" sep:"none"`
	RedirectHost      string        `name:"redirect-host"`
	RedirectPort      int           `name:"redirect-port"`
	RedirectPath      string        `name:"redirect-path"`
	LoginTimeout      time.Duration `name:"login-timeout" default:"5m"`
	NoWait            bool          `name:"no-wait"`
}

// SetDefaults: see TargetFlags.SetDefaults.
func (f *AuthFlags) SetDefaults() {
	f.Grant = "authorization-code"
	f.LoginTimeout = defaultLoginTimeout
}

// defaultLoginTimeout bounds the wait for a browser login: long enough to
// sign in with a second factor, short enough that a forgotten tab does not
// hold a script for ever.
const defaultLoginTimeout = 5 * time.Minute

// Validate checks what needs no I/O: the resource, the scopes and the
// redirect URI's parts as OAuth allows them.
func (f *AuthFlags) Validate() error {
	if f.Resource != "" && f.Resource != ResourceNone {
		if err := oauth.CheckResource(f.Resource); err != nil {
			return fmt.Errorf("--resource: %v (or none, to send no resource)", err)
		}
	}
	for _, s := range f.Scope {
		if err := checkScope(s); err != nil {
			return fmt.Errorf("--scope: %v", err)
		}
	}
	if err := oauth.CheckRedirect(oauth.Redirect{Host: f.RedirectHost, Port: f.RedirectPort, Path: f.RedirectPath}); err != nil {
		return fmt.Errorf("--%s", strings.Replace(err.Error(), "redirect ", "redirect-", 1))
	}
	return nil
}

// authFlagDocs document AuthFlags.
var authFlagDocs = []FlagDoc{
	{"auth", "MODE", "OAuth for HTTP servers: auto (authorize in a browser when needed), stored (only stored or refreshable tokens; exit 5 otherwise) or none. Default: auto when stdin and stderr are terminals, else stored."},
	{"client-id", "ID", "A pre-registered OAuth client id."},
	{"client-secret", "SECRET", "Its secret; @FILE reads it from FILE (default: MCPV_CLIENT_SECRET)."},
	{"client-key", "FILE", "Authenticate the client with a JWT signed by the EC P-256 key in FILE (PEM) instead of a secret."},
	{"client-metadata-url", "URL", "Use this client ID metadata document URL as the client id where the server supports them."},
	{"grant", "", "authorization-code (a user in a browser), client-credentials (a machine, e.g. CI), cross-app (an identity provider's ID token, SEP-990) or jwt-bearer (a workload's own JWT, e.g. a CI job's OIDC token, traded for access)."},
	{"idp-token-endpoint", "URL", "For --grant cross-app: the identity provider's token endpoint."},
	{"idp-client-id", "ID", "For --grant cross-app: mcpv's client id at the identity provider."},
	{"id-token", "TOKEN", "For --grant cross-app: the user's ID token; @FILE reads it from FILE (default: MCPV_ID_TOKEN)."},
	{"assertion", "JWT", "For --grant jwt-bearer: the workload's JWT; @FILE reads it from FILE (default: MCPV_ASSERTION)."},
	{"dpop", "WHEN", "DPoP-bound tokens (RFC 9449): auto (when the server asks for them; the default), always (whenever the authorization server takes ES256 proofs) or never."},
	{"resource", "URL", "Ask for tokens for this RFC 8707 resource, sent exactly as given, instead of the server's; none sends no resource parameter (for authorization servers that refuse one). A token is used only by runs with the same --resource."},
	{"scope", "SCOPES", "Ask for exactly these scopes (space-separated; repeatable) instead of those the server names; add offline_access for a refresh token. A stored token asked with fewer is not used: mcpv asks again."},
	{"redirect-host", "HOST", "Host of the login's redirect URI, for a client registered with one: 127.0.0.1 (the default), localhost or ::1. Another name must lead the browser back to this machine; only this flag can give one, never a config file."},
	{"redirect-port", "PORT", "Port of the redirect URI (default: a free one). A port another program holds ends the login (exit 5) rather than moving."},
	{"redirect-path", "PATH", "Path of the redirect URI (default /callback)."},
	{"login-timeout", "", "Give up on a browser login after this long (exit 5); the wait does not count against --connect-timeout. 0 waits until Ctrl-C."},
	{"no-wait", "", "Never wait for a browser login, even at a terminal: exit 5 at once with the sign-in link, which a process of mcpv's waits on for --login-timeout (10m when 0); then 'mcpv auth wait'. Without a terminal this is what mcpv does."},
}

// ClientFlags decide how mcpv answers what the server asks and shows what it reports.
type ClientFlags struct {
	MaxTimeout  time.Duration `name:"max-timeout" default:"1h"`
	Events      string        `name:"events"`
	LogLevel    string        `name:"log-level" enum:",debug,info,notice,warning,error,critical,alert,emergency" default:""`
	Root        []string      `name:"root" sep:"none"`
	SamplingCmd string        `name:"sampling-cmd"`
	Answer      []string      `name:"answer" sep:"none"`
	Answers     string        `name:"answers" type:"existingfile"`
	Elicitation string        `name:"elicitation" enum:",prompt,accept,decline,cancel" default:""`
	NoExtension []string      `name:"no-extension" sep:","`
}

// clientFlagDocs document ClientFlags.
var clientFlagDocs = []FlagDoc{
	{"max-timeout", "", "Progress notifications restart --timeout, but a request never runs longer than this; 0 means no cap."},
	{"events", "FILE", "Write every notification from the server to FILE as NDJSON, with a timestamp, secrets masked (a new file, or your own emptied; mode 0600)."},
	{"log-level", "LEVEL", "Ask the server to send log messages at LEVEL and above (logging/setLevel)."},
	{"root", "DIR", "Offer this directory as a root (repeatable); without --root mcpv declares no roots."},
	{"sampling-cmd", "CMD", "Answer sampling/createMessage by running CMD (sh -c; on Windows cmd.exe /c) with the request's params as JSON on stdin; it prints a CreateMessageResult."},
	{"answer", "KEY=VALUE", "Answer a field of an elicitation form (repeatable), typed by the requested schema."},
	{"answers", "FILE", "Answer elicitation forms from a JSON object in FILE."},
	{"elicitation", "POLICY", "What to do with an elicitation that the answers do not complete: prompt (the default on a terminal), accept (fill defaults), decline (the default otherwise) or cancel."},
	{"no-extension", "NAME", "Do not declare this extension to the server, nor use it: ui (MCP Apps), skills or tasks, or its identifier (repeatable or comma-separated)."},
}

// SetDefaults: see TargetFlags.SetDefaults.
func (f *ClientFlags) SetDefaults() { f.MaxTimeout = time.Hour }

// Validate checks what needs no I/O.
func (f *ClientFlags) Validate() error {
	for _, a := range f.Answer {
		if k, _, ok := strings.Cut(a, "="); !ok || k == "" {
			return fmt.Errorf("--answer %q: want KEY=VALUE", a)
		}
	}
	return nil
}

// Flags are every session-shaping flag of one command line, in groups
// that a command line's grammar takes one by one (Groups).
type Flags struct {
	ServerFlags
	AuthFlags
	ClientFlags
}

// FlagGroup is one group of Flags, for a grammar: the heading help shows
// it under (which groups may share), the struct its flags are fields of,
// their docs, their short names, and SetDefaults, for a grammar that
// leaves the group out.
type FlagGroup struct {
	Heading string
	Flags   interface{ SetDefaults() }
	Docs    []FlagDoc
	Shorts  string
}

// Has says whether name is one of g's flags.
func (g FlagGroup) Has(name string) bool {
	return slices.ContainsFunc(g.Docs, func(d FlagDoc) bool { return d.Name == name })
}

// Groups are f's groups, in the order help shows them.
func (f *Flags) Groups() []FlagGroup {
	return []FlagGroup{
		{"Server", &f.TargetFlags, targetFlagDocs, "us"},
		{"Server", &f.ReachFlags, reachFlagDocs, "H"},
		{"Server", &f.ProtocolFlags, protocolFlagDocs, ""},
		{"Server", &f.DisplayFlags, displayFlagDocs, "v"},
		{"Authorization", &f.AuthFlags, authFlagDocs, ""},
		{"Server requests", &f.ClientFlags, clientFlagDocs, ""},
	}
}

// FlagDoc is what help shows of a flag beyond its name: the placeholder
// of its value and its help text. They are kept out of the struct tags
// because kong parses every tag of a grammar, rune by rune, each time it
// builds its model (every run), and they are read only when help is
// printed. The tables are slices, not maps: a slice of constants costs
// nothing at start-up, a map is built by every run.
type FlagDoc struct{ Name, PlaceHolder, Help string }
