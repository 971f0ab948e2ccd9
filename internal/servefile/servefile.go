// Package servefile reads a serve file: the servers mcpv serve puts
// behind one endpoint, each with its own settings, and the clients that
// may use it, each with its bearer token and what it may see. It is YAML
// (or JSON), read as mcpv's config files are (a regular file, bounded,
// every mistake named by its line and column), and its schema is
// docs/mcpv-serve.schema.json. A token file (mcpv serve --http-tokens)
// holds the clients alone.
//
// A server is one of the user's config servers, by name, with what the
// serve file adds to it (a guard, a pin, variables, headers, OAuth
// settings), or an entry of its own, as the mcpv catalog writes one.
// Nothing here starts, reaches or resolves a server: the command line
// does, with the config files and the trust store.
package servefile

import (
	"bytes"
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// File is a serve file as read.
type File struct {
	// Source is where it is, and how far it is trusted (a file under the
	// current repository is a project file: its own stdio entries run
	// once the user trusts it).
	Source config.Source
	// Separator, Start and ConnectTimeout are the file's defaults; ""
	// and 0 when it sets none.
	Separator      string
	Start          string // "eager" or "lazy"
	ConnectTimeout time.Duration
	Servers        []*Server
	Clients        []*Client
}

// Server is one server of a serve file.
type Server struct {
	// Name is the name it is served under (its path beside the endpoint,
	// its prefix unless Prefix says otherwise).
	Name string
	// Config is the config server it is, when it is one (by default its
	// Name); Entry is its own entry otherwise.
	Config string
	Entry  *config.Server
	// Prefix, when not nil, is its names' prefix ("" for none).
	Prefix *string
	// Start and ConnectTimeout, when set, are its own.
	Start          string
	ConnectTimeout time.Duration
	// Isolate gives each client a session of its own with it.
	Isolate bool
	// Record, when set, is where to record what passes (mcpv serve
	// --record), relative to the file's directory.
	Record string
	// What the file adds to a config server's entry (an entry of its
	// own has them in Entry): its guard beside the entry's, a pin in
	// place of the entry's (relative to the file's directory), variables
	// and headers after the entry's, OAuth settings and a timeout over
	// the entry's.
	Guard           *config.Guard
	Pin             string
	Env, Headers    []config.Var
	OAuth           config.OAuth
	Timeout         time.Duration
	ProtocolVersion string
	// Line and Col are where it is written.
	Line, Col int
}

// Client is one client of the endpoint: its bearer token (read from a
// file of the user's own, or a variable of the environment), the servers
// it sees (nil: all) and its guard over the names it sees there.
type Client struct {
	Name      string
	TokenFile string // absolute
	TokenEnv  string
	Servers   []string
	Guard     *config.Guard
	Line, Col int
}

// Keys the parser reads, which the schema's properties must be.
var (
	// TopKeys are those at the top of a serve file (and x-*, left alone).
	TopKeys = []string{"separator", "start", "connect_timeout", "servers", "clients"}
	// ServeKeys are a server's keys of serve's own.
	ServeKeys = []string{"server", "prefix", "start", "connect_timeout", "isolate", "record"}
	// AddKeys are what a server's block may add to a config server.
	AddKeys = []string{"guard", "pin", "env", "headers", "oauth", "timeout", "protocol_version"}
	// EntryKeys are those of an entry of its own (the catalog's).
	EntryKeys = []string{"command", "args", "env", "cwd", "url", "headers", "type", "transport", "http", "timeout",
		"oauth", "guard", "pin", "framing", "protocol_version"}
	// ClientKeys are a client's.
	ClientKeys = []string{"token_file", "token_env", "servers", "guard"}
)

// Read reads the serve file at path (relative to cwd).
func Read(path, cwd string) (*File, error) {
	src := config.Classify(config.FileSource(path, cwd, "serve file"), cwd)
	src.Own = true
	data, err := safefile.Read(src.Path)
	if err != nil {
		return nil, &config.FileError{Path: path, Err: config.UnwrapPathError(err)}
	}
	f, err := Parse(src, data)
	if err != nil {
		return nil, &config.FileError{Path: path, Err: err}
	}
	return f, nil
}

// ReadClients reads a token file: its clients alone.
func ReadClients(path, cwd string) ([]*Client, error) {
	src := config.FileSource(path, cwd, "token file")
	data, err := safefile.ReadOwn(src.Path)
	if err != nil {
		return nil, &config.FileError{Path: path, Err: config.UnwrapPathError(err)}
	}
	root, err := parse(src, data, "a token file")
	if err == nil {
		err = checkKeys(root, []string{"clients"}, "the top of the file", true)
	}
	var clients []*Client
	if err == nil {
		clients, err = clientsOf(root.Get("clients"), src.Folder)
	}
	if err != nil {
		return nil, &config.FileError{Path: path, Err: err}
	}
	return clients, nil
}

// parse reads the document of src.
func parse(src config.Source, data []byte, what string) (*yamlnode.Node, error) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	var root *yamlnode.Node
	var err error
	if src.YAML || !strings.HasSuffix(src.Path, ".json") {
		root, err = config.ParseYAML(data, what)
	} else {
		root, err = config.ParseJSON(data)
	}
	if err != nil {
		return nil, err
	}
	if root.Kind != yamlnode.Object {
		return nil, yamlnode.ErrorAt(root, "want an object, found %s", root.Kind.Noun())
	}
	return root, nil
}

