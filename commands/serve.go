package commands

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/gateway"
	"github.com/mcpv/mcpv/internal/mock"
	"github.com/mcpv/mcpv/internal/origin"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

type serveCmd struct {
	File       string `arg:"" optional:"" placeholder:"FILE" help:"A serve file: the servers and the clients (YAML)."`
	All        bool   `name:"all" help:"Serve every server of the config files."`
	Separator  string `name:"separator" placeholder:"SEP" help:"What joins a server's prefix to a name (__)."`
	Start      string `name:"start" placeholder:"eager|lazy" help:"Start each server at once, or when needed."`
	HTTPTokens string `name:"http-tokens" placeholder:"FILE" help:"Clients' tokens, each with what it may see."`
	listenFlags
	Isolate bool   `name:"isolate" help:"One upstream session for each HTTP client."`
	Record  string `name:"record" placeholder:"FILE" help:"On exit, save the server to FILE for mock."`
	// NoToken serves --http on loopback without a bearer token.
	NoToken bool `name:"http-no-token" help:"No token: every local user may use --http."`
	guardFlags
}

// listenFlags say where a server is served: stdin and stdout, or HTTP.
type listenFlags struct {
	HTTP        string   `name:"http" placeholder:"ADDR" help:"Serve Streamable HTTP at ADDR (port 0: any)."`
	HTTPToken   []string `name:"http-token" sep:"none" placeholder:"@FILE|TOKEN" help:"Require a bearer token (repeatable; @FILE)."`
	AllowRemote bool     `name:"allow-remote" help:"Serve --http beyond loopback, with a token."`
	AllowOrigin []string `name:"allow-origin" sep:"," placeholder:"ORIGIN" help:"Let web pages of ORIGIN use --http."`
	Path        string   `name:"path" placeholder:"PATH" help:"Serve --http's endpoint at PATH."`
	SSE         bool     `name:"sse" help:"Serve 2024-11-05 HTTP+SSE clients too."`
	NoCard      bool     `name:"no-card" help:"Publish no Server Card or catalog."`
}

func (l listenFlags) validate() error {
	if l.HTTP == "" && (l.HTTPToken != nil || l.AllowRemote) {
		return usageErrorf("--http-token and --allow-remote go with --http")
	}
	if l.HTTP == "" && (l.AllowOrigin != nil || l.Path != "" || l.SSE || l.NoCard) {
		return usageErrorf("--allow-origin, --path, --sse and --no-card go with --http")
	}
	if _, err := origin.NewPolicy(l.AllowOrigin); err != nil {
		return usageErrorf("--allow-origin: %v", err)
	}
	if l.Path != "" {
		if err := serve.CheckPath(l.Path, l.SSE); err != nil {
			return usageErrorf("--path %q: %v", l.Path, err)
		}
	}
	return nil
}

// guardFlags are the guard of serve: what its clients may see and use.
type guardFlags struct {
	AllowTools     []string `name:"allow-tools" sep:"," placeholder:"GLOB" help:"Offer only the tools whose names match (* any run, ? one character)."`
	DenyTools      []string `name:"deny-tools" sep:"," placeholder:"GLOB" help:"Hide the tools whose names match."`
	AllowResources []string `name:"allow-resources" sep:"," placeholder:"GLOB" help:"Offer only the resources whose URIs match."`
	DenyResources  []string `name:"deny-resources" sep:"," placeholder:"GLOB" help:"Hide the resources whose URIs match."`
	AllowPrompts   []string `name:"allow-prompts" sep:"," placeholder:"GLOB" help:"Offer only the prompts whose names match."`
	DenyPrompts    []string `name:"deny-prompts" sep:"," placeholder:"GLOB" help:"Hide the prompts whose names match."`
	ReadOnly       bool     `name:"read-only" help:"Offer only tools annotated readOnlyHint."`
}

func (g guardFlags) guard() config.Guard {
	return config.Guard{AllowTools: g.AllowTools, DenyTools: g.DenyTools, AllowResources: g.AllowResources, DenyResources: g.DenyResources,
		AllowPrompts: g.AllowPrompts, DenyPrompts: g.DenyPrompts, ReadOnly: g.ReadOnly}
}

