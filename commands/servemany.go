package commands

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/gateway"
	"github.com/mcpv/mcpv/internal/mock"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/servefile"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/output"
)

// member is one server serve puts behind its endpoint, as the command
// line and a serve file make it.
type member struct {
	name           string
	s              *session
	prefix         *string
	start          string
	connectTimeout time.Duration
	isolate        bool
	record         string // where its recording goes, as the user wrote it
	recordPath     string // and resolved
	guard          *config.Guard
}

// serveMany serves several servers behind one endpoint: a serve file's,
// every config server (--all), or those -s names.
func (c *serveCmd) serveMany(ctx context.Context, out *console, t *targets) error {
	f := t.r.c.flags
	if len(t.server) > 0 || f.URL != "" || f.Session != "" || (c.File != "" || c.All) && f.Server != "" {
		return usageErrorf("with several servers, name each with -s NAME (or in a serve FILE, or every one with --all), and no other")
	}
	if c.Record != "" {
		return usageErrorf("--record records one server: with several, give each its record: FILE in a serve file")
	}
	var file *servefile.File
	if c.File != "" {
		var err error
		if file, err = servefile.Read(c.File, out.env.Cwd); err != nil {
			return configError(err)
		}
		if err := checkServeFileTrust(out, file); err != nil {
			return err
		}
	}
	members, err := c.members(out, t, file)
	if err != nil {
		return err
	}
	plan, err := c.listenPlan(out, !c.NoToken, c.HTTPTokens != "" || file != nil && len(file.Clients) > 0)
	if err != nil {
		return err
	}
	if c.HTTP != "" && (plan.tokens != nil || c.HTTPTokens != "" || file != nil && file.Clients != nil) {
		var fromFile []*servefile.Client
		if file != nil {
			fromFile = file.Clients
		}
		if plan.clients, err = c.tokenViews(out, plan.tokens, fromFile, members); err != nil {
			return err
		}
	}
	secrets := redact.NewScrubber(io.Discard)
	g := &gateway.Gateway{Separator: c.Separator, Secrets: secrets, Log: members[0].s.hooks.Log,
		Info: mustJSON(map[string]string{"name": "mcpv", "title": "mcpv gateway", "version": Version})}
	if g.Separator == "" && file != nil {
		g.Separator = file.Separator
	}
	var recs []*mock.Recorder
	for _, m := range members {
		var more []config.Guard
		if m.guard != nil {
			more = append(more, *m.guard)
		}
		srv, _ := c.server(m.s, false, c.Isolate || m.isolate, more...)
		secrets.Add(serve.SecretsOf(m.s.settings.Secrets, m.s.settings.Env)...)
		var rec *mock.Recorder
		if m.record != "" {
			rec = mock.NewRecorder()
			srv.Record = rec
		}
		srv.Observe = out.served(srv.Observe)
		recs = append(recs, rec)
		g.Members = append(g.Members, &gateway.Member{Name: m.name, Prefix: m.prefix, Server: srv, Eager: m.start != "lazy"})
	}
	if err := g.Check(); err != nil {
		return usageErrorf("%v", err)
	}
	if err := g.Start(ctx); err != nil {
		return err
	}
	defer g.Close()
	if plan.HTTP == "" {
		err = plan.serveStdio(ctx, g.Server(), out)
	} else {
		h := g.HTTPHandler(plan.clients, plan.remote, plan.Path, func(h *serve.HTTPHandler) {
			h.Origins, h.SSE, h.NoCard = plan.origins, plan.SSE, plan.NoCard
		})
		err = plan.serveHTTP(ctx, out, h, nil, nil, func(addr net.Addr, path string) {
			var each []string
			for _, m := range members {
				each = append(each, fmt.Sprintf("http://%s%s/%s", addr, strings.TrimSuffix(path, "/"), m.name))
			}
			out.notef("serving %d servers together there, and each alone: %s", len(members), strings.Join(each, " "))
		})
	}
	g.Close()
	for i, m := range members {
		if recs[i] != nil {
			err = cmp.Or(err, writeRecording(out, m.recordPath, recs[i], secrets))
		}
	}
	return err
}