// Parse reads a serve file's data, from src.
func Parse(src config.Source, data []byte) (*File, error) {
	root, err := parse(src, data, "a serve file")
	if err != nil {
		return nil, err
	}
	if err := checkKeys(root, TopKeys, "the top of the file", true); err != nil {
		return nil, err
	}
	f := &File{Source: src}
	if f.Separator, err = str(root, "separator", ""); err != nil {
		return nil, err
	}
	if f.Start, err = startOf(root, ""); err != nil {
		return nil, err
	}
	if f.ConnectTimeout, err = config.ParseDuration("", "connect_timeout", root.Get("connect_timeout")); err != nil {
		return nil, err
	}
	servers := root.Get("servers")
	if servers == nil || servers.Kind != yamlnode.Object || len(servers.Keys) == 0 {
		return nil, yamlnode.ErrorAt(cmp.Or(servers, root), "servers: want an object of the servers to serve, by name")
	}
	cf := &config.File{Source: src, Data: data}
	for i, k := range servers.Keys {
		s, err := serverOf(cf, k.Text, servers.Vals[i])
		if err != nil {
			return nil, err
		}
		f.Servers = append(f.Servers, s)
	}
	if f.Clients, err = clientsOf(root.Get("clients"), src.Folder); err != nil {
		return nil, err
	}
	for _, c := range f.Clients {
		for _, name := range c.Servers {
			if !slices.ContainsFunc(f.Servers, func(s *Server) bool { return s.Name == name }) {
				return nil, &yamlnode.Error{Line: c.Line, Col: c.Col, Msg: fmt.Sprintf("client %q: no server %q here%s", c.Name, name, suggest.DidYouMean(name, serverNames(f)))}
			}
		}
	}
	return f, nil
}

func serverNames(f *File) []string {
	var out []string
	for _, s := range f.Servers {
		out = append(out, s.Name)
	}
	return out
}

// serverOf reads the server called name.
func serverOf(cf *config.File, name string, n *yamlnode.Node) (*Server, error) {
	if n.Kind == yamlnode.Null {
		n = &yamlnode.Node{Kind: yamlnode.Object, Line: n.Line, Col: n.Col} // "github:" alone: the config server
	}
	if n.Kind != yamlnode.Object {
		return nil, yamlnode.ErrorAt(n, "server %q: want an object, found %s", name, n.Kind.Noun())
	}
	s := &Server{Name: name, Line: n.Line, Col: n.Col}
	own := n.Get("command") != nil || n.Get("url") != nil || n.Get("http") != nil
	allowed := append(slices.Clone(ServeKeys), AddKeys...)
	if own {
		allowed = append(slices.Clone(ServeKeys), EntryKeys...)
		allowed = slices.DeleteFunc(allowed, func(k string) bool { return k == "server" })
	}
	if err := checkKeys(n, allowed, fmt.Sprintf("server %q", name), false); err != nil {
		if own || n.Get("args") == nil && n.Get("cwd") == nil {
			return nil, err
		}
		return nil, yamlnode.ErrorAt(n, "server %q: args and cwd go with a command of its own; a config server's come from its entry", name)
	}
	var err error
	if s.Config, err = str(n, "server", name); err != nil {
		return nil, err
	}
	if p := n.Get("prefix"); p != nil {
		if p.Kind != yamlnode.String && p.Kind != yamlnode.Null {
			return nil, yamlnode.ErrorAt(p, "server %q: prefix must be a string (\"\" for none), not %s", name, p.Kind.Noun())
		}
		prefix := p.Text
		s.Prefix = &prefix
	}
	if s.Start, err = startOf(n, name); err != nil {
		return nil, err
	}
	if s.ConnectTimeout, err = config.ParseDuration(name, "connect_timeout", n.Get("connect_timeout")); err != nil {
		return nil, err
	}
	if v := n.Get("isolate"); v != nil {
		if v.Kind != yamlnode.Bool {
			return nil, yamlnode.ErrorAt(v, "server %q: isolate must be true or false, not %s", name, v.Kind.Noun())
		}
		s.Isolate = v.JSON == "true"
	}
	if s.Record, err = str(n, "record", ""); err != nil {
		return nil, err
	}
	if own {
		rest := &yamlnode.Node{Kind: yamlnode.Object, Line: n.Line, Col: n.Col}
		for i, k := range n.Keys {
			if !slices.Contains(ServeKeys, k.Text) {
				rest.Keys, rest.Vals = append(rest.Keys, k), append(rest.Vals, n.Vals[i])
			}
		}
		if s.Entry, err = cf.Entry(name, rest); err != nil {
			return nil, err
		}
		s.Config = ""
		return s, nil
	}
	if s.Guard, err = config.ParseGuard(name, n.Get("guard")); err != nil {
		return nil, err
	}
	if s.Pin, err = str(n, "pin", ""); err != nil {
		return nil, err
	}
	if s.Env, err = config.ParseVars(name, "env", n.Get("env")); err != nil {
		return nil, err
	}
	if s.Headers, err = config.ParseVars(name, "headers", n.Get("headers")); err != nil {
		return nil, err
	}
	if s.OAuth, err = config.ParseOAuth(name, n.Get("oauth")); err != nil {
		return nil, err
	}
	if s.Timeout, err = config.ParseDuration(name, "timeout", n.Get("timeout")); err != nil {
		return nil, err
	}
	if s.ProtocolVersion, err = str(n, "protocol_version", ""); err != nil {
		return nil, err
	}
	return s, nil
}

