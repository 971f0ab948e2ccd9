package config

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/duration"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// parse fills f.Servers from f.Data.
func (f *File) parse() error {
	// A UTF-8 byte-order mark (PowerShell 5.1 writes one) is not part of
	// the document; trust is still given to the file's bytes, mark and all.
	text := bytes.TrimPrefix(f.Data, []byte("\xEF\xBB\xBF"))
	tables, err := f.tables(text)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, t := range tables {
		if t == nil {
			continue
		}
		if t.Kind != yamlnode.Object {
			return yamlnode.ErrorAt(t, "want an object of servers by name, found %s", t.Kind.Noun())
		}
		for i, k := range t.Keys {
			if seen[k.Text] {
				continue
			}
			seen[k.Text] = true
			s, err := f.Entry(k.Text, t.Vals[i])
			if err != nil {
				return err
			}
			f.Servers = append(f.Servers, s)
		}
	}
	return nil
}

// tables are the objects of servers in the file, in the order their
// entries count. Every format has its servers in an object of name →
// entry: "mcpServers" (Claude Desktop, Claude Code, Cursor), "servers"
// (VS Code, the mcpv catalog); ~/.claude.json adds the entries of the
// current project under "projects" → path → "mcpServers", which come
// first there, as in Claude Code. Another program's file is skimmed for
// them, whatever else it holds; mcpv's own files hold nothing else.
func (f *File) tables(text []byte) ([]*yamlnode.Node, error) {
	var root *yamlnode.Node
	if f.YAML {
		var err error
		if root, err = yamlnode.Parse(text, yamlnode.Options{What: "a config file", MaxNodes: maxYAMLNodes}); err != nil {
			return nil, err
		}
	} else {
		data, err := checkJSON(text)
		if err != nil {
			return nil, err
		}
		if !f.Own {
			inputs, err := jsonAt(data, "inputs")
			if err != nil {
				return nil, err
			}
			if f.Inputs, err = inputsOf(inputs); err != nil {
				return nil, err
			}
			return f.skim(data)
		}
		if root, err = jsonAt(data); err != nil {
			return nil, err
		}
	}
	if root.Kind != yamlnode.Object {
		want := "an object"
		if f.YAML {
			want = "a mapping"
		}
		return nil, yamlnode.ErrorAt(root, "want %s with \"servers\", found %s", want, root.Kind.Noun())
	}
	if err := checkTopKeys(root); err != nil {
		return nil, err
	}
	var err error
	if f.Inputs, err = inputsOf(root.Get("inputs")); err != nil {
		return nil, err
	}
	if f.YAML {
		return []*yamlnode.Node{root.Get("servers"), root.Get("mcpServers")}, nil
	}
	return []*yamlnode.Node{root.Get("mcpServers"), root.Get("servers")}, nil
}

// skim finds the objects of servers in another program's JSON file,
// converting only them: ~/.claude.json may be large.
func (f *File) skim(data []byte) ([]*yamlnode.Node, error) {
	var paths [][]string
	if f.project != "" {
		paths = append(paths, []string{"projects", f.project, "mcpServers"})
	}
	paths = append(paths, []string{"mcpServers"}, []string{"servers"})
	var tables []*yamlnode.Node
	for _, p := range paths {
		n, err := jsonAt(data, p...)
		if err != nil {
			return nil, err
		}
		tables = append(tables, n)
	}
	return tables, nil
}

// topKeys are the keys mcpv reads at the top of its own files.
var topKeys = []string{"servers", "mcpServers", "inputs"}

// checkTopKeys refuses a key at the top of one of mcpv's own files that
// mcpv does not read: a catalog whose servers were written at the top, or
// under a misspelt "servers", would otherwise be read as empty without a
// word. Keys starting with x- are left alone, a place for YAML anchors.
// A YAML file is in mcpv's format (no program whose files mcpv reads
// writes YAML); another program's JSON file, even one named by --config,
// is skimmed for its servers, whatever else it holds.
func checkTopKeys(root *yamlnode.Node) error {
	for _, k := range root.Keys {
		if slices.Contains(topKeys, k.Text) || strings.HasPrefix(k.Text, "x-") {
			continue
		}
		hint := cmp.Or(suggest.DidYouMean(k.Text, topKeys),
			" (servers go under \"servers\"; keys starting with x- are left alone)")
		return yamlnode.ErrorAt(k, "unknown key %q at the top of the file%s", k.Text, hint)
	}
	return nil
}

