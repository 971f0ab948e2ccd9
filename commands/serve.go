package commands

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
	"github.com/mcpv/mcpv/internal/hangup"
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
	listenFlags
	Isolate bool   `name:"isolate" help:"One upstream session for each HTTP client."`
	Record  string `name:"record" placeholder:"FILE" help:"On exit, write the server's surface to FILE (the answers seen beside it) for mcpv mock."`
	// NoToken serves --http on loopback without a bearer token.
	NoToken bool `name:"http-no-token" help:"Serve --http on loopback without a token, to every user of this machine."`
	guardFlags
}

// listenFlags say where a server is served: stdin and stdout, or HTTP.
type listenFlags struct {
	HTTP        string   `name:"http" placeholder:"ADDR" help:"Serve Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:8808; port 0 picks one)."`
	HTTPToken   string   `name:"http-token" placeholder:"@FILE|TOKEN" help:"Require this bearer token (@FILE reads it)."`
	AllowRemote bool     `name:"allow-remote" help:"Let --http listen beyond loopback (a bearer token is then required)."`
	AllowOrigin []string `name:"allow-origin" sep:"," placeholder:"ORIGIN" help:"Let web pages of ORIGIN use --http from a browser (never * or null)."`
	Path        string   `name:"path" placeholder:"PATH" help:"Serve --http's endpoint at PATH."`
	SSE         bool     `name:"sse" help:"Serve 2024-11-05 HTTP+SSE clients too."`
	NoCard      bool     `name:"no-card" help:"Publish no Server Card or catalog."`
}

