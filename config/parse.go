package config

import (
	"bytes"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/duration"
)

// parse fills f.Servers from f.Data. Every format has its servers in an
// object of name → entry: "mcpServers" (Claude Desktop, Claude Code, Cursor),
// "servers" (VS Code, the mcpv catalog); ~/.claude.json adds the entries of
// the current project under "projects" → path → "mcpServers", which come
// first there, as in Claude Code.
func (f *File) parse() error {
	// A UTF-8 byte-order mark (PowerShell 5.1 writes one) is not part of
	// the document; trust is still given to the file's bytes, mark and all.
	text := bytes.TrimPrefix(f.Data, []byte("\xEF\xBB\xBF"))
	var tables []*node
	if f.YAML {
		root, err := parseYAML(text)
		if err != nil {
			return err
		}
		if root.kind != kindObject {
			return errorAt(root, "want a mapping with \"servers\", found %s", root.kind)
		}
		tables = []*node{root.get("servers"), root.get("mcpServers")}
	} else {
		data, err := checkJSON(text)
		if err != nil {
			return err
		}
		var paths [][]string
		if f.project != "" {
			paths = append(paths, []string{"projects", f.project, "mcpServers"})
		}
		paths = append(paths, []string{"mcpServers"}, []string{"servers"})
		for _, p := range paths {
			n, err := jsonAt(data, p...)
			if err != nil {
				return err
			}
			tables = append(tables, n)
		}
	}
	seen := map[string]bool{}
	for _, t := range tables {
		if t == nil {
			continue
		}
		if t.kind != kindObject {
			return errorAt(t, "want an object of servers by name, found %s", t.kind)
		}
		for _, m := range t.members {
			if seen[m.key] {
				continue
			}
			seen[m.key] = true
			s, err := f.entry(m.key, m.val)
			if err != nil {
				return err
			}
			f.Servers = append(f.Servers, s)
		}
	}
	return nil
}

// entry reads one server. It accepts the fields of every format: a file may
// mix them, and a field another client invented is ignored.
func (f *File) entry(name string, n *node) (*Server, error) {
	if n.kind != kindObject {
		return nil, errorAt(n, "server %q: want an object, found %s", name, n.kind)
	}
	if name == "" {
		return nil, errorAt(n, "a server needs a name")
	}
	s := &Server{Name: name, File: f, Line: n.line, Col: n.col}
	var err error
	str := func(key string) string {
		v := n.get(key)
		if v == nil || err != nil {
			return ""
		}
		if v.kind != kindString {
			err = errorAt(v, "server %q: %s must be a string, not %s", name, key, v.kind)
			return ""
		}
		return v.text
	}
	s.Command = str("command")
	s.Cwd = str("cwd")
	s.URL = str("url")
	typ := str("type")
	transport := str("transport")
	s.Framing = str("framing")
	s.ProtocolVersion = str("protocol_version")
	if s.ProtocolVersion == "" {
		s.ProtocolVersion = str("protocolVersion")
	}
	if err != nil {
		return nil, err
	}
	if s.Args, err = strings1(name, "args", n.get("args")); err != nil {
		return nil, err
	}
	if s.Env, err = vars(name, "env", n.get("env")); err != nil {
		return nil, err
	}
	if s.Headers, err = vars(name, "headers", n.get("headers")); err != nil {
		return nil, err
	}
	if h := n.get("http"); h != nil {
		if h.kind != kindObject {
			return nil, errorAt(h, "server %q: http must be an object, not %s", name, h.kind)
		}
		if e := h.get("endpoint"); e != nil {
			if e.kind != kindString {
				return nil, errorAt(e, "server %q: http.endpoint must be a string, not %s", name, e.kind)
			}
			if s.URL != "" {
				return nil, errorAt(e, "server %q: give url or http.endpoint, not both", name)
			}
			s.URL = e.text
		}
		more, err := vars(name, "http.headers", h.get("headers"))
		if err != nil {
			return nil, err
		}
		s.Headers = append(s.Headers, more...)
	}
	if t := n.get("timeout"); t != nil {
		if s.Timeout, err = timeoutOf(name, t); err != nil {
			return nil, err
		}
	}
	if o := n.get("oauth"); o != nil {
		if s.OAuth, err = oauthOf(name, o); err != nil {
			return nil, err
		}
	}
	if n.get("envFile") != nil {
		s.Warnings = append(s.Warnings, "envFile is not read; list the variables under env")
	}
	if s.Transport, err = transportOf(s, n, typ, transport); err != nil {
		return nil, err
	}
	if s.Framing != "" {
		switch {
		case s.Framing != "auto" && s.Framing != "lines" && s.Framing != "content-length":
			return nil, errorAt(n.get("framing"), "server %q: unknown framing %q (want auto, lines or content-length)", name, s.Framing)
		case s.Transport != "stdio":
			return nil, errorAt(n.get("framing"), "server %q: framing is for stdio servers", name)
		}
	}
	return s, nil
}