// Entry reads the server called name at n, an entry of f (whose Source
// says how far it is trusted and where its relative paths start). It
// accepts the fields of every format: a file may mix them, and a field
// another client invented is ignored.
func (f *File) Entry(name string, n *yamlnode.Node) (*Server, error) {
	if n.Kind != yamlnode.Object {
		return nil, yamlnode.ErrorAt(n, "server %q: want an object, found %s", name, n.Kind.Noun())
	}
	if name == "" {
		return nil, yamlnode.ErrorAt(n, "a server needs a name")
	}
	s := &Server{Name: name, File: f, Line: n.Line, Col: n.Col}
	var err error
	str := func(key string) string {
		v := n.Get(key)
		if v == nil || err != nil {
			return ""
		}
		if v.Kind != yamlnode.String {
			err = yamlnode.ErrorAt(v, "server %q: %s must be a string, not %s", name, key, v.Kind.Noun())
			return ""
		}
		return v.Text
	}
	s.Command = str("command")
	s.Cwd = str("cwd")
	s.URL = str("url")
	typ := str("type")
	transport := str("transport")
	s.Framing = str("framing")
	s.Pin = str("pin")
	if v := n.Get("pinStrict"); v != nil && err == nil {
		if v.Kind != yamlnode.Bool {
			err = yamlnode.ErrorAt(v, "server %q: pinStrict must be true or false, not %s", name, v.Kind.Noun())
		}
		s.PinStrict = v.Text == "true"
	}
	s.ProtocolVersion = str("protocol_version")
	if s.ProtocolVersion == "" {
		s.ProtocolVersion = str("protocolVersion")
	}
	if err != nil {
		return nil, err
	}
	if s.Args, err = ParseStrings(name, "args", n.Get("args")); err != nil {
		return nil, err
	}
	if s.Env, err = ParseVars(name, "env", n.Get("env")); err != nil {
		return nil, err
	}
	if s.Headers, err = ParseVars(name, "headers", n.Get("headers")); err != nil {
		return nil, err
	}
	if h := n.Get("http"); h != nil {
		if h.Kind != yamlnode.Object {
			return nil, yamlnode.ErrorAt(h, "server %q: http must be an object, not %s", name, h.Kind.Noun())
		}
		if e := h.Get("endpoint"); e != nil {
			if e.Kind != yamlnode.String {
				return nil, yamlnode.ErrorAt(e, "server %q: http.endpoint must be a string, not %s", name, e.Kind.Noun())
			}
			if s.URL != "" {
				return nil, yamlnode.ErrorAt(e, "server %q: give url or http.endpoint, not both", name)
			}
			s.URL = e.Text
		}
		more, err := ParseVars(name, "http.headers", h.Get("headers"))
		if err != nil {
			return nil, err
		}
		s.Headers = append(s.Headers, more...)
	}
	if s.Timeout, err = ParseDuration(name, "timeout", n.Get("timeout")); err != nil {
		return nil, err
	}
	if s.OAuth, err = ParseOAuth(name, n.Get("oauth")); err != nil {
		return nil, err
	}
	if s.NoExtensions, err = extensionsOf(name, n.Get("extensions")); err != nil {
		return nil, err
	}
	if s.Guard, err = ParseGuard(name, n.Get("guard")); err != nil {
		return nil, err
	}
	if v := n.Get("if_declared"); v != nil {
		if v.Kind != yamlnode.Bool {
			return nil, yamlnode.ErrorAt(v, "server %q: if_declared must be true or false, not %s", name, v.Kind.Noun())
		}
		s.IfDeclared = v.JSON == "true"
	}
	if n.Get("envFile") != nil {
		s.Warnings = append(s.Warnings, "envFile is not read; list the variables under env")
	}
	if s.Transport, err = transportOf(s, n, typ, transport); err != nil {
		return nil, err
	}
	switch {
	case s.Framing == "":
	case s.Framing != "auto" && s.Framing != "lines" && s.Framing != "content-length":
		return nil, yamlnode.ErrorAt(n.Get("framing"), "server %q: unknown framing %q (want auto, lines or content-length)", name, s.Framing)
	case s.Transport != "stdio":
		return nil, yamlnode.ErrorAt(n.Get("framing"), "server %q: framing is for stdio servers", name)
	}
	return s, nil
}