func (c *serveCmd) Help() string {
	return `Re-exposes servers to MCP clients of either era: on stdin and stdout, or with --http at /mcp for several clients, each with its own session; their credentials stay in mcpv. 'mcpv help serving' says how clients are admitted, the Server Card, the guard and the pin; 'mcpv help gateway' how several servers (-s more than once, --all, a serve FILE) are served as one.

Examples:

    $ mcpv serve -u https://mcp.example.com/mcp
    $ mcpv serve --http 127.0.0.1:8808 -- npx -y @modelcontextprotocol/server-x
    $ mcpv serve --read-only --deny-tools 'delete_*' -s github
    $ mcpv serve team.yaml --http 127.0.0.1:8808 --http-tokens clients.yaml`
}

// servingTopic is 'mcpv help serving': what serve's help leaves out, and
// what mock shares with it.
const servingTopic = `mcpv serve re-exposes a server to MCP clients, and mcpv mock a server read from files, in the same way: on stdin and stdout (one client), or with --http ADDR as a Streamable HTTP endpoint at http://ADDR/mcp (ADDR a loopback HOST:PORT such as 127.0.0.1:8808, port 0 picking one; --path PATH serves it elsewhere), for several clients at once, each with its own session. A client may speak either era of the protocol, whatever the server speaks; --isolate gives each HTTP client an upstream session of its own.

The server's credentials (OAuth tokens, -H values, secret --env values) stay in mcpv: they are masked in every message a client gets. With --http every client must send a bearer token: --http-token, or one mcpv generates and prints once on stderr (--http-no-token serves loopback without one, to every user of the machine). --http listens on loopback only, unless --allow-remote.

Over --http, web pages served from loopback (and those of each --allow-origin) may use the endpoint from a browser: their CORS preflights are answered; a page of any other origin is refused. GET /healthz answers probes without the token: 200 while the server is up, 503 once it is gone. The server's Server Card (its name, version and description as it says them, and where serve is reached) is at the endpoint's URL + /server-card, and a catalog that lists it at /.well-known/ai-catalog.json and /.well-known/mcp/catalog.json, without the token and with none of the server's secrets (--no-card publishes neither). --path serves the endpoint elsewhere than /mcp; --sse serves clients of the 2024-11-05 HTTP+SSE transport too, at /sse beside /mcp.

The guard (--allow-tools, --deny-tools, the same for resources by URI and prompts by name, --read-only) hides what it does not allow from every list and refuses a request for it with a JSON-RPC error. A config entry may carry the same guard (guard:).

Held to a pin (--pin FILE, MCPV_PIN, or a config entry's pin:), serve withholds from every client what moved since the server was pinned (an item changed, new or gone, the instructions), as the guard hides what it does not allow, and says each move once on stderr. An approval (mcpv pin --approve) takes effect while serving: the clients are told which lists changed.

--allow-origin takes scheme://host[:port], repeated or comma-separated (never * or null); --sse serves an event stream at /sse and messages POSTed to /message beside the endpoint (with --path /api/mcp, /api/sse and /api/message). --http-token @FILE reads the token from FILE (repeated, any of the tokens is taken); on the command line, every user of the machine can read it (MCPV_HTTP_TOKEN is the default). --http-no-token serves loopback without one: every user and program of the machine may then use the server, with its credentials. --record FILE writes, when serving ends, the server's surface as an mcpv test snapshot in FILE and the answers seen beside it (FILE with .responses.json for its extension), secrets masked: the two files of mcpv mock.`

// gatewayTopic is 'mcpv help gateway': serve with several servers.
const gatewayTopic = `mcpv serve serves several servers behind one endpoint when given -s NAME more than once, --all (every server of the config files, as 'mcpv servers' lists them), or a serve FILE (YAML: each server with its own guard, pin, variables, OAuth settings, prefix, start and isolation, and the clients with their tokens; docs/mcpv-serve.schema.json).

Their tools and prompts are named SERVER__NAME (--separator puts another separator between; a serve file may give a server another prefix, or none), resources keep their URIs, and lists span the servers page by page. Over --http each server is also reachable alone at /mcp/NAME.

Each server starts when serving starts (in the background: the endpoint answers at once) or, with --start lazy, at the first request that needs it. One that fails, hangs or floods is marked down, its items withdrawn (the clients are told their lists changed) and started again with back-off, said once on stderr; the others go on. /healthz then says which servers are up: 200 with "ok" or "degraded" (a server down), 503 when none can serve.

Several --http-token values each see everything; the clients of --http-tokens FILE (YAML: clients: NAME: {token_file, token_env, servers, guard}; a file yours alone) or of the serve file each see the servers and names they are given, and nothing else: the rest is not there for them. The endpoint's Server Card is the gateway's own (mcpv, as it names itself in initialize), naming none of its servers; a server reached alone at /mcp/NAME publishes none, and --no-card none at all.

Examples:

    $ mcpv serve -s github -s notes --http 127.0.0.1:8808
    $ mcpv serve --all --start lazy --separator . --http 127.0.0.1:8808
    $ mcpv serve gateway.serve.yaml --http 127.0.0.1:8808 \
        --http-tokens clients.yaml`