func (l listenFlags) validate() error {
	if l.HTTP == "" && (l.HTTPToken != "" || l.AllowRemote) {
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
	return `Re-exposes the server to MCP clients of either era: on stdin and stdout (give the mcpv command line to an application that starts stdio servers), or with --http at /mcp for several clients, each with its own session. Its credentials stay in mcpv; --http asks every client for a bearer token; held to a pin (--pin), it withholds what moved. 'mcpv help serving' says how clients are admitted, /healthz, the Server Card, --sse, the guard and the pin.

Examples:

    $ mcpv serve -u https://mcp.example.com/mcp
    $ mcpv serve --http 127.0.0.1:8808 -- npx -y @modelcontextprotocol/server-x
    $ mcpv serve --read-only --deny-tools 'delete_*' -s github
    $ mcpv serve --pin pins.json -s github`
}

// servingTopic is 'mcpv help serving': what serve's help leaves out, and
// what mock shares with it.
const servingTopic = `mcpv serve re-exposes a server to MCP clients, and mcpv mock a server read from files, in the same way: on stdin and stdout (one client), or with --http as a Streamable HTTP endpoint at /mcp (--path PATH elsewhere), for several clients at once, each with its own session. A client may speak either era of the protocol, whatever the server speaks; --isolate gives each HTTP client an upstream session of its own.

The server's credentials (OAuth tokens, -H values, secret --env values) stay in mcpv: they are masked in every message a client gets. With --http every client must send a bearer token: --http-token, or one mcpv generates and prints once on stderr (--http-no-token serves loopback without one, to every user of the machine). --http listens on loopback only, unless --allow-remote.

Over --http, web pages served from loopback (and those of each --allow-origin) may use the endpoint from a browser: their CORS preflights are answered; a page of any other origin is refused. GET /healthz answers probes without the token: 200 while the server is up, 503 once it is gone. The server's Server Card (its name, version and description as it says them, and where serve is reached) is at the endpoint's URL + /server-card, and a catalog that lists it at /.well-known/ai-catalog.json and /.well-known/mcp/catalog.json, without the token and with none of the server's secrets (--no-card publishes neither). --path serves the endpoint elsewhere than /mcp; --sse serves clients of the 2024-11-05 HTTP+SSE transport too, at /sse beside /mcp.

The guard (--allow-tools, --deny-tools, the same for resources by URI and prompts by name, --read-only) hides what it does not allow from every list and refuses a request for it with a JSON-RPC error. A config entry may carry the same guard (guard:).

Held to a pin (--pin FILE, MCPV_PIN, or a config entry's pin:), serve withholds from every client what moved since the server was pinned (an item changed, new or gone, the instructions), as the guard hides what it does not allow, and says each move once on stderr. An approval (mcpv pin --approve) takes effect while serving: the clients are told which lists changed.

--allow-origin takes scheme://host[:port], repeated or comma-separated; --sse serves an event stream at /sse and messages POSTed to /message beside the endpoint (with --path /api/mcp, /api/sse and /api/message). --http-token @FILE reads the token from FILE; on the command line, every user of the machine can read it (MCPV_HTTP_TOKEN is the default). --http-no-token serves loopback without one: every user and program of the machine may then use the server, with its credentials. --record FILE writes, when serving ends, the server's surface as an mcpv test snapshot in FILE and the answers seen beside it (FILE with .responses.json for its extension), secrets masked: the two files of mcpv mock.`

func (c *serveCmd) notInBatch() {}

func (c *serveCmd) Validate() error {
	if err := c.listenFlags.validate(); err != nil {
		return err
	}
	if c.HTTP == "" && (c.Isolate || c.NoToken) {
		return usageErrorf("--isolate and --http-no-token go with --http")
	}
	if c.NoToken && (c.HTTPToken != "" || c.AllowRemote) {
		return usageErrorf("--http-no-token goes without --http-token and --allow-remote: beyond loopback a token is required")
	}
	if c.Record != "" && c.Isolate {
		return usageErrorf("--record goes without --isolate: it records the one shared session")
	}
	if err, ok := c.guard().Validate().(*config.EmptyPatternError); ok {
		return usageErrorf("--%s: an empty pattern matches nothing", strings.ReplaceAll(err.List, "_", "-"))
	}
	return nil
}

func (c *serveCmd) Run(ctx context.Context, s *session, out *console) error {
	// The endpoint hands out the use of the server's credentials: on
	// loopback too, every user of the machine could reach it.
	plan, err := c.listenPlan(out, !c.NoToken)
	if err != nil {
		return err
	}
	guard := serve.Guards{c.guard()}
	if g := s.settings.Guard; g != nil {
		guard = append(guard, *g)
	}
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
	secrets.Add(serve.SecretsOf(s.settings)...)
	srv := &serve.Server{
		Open: func(ctx context.Context, h connect.Hooks) (serve.Upstream, error) {
			open := connect.Open
			if s.settings.Session != "" {
				open = attach
			}
			c, err := open(ctx, s.settings, s.env, h)
			if err != nil {
				return nil, err
			}
			return serve.Conn(c), nil
		},
		Hooks:      s.hooks,
		Guard:      guard,
		Isolate:    c.Isolate,
		ClientCaps: c.HTTP == "" && s.settings.Session == "",
		Secrets:    secrets,
		Log:        s.hooks.Log,
		Pin:        s.servePin(),
	}
	if eraOfEachClient {
		modern := *s.settings
		modern.ProtocolEra = "modern"
		srv.OpenModern = func(ctx context.Context, h connect.Hooks) (serve.Upstream, error) {
			c, err := connect.Open(ctx, &modern, s.env, h)
			if err != nil {
				return nil, err
			}
			return serve.Conn(c), nil
		}
	}
	var rec *mock.Recorder
	if c.Record != "" {
		if err := checkRecordPath(out, c.Record); err != nil {
			return err
		}
		rec = mock.NewRecorder()
		srv.Record = rec
	}
	if err := srv.Start(ctx); err != nil {
		return err
	}
	defer srv.Close()
	err = plan.serve(ctx, srv, out)
	if rec != nil {
		if werr := writeRecording(out, c.Record, rec, secrets); werr != nil {
			return werr
		}
	}
	return err
}

// servePin is the pin file serve holds its server to (--pin, MCPV_PIN,
// the config entry's pin), read as a command held to it reads it; nil
// without one.
func (s *session) servePin() *serve.Pin {
	st := s.settings
	if st.Pin == "" {
		return nil
	}
	return &serve.Pin{Label: st.PinLabel, Entry: st.PinEntry, Approve: s.approveCommand(),
		Read: func() (*pin.File, error) { return readPinFile(st.Pin, st.PinTree, st.PinLabel) },
		Stat: func() (fs.FileInfo, error) { return os.Stat(st.Pin) }}
}

// checkRecordPath checks, before serving, where --record will write: a
// relative path's directories are those of the tree it names (no link
// out of it), and what the files replace is no directory.
func checkRecordPath(out *console, path string) error {
	if dir := filepath.Dir(path); !filepath.IsAbs(path) && dir != "." {
		if _, err := (safefile.Tree{Dir: out.env.Cwd}).Path(dir); err != nil {
			return usageErrorf("--record: %v", err)
		}
	}
	for _, p := range []string{path, surface.ResponsesBeside(path)} {
		if fi, err := os.Lstat(out.env.Path(p)); err == nil && fi.IsDir() {
			return usageErrorf("--record: %s is a directory", p)
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
	if n := rec.Skipped(); n > 0 {
		out.notef("%d answers were left out: a recording keeps %d MiB of answers", n, mock.DefaultMaxRecorded>>20)
	}
	return nil
}

// serve serves srv on stdin and stdout, or on HTTP, until the input ends,
// ctx is done or srv's upstream ends.
func (p listening) serve(ctx context.Context, srv *serve.Server, out *console) error {
	if p.addr == "" {
		st := serve.Stdio{In: out.ios.In, Out: out.ios.Out}
		if f, ok := out.ios.In.(io.Closer); ok {
			st.CloseIn = f.Close
		}
		if f, ok := out.ios.Out.(*os.File); ok {
			gone, stop := hangup.Watch(f)
			defer stop()
			st.Gone = gone
		}
		return srv.ServeStdio(ctx, st)
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return &mcp.TransportError{Op: "listen on " + p.addr, Err: err}
	}
	h := srv.HTTPHandler(p.token, p.remote)
	h.Origins, h.Path, h.SSE, h.NoCard = p.origins, p.path, p.sse, p.noCard
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }() // ends at Shutdown
	path := p.path
	if path == "" {
		path = serve.DefaultPath
	}
	out.notef("serving at http://%s%s", ln.Addr(), path)
	if p.sse {
		stream, _ := serve.LegacyPaths(path)
		out.notef("serving the HTTP+SSE transport at http://%s%s", ln.Addr(), stream)
	}
	select {
	case <-ctx.Done():
		err = context.Cause(ctx)
	case <-srv.Done():
		err = srv.Err()
		h.Settle()
	case err = <-served:
		err = &mcp.TransportError{Op: "serve HTTP", Err: err}
	}
	h.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	hs.Shutdown(sctx)
	cancel()
	return err
}

// listenPlan checks --http: a loopback address, or another with
// --allow-remote and a bearer token. A token is generated and shown once
// when none is given, beyond loopback or wherever tokenAlways.
func (c listenFlags) listenPlan(out *console, tokenAlways bool) (listening, error) {
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
	token, err := c.bearerToken(out)
	if err != nil {
		return listening{}, err
	}
	if token == "" && (remote || tokenAlways) {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return listening{}, errors.New("cannot generate a bearer token")
		}
		token = hex.EncodeToString(b)
		out.notef("clients must send Authorization: Bearer %s", token)
	}
	origins, _ := origin.NewPolicy(c.AllowOrigin) // checked by validate
	return listening{addr: c.HTTP, token: token, remote: remote, origins: origins, path: c.Path, sse: c.SSE, noCard: c.NoCard}, nil
}

// maxTokenFile bounds what --http-token @FILE reads: a token, not a file
// that happens to be there.
const maxTokenFile = 4 << 10

// bearerToken is the token --http-token gives: from @FILE (a regular
// file, as config files are read: not a device or a pipe that could hang
// or fill memory), else MCPV_HTTP_TOKEN; one on the command line works,
// with a warning, since every user of the machine can read a process's
// arguments.
func (c listenFlags) bearerToken(out *console) (string, error) {
	token := c.HTTPToken
	switch {
	case strings.HasPrefix(token, "@"):
		path := token[1:]
		b, err := safefile.Read(out.env.Path(path))
		if err == nil && len(b) > maxTokenFile {
			err = fmt.Errorf("%s is larger than %d KiB: not a token", path, maxTokenFile>>10)
		}
		if err != nil {
			return "", usageErrorf("--http-token: %v", err)
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return "", usageErrorf("--http-token: %s is empty", path)
		}
	case token != "":
		out.warnf("--http-token on the command line can be read by every user of this machine (ps); give it as @FILE or in MCPV_HTTP_TOKEN")
	default:
		token = out.env.Getenv("MCPV_HTTP_TOKEN")
	}
	return token, nil
}

// listening is where to serve: addr "" for stdin and stdout.
type listening struct {
	addr, token string
	remote      bool
	origins     origin.Policy
	path        string
	sse         bool
	noCard      bool
}