// transportOf settles the transport from "transport" (the mcpv catalog),
// "type" (the others) or, failing both, from whether there is a command or
// a URL.
func transportOf(s *Server, n *yamlnode.Node, typ, transport string) (string, error) {
	word, field := transport, "transport"
	if word == "" {
		word, field = typ, "type"
	}
	t := "stdio"
	switch strings.ToLower(word) {
	case "":
		if s.URL != "" {
			t = "auto"
		}
	case "stdio":
	case "http", "streamable_http", "streamable-http", "streamablehttp":
		t = "streamable-http"
	case "sse":
		t = "sse"
	default:
		return "", yamlnode.ErrorAt(n.Get(field), "server %q: unknown %s %q (want stdio, streamable_http or sse)", s.Name, field, word)
	}
	switch {
	case s.Command != "" && s.URL != "":
		return "", yamlnode.ErrorAt(n, "server %q: has both a command and a URL", s.Name)
	case t == "stdio" && s.Command == "":
		return "", yamlnode.ErrorAt(n, "server %q: needs a command (or a url)", s.Name)
	case t != "stdio" && s.URL == "":
		return "", yamlnode.ErrorAt(n, "server %q: %s %q needs a url", s.Name, field, word)
	case t != "stdio" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != ""):
		return "", yamlnode.ErrorAt(n, "server %q: args, env and cwd are for stdio servers", s.Name)
	case t == "stdio" && len(s.Headers) > 0:
		return "", yamlnode.ErrorAt(n, "server %q: headers are for HTTP servers", s.Name)
	}
	return t, nil
}

// ParseOAuth reads an entry's oauth: block; snake_case and camelCase names
// are both accepted (Claude Code writes clientId). No block (nil) is none.
func ParseOAuth(name string, n *yamlnode.Node) (OAuth, error) {
	if n == nil {
		return OAuth{}, nil
	}
	if n.Kind != yamlnode.Object {
		return OAuth{}, yamlnode.ErrorAt(n, "server %q: oauth must be an object, not %s", name, n.Kind.Noun())
	}
	var o OAuth
	fields := []struct {
		names []string
		to    *string
	}{
		{[]string{"client_id", "clientId"}, &o.ClientID},
		{[]string{"client_secret", "clientSecret"}, &o.ClientSecret},
		{[]string{"client_key", "clientKey"}, &o.ClientKey},
		{[]string{"client_metadata_url", "clientMetadataUrl"}, &o.ClientMetadataURL},
		{[]string{"grant"}, &o.Grant},
		{[]string{"assertion"}, &o.Assertion},
		{[]string{"dpop"}, &o.DPoP},
		{[]string{"resource"}, &o.Resource},
		{[]string{"redirect_host", "redirectHost"}, &o.RedirectHost},
		{[]string{"redirect_path", "redirectPath"}, &o.RedirectPath},
	}
	for _, f := range fields {
		for _, key := range f.names {
			if v := n.Get(key); v != nil {
				if v.Kind != yamlnode.String {
					return OAuth{}, yamlnode.ErrorAt(v, "server %q: oauth.%s must be a string, not %s", name, key, v.Kind.Noun())
				}
				*f.to = v.Text
			}
		}
	}
	var err error
	if v := n.Get("scope"); v != nil {
		scopes := []string{v.Text} // "read write", or a list
		if v.Kind != yamlnode.String {
			if scopes, err = ParseStrings(name, "oauth.scope", v); err != nil {
				return OAuth{}, err
			}
		}
		o.Scope = strings.Join(strings.Fields(strings.Join(scopes, " ")), " ")
	}
	for _, key := range []string{"redirect_port", "redirectPort"} {
		if v := n.Get(key); v != nil {
			port, perr := strconv.Atoi(v.Text)
			if (v.Kind != yamlnode.Number && v.Kind != yamlnode.String) || perr != nil {
				return OAuth{}, yamlnode.ErrorAt(v, "server %q: oauth.%s must be a port number, not %s", name, key, v.Kind.Noun())
			}
			o.RedirectPort = port
		}
	}
	for _, key := range []string{"login_timeout", "loginTimeout"} {
		if v := n.Get(key); v != nil {
			if o.LoginTimeout, err = ParseDuration(name, "oauth."+key, v); err != nil {
				return OAuth{}, err
			}
		}
	}
	switch strings.ReplaceAll(o.Grant, "-", "_") {
	case "", "authorization_code", "client_credentials", "jwt_bearer":
		o.Grant = strings.ReplaceAll(o.Grant, "-", "_")
	default:
		return OAuth{}, yamlnode.ErrorAt(n.Get("grant"), "server %q: unknown oauth.grant %q (want authorization_code, client_credentials or jwt_bearer)", name, o.Grant)
	}
	if !slices.Contains([]string{"", "auto", "always", "never"}, o.DPoP) {
		return OAuth{}, yamlnode.ErrorAt(n.Get("dpop"), "server %q: unknown oauth.dpop %q (want auto, always or never)", name, o.DPoP)
	}
	return o, nil
}