func (c *serveCmd) notInBatch() {}

func (c *serveCmd) Validate() error {
	if err := c.listenFlags.validate(); err != nil {
		return err
	}
	if c.HTTP == "" && (c.Isolate || c.NoToken || c.HTTPTokens != "") {
		return usageErrorf("--isolate, --http-no-token and --http-tokens go with --http")
	}
	if c.NoToken && (c.HTTPToken != nil || c.HTTPTokens != "" || c.AllowRemote) {
		return usageErrorf("--http-no-token goes without --http-token, --http-tokens and --allow-remote: beyond loopback a token is required")
	}
	if c.File != "" && c.All {
		return usageErrorf("give a serve FILE or --all, not both")
	}
	if c.Start != "" && c.Start != "eager" && c.Start != "lazy" {
		return usageErrorf("--start %q: give eager or lazy", c.Start)
	}
	if c.Separator != "" {
		if err := gateway.CheckSeparator(c.Separator); err != nil {
			return usageErrorf("--separator: %v", err)
		}
	}
	if c.Record != "" && c.Isolate {
		return usageErrorf("--record goes without --isolate: it records the one shared session")
	}
	if err, ok := c.guard().Validate().(*config.EmptyPatternError); ok {
		return usageErrorf("--%s: an empty pattern matches nothing", strings.ReplaceAll(err.List, "_", "-"))
	}
	return nil
}

func (c *serveCmd) serverChoosing() {}

// Run serves the server the command line names, or several behind one
// endpoint: a serve file's, every config server's (--all), or those -s
// names.
func (c *serveCmd) Run(ctx context.Context, out *console, t *targets) error {
	if c.File != "" || c.All || len(t.r.c.flags.Servers) > 1 {
		return c.serveMany(ctx, out, t)
	}
	if c.Separator != "" || c.Start != "" {
		return usageErrorf("--separator and --start go with several servers (-s more than once, --all, or a serve FILE)")
	}
	s, err := t.open("")
	if err != nil {
		return err
	}
	defer s.close()
	return c.serveOne(ctx, s, out)
}

// serveOne serves one server.
func (c *serveCmd) serveOne(ctx context.Context, s *session, out *console) error {
	// The endpoint hands out the use of the server's credentials: on
	// loopback too, every user of the machine could reach it.
	plan, err := c.listenPlan(out, !c.NoToken, c.HTTPTokens != "")
	if err != nil {
		return err
	}
	if c.HTTPTokens != "" {
		if plan.clients, err = c.tokenViews(out, plan.tokens, nil, nil); err != nil {
			return err
		}
	}
	srv, secrets := c.server(s, c.HTTP == "" && s.settings.Session == "", c.Isolate)
	var rec *mock.Recorder
	if c.Record != "" {
		if err := checkWritePath(out, "--record", c.Record, c.Record, surface.ResponsesBeside(c.Record)); err != nil {
			return err
		}
		rec = mock.NewRecorder()
		srv.Record = rec
	}
	srv.Observe = out.served(srv.Observe)
	if err := srv.Start(ctx); err != nil {
		return err
	}
	defer srv.Close()
	err = plan.serve(ctx, srv, out)
	if rec != nil {
		err = cmp.Or(writeRecording(out, c.Record, rec, secrets), err)
	}
	return err
}