// transportOf settles the transport from "transport" (the mcpv catalog),
// "type" (the others) or, failing both, from whether there is a command or
// a URL.
func transportOf(s *Server, n *node, typ, transport string) (string, error) {
	word, field := transport, "transport"
	if word == "" {
		word, field = typ, "type"
	}
	var t string
	switch strings.ToLower(word) {
	case "":
		if s.URL != "" {
			t = "auto"
		} else {
			t = "stdio"
		}
	case "stdio":
		t = "stdio"
	case "http", "streamable_http", "streamable-http", "streamablehttp":
		t = "streamable-http"
	case "sse":
		t = "sse"
	default:
		return "", errorAt(n.get(field), "server %q: unknown %s %q (want stdio, streamable_http or sse)", s.Name, field, word)
	}
	switch {
	case s.Command != "" && s.URL != "":
		return "", errorAt(n, "server %q: has both a command and a URL", s.Name)
	case t == "stdio" && s.Command == "":
		return "", errorAt(n, "server %q: needs a command (or a url)", s.Name)
	case t != "stdio" && s.URL == "":
		return "", errorAt(n, "server %q: %s %q needs a url", s.Name, field, word)
	case t != "stdio" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != ""):
		return "", errorAt(n, "server %q: args, env and cwd are for stdio servers", s.Name)
	case t == "stdio" && len(s.Headers) > 0:
		return "", errorAt(n, "server %q: headers are for HTTP servers", s.Name)
	}
	return t, nil
}

// oauthOf reads an entry's "oauth" object; snake_case and camelCase names
// are both accepted (Claude Code writes clientId).
func oauthOf(name string, n *node) (OAuth, error) {
	if n.kind != kindObject {
		return OAuth{}, errorAt(n, "server %q: oauth must be an object, not %s", name, n.kind)
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
	}
	for _, f := range fields {
		for _, key := range f.names {
			if v := n.get(key); v != nil {
				if v.kind != kindString {
					return OAuth{}, errorAt(v, "server %q: oauth.%s must be a string, not %s", name, key, v.kind)
				}
				*f.to = v.text
			}
		}
	}
	switch strings.ReplaceAll(o.Grant, "-", "_") {
	case "", "authorization_code", "client_credentials", "jwt_bearer":
		o.Grant = strings.ReplaceAll(o.Grant, "-", "_")
	default:
		return OAuth{}, errorAt(n.get("grant"), "server %q: unknown oauth.grant %q (want authorization_code, client_credentials or jwt_bearer)", name, o.Grant)
	}
	switch o.DPoP {
	case "", "auto", "always", "never":
	default:
		return OAuth{}, errorAt(n.get("dpop"), "server %q: unknown oauth.dpop %q (want auto, always or never)", name, o.DPoP)
	}
	return o, nil
}

func strings1(name, field string, n *node) ([]string, error) {
	if n == nil || n.kind == kindNull {
		return nil, nil
	}
	if n.kind != kindArray {
		return nil, errorAt(n, "server %q: %s must be an array of strings, not %s", name, field, n.kind)
	}
	out := make([]string, 0, len(n.items))
	for _, it := range n.items {
		if it.kind == kindObject || it.kind == kindArray || it.kind == kindNull {
			return nil, errorAt(it, "server %q: %s must hold strings, not %s", name, field, it.kind)
		}
		out = append(out, it.text)
	}
	return out, nil
}

// vars reads an object of names to scalar values (a number or boolean
// stands for its text, as a shell would pass it).
func vars(name, field string, n *node) ([]Var, error) {
	if n == nil || n.kind == kindNull {
		return nil, nil
	}
	if n.kind != kindObject {
		return nil, errorAt(n, "server %q: %s must be an object of names to strings, not %s", name, field, n.kind)
	}
	out := make([]Var, 0, len(n.members))
	for _, m := range n.members {
		v := m.val
		if v.kind == kindObject || v.kind == kindArray || v.kind == kindNull {
			return nil, errorAt(v, "server %q: %s.%s must be a string, not %s", name, field, m.key, v.kind)
		}
		if m.key == "" || strings.ContainsAny(m.key, "=\x00") {
			return nil, errorAt(v, "server %q: %s has a bad name %q", name, field, m.key)
		}
		out = append(out, Var{Name: m.key, Value: v.text})
	}
	return out, nil
}

// timeoutOf reads a timeout as --timeout does (duration.Parse): a Go
// duration ("30s", "2m") or a number of seconds, written as a number or as
// a string.
func timeoutOf(name string, n *node) (time.Duration, error) {
	if n.kind != kindNumber && n.kind != kindString {
		return 0, errorAt(n, "server %q: timeout must be a duration such as \"30s\" or a number of seconds, not %s", name, n.kind)
	}
	d, err := duration.Parse(n.text)
	if err != nil {
		return 0, errorAt(n, "server %q: timeout %v", name, err)
	}
	return d, nil
}