// members are the servers to serve: the serve file's, every config
// server's (--all: one that cannot be used is left out, said once), or
// those -s names, each resolved with the command line's flags.
func (c *serveCmd) members(out *console, t *targets, file *servefile.File) ([]member, error) {
	var members []member
	switch {
	case file != nil:
		for _, fs := range file.Servers {
			m, err := c.fileMember(out, t, file, fs)
			if err != nil {
				return nil, err
			}
			members = append(members, m)
		}
	case c.All:
		names, err := configServers(out, t)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			if err := gateway.CheckName(name); err != nil {
				out.warnf("serve: server %q is left out: %v; a serve file can serve it under another name", safetext.Line(name), err)
				continue
			}
			s, err := t.open(name)
			if err != nil {
				out.warnf("serve: server %q is left out: %v", safetext.Line(name), err)
				continue
			}
			members = append(members, member{name: name, s: s})
		}
		if len(members) == 0 {
			return nil, usageErrorf("no server of the config files can be served")
		}
	default:
		for _, name := range t.r.c.flags.Servers {
			if err := gateway.CheckName(name); err != nil {
				return nil, usageErrorf("-s %v; a serve file can serve it under another name", err)
			}
			if slices.ContainsFunc(members, func(m member) bool { return m.name == name }) {
				return nil, usageErrorf("-s %s is given twice", name)
			}
			s, err := t.open(name)
			if err != nil {
				return nil, err
			}
			members = append(members, member{name: name, s: s})
		}
	}
	for i := range members {
		m := &members[i]
		m.start = cmp.Or(m.start, c.Start)
		if m.connectTimeout > 0 && !explicitFlags(t.r.kctx)["connect-timeout"] {
			m.s.settings.ConnectTimeout = m.connectTimeout
		}
	}
	return members, nil
}

// fileMember is the serve file's server fs, resolved: a config server
// with what the file adds to its entry, or the file's own entry; its
// start and connect timeout are its own, else (--start) the file's.
func (c *serveCmd) fileMember(out *console, t *targets, file *servefile.File, fs *servefile.Server) (member, error) {
	m := member{name: fs.Name, prefix: fs.Prefix, start: cmp.Or(fs.Start, c.Start, file.Start),
		connectTimeout: cmp.Or(max(fs.ConnectTimeout, 0), max(file.ConnectTimeout, 0)), isolate: fs.Isolate, guard: fs.Guard}
	if err := gateway.CheckName(fs.Name); err != nil {
		return m, usageErrorf("%s:%d:%d: %v", c.File, fs.Line, fs.Col, err)
	}
	entry := fs.Entry
	if entry == nil {
		cenv := t.r.env.Config(t.r.env.Path(t.r.c.flags.Config))
		found, skipped, err := config.Find(cenv, fs.Config)
		connect.WarnSkipped(output.NewLogger(out.ios.Err), skipped)
		if err != nil {
			return m, configError(fmt.Errorf("%s:%d:%d: server %q: %w", c.File, fs.Line, fs.Col, fs.Name, err))
		}
		entry = withAdditions(found, fs)
	}
	// The entry's session, with the command line's flags.
	s, err := t.r.sessionOf(connect.ResolveEntry(t.r.c.flags, explicitFlags(t.r.kctx), entry, t.r.env, output.NewLogger(t.r.ios.Err)))
	if err != nil {
		return m, err
	}
	m.s = s
	if fs.Pin != "" {
		st := s.settings
		st.Pin, st.PinLabel, st.PinEntry = fs.Pin, fs.Pin, fs.Config
		if !filepath.IsAbs(st.Pin) {
			st.Pin = filepath.Join(file.Source.Folder, fs.Pin)
		}
		if file.Source.Kind == config.Project {
			st.PinTree = file.Source.Folder
		}
		if t.r.c.flags.Pin != "" { // the command line's wins, as over an entry's
			st.Pin, st.PinLabel, st.PinTree = out.env.Path(t.r.c.flags.Pin), t.r.c.flags.Pin, ""
		}
	}
	if fs.Record != "" {
		m.record, m.recordPath = fs.Record, fs.Record
		if !filepath.IsAbs(fs.Record) {
			m.recordPath = filepath.Join(file.Source.Folder, fs.Record)
		}
		// A relative path stays beside the file; a project's file (a
		// cloned repository's) records inside the project alone, however
		// the path is written, as its pin: paths are read there alone.
		if !filepath.IsAbs(fs.Record) || file.Source.Kind == config.Project {
			if _, err := (safefile.Tree{Dir: file.Source.Folder}).Path(fs.Record); err != nil {
				return m, usageErrorf("%s: server %q: record: %v", c.File, fs.Name, err)
			}
		}
	}
	return m, nil
}