// server is the Server of s's server, behind the command line's guard
// and its entry's (and more); clientCaps and isolate as Server's. It
// masks the secrets it returns.
func (c *serveCmd) server(s *session, clientCaps, isolate bool, more ...config.Guard) (*serve.Server, *redact.Scrubber) {
	guard := s.guards(c.guard(), more...)
	eraOfEachClient := s.settings.ProtocolEra == "auto" && s.settings.ProtocolVersion == "" && s.settings.URL != "" && s.settings.Session == ""
	if s.settings.ProtocolEra == "auto" && s.settings.ProtocolVersion == "" {
		// The initialize era upstream, unless asked otherwise: there a
		// server may ask its questions mid-call, take subscriptions and
		// a log level, as most clients expect; a modern client is
		// answered by translation, or, by a server reached over HTTP, in
		// a session of its own era when the server speaks it.
		s.settings.ProtocolEra = "legacy"
	}
	secrets := redact.NewScrubber(io.Discard)
	secrets.Add(serve.SecretsOf(s.settings.Secrets, s.settings.Env)...)
	srv := &serve.Server{
		Open: func(ctx context.Context, r serve.Relay) (serve.Upstream, error) {
			open := connect.Open
			if s.settings.Session != "" {
				open = attach
			}
			return relayed(open(ctx, s.settings, s.env, relayHooks(s.hooks, r)))
		},
		Guard:      guard,
		Isolate:    isolate,
		ClientCaps: clientCaps,
		Secrets:    secrets,
		Log:        s.hooks.Log,
	}
	// The pin file the server is held to (--pin, MCPV_PIN, the config
	// entry's pin), read as a command held to it reads it.
	if st := s.settings; st.Pin != "" {
		srv.Pin = &serve.Pin{Label: st.PinLabel, Entry: st.PinEntry, Approve: s.approveCommand(), Strict: st.PinStrict,
			Read: func() (*pin.File, error) { return readPinFile(st.Pin, st.PinTree, st.PinLabel) },
			Stat: func() (fs.FileInfo, error) { return os.Stat(st.Pin) }}
	}
	if eraOfEachClient {
		modern := *s.settings
		modern.ProtocolEra = "modern"
		srv.OpenModern = func(ctx context.Context, r serve.Relay) (serve.Upstream, error) {
			return relayed(connect.Open(ctx, &modern, s.env, relayHooks(s.hooks, r)))
		}
	}
	return srv, secrets
}

// guards are own, the guard of the session's config entry, and more, in
// that order: something passes when every one of them allows it.
func (s *session) guards(own config.Guard, more ...config.Guard) serve.Guards {
	g := serve.Guards{own}
	if s.settings.Guard != nil {
		g = append(g, *s.settings.Guard)
	}
	return append(g, more...)
}

// checkWritePath checks, before serving, where flag (--record, --log)
// will write path: a relative path's directories are those of the tree it
// names (no link out of it), and what files replace is no directory.
func checkWritePath(out *console, flag, path string, files ...string) error {
	if dir := filepath.Dir(path); !filepath.IsAbs(path) && dir != "." {
		if _, err := (safefile.Tree{Dir: out.env.Cwd}).Path(dir); err != nil {
			return usageErrorf("%s: %v", flag, err)
		}
	}
	for _, p := range files {
		if fi, err := os.Lstat(out.env.Path(p)); err == nil && fi.IsDir() {
			return usageErrorf("%s: %s is a directory", flag, p)
		}
	}
	return nil
}

// writeRecording writes the snapshot to path and the responses beside it,
// with every secret masked, each replacing by a rename what was there
// (safefile.Replace): never written through a link.
func writeRecording(out *console, path string, rec *mock.Recorder, secrets *redact.Scrubber) error {
	snapshot, responses := rec.Files()
	for _, f := range []struct {
		path string
		data []byte
	}{{path, snapshot}, {surface.ResponsesBeside(path), responses}} {
		if err := safefile.Replace(out.env.Path(f.path), mock.Mask(f.data, secrets)); err != nil {
			return fmt.Errorf("--record: %w", err)
		}
	}
	out.notef("recorded %s and %s", path, surface.ResponsesBeside(path))
	if n, bad := rec.Skipped(); n+bad > 0 {
		out.notef("%d answers were left out: %d past the %d MiB a recording keeps, %d whose params or list items do not decode", n+bad, n, mock.DefaultMaxRecorded>>20, bad)
	}
	return nil
}