// clientsOf reads the clients (an object of them by name), their token
// files relative to dir.
func clientsOf(n *yamlnode.Node, dir string) ([]*Client, error) {
	if n == nil || n.Kind == yamlnode.Null {
		return nil, nil
	}
	if n.Kind != yamlnode.Object {
		return nil, yamlnode.ErrorAt(n, "clients: want an object of the clients by name, found %s", n.Kind.Noun())
	}
	var out []*Client
	for i, k := range n.Keys {
		v := n.Vals[i]
		name := k.Text
		if v.Kind != yamlnode.Object {
			return nil, yamlnode.ErrorAt(v, "client %q: want an object, found %s", name, v.Kind.Noun())
		}
		if err := checkKeys(v, ClientKeys, fmt.Sprintf("client %q", name), false); err != nil {
			return nil, err
		}
		c := &Client{Name: name, Line: v.Line, Col: v.Col}
		var err error
		if c.TokenFile, err = str(v, "token_file", ""); err != nil {
			return nil, err
		}
		if c.TokenEnv, err = str(v, "token_env", ""); err != nil {
			return nil, err
		}
		if (c.TokenFile == "") == (c.TokenEnv == "") {
			return nil, yamlnode.ErrorAt(v, "client %q: give its bearer token as token_file (a file of yours alone) or token_env (a variable's name), one of them", name)
		}
		if c.TokenFile != "" && !filepath.IsAbs(c.TokenFile) {
			c.TokenFile = filepath.Join(dir, c.TokenFile)
		}
		if s := v.Get("servers"); s != nil {
			if c.Servers, err = config.ParseStrings(name, "servers", s); err != nil {
				return nil, err
			}
			if c.Servers == nil {
				c.Servers = []string{}
			}
		}
		if c.Guard, err = config.ParseGuard(name, v.Get("guard")); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// checkKeys refuses a key of n that is not one of keys (or, at the top
// of a file, starting with x-, left alone).
func checkKeys(n *yamlnode.Node, keys []string, where string, top bool) error {
	for _, k := range n.Keys {
		if slices.Contains(keys, k.Text) || top && strings.HasPrefix(k.Text, "x-") {
			continue
		}
		return yamlnode.ErrorAt(k, "%s: unknown key %q%s", where, k.Text, suggest.DidYouMean(k.Text, keys))
	}
	return nil
}

// str reads the string member key of n, def when it is missing.
func str(n *yamlnode.Node, key, def string) (string, error) {
	v := n.Get(key)
	if v == nil {
		return def, nil
	}
	if v.Kind != yamlnode.String {
		return "", yamlnode.ErrorAt(v, "%s must be a string, not %s", key, v.Kind.Noun())
	}
	return v.Text, nil
}

// startOf reads start: eager or lazy.
func startOf(n *yamlnode.Node, name string) (string, error) {
	s, err := str(n, "start", "")
	if err == nil && s != "" && s != "eager" && s != "lazy" {
		where := "start"
		if name != "" {
			where = fmt.Sprintf("server %q: start", name)
		}
		err = yamlnode.ErrorAt(n.Get("start"), "%s must be eager or lazy, not %q", where, s)
	}
	return s, err
}