// withAdditions is a config server's entry with what a serve file adds to
// it: variables and headers after its own, a timeout, a protocol
// version and OAuth settings over its own. Its file is still the config
// file, whose trust it needs.
func withAdditions(s *config.Server, fs *servefile.Server) *config.Server {
	x := *s
	x.Env = append(slices.Clone(s.Env), fs.Env...)
	x.Headers = append(slices.Clone(s.Headers), fs.Headers...)
	x.Timeout = cmp.Or(max(fs.Timeout, 0), x.Timeout)
	x.ProtocolVersion = cmp.Or(fs.ProtocolVersion, x.ProtocolVersion)
	o, add := &x.OAuth, fs.OAuth
	for _, f := range []struct{ to, from *string }{
		{&o.ClientID, &add.ClientID}, {&o.ClientSecret, &add.ClientSecret}, {&o.ClientKey, &add.ClientKey},
		{&o.ClientMetadataURL, &add.ClientMetadataURL}, {&o.Grant, &add.Grant}, {&o.Assertion, &add.Assertion},
		{&o.DPoP, &add.DPoP}, {&o.Resource, &add.Resource}, {&o.Scope, &add.Scope},
		{&o.RedirectHost, &add.RedirectHost}, {&o.RedirectPath, &add.RedirectPath},
	} {
		*f.to = cmp.Or(*f.from, *f.to)
	}
	o.RedirectPort = cmp.Or(add.RedirectPort, o.RedirectPort)
	o.LoginTimeout = cmp.Or(add.LoginTimeout, o.LoginTimeout)
	return &x
}

// checkServeFileTrust refuses a serve file of the project (under the
// current repository) until its content is trusted: what it adds to a
// config server (variables, headers) reaches what that server runs or is
// sent, as its own entries do.
func checkServeFileTrust(out *console, file *servefile.File) error {
	if file.Source.Kind != config.Project {
		return nil
	}
	data, err := safefile.Read(file.Source.Path)
	if err != nil {
		return configError(err)
	}
	trusted, err := out.env.TrustStore().Trusted(file.Source.Path, data)
	if err != nil || trusted {
		return err
	}
	rel := file.Source.Path
	if r, err := filepath.Rel(out.env.Cwd, rel); err == nil && !strings.HasPrefix(r, "..") {
		rel = r
	}
	return configError(fmt.Errorf("%s is not trusted: a serve file of the project says what runs and what is sent; review it, then run: mcpv trust %s", rel, shellwords.Quote(rel)))
}

// tokenViews are the clients of the endpoint: tokens (each seeing
// everything), the clients of --http-tokens and those of the serve file,
// each with its view. A client's token comes from a file of the user's
// alone, or a variable; no two clients share one.
func (c *serveCmd) tokenViews(out *console, tokens []string, fromFile []*servefile.Client, members []member) (*serve.Clients, error) {
	views := map[string]*serve.View{}
	for _, t := range tokens {
		views[t] = nil
	}
	clients := slices.Clone(fromFile)
	if c.HTTPTokens != "" {
		more, err := servefile.ReadClients(c.HTTPTokens, out.env.Cwd)
		if err != nil {
			return nil, usageErrorf("--http-tokens: %v", err)
		}
		clients = append(clients, more...)
	}
	for _, cl := range clients {
		token, err := clientToken(out, cl)
		if err != nil {
			return nil, err
		}
		if _, dup := views[token]; dup {
			return nil, usageErrorf("client %q: its token is another client's too: give each its own", cl.Name)
		}
		for _, name := range cl.Servers {
			if members != nil && !slices.ContainsFunc(members, func(m member) bool { return m.name == name }) {
				return nil, usageErrorf("client %q: no server %q is served", cl.Name, name)
			}
		}
		v := &serve.View{Name: cl.Name, Servers: cl.Servers}
		if cl.Guard != nil {
			v.Guard = *cl.Guard
		}
		views[token] = v
	}
	if len(views) == 0 {
		return nil, usageErrorf("no client has a bearer token: give --http-token, or clients in the serve file or --http-tokens")
	}
	return serve.NewClients(views)
}

// clientToken reads a client's bearer token.
func clientToken(out *console, cl *servefile.Client) (string, error) {
	if cl.TokenEnv != "" {
		token := out.env.Getenv(cl.TokenEnv)
		if token == "" {
			return "", usageErrorf("client %q: its token variable %s is not set", cl.Name, cl.TokenEnv)
		}
		return token, nil
	}
	b, err := safefile.ReadPrivate(cl.TokenFile)
	if err == nil && len(b) > maxTokenFile {
		err = fmt.Errorf("%s is larger than %d KiB: not a token", cl.TokenFile, maxTokenFile>>10)
	}
	if err != nil {
		return "", usageErrorf("client %q: token_file: %v", cl.Name, err)
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", usageErrorf("client %q: %s is empty", cl.Name, cl.TokenFile)
	}
	return token, nil
}