// serve serves srv on stdin and stdout, or on HTTP, until the input ends,
// ctx is done or srv's upstream ends.
func (p listening) serve(ctx context.Context, srv *serve.Server, out *console) error {
	if p.HTTP == "" {
		return p.serveStdio(ctx, srv, out)
	}
	h := srv.HTTPHandler(p.token(), p.remote)
	h.Origins, h.Path, h.SSE, h.NoCard = p.origins, p.Path, p.SSE, p.NoCard
	if p.clients != nil {
		h.SetClients(p.clients)
	}
	return p.serveHTTP(ctx, out, h, srv.Done(), srv.Err, nil)
}

// serveStdio serves srv's one client on stdin and stdout.
func (p listening) serveStdio(ctx context.Context, srv *serve.Server, out *console) error {
	st := serve.Stdio{In: out.ios.In, Out: out.ios.Out}
	if f, ok := out.ios.In.(io.Closer); ok {
		st.CloseIn = f.Close
	}
	if f, ok := out.ios.Out.(*os.File); ok {
		gone, stop := watchHangup(f)
		defer stop()
		st.Gone = gone
	}
	return srv.ServeStdio(ctx, st)
}

// endpoint is what serveHTTP serves: a server's handler, or a gateway's.
type endpoint interface {
	http.Handler
	Drain(grace time.Duration) // opens no session; waits for what is asked
	Settle()                   // waits, within a bound, for what is asked
	Close()                    // ends every session
}

// serveHTTP serves h at p's address until ctx is done or done is closed
// (why says why), then shuts down: the listener closes at once, so that
// a balancer's next connection goes to another replica; after a signal
// (ctx) h drains for serve.DrainGrace, after the upstream's end it
// settles, and then its sessions close. It says where it serves, and
// announce, unless nil, says more.
func (p listening) serveHTTP(ctx context.Context, out *console, h endpoint, done <-chan struct{}, why func() error, announce func(addr net.Addr, path string)) error {
	ln, err := net.Listen("tcp", p.HTTP)
	if err != nil {
		return &mcp.TransportError{Op: "listen on " + p.HTTP, Err: err}
	}
	// IdleTimeout: a kept-alive connection with no request on it ends,
	// so that no local process can hold connections open by the
	// thousand once one request of each was answered (a stream in
	// progress is no idle connection).
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(serve.KeepBacklog(ln)) }() // serve's HTTP server: ends at Shutdown, answering what the kernel took before
	path := cmp.Or(p.Path, serve.DefaultPath)
	out.notef("serving at http://%s%s", ln.Addr(), path)
	if announce != nil {
		announce(ln.Addr(), path)
	}
	if p.SSE {
		stream, _ := serve.LegacyPaths(path)
		out.notef("serving the HTTP+SSE transport at http://%s%s", ln.Addr(), stream)
	}
	stop := h.Settle
	select {
	case <-ctx.Done():
		err = context.Cause(ctx)
		stop = func() { h.Drain(serve.DrainGrace) }
	case <-done:
		err = why()
	case err = <-served:
		err = &mcp.TransportError{Op: "serve HTTP", Err: err}
	}
	sctx, cancel := context.WithTimeout(context.Background(), serve.DrainGrace+2*time.Second)
	defer cancel()
	shut := make(chan struct{})
	go func() { // serve's HTTP shutdown: ends once every request has, or at sctx's bound
		hs.Shutdown(sctx)
		close(shut)
	}()
	stop()
	h.Close() // the streams end, and with them their requests
	<-shut
	return err
}

// listenPlan checks --http: a loopback address, or another with
// --allow-remote and a bearer token. A token is generated and shown once
// when none is given, beyond loopback or wherever tokenAlways, unless
// others will be (more: a token file).
func (c listenFlags) listenPlan(out *console, tokenAlways, more bool) (listening, error) {
	if c.HTTP == "" {
		return listening{}, nil
	}
	host, _, err := net.SplitHostPort(c.HTTP)
	if err != nil {
		return listening{}, usageErrorf("--http %s: give HOST:PORT, e.g. 127.0.0.1:8808", c.HTTP)
	}
	remote := !origin.Loopback(host)
	if remote && !c.AllowRemote {
		return listening{}, usageErrorf("--http %s: not a loopback address; add --allow-remote to serve beyond this machine, with a bearer token", c.HTTP)
	}
	tokens, err := c.bearerTokens(out)
	if err != nil {
		return listening{}, err
	}
	if len(tokens) == 0 && !more && (remote || tokenAlways) {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return listening{}, errors.New("cannot generate a bearer token")
		}
		tokens = []string{hex.EncodeToString(b)}
		out.notef("clients must send Authorization: Bearer %s", tokens[0])
	}
	origins, _ := origin.NewPolicy(c.AllowOrigin) // checked by validate
	return listening{listenFlags: c, tokens: tokens, remote: remote, origins: origins}, nil
}