// ParseStrings reads an entry's array of strings (field names it).
func ParseStrings(name, field string, n *yamlnode.Node) ([]string, error) {
	if n == nil || n.Kind == yamlnode.Null {
		return nil, nil
	}
	if n.Kind != yamlnode.Array {
		return nil, yamlnode.ErrorAt(n, "server %q: %s must be an array of strings, not %s", name, field, n.Kind.Noun())
	}
	out := make([]string, 0, len(n.Items))
	for _, it := range n.Items {
		if it.Kind == yamlnode.Object || it.Kind == yamlnode.Array || it.Kind == yamlnode.Null {
			return nil, yamlnode.ErrorAt(it, "server %q: %s must hold strings, not %s", name, field, it.Kind.Noun())
		}
		out = append(out, it.Text)
	}
	return out, nil
}

// ParseVars reads an entry's env: or headers: block (field names it): an
// object of names to scalar values (a number or boolean stands for its
// text, as a shell would pass it).
func ParseVars(name, field string, n *yamlnode.Node) ([]Var, error) {
	if n == nil || n.Kind == yamlnode.Null {
		return nil, nil
	}
	if n.Kind != yamlnode.Object {
		return nil, yamlnode.ErrorAt(n, "server %q: %s must be an object of names to strings, not %s", name, field, n.Kind.Noun())
	}
	out := make([]Var, 0, len(n.Keys))
	for i, k := range n.Keys {
		v := n.Vals[i]
		if v.Kind == yamlnode.Object || v.Kind == yamlnode.Array || v.Kind == yamlnode.Null {
			return nil, yamlnode.ErrorAt(v, "server %q: %s.%s must be a string, not %s", name, field, k.Text, v.Kind.Noun())
		}
		if k.Text == "" || strings.ContainsAny(k.Text, "=\x00") {
			return nil, yamlnode.ErrorAt(v, "server %q: %s has a bad name %q", name, field, k.Text)
		}
		out = append(out, Var{Name: k.Text, Value: v.Text})
	}
	return out, nil
}

// ParseDuration reads an entry's duration (field names it) as --timeout
// does (duration.Parse): a Go duration ("30s", "2m") or a number of
// seconds, written as a number or as a string. No duration (nil) is 0.
func ParseDuration(name, field string, n *yamlnode.Node) (time.Duration, error) {
	if n == nil {
		return 0, nil
	}
	if n.Kind != yamlnode.Number && n.Kind != yamlnode.String {
		return 0, yamlnode.ErrorAt(n, "server %q: %s must be a duration such as \"30s\" or a number of seconds, not %s", name, field, n.Kind.Noun())
	}
	d, err := duration.Parse(n.Text)
	if err != nil {
		return 0, yamlnode.ErrorAt(n, "server %q: %s %v", name, field, err)
	}
	return d, nil
}

// maxYAMLNodes (and two per byte of the file) bound the values a YAML file
// becomes once its aliases are expanded: without a bound, a few hundred
// bytes of aliases of aliases ("billion laughs") expand to 10⁸ values and
// more, and mcpv hangs filling its memory.
const maxYAMLNodes = 100_000