// maxTokenFile bounds what --http-token @FILE reads: a token, not a file
// that happens to be there.
const maxTokenFile = 4 << 10

// bearerTokens are the tokens --http-token gives: each from @FILE (a
// regular file, as config files are read: not a device or a pipe that
// could hang or fill memory) or as given; none given, MCPV_HTTP_TOKEN. One
// on the command line works, with a warning, since every user of the
// machine can read a process's arguments.
func (c listenFlags) bearerTokens(out *console) ([]string, error) {
	var tokens []string
	warned := false
	for _, token := range c.HTTPToken {
		switch {
		case strings.HasPrefix(token, "@"):
			path := token[1:]
			b, err := safefile.Read(out.env.Path(path))
			if err == nil && len(b) > maxTokenFile {
				err = fmt.Errorf("%s is larger than %d KiB: not a token", path, maxTokenFile>>10)
			}
			if err != nil {
				return nil, usageErrorf("--http-token: %v", err)
			}
			if token = strings.TrimSpace(string(b)); token == "" {
				return nil, usageErrorf("--http-token: %s is empty", path)
			}
		case token == "":
			return nil, usageErrorf("--http-token: a token cannot be empty")
		case !warned:
			warned = true
			out.warnf("--http-token on the command line can be read by every user of this machine (ps); give it as @FILE or in MCPV_HTTP_TOKEN")
		}
		tokens = append(tokens, token)
	}
	if token := out.env.Getenv("MCPV_HTTP_TOKEN"); tokens == nil && token != "" {
		tokens = []string{token}
	}
	return tokens, nil
}

// listening is where to serve, as the flags say (HTTP "" for stdin and
// stdout), with what they were found to mean.
type listening struct {
	listenFlags
	tokens  []string       // any of them is taken
	clients *serve.Clients // in place of tokens: each token's view
	remote  bool
	origins origin.Policy
}

// token is the one token a one-token endpoint takes ("": none); with
// several, clients say which.
func (p *listening) token() string {
	if len(p.tokens) == 1 && p.clients == nil {
		return p.tokens[0]
	}
	if len(p.tokens) > 1 && p.clients == nil {
		views := map[string]*serve.View{}
		for _, t := range p.tokens {
			views[t] = nil
		}
		p.clients, _ = serve.NewClients(views)
	}
	return ""
}

// relayHooks are the command line's hooks h as serve opens an upstream
// session with them: the server's progress and log go to the clients
// they belong to, not to serve's terminal; its notifications, requests
// and the secrets the session learns go where r says (beside h's own);
// the session's reader waits while its queue of notifications is full,
// and while a client is behind, rather than drop what the server says.
func relayHooks(h connect.Hooks, r serve.Relay) connect.Hooks {
	h.Status = nil
	h.LogsElsewhere = true
	h.NoteBackPressure = true
	h.OnNotification, h.Route = r.OnNotification, r.Route
	h.Capabilities, h.AwaitCapabilities = r.Capabilities, r.AwaitCapabilities
	if gate, relay := h.ReadGate, r.ReadGate; relay != nil {
		h.ReadGate = func(last int) {
			relay(last)
			if gate != nil {
				gate(last)
			}
		}
	}
	if learned, relay := h.Secret, r.Secret; relay != nil {
		h.Secret = func(values ...string) {
			relay(values...)
			if learned != nil {
				learned(values...)
			}
		}
	}
	return h
}

// relayed is an upstream session for serve to relay: c, once opened.
func relayed(c *connect.Conn, err error) (serve.Upstream, error) {
	if err != nil {
		return nil, err
	}
	return serve.ClientUpstream(c.Client, func(ctx context.Context, name string) (json.RawMessage, bool) {
		t, err := c.Tools.Find(ctx, c.Client, name)
		return t.Raw, err == nil
	}, c.Close), nil
}
